//! Previews and gated applies on every store kind.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::{Gate, Runtime};
use toolspec_runtime::idempotency::Reservation;

const TOOL: &str = "tickets_purge";

fn gate<'a>(fp: &'a str, preview_id: Option<&'a str>, key: Option<&'a str>) -> Gate<'a> {
    Gate {
        tool: TOOL,
        fingerprint: fp,
        preview_id,
        idempotency_key: key,
        idempotency_ttl: Duration::from_secs(86_400),
        preview_ttl: Duration::from_secs(600),
    }
}

/// One gated call; `effects` counts applies, `previews` counts preview runs.
async fn call(
    rt: &Runtime,
    effects: &AtomicUsize,
    fp: &str,
    preview_id: Option<&str>,
    key: Option<&str>,
) -> Result<Value, ToolError> {
    rt.gated(
        gate(fp, preview_id, key),
        || async { Ok(json!({"summary": "Deletes 3 closed tickets.", "would_delete": 3})) },
        |preview| async move {
            effects.fetch_add(1, Ordering::SeqCst);
            Ok(json!({"deleted": preview["would_delete"]}))
        },
    )
    .await
}

fn id_of(v: &Value) -> String {
    v["preview"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_owned()
}

#[tokio::test]
async fn preview_then_apply_once_then_used() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let effects = AtomicUsize::new(0);
        let p = call(&rt, &effects, "fp", None, None)
            .await
            .expect("preview");
        assert_eq!(p["applied"], false);
        assert_eq!(p["preview"]["summary"], "Deletes 3 closed tickets.");
        assert_eq!(p["preview"]["would_delete"], 3);
        assert_eq!(p["preview"]["expires_at"], "2025-01-31T09:40:00Z");
        let id = id_of(&p);
        assert!(id.starts_with("pv_") && id.len() == 35, "{id}");
        assert_eq!(effects.load(Ordering::SeqCst), 0, "a preview has no effect");
        let applied = call(&rt, &effects, "fp", Some(&id), None)
            .await
            .expect("apply");
        assert_eq!(
            applied,
            json!({"deleted": 3, "applied": true, "replayed": false})
        );
        let e = call(&rt, &effects, "fp", Some(&id), None)
            .await
            .expect_err("used");
        assert_eq!((e.code.as_ref(), e.retryable), ("preview_used", false));
        assert_eq!(effects.load(Ordering::SeqCst), 1, "{kind:?}");
    }
}

#[tokio::test]
async fn unknown_expired_and_mismatched_previews_are_refused() {
    for kind in kinds() {
        let (rt, clock, _dir) = runtime(kind);
        let effects = AtomicUsize::new(0);
        let e = call(&rt, &effects, "fp", Some("pv_nope"), None)
            .await
            .expect_err("unknown");
        assert_eq!(e.code, "preview_not_found");
        let id = id_of(
            &call(&rt, &effects, "fp", None, None)
                .await
                .expect("preview"),
        );
        let e = call(&rt, &effects, "other-fp", Some(&id), None)
            .await
            .expect_err("mismatch");
        assert_eq!(e.code, "preview_mismatch");
        // A mismatch does not burn the preview; another tool cannot use it either.
        let e = rt
            .gated(
                Gate {
                    tool: "other_tool",
                    ..gate("fp", Some(&id), None)
                },
                || async { Ok(json!({})) },
                |_| async { Ok(json!({})) },
            )
            .await
            .expect_err("other tool");
        assert_eq!(e.code, "preview_mismatch");
        clock.advance_ms(600_000);
        let e = call(&rt, &effects, "fp", Some(&id), None)
            .await
            .expect_err("expired");
        assert_eq!(e.code, "preview_expired");
        assert_eq!(e.details["expired_at"], "2025-01-31T09:40:00Z");
        assert_eq!(effects.load(Ordering::SeqCst), 0, "{kind:?}");
        // A fresh preview works again.
        let id = id_of(
            &call(&rt, &effects, "fp", None, None)
                .await
                .expect("preview"),
        );
        call(&rt, &effects, "fp", Some(&id), None)
            .await
            .expect("apply");
        assert_eq!(effects.load(Ordering::SeqCst), 1);
    }
}

