//! my-shop: the tools of `my_shop.yaml`, on SQLite.
//!
//! The generated module [`my_shop`] does everything the spec promises an agent: it
//! validates every call, pages, replays retried writes, keeps previews and asks for
//! approval. This file only stores and reads items. The items and the runtime's records
//! (idempotency keys, previews, approvals) live in one SQLite file, and each write commits
//! together with its records in one transaction: a crash never leaves half a call behind.

use std::path::Path;
use std::sync::Arc;

use toolspec_runtime::prelude::*;
use toolspec_runtime::rusqlite::{self, OptionalExtension, params};

/// The code toolspec generated from `my_shop.yaml` (by build.rs, into `OUT_DIR`).
#[allow(missing_docs)]
pub mod my_shop {
    include!(concat!(env!("OUT_DIR"), "/my_shop.rs"));
}

// The types of every tool (`<Tool>Input`, `<Tool>Output`, the preview), the error catalog
// (`MyShopError`), the trait to implement and the server.
use my_shop::*;

/// The starter's items, put in an empty database so there is something to search.
const STARTER_ITEMS: [(i64, &str, i64); 5] = [
    (1, "blue mug", 12),
    (2, "green teapot", 4),
    (3, "red mug", 7),
    (4, "white mug", 30),
    (5, "teaspoon", 100),
];

/// The inventory: reads items from the database the runtime keeps its records in, and
/// writes them through each call's unit of work.
pub struct Inventory {
    db: Database,
}

/// Opens (or creates) the SQLite file at `path` and returns the server, ready to serve.
pub async fn open(path: &Path) -> Result<MyShopServer<Inventory>, Box<dyn std::error::Error>> {
    let inventory = Inventory::open(path)?;
    // The runtime keeps its records in the same file, and the key that signs paging
    // cursors too, so a cursor handed out before a restart is still accepted after it.
    let runtime = Runtime::open(inventory.store()?).await?;
    Ok(MyShopServer::new(inventory, runtime))
}

impl Inventory {
    /// The inventory in the SQLite file at `path` (`":memory:"` for a private in-memory
    /// one, as the tests use): creates its tables, and the starter items if it has none.
    pub fn open(path: &Path) -> Result<Inventory, Box<dyn std::error::Error>> {
        let db = Database::open(path)?;
        db.try_lock()?.execute_batch(
            "CREATE TABLE IF NOT EXISTS items (
                 num INTEGER PRIMARY KEY,
                 name TEXT NOT NULL,
                 quantity INTEGER NOT NULL
             );",
        )?;
        {
            let c = db.try_lock()?;
            let count: i64 = c.query_row("SELECT COUNT(*) FROM items", [], |r| r.get(0))?;
            if count == 0 {
                for (num, name, quantity) in STARTER_ITEMS {
                    c.execute(
                        "INSERT INTO items (num, name, quantity) VALUES (?1, ?2, ?3)",
                        params![num, name, quantity],
                    )?;
                }
            }
        }
        Ok(Inventory { db })
    }

    /// The runtime's records in this inventory's file, so that a write's unit of work is a
    /// transaction there (the gauntlet's fixture moves its runtime onto it).
    pub fn store(&self) -> Result<Arc<dyn Store>, Box<dyn std::error::Error>> {
        Ok(Arc::new(SqliteStore::new(self.db.clone())?))
    }
}

/// An item's number from its id (`I-12` is 12).
fn item_num(id: &str) -> Option<i64> {
    id.strip_prefix("I-")?.parse().ok()
}

/// An item from a row of `SELECT num, name, quantity`.
fn item(r: &rusqlite::Row<'_>) -> rusqlite::Result<Item> {
    Ok(Item {
        item_id: format!("I-{}", r.get::<_, i64>(0)?),
        name: r.get(1)?,
        quantity: from_sql_int(r.get(2)?),
    })
}

/// Counts are `u64` in Rust (the spec says quantities are never negative) and `INTEGER` in
/// SQL; the spec bounds quantities to a million and pages to 50, so they fit either way.
fn from_sql_int(q: i64) -> u64 {
    u64::try_from(q).unwrap_or(0)
}

fn to_sql_int(q: u64) -> i64 {
    i64::try_from(q).unwrap_or(i64::MAX)
}

fn not_found(item_id: &str) -> ToolError {
    MyShopError::NotFound {
        item_id: item_id.to_owned(),
    }
    .into()
}

