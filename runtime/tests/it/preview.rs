//! Previews and gated applies on every store kind.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::{Confirmation, Gate, Host, HostAnswer, Runtime};
use toolspec_runtime::store::{KeyRef, Reservation, Verdict};

const TOOL: &str = "tickets_purge";

fn gate<'a>(fp: &'a str, preview_id: Option<&'a str>, key: Option<&'a str>) -> Gate<'a> {
    Gate {
        tool: TOOL,
        fingerprint: fp,
        preview_id,
        idempotency_key: key,
        idempotency_ttl: Duration::from_secs(86_400),
        preview_ttl: Duration::from_secs(600),
        confirmation: Confirmation::HostOrPreview,
        effect: toolspec_runtime::store::Effect::Store,
        host: None,
        limits: Default::default(),
    }
}

/// One gated call; `effects` counts applies, `previews` counts preview runs.
async fn call(
    rt: &Runtime,
    effects: &Arc<AtomicUsize>,
    fp: &str,
    preview_id: Option<&str>,
    key: Option<&str>,
) -> Result<Value, ToolError> {
    run(
        rt,
        effects,
        gate(fp, preview_id, key),
        "Deletes 3 closed tickets.",
    )
    .await
}

/// Serves `gate` with a preview of `summary` and an apply whose effect `effects` counts
/// when it commits (a rolled-back run is no effect).
async fn run(
    rt: &Runtime,
    effects: &Arc<AtomicUsize>,
    gate: Gate<'_>,
    summary: &str,
) -> Result<Value, ToolError> {
    rt.gated(
        gate,
        || async { Ok(json!({"summary": summary, "would_delete": 3})) },
        |preview, work| async move {
            let effects = Arc::clone(effects);
            work.on_commit(move || {
                effects.fetch_add(1, Ordering::SeqCst);
            });
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
        let effects = Arc::new(AtomicUsize::new(0));
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
        let effects = Arc::new(AtomicUsize::new(0));
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
                |_, _| async { Ok(json!({})) },
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
        let effects = Arc::new(AtomicUsize::new(0));
        let key = Some("purge-1");
        // A refused preview releases the reservation: nothing stored under the key.
        let e = call(&rt, &effects, "fp", Some("pv_unknown"), key)
            .await
            .expect_err("unknown");
        assert_eq!(e.code, "preview_not_found");
        assert_eq!(
            rt.store()
                .peek(
                    KeyRef {
                        tool: TOOL,
                        key: "purge-1"
                    },
                    "fp",
                    rt.now_ms()
                )
                .await
                .expect("peek"),
            Reservation::Free
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
                |_, _| async { Ok(json!({})) },
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
            rt.purge_expired().await.expect("purge").rows(),
            1,
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn a_purge_counts_the_previews_nothing_followed() {
    for kind in kinds() {
        let (rt, clock, _dir) = runtime(kind);
        let preview = |fp: &'static str| {
            let rt = rt.clone();
            async move {
                let p = rt
                    .gated(
                        gate(fp, None, None),
                        || async { Ok(json!({})) },
                        |_, _| async { Ok(json!({})) },
                    )
                    .await
                    .expect("preview");
                p["preview"]["preview_id"].as_str().expect("id").to_owned()
            }
        };
        let _left = preview("fp-left").await;
        let _also_left = preview("fp-also-left").await;
        let used = preview("fp-used").await;
        rt.gated(
            gate("fp-used", Some(&used), None),
            || async { Ok(json!({})) },
            |_, _| async { Ok(json!({})) },
        )
        .await
        .expect("applied");
        clock.advance_ms(600_000 + toolspec_runtime::preview::KEEP_AFTER_EXPIRY_MS);
        let purged = rt.purge_expired().await.expect("purge");
        assert_eq!(purged.previews, 3, "{kind:?}");
        assert_eq!(
            purged.unused_previews,
            std::collections::BTreeMap::from([(TOOL.to_owned(), 2)]),
            "{kind:?}: the applied one was used"
        );
        assert_eq!(rt.purge_expired().await.expect("again").rows(), 0);
    }
}

#[tokio::test]
async fn a_failed_apply_leaves_the_preview_usable_and_says_nothing_changed() {
    for kind in kinds() {
        for key in [None, Some("k-fail")] {
            let (rt, _clock, _dir) = runtime(kind);
            let effects = Arc::new(AtomicUsize::new(0));
            let id = id_of(&call(&rt, &effects, "fp", None, key).await.expect("preview"));
            let e = rt
                .gated(
                    gate("fp", Some(&id), key),
                    || async { Ok(json!({})) },
                    |_, _| async { Err::<Value, _>(ToolError::internal("backend down")) },
                )
                .await
                .expect_err("retryable failure");
            assert!(e.retryable, "{e}");
            // Not preview_used: nothing was made, and the same apply now goes ahead.
            let done = call(&rt, &effects, "fp", Some(&id), key)
                .await
                .expect("the preview is still usable");
            assert_eq!(done["applied"], true, "{kind:?} {key:?}");
            assert_eq!(done["replayed"], false);
            assert_eq!(effects.load(Ordering::SeqCst), 1);
        }
    }
}

/// One gated call with a host.
async fn hosted(
    rt: &Runtime,
    effects: &Arc<AtomicUsize>,
    host: &dyn Host,
    confirmation: Confirmation,
    preview_id: Option<&str>,
) -> Result<Value, ToolError> {
    let gate = Gate {
        confirmation,
        host: Some(host),
        ..gate("fp", preview_id, Some("hosted-1"))
    };
    run(rt, effects, gate, "Deletes 3 closed tickets.\u{202e}").await
}

#[tokio::test]
async fn the_host_asks_the_person_and_only_their_yes_applies() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let effects = Arc::new(AtomicUsize::new(0));
        let yes = ScriptedHost::new(HostAnswer::Accept);
        let done = hosted(&rt, &effects, &*yes, Confirmation::HostOrPreview, None)
            .await
            .expect("approved");
        assert_eq!(
            done,
            json!({"deleted": 3, "applied": true, "replayed": false})
        );
        assert_eq!(effects.load(Ordering::SeqCst), 1, "{kind:?}");
        let asked = yes.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1);
        assert!(
            asked[0]
                .message
                .contains("Deletes 3 closed tickets.\\u{202e}"),
            "{}",
            asked[0].message
        );
        assert!(asked[0].message.contains("would_delete: 3"));
        let decisions = rt
            .store()
            .decisions(&asked[0].preview_id)
            .await
            .expect("decisions");
        assert_eq!(decisions.len(), 1);
        assert_eq!(decisions[0].verdict, Verdict::Approved);
        assert_eq!(decisions[0].decided_by, "host:scripted");
        assert_eq!(decisions[0].fingerprint, "fp");
    }
}

