//! my-shop: the tools of `my_shop.yaml`, in process memory.
//!
//! The generated module [`my_shop`] does everything the spec promises an agent: it
//! validates every call, pages, replays retried writes, keeps previews and asks for
//! approval. This file only stores and reads items. Everything, items and the runtime's
//! records alike, lives in this process and is gone when it stops: good for trying the
//! tools out. `toolspec init --store sqlite` or `--store postgres` makes a crate that keeps
//! them.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use toolspec_runtime::prelude::*;

/// The code toolspec generated from `my_shop.yaml` (by build.rs, into `OUT_DIR`).
#[allow(missing_docs)]
pub mod my_shop {
    include!(concat!(env!("OUT_DIR"), "/my_shop.rs"));
}

// The types of every tool (`<Tool>Input`, `<Tool>Output`, the preview), the error catalog
// (`MyShopError`), the trait to implement and the server.
use my_shop::*;

/// The starter's items, so there is something to search.
const STARTER_ITEMS: [(u64, &str, u64); 5] = [
    (1, "blue mug", 12),
    (2, "green teapot", 4),
    (3, "red mug", 7),
    (4, "white mug", 30),
    (5, "teaspoon", 100),
];

/// The inventory: items by number. Shared (`Arc`) so that a change can be handed to
/// `work.on_commit`, which runs it after the call's records committed.
pub struct Inventory {
    items: Arc<Mutex<BTreeMap<u64, Item>>>,
}

/// The server on a fresh inventory holding the starter items, ready to serve.
pub fn open() -> Result<MyShopServer<Inventory>, Box<dyn std::error::Error>> {
    // The runtime's records in memory too, and a cursor key made for this process.
    Ok(MyShopServer::in_memory(Inventory::with_starter_items())?)
}

impl Inventory {
    /// An inventory holding the starter items.
    pub fn with_starter_items() -> Inventory {
        let items = STARTER_ITEMS
            .iter()
            .map(|&(num, name, quantity)| {
                let item_id = format!("I-{num}");
                let name = name.to_owned();
                (
                    num,
                    Item {
                        item_id,
                        name,
                        quantity,
                    },
                )
            })
            .collect();
        Inventory {
            items: Arc::new(Mutex::new(items)),
        }
    }

    /// The items, to read (held only briefly: never across an `.await`).
    fn items(&self) -> MutexGuard<'_, BTreeMap<u64, Item>> {
        // A panic while holding the lock left the map whole: keep using it.
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// An item's number from its id (`I-12` is 12).
fn item_num(id: &str) -> Option<u64> {
    id.strip_prefix("I-")?.parse().ok()
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
        let query = input.query.to_lowercase();
        // Keyset paging: this page starts after the last item of the previous page, by
        // number (`window.after()` holds its `item_id`; `None` on the first page).
        let after = window
            .after()
            .and_then(|key| key.first())
            .and_then(|id| id.as_str())
            .and_then(item_num)
            .unwrap_or(0);
        let items = self.items();
        let matching = || {
            items
                .values()
                .filter(|item| item.name.to_lowercase().contains(&query))
        };
        let total = matching().count() as u64;
        let mut rest = matching().filter(|item| item_num(&item.item_id).unwrap_or(0) > after);
        let page: Vec<Item> = rest.by_ref().take(window.take()).cloned().collect();
        let more = rest.next().is_some();
        Ok(Page::new(MyShopSearchItemsOutput { items: page }, total).with_more(more))
    }

    async fn my_shop_update_quantity(
        &self,
        input: MyShopUpdateQuantityInput,
        work: Work,
    ) -> Result<MyShopUpdateQuantityOutput, ToolError> {
        let num = item_num(&input.item_id).ok_or_else(|| not_found(&input.item_id))?;
        let before = self
            .items()
            .get(&num)
            .cloned()
            .ok_or_else(|| not_found(&input.item_id))?;
        // The change happens once the call's records committed, and never if they do not
        // (a retry answered from the record changes nothing).
        let (items, quantity) = (Arc::clone(&self.items), input.quantity);
        work.on_commit(move || {
            let mut items = items.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(item) = items.get_mut(&num) {
                item.quantity = quantity;
            }
        });
        // Memory has no transaction: two changes of one item at the same moment could both
        // report the same `previous_quantity`. SQLite and PostgreSQL read it in the write's
        // transaction, so there it is always the quantity the change replaced.
        Ok(MyShopUpdateQuantityOutput {
            previous_quantity: before.quantity,
            item: Item { quantity, ..before },
        })
    }

    async fn preview_my_shop_remove_item(
        &self,
        input: MyShopRemoveItemInput,
    ) -> Result<MyShopRemoveItemPreview, ToolError> {
        // A preview changes nothing: it says what applying would do, for the person who
        // approves it.
        let num = item_num(&input.item_id).ok_or_else(|| not_found(&input.item_id))?;
        let found = self
            .items()
            .get(&num)
            .cloned()
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
        // Called only once the preview was approved, at most once per preview.
        let num = item_num(&input.item_id).ok_or_else(|| not_found(&input.item_id))?;
        // Not there any more: someone removed it between the preview and its approval.
        let item = self
            .items()
            .get(&num)
            .cloned()
            .ok_or_else(|| not_found(&input.item_id))?;
        let items = Arc::clone(&self.items);
        work.on_commit(move || {
            items.lock().unwrap_or_else(|p| p.into_inner()).remove(&num);
        });
        Ok(MyShopRemoveItemOutput { item })
    }
}