impl MyShopTools for Inventory {
    async fn my_shop_search_items(
        &self,
        input: MyShopSearchItemsInput,
        window: Window,
    ) -> Result<Page<MyShopSearchItemsOutput>, ToolError> {
        // Keyset paging: this page starts after the last item of the previous page, by
        // number (`window.after()` holds its `item_id`; `None` on the first page).
        let after = window
            .after()
            .and_then(|key| key.first())
            .and_then(|id| id.as_str())
            .and_then(item_num)
            .unwrap_or(0);
        // A read: lock the connection here. Not in a write method, which reads and writes
        // through its `work` (its unit of work holds the connection: the lock is refused
        // there). `?` makes a failed statement an `internal_error`, details to the log.
        let c = self.db.lock().await?;
        let matches = "instr(lower(name), lower(?1)) > 0";
        let total: i64 = c.query_row(
            &format!("SELECT COUNT(*) FROM items WHERE {matches}"),
            [&input.query],
            |r| r.get(0),
        )?;
        // One more than the page holds, to know whether another page follows.
        let mut stmt = c.prepare(&format!(
            "SELECT num, name, quantity FROM items
             WHERE {matches} AND num > ?2 ORDER BY num LIMIT ?3"
        ))?;
        let mut items = stmt
            .query_map(
                params![
                    input.query,
                    after,
                    to_sql_int(window.limit.saturating_add(1))
                ],
                item,
            )?
            .collect::<Result<Vec<Item>, _>>()?;
        let more = items.len() > window.take();
        items.truncate(window.take());
        let total = u64::try_from(total).unwrap_or(0);
        Ok(Page::new(MyShopSearchItemsOutput { items }, total).with_more(more))
    }

    async fn my_shop_update_quantity(
        &self,
        input: MyShopUpdateQuantityInput,
        work: Work,
    ) -> Result<MyShopUpdateQuantityOutput, ToolError> {
        let num = item_num(&input.item_id).ok_or_else(|| not_found(&input.item_id))?;
        // Read and write in the call's transaction: `previous_quantity`, and so the undo
        // call the agent gets, is the quantity this change really replaced. The closure
        // returns the toolset's errors with `?`, and any error rolls the change back.
        let before = work.sqlite(|c| {
            let before = c
                .query_row(
                    "SELECT num, name, quantity FROM items WHERE num = ?1",
                    [num],
                    item,
                )
                .optional()?
                .ok_or_else(|| not_found(&input.item_id))?;
            c.execute(
                "UPDATE items SET quantity = ?1 WHERE num = ?2",
                params![to_sql_int(input.quantity), num],
            )?;
            Ok(before)
        })?;
        Ok(MyShopUpdateQuantityOutput {
            previous_quantity: before.quantity,
            item: Item {
                quantity: input.quantity,
                ..before
            },
        })
    }

    async fn preview_my_shop_remove_item(
        &self,
        input: MyShopRemoveItemInput,
    ) -> Result<MyShopRemoveItemPreview, ToolError> {
        // A preview changes nothing: it says what applying would do, for the person who
        // approves it.
        let num = item_num(&input.item_id).ok_or_else(|| not_found(&input.item_id))?;
        let c = self.db.lock().await?;
        let found = c
            .query_row(
                "SELECT num, name, quantity FROM items WHERE num = ?1",
                [num],
                item,
            )
            .optional()?
            .ok_or_else(|| not_found(&input.item_id))?;
        Ok(MyShopRemoveItemPreview {
            summary: Some(format!(
                "Remove {} ({}) and its {} in stock, for good.",
                found.name, found.item_id, found.quantity
            )),
            name: found.name,
            quantity: found.quantity,
        })
    }

    async fn my_shop_remove_item(
        &self,
        input: MyShopRemoveItemInput,
        _preview: MyShopRemoveItemPreview,
        work: Work,
    ) -> Result<MyShopRemoveItemOutput, ToolError> {
        // Called only once the preview was approved; the delete commits with the call's
        // records and the preview's consumption, so it happens at most once.
        let num = item_num(&input.item_id).ok_or_else(|| not_found(&input.item_id))?;
        let item = work.sqlite(|c| {
            // None: someone removed it between the preview and its approval.
            Ok(c.query_row(
                "DELETE FROM items WHERE num = ?1 RETURNING num, name, quantity",
                [num],
                item,
            )
            .optional()?
            .ok_or_else(|| not_found(&input.item_id))?)
        })?;
        Ok(MyShopRemoveItemOutput { item })
    }
}
