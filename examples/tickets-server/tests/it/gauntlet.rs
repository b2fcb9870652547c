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

/// The gauntlet catches a server that does not keep its stated rate limit: the same desk
/// with rate-limit records of someone's own that admit every call (as a store written
/// before rate limits would), so the description promises what the server does not do.
/// Only that one concern is set apart; keys, leases and their renewal, previews and the
/// outbox stay the desk's.
mod a_limit_not_kept {
    use super::*;
    use std::sync::Arc;
    use toolspec_runtime::engine::BoxFuture;
    use toolspec_runtime::gauntlet::{Fixture, Gauntlet};
    use toolspec_runtime::store::{Admission, Purged, RateLimit, RateStore, StoreError};

    // ANCHOR: rate_store
    /// Admits every call.
    struct Unlimited;

    impl RateStore for Unlimited {
        fn admit<'a>(
            &'a self,
            _: &'a RateLimit,
            _: &'a str,
            _: i64,
        ) -> BoxFuture<'a, Result<Admission, StoreError>> {
            Box::pin(async { Ok(Admission::Admitted) })
        }
        fn purge_counters(&self, _: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
            Box::pin(async { Ok(Purged::default()) })
        }
    }
    // ANCHOR_END: rate_store

    #[test]
    fn is_caught_for_each_limited_tool() {
        let fixture = |runtime: Runtime| {
            let desk = Desk::open(Path::new(":memory:"), true).expect("the demo database opens");
            let store = desk.store().expect("the runtime's tables are created");
            TicketsServer::new(
                desk,
                runtime
                    .with_store(store)
                    .with_rate_store(Arc::new(Unlimited)),
            )
        };
        let gauntlet = Gauntlet::new(&TICKETS_GAUNTLET, Fixture::new(fixture));
        let limited: Vec<&str> = TICKETS_GAUNTLET
            .checks
            .iter()
            .filter(|c| {
                c.name
                    .ends_with("::a_caller_past_its_rate_limit_waits_as_told")
            })
            .map(|c| c.name)
            .collect();
        assert_eq!(
            limited.len(),
            tickets_server::tickets::DEFINITIONS.len(),
            "every tickets tool has a limit: {limited:?}"
        );
        for check in limited {
            let failure = gauntlet.run(check).expect_err(check);
            let text = failure.to_string();
            assert!(text.contains("error `rate_limited`"), "{check}: {text}");
        }
    }
}

/// A fixture that forgets to move the runtime onto the desk's database: every write check
/// fails, and each failure names the call that fixes the fixture (not "see the incident on
/// stderr").
#[test]
fn a_fixture_not_on_the_desks_store_fails_with_the_fix_named() {
    use toolspec_runtime::gauntlet::{Fixture, Gauntlet};
    let unwired = |runtime: Runtime| {
        let desk = Desk::open(Path::new(":memory:"), true).expect("the demo database opens");
        TicketsServer::new(desk, runtime)
    };
    let report = Gauntlet::new(&TICKETS_GAUNTLET, Fixture::new(unwired)).run_all();
    let failure = report
        .failure("tickets_update_status::undo_restores_the_prior_state")
        .expect("a write cannot run on a unit of work of another store")
        .to_string();
    assert!(
        failure.contains("runtime.with_store(Arc::new(SqliteStore::new(db)?))"),
        "{failure}"
    );
    // The reads do not write, and pass as they are.
    assert!(
        report
            .failure("tickets_search::pagination_walks_every_item_once")
            .is_none(),
        "{report}"
    );
}
