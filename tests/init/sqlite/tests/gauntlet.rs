//! Every promise of `my_shop.yaml`, checked against `Inventory`: the gauntlet build.rs
//! generated, one `#[test]` per check (`cargo test`; `cargo test gauntlet::my_shop_search_items`
//! runs one tool's). Each check gets a fresh in-memory database holding the starter items
//! the spec's examples refer to (three mugs, I-1 with 12 in stock, no I-999).

use my_shop::Inventory;
use my_shop::my_shop::MyShopServer;
use toolspec_runtime::engine::Runtime;

include!(concat!(env!("OUT_DIR"), "/my_shop_gauntlet.rs"));

/// The inventory on a fresh database, served with the gauntlet's runtime (its clock, which
/// the TTL checks move, and its counts) moved onto the inventory's own SQLite store, so
/// every write's unit of work is a transaction there, as in the server.
fn fixture(runtime: Runtime) -> MyShopServer<Inventory> {
    let inventory = Inventory::open(":memory:".as_ref()).expect("an in-memory database opens");
    let store = inventory.store().expect("the runtime's tables are made");
    MyShopServer::new(inventory, runtime.with_store(store))
}

my_shop_gauntlet!(fixture);
