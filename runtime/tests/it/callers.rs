//! Records bound to their caller, on every store kind: two callers with the same
//! idempotency key get two effects, neither sees the other's preview or cursor, and the
//! local user (no caller, as over stdio) keeps the records it always had.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::caller::{self, Caller};
use toolspec_runtime::engine::{Confirmation, Gate, Runtime};
use toolspec_runtime::store::Effect;

const TOOL: &str = "tickets_create";
const DAY: Duration = Duration::from_secs(86_400);

fn alice() -> Option<Arc<Caller>> {
    Some(Arc::new(
        Caller::new("https://as.example", "alice").with_scopes(["tickets:write"]),
    ))
}

fn bob() -> Option<Arc<Caller>> {
    Some(Arc::new(
        Caller::new("https://as.example", "bob").with_scopes(["tickets:write"]),
    ))
}

/// One gated call of `TOOL` as `who`; `effects` counts the applies that committed.
async fn create(
    rt: &Runtime,
    who: Option<Arc<Caller>>,
    effects: &Arc<AtomicUsize>,
    preview_id: Option<&str>,
    key: &str,
) -> Result<Value, ToolError> {
    let gate = Gate {
        tool: TOOL,
        fingerprint: "fp-same-arguments",
        preview_id,
        idempotency_key: Some(key),
        idempotency_ttl: DAY,
        preview_ttl: Duration::from_secs(600),
        confirmation: Confirmation::Preview,
        effect: Effect::Store,
        host: None,
        limits: Default::default(),
    };
    let effects = Arc::clone(effects);
    caller::scope(
        who,
        rt.gated(
            gate,
            || async { Ok(json!({"summary": "Opens one ticket."})) },
            |_, work| async move {
                work.on_commit(move || {
                    effects.fetch_add(1, Ordering::SeqCst);
                });
                Ok(json!({"ticket_id": "T-1"}))
            },
        ),
    )
    .await
}

fn preview_id(result: &Value) -> String {
    result["preview"]["preview_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no preview in {result}"))
        .to_owned()
}

#[tokio::test]
async fn two_callers_with_one_key_get_one_effect_each_and_never_each_others_preview() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let effects = Arc::new(AtomicUsize::new(0));
        let first = create(&rt, alice(), &effects, None, "k1").await.unwrap();
        let alices = preview_id(&first);
        assert!(
            !alices.contains('@'),
            "{kind:?}: the id shown is the plain one: {alices}"
        );

        // Bob, same key and arguments: his own fresh call (a preview of his own), not a replay.
        let his = create(&rt, bob(), &effects, None, "k1").await.unwrap();
        let bobs = preview_id(&his);
        assert_ne!(alices, bobs, "{kind:?}");

        // Alice's preview id is unknown to Bob, and the refusal names no one.
        let refused = create(&rt, bob(), &effects, Some(&alices), "k1")
            .await
            .unwrap_err();
        assert_eq!(refused.code, "preview_not_found", "{kind:?}: {refused:?}");
        let said = format!("{} {:?}", refused.message, refused.details);
        assert!(
            !said.contains("alice") && !said.contains('@'),
            "{kind:?}: {said}"
        );
        // Nor can anyone name a kept record directly.
        let kept = format!(
            "{alices}@{}",
            Caller::new("https://as.example", "alice").tag()
        );
        let forged = create(&rt, None, &effects, Some(&kept), "k1")
            .await
            .unwrap_err();
        assert_eq!(forged.code, "preview_not_found", "{kind:?}");
        assert_eq!(
            effects.load(Ordering::SeqCst),
            0,
            "{kind:?}: nothing applied yet"
        );

        // The owner's preview still applies; so does Bob's own; each is one effect.
        let applied = create(&rt, alice(), &effects, Some(&alices), "k1")
            .await
            .unwrap();
        assert_eq!(applied["applied"], true, "{kind:?}");
        let applied = create(&rt, bob(), &effects, Some(&bobs), "k1")
            .await
            .unwrap();
        assert_eq!(applied["replayed"], false, "{kind:?}: Bob's key is his own");
        assert_eq!(effects.load(Ordering::SeqCst), 2, "{kind:?}");

        // Each one's retry replays their own result.
        let again = create(&rt, alice(), &effects, None, "k1").await.unwrap();
        assert_eq!(again["replayed"], true, "{kind:?}");
        assert_eq!(effects.load(Ordering::SeqCst), 2, "{kind:?}");

        // The local user's key k1 is yet another record: a preview, not a replay.
        let local = create(&rt, None, &effects, None, "k1").await.unwrap();
        assert_eq!(local["applied"], false, "{kind:?}");
    }
}

#[tokio::test]
async fn an_approval_is_recorded_with_the_caller_who_asked() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let effects = Arc::new(AtomicUsize::new(0));
        let shown = preview_id(&create(&rt, alice(), &effects, None, "k2").await.unwrap());
        create(&rt, alice(), &effects, Some(&shown), "k2")
            .await
            .unwrap();
        let tag = Caller::new("https://as.example", "alice").tag().to_owned();
        let decisions = rt
            .store()
            .decisions(&format!("{shown}@{tag}"))
            .await
            .unwrap();
        assert_eq!(decisions.len(), 1, "{kind:?}");
        assert_eq!(decisions[0].decided_by, "preview_id for alice", "{kind:?}");
    }
}

#[tokio::test]
async fn another_callers_cursor_is_refused() {
    for kind in kinds() {
        let (rt, _clock, _dir) = runtime(kind);
        let mut page = json!({"items": [1, 2]});
        caller::scope(alice(), async {
            rt.page("tickets_search", "fp-q", &mut page, "items", 0, 5);
        })
        .await;
        let cursor = page["next_cursor"].as_str().unwrap().to_owned();
        let own = caller::scope(alice(), async {
            rt.cursor_offset("tickets_search", "fp-q", Some(&cursor))
        })
        .await;
        assert_eq!(own.unwrap(), 2, "{kind:?}");
        for other in [bob(), None] {
            let theirs = caller::scope(other, async {
                rt.cursor_offset("tickets_search", "fp-q", Some(&cursor))
            })
            .await;
            assert_eq!(theirs.unwrap_err().code, "invalid_cursor", "{kind:?}");
        }
    }
}
