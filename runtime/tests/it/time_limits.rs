//! Time limits: a method still running at its tool's limit is stopped; a write's unit of
//! work rolls back, so the `timeout` it answers truthfully says nothing changed, and its
//! key is free at once; a read says it ran out of time and how to narrow the call.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use common::*;
use serde_json::json;
use toolspec_runtime::ToolError;
use toolspec_runtime::clock::SystemClock;
use toolspec_runtime::engine::{CallLimits, Runtime};
use toolspec_runtime::store::Effect;

const DAY: Duration = Duration::from_secs(86_400);
const LIMIT: Duration = Duration::from_millis(200);

/// A keyed write held to `LIMIT` whose method writes, then takes `takes`.
async fn write(
    rt: &Runtime,
    kind: Kind,
    runs: &AtomicU32,
    takes: Duration,
) -> Result<serde_json::Value, ToolError> {
    let limits = CallLimits {
        rate: None,
        time: Some(LIMIT),
    };
    rt.idempotent_within(
        Effect::Store,
        limits,
        "reports_export",
        Some("k-export"),
        "fp",
        DAY,
        |work| async move {
            // Only the SQLite arm below writes through it.
            #[cfg(not(feature = "sqlite"))]
            let _ = work;
            runs.fetch_add(1, Ordering::SeqCst);
            // A change the unit of work must roll back if the method is stopped.
            match kind {
                #[cfg(feature = "sqlite")]
                Kind::Sqlite => work.sqlite(|c| {
                    Ok(c.execute_batch(
                        "CREATE TABLE IF NOT EXISTS exports (n INTEGER); INSERT INTO exports VALUES (1);",
                    )?)
                })?,
                _ => {}
            }
            tokio::time::sleep(takes).await;
            Ok(json!({"exported": true}))
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_past_its_limit_is_stopped_rolled_back_and_its_key_free_at_once() {
    for kind in kinds() {
        let (rt, _clock, dir) = runtime(kind);
        let rt = rt.with_clock(Arc::new(SystemClock));
        let runs = AtomicU32::new(0);
        let started = Instant::now();
        let e = write(&rt, kind, &runs, Duration::from_secs(5))
            .await
            .expect_err("stopped at its limit");
        let took = started.elapsed();
        assert_eq!(e.code, "timeout", "{kind:?}: {e:?}");
        assert!(e.retryable);
        assert_eq!(e.details["changed"], "no");
        assert!(e.message.contains("nothing was changed"), "{}", e.message);
        assert!(
            took < LIMIT + Duration::from_millis(500),
            "{kind:?}: stopped after {took:?}, limit {LIMIT:?}"
        );
        #[cfg(feature = "sqlite")]
        if let (Kind::Sqlite, Some(dir)) = (kind, &dir) {
            let conn = rusqlite::Connection::open(dir.path().join("app.db")).expect("open");
            let tables: i64 = conn
                .query_row(
                    "SELECT COUNT(*) FROM sqlite_master WHERE name = 'exports'",
                    [],
                    |r| r.get(0),
                )
                .expect("count");
            assert_eq!(tables, 0, "the stopped method's writes were rolled back");
        }
        let _ = &dir;
        // The key is free at once: the retry runs (quickly this time) and commits once.
        let ok = write(&rt, kind, &runs, Duration::ZERO)
            .await
            .expect("the retry");
        assert_eq!(ok["replayed"], false, "{kind:?}: {ok}");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }
}

#[tokio::test]
async fn a_read_past_its_limit_says_to_narrow_the_call() {
    let rt = Runtime::in_memory().expect("runtime");
    let e = rt
        .within("reports_search", Some(LIMIT), None, async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Ok::<_, ToolError>(())
        })
        .await
        .expect_err("stopped");
    assert_eq!(e.code, "timeout");
    assert_eq!(e.details["changed"], "no");
    assert_eq!(e.details["limit_ms"], 200);
    assert!(e.message.contains("Narrow the call"), "{}", e.message);
    // A method within its limit is untouched.
    let fine = rt
        .within("reports_search", Some(LIMIT), None, async {
            Ok::<_, ToolError>(7)
        })
        .await
        .expect("in time");
    assert_eq!(fine, 7);
}

#[tokio::test]
async fn an_unprotected_remote_write_past_its_limit_says_a_retry_may_repeat_it() {
    let e = ToolError::timeout("chat_post", LIMIT, Some(Effect::RemoteUnprotected));
    assert!(!e.retryable);
    assert_eq!(e.details["changed"], "unknown");
    assert!(e.message.contains("may make it twice"), "{}", e.message);
}
