//! The tickets example held to its spec: the gauntlet generated from `specs/tickets.yaml`
//! (written to `OUT_DIR` by build.rs), run against the SQLite desk the server uses, one
//! `#[test]` per promise. Each check gets a fresh in-memory database (the same schema and
//! SQL as the file the server opens) seeded with the demo tickets the spec's examples refer
//! to: 15 open tickets about "login", T-1001 open, no T-9999.

use std::path::Path;

use tickets_server::Desk;
use tickets_server::tickets::TicketsServer;
use toolspec_runtime::engine::Runtime;

include!(concat!(env!("OUT_DIR"), "/tickets_gauntlet.rs"));

/// The desk on a fresh demo database, served with the gauntlet's runtime (its stores and
/// its manual clock, which the TTL checks move).
fn fixture(runtime: Runtime) -> TicketsServer<Desk> {
    let desk = Desk::open(Path::new(":memory:"), true).expect("the demo database opens");
    TicketsServer::new(desk, runtime)
}

tickets_gauntlet!(fixture);
