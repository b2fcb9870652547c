//! Writes whose change is made at a remote service (`effect: remote_keyed`,
//! `remote_lookup`, `remote_unprotected`), on every store kind: the key handed to the method
//! is the same on every retry of one call, a retry after an attempt that recorded no outcome
//! is told of it, and a call whose outcome was not recorded never says nothing changed.

use crate::common;

use std::sync::Mutex;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::{DEFAULT_LEASE, Runtime};
use toolspec_runtime::store::{Effect, KeyRef, Remote};

const DAY: Duration = Duration::from_secs(86_400);

/// What each attempt's method saw: its key and whether it was told of an earlier attempt.
#[derive(Default)]
struct Seen(Mutex<Vec<(String, bool)>>);

impl Seen {
    fn all(&self) -> Vec<(String, bool)> {
        self.0.lock().unwrap().clone()
    }
}

async fn call(
    rt: &Runtime,
    effect: Effect,
    key: Option<&str>,
    fp: &str,
    seen: &Seen,
) -> Result<Value, ToolError> {
    rt.idempotent_at(effect, "chat_post", key, fp, DAY, |work| async move {
        let remote = Remote::from(work);
        seen.0
            .lock()
            .unwrap()
            .push((remote.key().to_owned(), remote.earlier_attempt()));
        Ok(json!({"message_id": "M-1"}))
    })
    .await
}

#[tokio::test]
async fn a_commit_that_fails_after_a_remote_change_says_it_may_have_been_made() {
    for kind in kinds() {
        for effect in [Effect::RemoteKeyed, Effect::RemoteLookup] {
            let (rt, _clock, _dir) = runtime(kind);
            let seen = Seen::default();
            rt.test_hooks().fail_next_commits(1);
            let e = call(&rt, effect, Some("k1"), "fp", &seen)
                .await
                .expect_err("the commit fails");
            assert_eq!(e.code, "internal_error", "{kind:?} {effect:?}");
            assert!(e.retryable, "a keyed retry cannot repeat the change");
            assert_eq!(e.details["changed"], "unknown");
            assert!(
                e.message.contains("may have made the change"),
                "{}",
                e.message
            );
            assert!(!e.message.contains("nothing was changed"), "{}", e.message);
            // The retry runs the method again with the same key; a look-up is told of the
            // attempt before it, a forwarded key needs no telling.
            let ok = call(&rt, effect, Some("k1"), "fp", &seen)
                .await
                .expect("the retry");
            assert_eq!(ok["replayed"], false);
            let attempts = seen.all();
            assert_eq!(attempts.len(), 2, "{kind:?} {effect:?}");
            assert_eq!(attempts[0].0, attempts[1].0, "the same key both times");
            assert!(!attempts[0].1, "the first attempt had none before it");
            assert_eq!(
                attempts[1].1,
                effect == Effect::RemoteLookup,
                "{kind:?} {effect:?}: told of the earlier attempt"
            );
            // Done: now a replay, which runs nothing.
            let replay = call(&rt, effect, Some("k1"), "fp", &seen)
                .await
                .expect("replay");
            assert_eq!(replay["replayed"], true);
            assert_eq!(seen.all().len(), 2);
        }
    }
}

#[tokio::test]
async fn an_unprotected_remote_change_is_not_retried_blindly() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let seen = Seen::default();
        rt.test_hooks().fail_next_commits(1);
        let e = call(&rt, Effect::RemoteUnprotected, Some("k1"), "fp", &seen)
            .await
            .expect_err("the commit fails");
        assert!(!e.retryable, "{kind:?}: a retry may repeat the change");
        assert_eq!(e.details["changed"], "unknown");
        assert!(
            e.message.contains("a retry may make it twice"),
            "{}",
            e.message
        );
        // A store write's failed commit still says nothing changed, as before.
        rt.test_hooks().fail_next_commits(1);
        let e = call(&rt, Effect::Store, Some("k2"), "fp", &seen)
            .await
            .expect_err("the commit fails");
        assert!(e.retryable);
        assert_eq!(e.details["changed"], false, "{kind:?}");
    }
}