#[tokio::test]
async fn a_declined_or_dismissed_preview_is_dead_whatever_the_model_sends() {
    for kind in kinds() {
        for (answer, verdict) in [
            (HostAnswer::Decline, Verdict::Declined),
            (HostAnswer::Cancel, Verdict::Cancelled),
        ] {
            let (rt, _clock, _dir) = runtime(kind);
            let effects = Arc::new(AtomicUsize::new(0));
            let no = ScriptedHost::new(answer);
            let e = hosted(&rt, &effects, &*no, Confirmation::HostOrPreview, None)
                .await
                .expect_err("declined");
            assert_eq!((e.code.as_ref(), e.retryable), ("approval_declined", false));
            let id = no.asked.lock().unwrap()[0].preview_id.clone();
            // The model presents the id itself, without a host: refused, nothing applied.
            let e = call(&rt, &effects, "fp", Some(&id), None)
                .await
                .expect_err("still declined");
            assert_eq!(e.code, "approval_declined");
            // Even a host that would say yes is not asked about a declined preview.
            let yes = ScriptedHost::new(HostAnswer::Accept);
            let e = hosted(&rt, &effects, &*yes, Confirmation::HostOrPreview, Some(&id))
                .await
                .expect_err("closed for good");
            assert_eq!(e.code, "approval_declined");
            assert!(yes.asked.lock().unwrap().is_empty());
            assert_eq!(effects.load(Ordering::SeqCst), 0, "{kind:?}");
            let decisions = rt.store().decisions(&id).await.expect("decisions");
            assert_eq!(decisions.len(), 1);
            assert_eq!(decisions[0].verdict, verdict);
        }
    }
}

#[tokio::test]
async fn a_preview_id_the_model_holds_approves_nothing_when_the_host_can_ask() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let effects = Arc::new(AtomicUsize::new(0));
        // A preview made in a session without a host...
        let id = id_of(
            &call(&rt, &effects, "fp", None, None)
                .await
                .expect("preview"),
        );
        // ...presented where the host can ask: the person is asked, and says no.
        let no = ScriptedHost::new(HostAnswer::Decline);
        let e = hosted(&rt, &effects, &*no, Confirmation::HostOrPreview, Some(&id))
            .await
            .expect_err("declined");
        assert_eq!(e.code, "approval_declined");
        assert_eq!(no.asked.lock().unwrap()[0].preview_id, id);
        assert_eq!(effects.load(Ordering::SeqCst), 0, "{kind:?}");
    }
}

#[tokio::test]
async fn host_only_tools_refuse_clients_that_cannot_ask_and_preview_only_tools_never_ask() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let effects = Arc::new(AtomicUsize::new(0));
        let e = rt
            .gated(
                Gate {
                    confirmation: Confirmation::Host,
                    ..gate("fp", None, None)
                },
                || async { Ok(json!({})) },
                |_, _| async { Ok(json!({})) },
            )
            .await
            .expect_err("no host");
        assert_eq!(
            (e.code.as_ref(), e.retryable),
            ("approval_unavailable", false)
        );
        let yes = ScriptedHost::new(HostAnswer::Accept);
        let p = hosted(&rt, &effects, &*yes, Confirmation::Preview, None)
            .await
            .expect("a preview");
        assert_eq!(p["applied"], false, "{kind:?}");
        assert!(yes.asked.lock().unwrap().is_empty());
    }
}
