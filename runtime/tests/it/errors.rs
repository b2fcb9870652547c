//! Every built-in error code, produced by its real code path, with the catalog's retryable
//! flag and the exact wire shape.

use crate::common;

use common::ScriptedHost;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::caller::{self, Caller};
use toolspec_runtime::catalog;
use toolspec_runtime::cursor::CursorKey;
use toolspec_runtime::engine::glue;
use toolspec_runtime::engine::{
    Confirmation, Gate, HostAnswer, Runtime, ToolDefinition, find_tool, unknown_tool,
};
use toolspec_runtime::error::set_incident_hook;
use toolspec_runtime::validate::*;

static INPUT: ObjectShape = ObjectShape::new(&[
    Field::required("n", Shape::integer(Some(1), Some(5))),
    Field::optional("s", Shape::String(StringShape::new().one_of(&["a", "b"]))),
    Field::optional("t", Shape::String(StringShape::new().length(Some(2), None))),
    Field::optional("p", Shape::String(StringShape::new().pattern(&DIGITS))),
    Field::optional("f", Shape::String(StringShape::new().format(Format::Uuid))),
    Field::optional("m", Shape::Map(&TAGS)),
    Field::optional("a", Shape::Boolean),
    Field::optional("b", Shape::Boolean),
    Field::optional("w", Shape::Boolean),
])
.conditions(&[
    Condition::ExactlyOne(&["a", "b"]),
    // `w` only while `s` is `a`.
    Condition::When {
        field: "s",
        values: &["a"],
        by_default: false,
        needs: &[],
        allows: &["w"],
    },
]);
static TAGS: MapShape =
    MapShape::new(Shape::String(StringShape::new())).keys(StringShape::new().length(None, Some(3)));
static DIGITS: Pattern = Pattern::new("^[0-9]+$");
static DEFS: [ToolDefinition; 0] = [];
/// A tool that needs a scope, for `insufficient_scope`.
static SCOPED: ToolDefinition = ToolDefinition {
    name: "t_write",
    title: "Write",
    description: "Writes.",
    input_schema: r#"{"type":"object"}"#,
    output_schema: r#"{"type":"object"}"#,
    listed_output_schema: "",
    annotations: toolspec_runtime::engine::Annotations {
        read_only: false,
        destructive: false,
        idempotent: true,
        open_world: false,
    },
    deprecated_aliases: &[],
    scopes: &["t:read", "t:write"],
    input: &INPUT,
    example_call: r#"{"n":1,"a":true}"#,
    group: None,
};

