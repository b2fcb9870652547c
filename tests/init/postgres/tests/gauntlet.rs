//! Every promise of `my_shop.yaml`, checked against `Inventory`: the gauntlet build.rs
//! generated, one `#[test]` per check (`cargo test`; `cargo test gauntlet::my_shop_search_items`
//! runs one tool's). Each check gets a fresh schema of the database named by
//! `TOOLSPEC_POSTGRES_URL` or `DATABASE_URL`, holding the starter items the spec's examples
//! refer to (three mugs, I-1 with 12 in stock, no I-999).

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use my_shop::Inventory;
use my_shop::my_shop::MyShopServer;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::prelude::PostgresStore;

include!(concat!(env!("OUT_DIR"), "/my_shop_gauntlet.rs"));

/// The database the checks run in: a test without one fails, saying how to give it.
fn database_url() -> String {
    ["TOOLSPEC_POSTGRES_URL", "DATABASE_URL"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|url| !url.is_empty()))
        .expect("the gauntlet needs PostgreSQL: set DATABASE_URL=postgres://USER@HOST:PORT/DB")
}

/// The inventory in a fresh schema, served with the gauntlet's runtime (its clock, which the
/// TTL checks move, and its counts) moved onto the inventory's own store, so every write's
/// unit of work is a transaction there, as in the server.
async fn fixture(runtime: Runtime) -> MyShopServer<Inventory> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let schema = format!(
        "gauntlet_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    );
    let store = PostgresStore::new(&database_url(), Some(&schema)).expect("a store on the URL");
    let inventory = Inventory::open(store).await.expect("the tables are made");
    let store = inventory.store().expect("the runtime's records");
    MyShopServer::new(inventory, runtime.with_store(store))
}

/// Runs every call of every check on one tokio runtime, which outlives the connection
/// pools (a PostgreSQL connection lives on the runtime that opened it).
fn on_tokio(check: Pin<Box<dyn Future<Output = ()> + '_>>) {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a tokio runtime")
        })
        .block_on(check)
}

my_shop_gauntlet!(async fixture, executor = on_tokio);
