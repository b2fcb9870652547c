//! Every promise of `my_shop.yaml`, checked against `Inventory`: the gauntlet build.rs
//! generated, one `#[test]` per check (`cargo test`; `cargo test gauntlet::my_shop_search_items`
//! runs one tool's). Each check gets a fresh inventory holding the starter items the spec's
//! examples refer to (three mugs, I-1 with 12 in stock, no I-999).

use my_shop::Inventory;
use my_shop::my_shop::MyShopServer;
use toolspec_runtime::engine::Runtime;

include!(concat!(env!("OUT_DIR"), "/my_shop_gauntlet.rs"));

/// A fresh inventory, served with the gauntlet's runtime (in memory, with the clock the
/// TTL checks move).
fn fixture(runtime: Runtime) -> MyShopServer<Inventory> {
    MyShopServer::new(Inventory::with_starter_items(), runtime)
}

my_shop_gauntlet!(fixture);
