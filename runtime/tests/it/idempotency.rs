//! Idempotency on every store kind: replay, mismatch, in progress, TTL, validation,
//! stored business errors, concurrency.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::fingerprint::fingerprint;
use toolspec_runtime::store::{KeyRef, Reservation};
use toolspec_runtime::validate::prepare;

const DAY: Duration = Duration::from_secs(86_400);

/// What generated glue does: validate, fingerprint, then run idempotently.
async fn place(rt: &Runtime, calls: &AtomicUsize, args: Value) -> Result<Value, ToolError> {
    let args = prepare(&ORDER, ORDER_EXAMPLE, args)?;
    let fp = fingerprint(&args);
    let key = args.get("idempotency_key").and_then(Value::as_str);
    rt.idempotent("orders_place", key, &fp, DAY, |_work| async {
        let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(json!({"order_id": format!("O-{n}")}))
    })
    .await
}

fn order(key: &str, sku: &str) -> Value {
    json!({"email": "a@b.co", "items": [{"sku": sku}], "idempotency_key": key})
}

#[tokio::test]
async fn replay_is_marked_and_runs_nothing() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let calls = AtomicUsize::new(0);
        let first = place(&rt, &calls, order("k1", "ABC-1"))
            .await
            .expect("first");
        assert_eq!(
            first,
            json!({"order_id": "O-1", "replayed": false}),
            "{kind:?}"
        );
        let again = place(&rt, &calls, order("k1", "ABC-1"))
            .await
            .expect("replay");
        assert_eq!(
            again,
            json!({"order_id": "O-1", "replayed": true}),
            "{kind:?}"
        );
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Without a key every call runs.
        let mut no_key = order("x", "ABC-1");
        no_key.as_object_mut().unwrap().remove("idempotency_key");
        place(&rt, &calls, no_key.clone()).await.expect("run");
        place(&rt, &calls, no_key).await.expect("run");
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }
}

#[tokio::test]
async fn same_key_other_arguments_is_refused() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let calls = AtomicUsize::new(0);
        place(&rt, &calls, order("k1", "ABC-1"))
            .await
            .expect("first");
        let e = place(&rt, &calls, order("k1", "ABC-2"))
            .await
            .expect_err("mismatch");
        assert_eq!(
            (e.code.as_ref(), e.retryable),
            ("idempotency_key_reused", false)
        );
        assert!(e.message.contains("Use a new idempotency key"));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Keys are scoped per tool: the same key on another tool is a new key.
        let fp = fingerprint(&json!({"x": 1}));
        let other = rt
            .idempotent("orders_cancel", Some("k1"), &fp, DAY, |_work| async {
                Ok(json!({"ok": true}))
            })
            .await
            .expect("other tool");
        assert_eq!(other["replayed"], false);
    }
}

const K9: KeyRef<'static> = KeyRef {
    tool: "orders_place",
    key: "k9",
};

