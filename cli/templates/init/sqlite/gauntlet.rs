//! Every promise of `{{service}}.yaml`, checked against `Inventory`: the gauntlet build.rs
//! generated, one `#[test]` per check (`cargo test`; `cargo test gauntlet::{{service}}_search_items`
//! runs one tool's). Each check gets a fresh in-memory database holding the starter items
//! the spec's examples refer to (three mugs, I-1 with 12 in stock, no I-999).

use {{crate_ident}}::Inventory;
use {{crate_ident}}::{{service}}::{{Service}}Server;
use toolspec_runtime::engine::Runtime;

include!(concat!(env!("OUT_DIR"), "/{{service}}_gauntlet.rs"));

/// The inventory on a fresh database, served with the gauntlet's runtime (its clock, which
/// the TTL checks move, and its counts) moved onto the inventory's own SQLite store, so
/// every write's unit of work is a transaction there, as in the server.
fn fixture(runtime: Runtime) -> {{Service}}Server<Inventory> {
    let inventory = Inventory::open(":memory:".as_ref()).expect("an in-memory database opens");
    let store = inventory.store().expect("the runtime's tables are made");
    {{Service}}Server::new(inventory, runtime.with_store(store))
}

{{service}}_gauntlet!(fixture);
