//! {{crate}}: the tools of `{{service}}.yaml`, on PostgreSQL.
//!
//! The generated module [`{{service}}`] does everything the spec promises an agent: it
//! validates every call, pages, replays retried writes, keeps previews and asks for
//! approval. This file only stores and reads items. The items and the runtime's records
//! (idempotency keys, previews, approvals) live in one PostgreSQL database, shared by every
//! replica of the server, and each write commits together with its records in one
//! transaction: a crash never leaves half a call behind.

use std::sync::Arc;

use toolspec_runtime::prelude::*;
use toolspec_runtime::tokio_postgres;

/// The code toolspec generated from `{{service}}.yaml` (by build.rs, into `OUT_DIR`).
#[allow(missing_docs)]
pub mod {{service}} {
    include!(concat!(env!("OUT_DIR"), "/{{service}}.rs"));
}

// The types of every tool (`<Tool>Input`, `<Tool>Output`, the preview), the error catalog
// (`{{Service}}Error`), the trait to implement and the server.
use {{service}}::*;

/// The starter's items, put in an empty database so there is something to search.
const STARTER_ITEMS: [(i64, &str, i64); 5] = [
    (1, "blue mug", 12),
    (2, "green teapot", 4),
    (3, "red mug", 7),
    (4, "white mug", 30),
    (5, "teaspoon", 100),
];

/// The inventory: reads items through the store's pool of connections, and writes them
/// through each call's unit of work.
pub struct Inventory {
    store: PostgresStore,
}

/// Connects to the database at `url` (`postgres://USER@HOST:PORT/DB`), with the tables in
/// `schema` when given (made if missing; else the user's default schema), and returns the
/// server, ready to serve.
pub async fn open(
    url: &str,
    schema: Option<&str>,
) -> Result<{{Service}}Server<Inventory>, Box<dyn std::error::Error>> {
    let inventory = Inventory::open(PostgresStore::new(url, schema)?).await?;
    // The runtime keeps its records in the same database, and the key that signs paging
    // cursors too, so that every replica accepts the cursors of every other.
    let runtime = Runtime::open(inventory.store()?).await?;
    Ok({{Service}}Server::new(inventory, runtime))
}

impl Inventory {
    /// The inventory in `store`'s database: creates its table, and the starter items if it
    /// has none.
    pub async fn open(store: PostgresStore) -> Result<Inventory, Box<dyn std::error::Error>> {
        let mut client = store.client().await?;
        let tx = client.transaction().await?;
        // Replicas starting together take turns here instead of racing.
        tx.execute("SELECT pg_advisory_xact_lock(7001)", &[])
            .await?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS items (
                 num BIGINT PRIMARY KEY,
                 name TEXT NOT NULL,
                 quantity BIGINT NOT NULL
             )",
        )
        .await?;
        let count: i64 = tx
            .query_one("SELECT COUNT(*) FROM items", &[])
            .await?
            .get(0);
        if count == 0 {
            for (num, name, quantity) in STARTER_ITEMS {
                tx.execute(
                    "INSERT INTO items (num, name, quantity) VALUES ($1, $2, $3)",
                    &[&num, &name, &quantity],
                )
                .await?;
            }
        }
        tx.commit().await?;
        drop(client);
        Ok(Inventory { store })
    }

    /// The runtime's records in this inventory's database, so that a write's unit of work
    /// is a transaction there (the gauntlet's fixture moves its runtime onto it).
    pub fn store(&self) -> Result<Arc<dyn Store>, Box<dyn std::error::Error>> {
        Ok(Arc::new(self.store.clone()))
    }
}

/// An item's number from its id (`I-12` is 12).
fn item_num(id: &str) -> Option<i64> {
    id.strip_prefix("I-")?.parse().ok()
}

/// An item from a row of `SELECT num, name, quantity`.
fn item(r: &tokio_postgres::Row) -> Item {
    Item {
        item_id: format!("I-{}", r.get::<_, i64>(0)),
        name: r.get(1),
        quantity: from_sql_int(r.get(2)),
    }
}

/// Counts are `u64` in Rust (the spec says quantities are never negative) and `BIGINT` in
/// SQL; the spec bounds quantities to a million and pages to 50, so they fit either way.
fn from_sql_int(q: i64) -> u64 {
    u64::try_from(q).unwrap_or(0)
}

fn to_sql_int(q: u64) -> i64 {
    i64::try_from(q).unwrap_or(i64::MAX)
}

fn not_found(item_id: &str) -> ToolError {
    {{Service}}Error::NotFound {
        item_id: item_id.to_owned(),
    }
    .into()
}