#[tokio::test]
async fn a_dead_calls_key_is_free_after_its_lease_not_its_ttl() {
    for kind in kinds() {
        let (rt, clock, _dir) = runtime(kind);
        let rt = rt.with_lease(Duration::from_secs(5));
        let store = rt.store().clone();
        // A call whose process "crashed" after leasing the key: nothing of it committed.
        assert!(matches!(
            store
                .lease(K9, "fp", rt.now_ms(), 60_000, 5_000)
                .await
                .expect("lease"),
            Reservation::Leased { .. }
        ));
        let e = rt
            .idempotent("orders_place", Some("k9"), "fp", DAY, |_work| async {
                Ok(json!({}))
            })
            .await
            .expect_err("in progress");
        assert_eq!(
            (e.code.as_ref(), e.retryable),
            ("idempotency_in_progress", true)
        );
        assert_eq!(e.details["retry_after_ms"], 5_000, "{kind:?}");
        assert!(e.message.contains("in 5 s"), "{}", e.message);
        // In progress while the lease lives; then the retry runs the call itself.
        clock.advance_ms(4_999);
        assert_eq!(
            store.peek(K9, "fp", rt.now_ms()).await.expect("peek"),
            Reservation::InProgress {
                lease_until_ms: rt.now_ms() + 1
            }
        );
        clock.advance_ms(1);
        let ran = rt
            .idempotent("orders_place", Some("k9"), "fp", DAY, |_work| async {
                Ok(json!({"n": 1}))
            })
            .await
            .expect("runs after the lease");
        assert_eq!(ran["replayed"], false, "{kind:?}");
        // Finished keys are kept for their TTL from the call that ran, then forgotten.
        clock.advance_ms(DAY.as_millis() as i64 - 1);
        assert!(matches!(
            store.peek(K9, "fp", rt.now_ms()).await.expect("peek"),
            Reservation::Replay(_)
        ));
        clock.advance_ms(1);
        assert_eq!(
            store.peek(K9, "fp", rt.now_ms()).await.expect("peek"),
            Reservation::Free
        );
        assert_eq!(
            rt.purge_expired().await.expect("purge").rows(),
            1,
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn a_failed_commit_stores_nothing_and_the_retry_runs() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let calls = AtomicUsize::new(0);
        // The method fails retryably after "writing": nothing is stored, the key is free.
        let e = rt
            .idempotent("orders_place", Some("c1"), "fp", DAY, |work| async move {
                work.on_commit(|| panic!("an uncommitted change must never be applied"));
                Err::<Value, _>(ToolError::internal("backend down"))
            })
            .await
            .expect_err("retryable");
        assert!(e.retryable);
        assert_eq!(
            rt.store()
                .peek(
                    KeyRef {
                        tool: "orders_place",
                        key: "c1"
                    },
                    "fp",
                    rt.now_ms()
                )
                .await
                .expect("peek"),
            Reservation::Free,
            "{kind:?}"
        );
        let applied = Arc::new(AtomicUsize::new(0));
        let seen = applied.clone();
        let ok = rt
            .idempotent("orders_place", Some("c1"), "fp", DAY, |work| async move {
                calls.fetch_add(1, Ordering::SeqCst);
                work.on_commit(move || {
                    seen.fetch_add(1, Ordering::SeqCst);
                });
                Ok(json!({"n": 1}))
            })
            .await
            .expect("the retry runs");
        assert_eq!(ok["replayed"], false);
        assert_eq!(applied.load(Ordering::SeqCst), 1, "{kind:?}");
    }
}

#[tokio::test]
async fn failed_validation_stores_nothing() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let calls = AtomicUsize::new(0);
        let e = place(&rt, &calls, order("k1", "bad sku"))
            .await
            .expect_err("invalid");
        assert_eq!(e.code, "pattern_mismatch");
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        let fp_any = fingerprint(&json!({}));
        assert_eq!(
            rt.store()
                .peek(
                    KeyRef {
                        tool: "orders_place",
                        key: "k1"
                    },
                    &fp_any,
                    rt.now_ms()
                )
                .await
                .expect("peek"),
            Reservation::Free,
            "{kind:?}"
        );
        // The same key with corrected arguments is a first run, not a mismatch.
        let ok = place(&rt, &calls, order("k1", "ABC-1"))
            .await
            .expect("valid");
        assert_eq!(ok["replayed"], false);
    }
}

