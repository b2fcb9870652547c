//! Rate limits on every store kind: each store decides exactly as `rate::decide` does (the
//! PostgreSQL store in SQL), counts are the caller's own, what counts is a method about to
//! run (a preview and an apply; never a replay), and replicas on one PostgreSQL database
//! share one limit under 32 concurrent clients.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use common::*;
use serde_json::json;
use toolspec_runtime::caller::{self, Caller};
use toolspec_runtime::engine::{CallLimits, Confirmation, Gate, Runtime};
use toolspec_runtime::rate::{self, RateLimit};
use toolspec_runtime::store::Effect;

const MINUTE: Duration = Duration::from_secs(60);
const DAY: Duration = Duration::from_secs(86_400);

/// Calls at these offsets (ms) from the start, against these limits: windows that fill
/// and reopen, a burst's spacing, and a shared key.
fn scenarios() -> Vec<(RateLimit, Vec<i64>)> {
    let every = |step: i64, n: i64| (0..n).map(|i| i * step).collect::<Vec<_>>();
    vec![
        (RateLimit::new("t_plain", 3, MINUTE), {
            let mut t = every(10, 6);
            t.extend([59_999, 60_000, 60_001, 60_002, 60_003, 200_000]);
            t
        }),
        (
            RateLimit::new("t_burst", 6, MINUTE).with_burst(2),
            every(4_000, 30),
        ),
        (
            RateLimit::new("t_second", 5, Duration::from_secs(1)).with_burst(5),
            every(90, 40),
        ),
    ]
}

#[tokio::test]
async fn every_store_decides_as_the_rule_says() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let start = rt.now_ms();
        for (limit, offsets) in scenarios() {
            let mut expected_state = None;
            for at in offsets {
                let now = start + at;
                let (expected, state) = rate::decide(&limit, expected_state, now);
                expected_state = state;
                let got = rt
                    .store()
                    .admit(&limit, limit.key, now)
                    .await
                    .expect("admit");
                assert_eq!(got, expected, "{kind:?} {} at +{at} ms", limit.key);
            }
        }
        // Spent records go with the other expired records; a live one stays.
        let purged = rt
            .store()
            .purge_counters(start + 10 * 60_000)
            .await
            .expect("purge");
        assert_eq!(purged.counters, 3, "{kind:?}");
        let again = rt
            .store()
            .purge_counters(start + 10 * 60_000)
            .await
            .expect("purge");
        assert_eq!(again.counters, 0, "{kind:?}");
    }
}

/// A keyed write under `limit` that counts its runs.
async fn write(
    rt: &Runtime,
    limit: &RateLimit,
    key: &str,
    runs: &AtomicU32,
) -> Result<serde_json::Value, toolspec_runtime::ToolError> {
    rt.idempotent_within(
        Effect::Store,
        CallLimits {
            rate: Some(limit),
            time: None,
        },
        "tickets_update_status",
        Some(key),
        key,
        DAY,
        |_work| async move {
            runs.fetch_add(1, Ordering::SeqCst);
            Ok(json!({"ok": true}))
        },
    )
    .await
}

#[tokio::test]
async fn a_replay_counts_nothing_and_a_refused_write_frees_its_key() {
    for kind in kinds() {
        let (rt, clock, _dir) = runtime(kind);
        let limit = RateLimit::new("tickets_update_status", 2, MINUTE);
        let runs = AtomicU32::new(0);
        write(&rt, &limit, "k1", &runs).await.expect("first");
        // Replays answer from the record: they run nothing and count nothing.
        for _ in 0..5 {
            let replay = write(&rt, &limit, "k1", &runs).await.expect("replay");
            assert_eq!(replay["replayed"], true);
        }
        write(&rt, &limit, "k2", &runs).await.expect("second");
        let refused = write(&rt, &limit, "k3", &runs)
            .await
            .expect_err("third in the window");
        assert_eq!(refused.code, "rate_limited", "{kind:?}");
        assert!(refused.retryable);
        let wait = refused.details["retry_after_ms"].as_u64().expect("a wait");
        assert!(wait > 0 && wait <= 60_000, "{wait}");
        assert!(
            refused.message.starts_with("Nothing was done:")
                && refused
                    .message
                    .contains("at most 2 calls per minute per caller"),
            "{}",
            refused.message
        );
        assert_eq!(
            runs.load(Ordering::SeqCst),
            2,
            "{kind:?}: the refused call ran nothing"
        );
        // The refused call gave its key back: after the wait the same key runs, once.
        clock.advance_ms(i64::try_from(wait).expect("a wait in range"));
        let later = write(&rt, &limit, "k3", &runs)
            .await
            .expect("after the wait");
        assert_eq!(later["replayed"], false, "{kind:?}");
        assert_eq!(runs.load(Ordering::SeqCst), 3);
    }
}

/// A call of an irreversible tool under `limit`: a preview without `preview_id`, else an
/// apply of it.
async fn gated_call(
    rt: &Runtime,
    limit: &RateLimit,
    preview_id: Option<&str>,
) -> Result<serde_json::Value, toolspec_runtime::ToolError> {
    let gate = Gate {
        tool: "tickets_create",
        fingerprint: "fp",
        preview_id,
        idempotency_key: None,
        idempotency_ttl: DAY,
        preview_ttl: Duration::from_secs(600),
        confirmation: Confirmation::Preview,
        effect: Effect::Store,
        host: None,
        limits: CallLimits {
            rate: Some(limit),
            time: None,
        },
    };
    rt.gated(
        gate,
        || async { Ok(json!({"summary": "would open a ticket"})) },
        |_, _work| async { Ok(json!({"ticket_id": "T-1"})) },
    )
    .await
}