impl {{Service}}Tools for Inventory {
    async fn {{service}}_search_items(
        &self,
        input: {{Service}}SearchItemsInput,
        window: Window,
    ) -> Result<Page<{{Service}}SearchItemsOutput>, ToolError> {
        // Keyset paging: this page starts after the last item of the previous page, by
        // number (`window.after()` holds its `item_id`; `None` on the first page).
        let after = window
            .after()
            .and_then(|key| key.first())
            .and_then(|id| id.as_str())
            .and_then(item_num)
            .unwrap_or(0);
        // A read: a pooled connection of its own, outside any unit of work.
        let client = self.store.client().await?;
        let matches = "strpos(lower(name), lower($1)) > 0";
        let total: i64 = client
            .query_one(
                &format!("SELECT COUNT(*) FROM items WHERE {matches}"),
                &[&input.query],
            )
            .await?
            .get(0);
        // One more than the page holds, to know whether another page follows.
        let limit = to_sql_int(window.limit.saturating_add(1));
        let rows = client
            .query(
                &format!(
                    "SELECT num, name, quantity FROM items
                     WHERE {matches} AND num > $2 ORDER BY num LIMIT $3"
                ),
                &[&input.query, &after, &limit],
            )
            .await?;
        let mut items: Vec<Item> = rows.iter().map(item).collect();
        let more = items.len() > window.take();
        items.truncate(window.take());
        let total = u64::try_from(total).unwrap_or(0);
        Ok(Page::new({{Service}}SearchItemsOutput { items }, total).with_more(more))
    }

    async fn {{service}}_update_quantity(
        &self,
        input: {{Service}}UpdateQuantityInput,
        work: Work,
    ) -> Result<{{Service}}UpdateQuantityOutput, ToolError> {
        let num = item_num(&input.item_id).ok_or_else(|| not_found(&input.item_id))?;
        // Read and write in the call's transaction, the row locked first: the
        // `previous_quantity`, and so the undo call the agent gets, is the quantity this
        // change really replaced, whatever other replicas do meanwhile.
        let db = work.postgres()?;
        let before = db
            .query_opt(
                "SELECT num, name, quantity FROM items WHERE num = $1 FOR UPDATE",
                &[&num],
            )
            .await?
            .as_ref()
            .map(item)
            .ok_or_else(|| not_found(&input.item_id))?;
        db.execute(
            "UPDATE items SET quantity = $1 WHERE num = $2",
            &[&to_sql_int(input.quantity), &num],
        )
        .await?;
        Ok({{Service}}UpdateQuantityOutput {
            previous_quantity: before.quantity,
            item: Item {
                quantity: input.quantity,
                ..before
            },
        })
    }

    async fn preview_{{service}}_remove_item(
        &self,
        input: {{Service}}RemoveItemInput,
    ) -> Result<{{Service}}RemoveItemPreview, ToolError> {
        // A preview changes nothing: it says what applying would do, for the person who
        // approves it.
        let num = item_num(&input.item_id).ok_or_else(|| not_found(&input.item_id))?;
        let client = self.store.client().await?;
        let found = client
            .query_opt(
                "SELECT num, name, quantity FROM items WHERE num = $1",
                &[&num],
            )
            .await?
            .as_ref()
            .map(item)
            .ok_or_else(|| not_found(&input.item_id))?;
        Ok({{Service}}RemoveItemPreview {
            summary: Some(format!(
                "Remove {} ({}) and its {} in stock, for good.",
                found.name, found.item_id, found.quantity
            )),
            name: found.name,
            quantity: found.quantity,
        })
    }

    async fn {{service}}_remove_item(
        &self,
        input: {{Service}}RemoveItemInput,
        _preview: {{Service}}RemoveItemPreview,
        work: Work,
    ) -> Result<{{Service}}RemoveItemOutput, ToolError> {
        // Called only once the preview was approved; the delete commits with the call's
        // records and the preview's consumption, so it happens at most once.
        let num = item_num(&input.item_id).ok_or_else(|| not_found(&input.item_id))?;
        let db = work.postgres()?;
        let removed = db
            .query_opt(
                "DELETE FROM items WHERE num = $1 RETURNING num, name, quantity",
                &[&num],
            )
            .await?;
        // None: someone removed it between the preview and its approval.
        let item = removed
            .as_ref()
            .map(item)
            .ok_or_else(|| not_found(&input.item_id))?;
        Ok({{Service}}RemoveItemOutput { item })
    }
}