async fn produce_all() -> BTreeMap<String, ToolError> {
    let mut got = BTreeMap::new();
    let mut keep = |e: ToolError| {
        got.insert(e.code.to_string(), e);
    };
    let v = |args: Value| prepare(&INPUT, r#"{"n":1,"a":true}"#, args).expect_err("invalid");
    keep(v(json!({"n": 0, "s": "c", "a": true})));
    keep(v(json!({"a": true})));
    keep(v(json!({"n": 1, "x": 1, "a": true})));
    keep(v(json!({"n": "1", "a": true})));
    keep(v(json!({"n": 1, "s": "c", "a": true})));
    keep(v(json!({"n": 9, "a": true})));
    keep(v(json!({"n": 1, "t": "x", "a": true})));
    keep(v(json!({"n": 1, "p": "12a", "a": true})));
    keep(v(json!({"n": 1, "f": "nope", "a": true})));
    keep(v(json!({"n": 1, "m": {"long": "x"}, "a": true})));
    keep(v(json!({"n": 1, "a": true, "b": false})));
    keep(v(json!({"n": 1, "s": "b", "w": true, "a": true})));
    keep(
        CursorKey::from_bytes(b"k")
            .decode("t", "fp", "garbage")
            .expect_err("cursor"),
    );
    {
        // A caller past a limit of one call a minute: the second call is refused.
        let rt = Runtime::in_memory().expect("runtime");
        let limit = toolspec_runtime::rate::RateLimit::new("t", 1, Duration::from_secs(60));
        rt.admit("t", Some(&limit)).await.expect("the first call");
        keep(rt.admit("t", Some(&limit)).await.expect_err("rate_limited"));
        // A method that never ends, stopped at its time limit.
        let never = std::future::pending::<Result<(), ToolError>>();
        let limit = Some(Duration::from_millis(1));
        keep(
            rt.within("t", limit, None, never)
                .await
                .expect_err("timeout"),
        );
    }

    let rt = Runtime::in_memory().expect("runtime");
    let day = Duration::from_secs(86_400);
    rt.store()
        .lease(
            toolspec_runtime::store::KeyRef {
                tool: "t",
                key: "busy",
            },
            "fp",
            rt.now_ms(),
            60_000,
            30_000,
        )
        .await
        .expect("lease");
    keep(
        rt.idempotent("t", Some("busy"), "fp", day, |_work| async {
            Ok(json!({}))
        })
        .await
        .expect_err("busy"),
    );
    keep(
        rt.idempotent("t", Some("busy"), "fp2", day, |_work| async {
            Ok(json!({}))
        })
        .await
        .expect_err("reused"),
    );

    let gate = |preview_id| Gate {
        tool: "t",
        fingerprint: "fp",
        preview_id,
        idempotency_key: None,
        idempotency_ttl: day,
        preview_ttl: Duration::ZERO,
        confirmation: Confirmation::HostOrPreview,
        effect: toolspec_runtime::store::Effect::Store,
        host: None,
        limits: Default::default(),
    };
    let preview = || async { Ok(json!({"summary": "s"})) };
    let apply = |_, _| async { Ok(json!({})) };
    keep(
        rt.gated(gate(Some("pv_x")), preview, apply)
            .await
            .expect_err("not found"),
    );
    let p = rt.gated(gate(None), preview, apply).await.expect("preview");
    let id = p["preview"]["preview_id"].as_str().unwrap().to_owned();
    keep(
        rt.gated(gate(Some(&id)), preview, apply)
            .await
            .expect_err("expired (ttl zero)"),
    );
    let live = Gate {
        preview_ttl: day,
        ..gate(None)
    };
    let p = rt.gated(live, preview, apply).await.expect("preview");
    let id = p["preview"]["preview_id"].as_str().unwrap().to_owned();
    keep(
        rt.gated(
            Gate {
                fingerprint: "other",
                ..gate(Some(&id))
            },
            preview,
            apply,
        )
        .await
        .expect_err("mismatch"),
    );
    rt.gated(gate(Some(&id)), preview, apply)
        .await
        .expect("apply");
    keep(
        rt.gated(gate(Some(&id)), preview, apply)
            .await
            .expect_err("used"),
    );

    let refusing = ScriptedHost::new(HostAnswer::Decline);
    keep(
        rt.gated(
            Gate {
                preview_ttl: day,
                host: Some(&*refusing),
                ..gate(None)
            },
            preview,
            apply,
        )
        .await
        .expect_err("declined"),
    );
    keep(
        rt.gated(
            Gate {
                confirmation: Confirmation::Host,
                ..gate(None)
            },
            preview,
            apply,
        )
        .await
        .expect_err("unavailable"),
    );

    assert!(find_tool(&DEFS, "nope").is_none());
    keep(unknown_tool(&DEFS, "nope"));
    // A caller granted only `t:read` calls a tool that also needs `t:write`: refused by the
    // generated layer's first step, before the arguments are read.
    let reader = Arc::new(Caller::new("https://as.example", "r").with_scopes(["t:read"]));
    let refused = caller::scope(Some(reader), async {
        glue::accept::<Value>(&SCOPED, json!({"n": 1, "a": true}))
    })
    .await
    .expect_err("insufficient scope");
    assert_eq!(refused.details["missing"], json!(["t:write"]));
    assert_eq!(refused.details["required"], json!(["t:read", "t:write"]));
    keep(refused);
    // The local user (no caller) and a caller granted both are not refused.
    assert!(glue::accept::<Value>(&SCOPED, json!({"n": 1, "a": true})).is_ok());
    let writer =
        Arc::new(Caller::new("https://as.example", "w").with_scopes(["t:read", "t:write"]));
    let served = caller::scope(Some(writer), async {
        glue::accept::<Value>(&SCOPED, json!({"n": 1, "a": true}))
    })
    .await;
    assert!(served.is_ok(), "{served:?}");
    keep(
        rt.gated(
            gate(None),
            || async { Err(ToolError::internal("db at /var/secret.db: disk I/O error")) },
            apply,
        )
        .await
        .expect_err("internal"),
    );
    got
}

#[tokio::test]
async fn every_builtin_code_comes_from_a_real_path_with_its_catalog_flag() {
    let causes = Arc::new(Mutex::new(Vec::<(String, String)>::new()));
    let sink = causes.clone();
    set_incident_hook(Box::new(move |id, cause| {
        sink.lock().unwrap().push((id.to_owned(), cause.to_owned()))
    }));

    let got = produce_all().await;
    for entry in catalog::ALL {
        let e = got
            .get(entry.code)
            .unwrap_or_else(|| panic!("{} never produced", entry.code));
        assert_eq!(e.retryable, entry.retryable, "{}", entry.code);
        // A conditional code (rate_limited) is the runtime's only where the toolset asks for
        // it; elsewhere a spec may name its own.
        assert_eq!(
            e.is_builtin(),
            !catalog::is_conditional(entry),
            "{}",
            entry.code
        );
        assert!(
            !e.message.is_empty() && e.message.ends_with('.')
                || e.message.contains("Example of a valid call"),
            "{}",
            e.message
        );
        let wire = serde_json::to_value(e).expect("json");
        let keys: Vec<&String> = wire.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 4);
        for k in ["code", "message", "retryable", "details"] {
            assert!(wire.get(k).is_some(), "{k}");
        }
        assert_eq!(wire, e.to_value());
        let back: ToolError = serde_json::from_value(wire).expect("round trip");
        assert_eq!(&back, e);
    }
    assert_eq!(got.len(), catalog::ALL.len(), "{:?}", got.keys());

    // internal_error: nothing internal in the error, the cause went to the hook.
    let internal = &got["internal_error"];
    let text = serde_json::to_string(internal).unwrap();
    assert!(!text.contains("secret") && !text.contains("disk"), "{text}");
    let incident = internal.details["incident"].as_str().expect("incident id");
    assert!(incident.starts_with("inc_"));
    let logged = causes.lock().unwrap().clone();
    assert!(
        logged
            .iter()
            .any(|(id, cause)| id == incident && cause.contains("disk I/O error")),
        "{logged:?}"
    );
}

#[test]
fn spec_codes_keep_their_own_flag_and_details() {
    let e = ToolError::new(
        "rate_limited",
        "Slow down. Retry after 2 s.",
        true,
        json!({"retry_after_s": 2}),
    );
    assert_eq!(
        e.to_value(),
        json!({"code": "rate_limited", "message": "Slow down. Retry after 2 s.", "retryable": true, "details": {"retry_after_s": 2}})
    );
    assert!(!e.is_builtin());
    assert_eq!(
        ToolError::new("x", "m", false, Value::Null).details.len(),
        0
    );
    assert_eq!(
        ToolError::new("x", "m", false, json!(3)).details["value"],
        3
    );
}
