//! The tickets example held to its spec: the gauntlet generated from `specs/tickets.yaml`
//! (written to `OUT_DIR` by build.rs), run against the SQLite desk the server uses, one
//! `#[test]` per promise. Each check gets a fresh in-memory database (the same schema and
//! SQL as the file the server opens) seeded with the demo tickets the spec's examples refer
//! to: 15 open tickets about "login", T-1001 open, no T-9999. The gauntlet's runtime is
//! moved onto that database, so every write's unit of work is a transaction there, as in
//! the server.

use std::path::Path;

use tickets_server::Desk;
use tickets_server::tickets::TicketsServer;
use toolspec_runtime::engine::Runtime;

include!(concat!(env!("OUT_DIR"), "/tickets_gauntlet.rs"));

/// The desk on a fresh demo database, served with the gauntlet's runtime (its clock, which
/// the TTL checks move, and its counts) on the desk's own store.
fn fixture(runtime: Runtime) -> TicketsServer<Desk> {
    let desk = Desk::open(Path::new(":memory:"), true).expect("the demo database opens");
    let store = desk.store().expect("the runtime's tables are created");
    TicketsServer::new(desk, runtime.with_store(store))
}

tickets_gauntlet!(fixture);
