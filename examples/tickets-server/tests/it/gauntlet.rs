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

/// The same gauntlet on PostgreSQL: the desk's tables and the runtime's records in a fresh
/// schema of the server `TOOLSPEC_POSTGRES_URL` names (scripts/test starts one and requires
/// it). Without a server, and without `TOOLSPEC_REQUIRE_POSTGRES=1`, these run on SQLite.
mod on_postgres {
    use super::*;
    use toolspec_runtime::store::PostgresStore;

    async fn fixture(runtime: Runtime) -> TicketsServer<Desk> {
        let url = std::env::var("TOOLSPEC_POSTGRES_URL")
            .ok()
            .filter(|u| !u.is_empty());
        let Some(url) = url else {
            assert!(
                std::env::var("TOOLSPEC_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                "TOOLSPEC_REQUIRE_POSTGRES=1 but TOOLSPEC_POSTGRES_URL is not set"
            );
            return super::fixture(runtime);
        };
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let schema = format!(
            "g_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let store = PostgresStore::new(&url, Some(&schema)).expect("store");
        let desk = Desk::on_postgres(store, true)
            .await
            .expect("the demo tables are made");
        let store = desk.store().expect("the runtime's records");
        TicketsServer::new(desk, runtime.with_store(store))
    }

    /// PostgreSQL's connections live on the tokio runtime that opened them: every call of
    /// every check runs on one runtime, which outlives the pools.
    fn on_tokio(f: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + '_>>) {
        static RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
        RUNTIME
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("a tokio runtime")
            })
            .block_on(f)
    }

    tickets_gauntlet!(async fixture, executor = on_tokio);
}
