//! Leases that follow the call: a write whose method runs longer than its lease keeps its
//! key (renewed while it runs) and commits once; a retry meanwhile hears "in progress"
//! instead of taking the key over; on every store kind, on the real clock.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use common::*;
use serde_json::json;
use toolspec_runtime::clock::SystemClock;
use toolspec_runtime::engine::{BoxFuture, Runtime};
use toolspec_runtime::store::{Admission, Purged, RateLimit, RateStore, StoreError};

const DAY: Duration = Duration::from_secs(86_400);
const LEASE: Duration = Duration::from_millis(300);

async fn slow_write(rt: &Runtime, runs: &AtomicU32, takes: Duration) -> serde_json::Value {
    match rt
        .idempotent(
            "orders_export",
            Some("k-slow"),
            "fp",
            DAY,
            |_work| async move {
                runs.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(takes).await;
                Ok(json!({"rows": 3}))
            },
        )
        .await
    {
        Ok(v) => v,
        Err(e) => json!({"error": e.code}),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_slower_than_its_lease_keeps_its_key_and_commits_once() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        slower_than_its_lease(rt, kind).await;
    }
}

/// Rate-limit records of someone's own, set apart from the store in a few lines: every call
/// admitted.
struct AdmitAll;

impl RateStore for AdmitAll {
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

/// A store that changes one concern sets that concern's trait apart and keeps every other,
/// lease renewal among them: no method of the store is forwarded by hand, so none is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_with_its_rate_records_set_apart_still_renews_leases() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        slower_than_its_lease(rt.with_rate_store(Arc::new(AdmitAll)), kind).await;
    }
}

/// A write whose method takes six leases, retried after two: the retry hears "in progress"
/// (the running call's lease was renewed) and the write commits once.
async fn slower_than_its_lease(rt: Runtime, kind: Kind) {
    let rt = rt.with_clock(Arc::new(SystemClock)).with_lease(LEASE);
    let runs = Arc::new(AtomicU32::new(0));
    let first = {
        let (rt, runs) = (rt.clone(), runs.clone());
        tokio::spawn(async move { slow_write(&rt, &runs, LEASE * 6).await })
    };
    tokio::time::sleep(LEASE * 2).await;
    let retry = slow_write(&rt, &runs, Duration::ZERO).await;
    let done = first.await.expect("first call");
    // The retry must not take over a key whose call still runs: it hears "in progress"
    // (or, on SQLite, whose one connection the running write holds, it waits for that
    // commit and is its replay).
    assert!(
        retry["error"] == "idempotency_in_progress"
            || (retry["replayed"] == true && retry["rows"] == 3),
        "{kind:?}: {retry}"
    );
    assert_eq!(done["rows"], 3, "{kind:?}: the slow write commits: {done}");
    assert_eq!(done["replayed"], false);
    let again = slow_write(&rt, &runs, Duration::ZERO).await;
    assert_eq!(again["replayed"], true, "{kind:?}: {again}");
    assert_eq!(runs.load(Ordering::SeqCst), 1, "{kind:?}: one run in all");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_whose_call_stopped_renewing_is_free_one_lease_later() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let rt = rt.with_clock(Arc::new(SystemClock)).with_lease(LEASE);
        let runs = Arc::new(AtomicU32::new(0));
        // A call cut off mid-method (its process died): the future is dropped, nothing
        // renews its lease any more.
        let cut = {
            let (rt, runs) = (rt.clone(), runs.clone());
            tokio::spawn(async move { slow_write(&rt, &runs, DAY).await })
        };
        tokio::time::sleep(LEASE * 2).await;
        cut.abort();
        let _ = cut.await;
        let stopped = std::time::Instant::now();
        let freed = loop {
            let v = slow_write(&rt, &runs, Duration::ZERO).await;
            if v["error"] != "idempotency_in_progress" {
                break v;
            }
            assert!(stopped.elapsed() < LEASE * 4, "{kind:?}: still held");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert_eq!(freed["replayed"], false, "{kind:?}: the retry ran: {freed}");
        assert!(
            stopped.elapsed() <= LEASE + Duration::from_millis(150),
            "{kind:?}: free {:?} after the call stopped, lease {LEASE:?}",
            stopped.elapsed()
        );
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }
}

/// Rate records kept apart that say they forgot three records.
struct ForgetsThree;

impl RateStore for ForgetsThree {
    fn admit<'a>(
        &'a self,
        _: &'a RateLimit,
        _: &'a str,
        _: i64,
    ) -> BoxFuture<'a, Result<Admission, StoreError>> {
        Box::pin(async { Ok(Admission::Admitted) })
    }
    fn purge_counters(&self, _: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        Box::pin(async {
            Ok(Purged {
                counters: 3,
                ..Purged::default()
            })
        })
    }
}

/// The runtime's purge asks each concern's store, the one set apart included, and adds up
/// what they forgot.
#[tokio::test]
async fn the_runtime_purges_a_concern_set_apart_through_its_own_store() {
    let rt = Runtime::in_memory()
        .expect("runtime")
        .with_rate_store(Arc::new(ForgetsThree));
    let purged = rt.purge_expired().await.expect("purge");
    assert_eq!(purged.counters, 3);
    assert_eq!(purged.rows(), 3, "{purged:?}");
}