#[tokio::test]
async fn business_errors_replay_and_retryable_errors_release() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let calls = AtomicUsize::new(0);
        let run = |retryable: bool| {
            let calls = &calls;
            move |_work| async move {
                calls.fetch_add(1, Ordering::SeqCst);
                Err::<Value, _>(ToolError::new(
                    if retryable {
                        "rate_limited"
                    } else {
                        "out_of_stock"
                    },
                    "nope",
                    retryable,
                    json!({"sku": "ABC-1"}),
                ))
            }
        };
        let first = rt
            .idempotent("orders_place", Some("b1"), "fp", DAY, run(false))
            .await
            .expect_err("business");
        assert_eq!(first.code, "out_of_stock");
        let replay = rt
            .idempotent("orders_place", Some("b1"), "fp", DAY, run(false))
            .await
            .expect_err("replayed");
        assert_eq!(
            (replay.code.as_ref(), replay.details["replayed"].clone()),
            ("out_of_stock", json!(true))
        );
        assert_eq!(replay.details["sku"], "ABC-1");
        assert_eq!(calls.load(Ordering::SeqCst), 1, "{kind:?}");
        rt.idempotent("orders_place", Some("r1"), "fp", DAY, run(true))
            .await
            .expect_err("retryable");
        rt.idempotent("orders_place", Some("r1"), "fp", DAY, run(true))
            .await
            .expect_err("retryable");
        assert_eq!(
            calls.load(Ordering::SeqCst),
            3,
            "a retryable error is not replayed"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_concurrent_calls_with_one_key_have_one_effect() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let rt = Arc::new(rt);
        let effects = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new(tokio::sync::Barrier::new(16));
        let mut tasks = Vec::new();
        for _ in 0..16 {
            let (rt, effects, gate) = (rt.clone(), effects.clone(), gate.clone());
            tasks.push(tokio::spawn(async move {
                gate.wait().await;
                rt.idempotent("orders_place", Some("same"), "fp", DAY, |_work| async {
                    effects.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    Ok(json!({"order_id": "O-1"}))
                })
                .await
            }));
        }
        let mut first_runs = 0;
        for t in tasks {
            match t.await.expect("task") {
                Ok(v) if v["replayed"] == false => first_runs += 1,
                Ok(v) => assert_eq!(v["order_id"], "O-1"),
                Err(e) => assert_eq!(e.code, "idempotency_in_progress"),
            }
        }
        assert_eq!(effects.load(Ordering::SeqCst), 1, "{kind:?}");
        assert_eq!(first_runs, 1);
    }
}

#[tokio::test]
async fn the_outbox_delivers_committed_messages_until_delivered_and_never_uncommitted_ones() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        // A write that fails: its message must never leave.
        rt.idempotent("orders_place", Some("o1"), "fp", DAY, |work| async move {
            work.outbox("email", json!({"to": "lost@example.com"}))
                .await?;
            Err::<Value, _>(ToolError::internal("backend down"))
        })
        .await
        .expect_err("retryable");
        // A write that commits, keeping its handle past the call.
        let kept = Arc::new(std::sync::Mutex::new(None));
        let keep = kept.clone();
        rt.idempotent("orders_place", Some("o2"), "fp", DAY, |work| async move {
            work.outbox("email", json!({"to": "a@example.com"})).await?;
            *keep.lock().unwrap() = Some(work);
            Ok(json!({"order_id": "O-2"}))
        })
        .await
        .expect("committed");
        // The handle is dead once its call ended: nothing more can be written through it.
        let late = kept.lock().unwrap().take().expect("the handle");
        let e = late
            .outbox("email", json!({"to": "late@example.com"}))
            .await
            .expect_err("ended");
        assert_eq!(e.code, "internal_error", "{kind:?}");

        // A deliverer that fails keeps the message; the next round delivers it, once.
        let mut seen = Vec::new();
        let sent = rt
            .deliver_outbox(10, |m| {
                seen.push((m.payload["to"].clone(), m.attempts));
                async { false }
            })
            .await
            .expect("round 1");
        assert_eq!(sent, 0);
        let sent = rt
            .deliver_outbox(10, |m| {
                seen.push((m.payload["to"].clone(), m.attempts));
                async { true }
            })
            .await
            .expect("round 2");
        assert_eq!(sent, 1);
        let sent = rt
            .deliver_outbox(10, |_| async { true })
            .await
            .expect("round 3");
        assert_eq!(sent, 0, "{kind:?}: a delivered message is not sent again");
        assert_eq!(
            seen,
            [(json!("a@example.com"), 0), (json!("a@example.com"), 1)],
            "{kind:?}"
        );
    }
}
