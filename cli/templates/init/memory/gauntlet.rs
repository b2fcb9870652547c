//! Every promise of `{{service}}.yaml`, checked against `Inventory`: the gauntlet build.rs
//! generated, one `#[test]` per check (`cargo test`; `cargo test gauntlet::{{service}}_search_items`
//! runs one tool's). Each check gets a fresh inventory holding the starter items the spec's
//! examples refer to (three mugs, I-1 with 12 in stock, no I-999).

use {{crate_ident}}::Inventory;
use {{crate_ident}}::{{service}}::{{Service}}Server;
use toolspec_runtime::engine::Runtime;

include!(concat!(env!("OUT_DIR"), "/{{service}}_gauntlet.rs"));

/// A fresh inventory, served with the gauntlet's runtime (in memory, with the clock the
/// TTL checks move).
fn fixture(runtime: Runtime) -> {{Service}}Server<Inventory> {
    {{Service}}Server::new(Inventory::with_starter_items(), runtime)
}

{{service}}_gauntlet!(fixture);