#[tokio::test]
async fn a_preview_and_its_apply_each_count() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let limit = RateLimit::new("tickets_create", 2, MINUTE);
        let preview = |p| gated_call(&rt, &limit, p);
        let shown = preview(None).await.expect("the preview counts once");
        let id = shown["preview"]["preview_id"]
            .as_str()
            .expect("id")
            .to_owned();
        let applied = preview(Some(&id)).await.expect("the apply counts once");
        assert_eq!(applied["applied"], true);
        let third = preview(None).await.expect_err("a third call");
        assert_eq!(third.code, "rate_limited", "{kind:?}");
    }
}

#[tokio::test]
async fn each_caller_has_a_limit_of_their_own() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let limit = RateLimit::new("tickets_search", 1, MINUTE);
        let alice = Some(Arc::new(Caller::new("https://auth.example", "alice")));
        let bob = Some(Arc::new(Caller::new("https://auth.example", "bob")));
        let admit = |who: Option<Arc<Caller>>| {
            let rt = rt.clone();
            caller::scope(who, async move {
                rt.admit("tickets_search", Some(&limit)).await
            })
        };
        admit(alice.clone()).await.expect("alice's first");
        let refused = admit(alice).await.expect_err("alice's second");
        assert_eq!(refused.code, "rate_limited");
        admit(bob).await.expect("bob is not affected");
        admit(None).await.expect("nor is the local user");
    }
}

/// Three replicas (each its own store and pool, as three processes) on one fresh schema.
#[cfg(feature = "postgres")]
async fn replicas(
    clock: Option<Arc<toolspec_runtime::clock::ManualClock>>,
) -> Option<Vec<Runtime>> {
    use toolspec_runtime::cursor::CursorKey;
    use toolspec_runtime::store::PostgresStore;
    let url = postgres_url()?;
    let schema = fresh_schema();
    let key = CursorKey::from_bytes(b"test key, 32 bytes long.........");
    Some(
        (0..3)
            .map(|_| {
                let store = PostgresStore::new(&url, Some(&schema)).expect("store");
                let rt = Runtime::new(key.clone(), Arc::new(store));
                match &clock {
                    Some(c) => rt.with_clock(c.clone()),
                    None => rt,
                }
            })
            .collect(),
    )
}

/// 32 clients of one caller, spread over the replicas, each calling `rounds` times.
#[cfg(feature = "postgres")]
async fn hammer(replicas: &[Runtime], limit: RateLimit, rounds: usize) -> Vec<std::time::Instant> {
    let mut clients = Vec::new();
    for c in 0..32 {
        let rt = replicas[c % replicas.len()].clone();
        clients.push(tokio::spawn(async move {
            let mut admitted = Vec::new();
            for _ in 0..rounds {
                match rt.admit("tickets_search", Some(&limit)).await {
                    Ok(()) => admitted.push(std::time::Instant::now()),
                    Err(e) => assert_eq!(e.code, "rate_limited", "{e:?}"),
                }
            }
            admitted
        }));
    }
    let mut all = Vec::new();
    for c in clients {
        all.extend(c.await.expect("client"));
    }
    all.sort();
    all
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_replicas_admit_exactly_the_limit_in_a_window_under_32_concurrent_clients() {
    let clock = Arc::new(toolspec_runtime::clock::ManualClock::new(1_738_315_800_000));
    let Some(replicas) = replicas(Some(clock.clone())).await else {
        return;
    };
    let limit = RateLimit::new("tickets_search", 50, MINUTE);
    // The clock stands still: one window, 32 x 5 calls, exactly 50 admitted.
    assert_eq!(hammer(&replicas, limit, 5).await.len(), 50);
    // The window ends: exactly 50 more.
    clock.advance_ms(60_000);
    assert_eq!(hammer(&replicas, limit, 5).await.len(), 50);
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_replicas_on_the_real_clock_keep_the_limit_window_after_window() {
    let Some(replicas) = replicas(None).await else {
        return;
    };
    let limit = RateLimit::new("tickets_search", 25, Duration::from_secs(1));
    // Each client calls until 2.5 s have passed; windows reopen back to back.
    let started = std::time::Instant::now();
    let mut clients = Vec::new();
    for c in 0..32 {
        let rt = replicas[c % 3].clone();
        clients.push(tokio::spawn(async move {
            let mut admitted = Vec::new();
            while started.elapsed() < Duration::from_millis(2_500) {
                if rt.admit("tickets_search", Some(&limit)).await.is_ok() {
                    admitted.push(started.elapsed());
                }
            }
            admitted
        }));
    }
    let mut all = Vec::new();
    for c in clients {
        all.extend(c.await.expect("client"));
    }
    all.sort();
    // A window opens with the first call after the one before ended, so 2.5 s of calls
    // hold at most three (opened at 0, >= 1 s and >= 2 s): never more than 3 x 25. The
    // clients call without pause, so every window fills: not short by more than a few.
    let total = all.len();
    assert!(total <= 75, "{total} admitted in 2.5 s at 25 a second");
    assert!(total >= 72, "{total} admitted in 2.5 s at 25 a second");
    println!("admitted in 2.5 s by 3 replicas, limit 25 per second: {total}");
}