#[tokio::test]
async fn with_a_key_replays_even_without_preview_id_and_refusals_store_nothing() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let effects = AtomicUsize::new(0);
        let key = Some("purge-1");
        // A refused preview releases the reservation: nothing stored under the key.
        let e = call(&rt, &effects, "fp", Some("pv_unknown"), key)
            .await
            .expect_err("unknown");
        assert_eq!(e.code, "preview_not_found");
        assert_eq!(
            rt.idempotency_store()
                .peek(TOOL, "purge-1", "fp", rt.now_ms())
                .expect("peek"),
            Reservation::New
        );
        let id = id_of(&call(&rt, &effects, "fp", None, key).await.expect("preview"));
        let first = call(&rt, &effects, "fp", Some(&id), key)
            .await
            .expect("apply");
        assert_eq!(
            first,
            json!({"deleted": 3, "applied": true, "replayed": false})
        );
        // Retry with the used id, and retry without any id: both replay.
        let again = call(&rt, &effects, "fp", Some(&id), key)
            .await
            .expect("replay");
        assert_eq!(
            again,
            json!({"deleted": 3, "applied": true, "replayed": true})
        );
        let lost_id = call(&rt, &effects, "fp", None, key).await.expect("replay");
        assert_eq!(lost_id["replayed"], true);
        let e = call(&rt, &effects, "other-fp", None, key)
            .await
            .expect_err("reused");
        assert_eq!(e.code, "idempotency_key_reused");
        assert_eq!(effects.load(Ordering::SeqCst), 1, "{kind:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_applies_of_one_preview_apply_once() {
    for kind in kinds() {
        for key in [None, Some("k")] {
            let (rt, _clock, _dir) = runtime(kind);
            let rt = Arc::new(rt);
            let effects = Arc::new(AtomicUsize::new(0));
            let id = id_of(&call(&rt, &effects, "fp", None, key).await.expect("preview"));
            let barrier = Arc::new(tokio::sync::Barrier::new(16));
            let tasks: Vec<_> = (0..16)
                .map(|_| {
                    let (rt, effects, barrier, id) =
                        (rt.clone(), effects.clone(), barrier.clone(), id.clone());
                    tokio::spawn(async move {
                        barrier.wait().await;
                        call(&rt, &effects, "fp", Some(&id), key).await
                    })
                })
                .collect();
            let mut applied_first = 0;
            for t in tasks {
                match t.await.expect("task") {
                    Ok(v) if v["replayed"] == false => applied_first += 1,
                    Ok(v) => assert_eq!(v["applied"], true),
                    Err(e) => assert!(
                        ["preview_used", "idempotency_in_progress"].contains(&e.code.as_ref()),
                        "{e}"
                    ),
                }
            }
            assert_eq!(effects.load(Ordering::SeqCst), 1, "{kind:?} key={key:?}");
            assert_eq!(applied_first, 1);
        }
    }
}

#[tokio::test]
async fn previews_without_summary_get_one_and_stores_purge() {
    for kind in kinds() {
        let (rt, clock, _dir) = runtime(kind);
        let p = rt
            .gated(
                gate("fp", None, None),
                || async { Ok(json!({"count": 2})) },
                |_| async { Ok(json!({})) },
            )
            .await
            .expect("preview");
        assert!(
            p["preview"]["summary"]
                .as_str()
                .expect("summary")
                .contains("nothing has changed yet")
        );
        clock.advance_ms(600_000 + toolspec_runtime::preview::KEEP_AFTER_EXPIRY_MS);
        assert_eq!(
            rt.preview_store()
                .purge_expired(rt.now_ms())
                .expect("purge"),
            1,
            "{kind:?}"
        );
    }
}