#[tokio::test]
async fn a_retry_after_a_call_that_died_is_told_of_it() {
    for kind in kinds() {
        let (rt, clock, _dir) = runtime(kind);
        let seen = Seen::default();
        // A call that leased the key and died before recording anything: only its lease
        // is left, in the store.
        let leased = rt
            .store()
            .lease(
                KeyRef {
                    tool: "chat_post",
                    key: "k1",
                },
                "fp",
                rt.now_ms(),
                86_400_000,
                DEFAULT_LEASE.as_millis() as i64,
            )
            .await
            .expect("lease");
        assert!(matches!(
            leased,
            toolspec_runtime::store::Reservation::Leased { earlier: false, .. }
        ));
        // While its lease lives, a retry is told to wait; after, it runs, told of it.
        let busy = call(&rt, Effect::RemoteLookup, Some("k1"), "fp", &seen)
            .await
            .expect_err("in progress");
        assert_eq!(busy.code, "idempotency_in_progress");
        clock.advance_ms(DEFAULT_LEASE.as_millis() as i64);
        call(&rt, Effect::RemoteLookup, Some("k1"), "fp", &seen)
            .await
            .expect("the retry");
        assert_eq!(seen.all().len(), 1);
        assert!(seen.all()[0].1, "{kind:?}: told of the attempt that died");
        // Other arguments under the same key are still refused, not looked up.
        let reused = call(&rt, Effect::RemoteLookup, Some("k1"), "other", &seen)
            .await
            .expect_err("reused");
        assert_eq!(reused.code, "idempotency_key_reused");
    }
}

#[tokio::test]
async fn a_retryable_error_of_a_lookup_method_is_remembered_for_the_retry() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let attempts = Seen::default();
        for _ in 0..2 {
            let e = rt
                .idempotent_at(
                    Effect::RemoteLookup,
                    "chat_post",
                    Some("k1"),
                    "fp",
                    DAY,
                    |work| async {
                        let remote = Remote::from(work);
                        attempts
                            .0
                            .lock()
                            .unwrap()
                            .push((remote.key().to_owned(), remote.earlier_attempt()));
                        // A timeout: the service may have made the change.
                        Err::<Value, _>(ToolError::new(
                            "chat_timeout",
                            "no answer",
                            true,
                            json!({}),
                        ))
                    },
                )
                .await
                .expect_err("retryable");
            assert_eq!(e.code, "chat_timeout");
        }
        let seen = attempts.all();
        assert_eq!(
            seen.len(),
            2,
            "{kind:?}: the retry ran at once, not after the lease"
        );
        assert!(!seen[0].1 && seen[1].1, "{kind:?}: {seen:?}");
        // A store write's retryable error gives the key up: nothing to look up.
        let store = Seen::default();
        for _ in 0..2 {
            rt.idempotent_at(
                Effect::Store,
                "chat_note",
                Some("k2"),
                "fp",
                DAY,
                |work| async {
                    let remote = Remote::from(work);
                    store
                        .0
                        .lock()
                        .unwrap()
                        .push((remote.key().to_owned(), remote.earlier_attempt()));
                    Err::<Value, _>(ToolError::new("busy", "busy", true, json!({})))
                },
            )
            .await
            .expect_err("retryable");
        }
        assert!(store.all().iter().all(|(_, earlier)| !earlier), "{kind:?}");
    }
}

#[tokio::test]
async fn a_call_without_a_key_gets_a_fresh_key_each_time() {
    let (rt, _clock, _dir) = runtime(Kind::Memory);
    let seen = Seen::default();
    for _ in 0..2 {
        call(&rt, Effect::RemoteKeyed, None, "fp", &seen)
            .await
            .expect("ok");
    }
    let all = seen.all();
    assert_ne!(all[0].0, all[1].0);
    assert!(
        all.iter()
            .all(|(k, earlier)| k.starts_with("tsk_") && !earlier)
    );
}
