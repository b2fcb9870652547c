//! The engine as generated code uses it: a hand-written toolset over static tables, driven
//! through `dyn Toolset`, with aliases, undo handles and paging.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::*;
use toolspec_runtime::fingerprint::fingerprint;
use toolspec_runtime::validate::{Field, ObjectShape, Shape, StringShape};

static CLOSE_INPUT: ObjectShape = ObjectShape::new(&[
    Field::required(
        "ticket_id",
        Shape::String(StringShape::new().length(Some(1), Some(20))),
    ),
    Field::optional(
        "idempotency_key",
        Shape::String(StringShape::new().length(Some(1), Some(255))),
    ),
]);
static SEARCH_INPUT: ObjectShape = ObjectShape::new(&[
    Field::optional("limit", Shape::integer(Some(1), Some(10))).default_json("2"),
    Field::optional("cursor", Shape::String(StringShape::new())),
]);
const ANN: Annotations = Annotations {
    read_only: false,
    destructive: false,
    idempotent: true,
    open_world: false,
};
static DEFS: [ToolDefinition; 2] = [
    ToolDefinition {
        name: "tickets_close",
        title: "Close a ticket",
        description: "Closes a ticket. Returns an undo handle.",
        input_schema: r#"{"type":"object"}"#,
        output_schema: r#"{"type":"object"}"#,
        listed_output_schema: r#"{"type":"object"}"#,
        annotations: ANN,
        deprecated_aliases: &["close_ticket"],
        scopes: &[],
        input: &CLOSE_INPUT,
        example_call: r#"{"ticket_id":"T-1"}"#,
        group: None,
    },
    ToolDefinition {
        name: "tickets_search",
        title: "Search tickets",
        description: "Lists tickets, paged.",
        input_schema: r#"{"type":"object"}"#,
        output_schema: r#"{"type":"object"}"#,
        listed_output_schema: r#"{"type":"object"}"#,
        annotations: Annotations {
            read_only: true,
            ..ANN
        },
        deprecated_aliases: &[],
        scopes: &[],
        input: &SEARCH_INPUT,
        example_call: r#"{"limit":2}"#,
        group: None,
    },
];
static UNDO: UndoSpec = UndoSpec {
    tool: "tickets_reopen",
    arguments: &[("ticket_id", "/ticket/id")],
    takes_idempotency_key: true,
};

struct Tickets {
    rt: Runtime,
    closes: AtomicUsize,
}

impl Tickets {
    async fn dispatch(
        &self,
        def: &'static ToolDefinition,
        args: Value,
    ) -> Result<Value, ToolError> {
        let fp = fingerprint(&args);
        match def.name {
            "tickets_close" => {
                let key = args.get("idempotency_key").and_then(Value::as_str);
                let id = args["ticket_id"].clone();
                self.rt
                    .idempotent(def.name, key, &fp, Duration::from_secs(60), |_work| async {
                        self.closes.fetch_add(1, Ordering::SeqCst);
                        let mut v = json!({"ticket": {"id": id, "status": "closed"}});
                        attach_undo(&mut v, &UNDO, key)?;
                        Ok(v)
                    })
                    .await
            }
            "tickets_search" => {
                let offset = self.rt.cursor_offset(
                    def.name,
                    &fp,
                    args.get("cursor").and_then(Value::as_str),
                )?;
                let limit = args["limit"].as_u64().unwrap_or(2);
                let all: Vec<u64> = (1..=5).collect();
                let page: Vec<u64> = all
                    .iter()
                    .copied()
                    .skip(offset as usize)
                    .take(limit as usize)
                    .collect();
                let mut v = json!({"tickets": page});
                self.rt
                    .page(def.name, &fp, &mut v, "tickets", offset, all.len() as u64);
                Ok(v)
            }
            other => Err(unknown_tool(&DEFS, other)),
        }
    }
}

impl Toolset for Tickets {
    fn definitions(&self) -> &'static [ToolDefinition] {
        &DEFS
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallOutput, ToolError>> {
        Box::pin(async move {
            let Some((def, alias)) = find_tool(&DEFS, name) else {
                return Err(unknown_tool(&DEFS, name));
            };
            let args = def.prepare(arguments)?;
            Ok(CallOutput::new(self.dispatch(def, args).await?).via_alias(alias))
        })
    }
}

fn toolset() -> Arc<dyn Toolset> {
    Arc::new(Tickets {
        rt: Runtime::in_memory().expect("runtime"),
        closes: AtomicUsize::new(0),
    })
}

#[tokio::test]
async fn undo_handle_is_exact_and_replays_identically() {
    let ts = toolset();
    let ctx = CallContext::new();
    let first = ts
        .call(
            "tickets_close",
            json!({"ticket_id": "T-7", "idempotency_key": "c1"}),
            &ctx,
        )
        .await
        .expect("close");
    assert!(!first.replayed);
    assert_eq!(
        first.structured["undo"],
        json!({"tool": "tickets_reopen", "arguments": {"ticket_id": "T-7", "idempotency_key": "undo-c1"}})
    );
    let again = ts
        .call(
            "tickets_close",
            json!({"ticket_id": "T-7", "idempotency_key": "c1"}),
            &ctx,
        )
        .await
        .expect("replay");
    assert!(again.replayed);
    assert_eq!(again.structured["undo"], first.structured["undo"]);
    let no_key = ts
        .call("tickets_close", json!({"ticket_id": "T-8"}), &ctx)
        .await
        .expect("close");
    assert_eq!(
        no_key.structured["undo"]["arguments"],
        json!({"ticket_id": "T-8"})
    );
    assert_eq!(undo_key(&"k".repeat(255)).len(), 5 + 64);
}

#[tokio::test]
async fn aliases_resolve_and_unknown_tools_are_errors() {
    let ts = toolset();
    let ctx = CallContext::new();
    let out = ts
        .call("close_ticket", json!({"ticket_id": "T-1"}), &ctx)
        .await
        .expect("alias");
    assert_eq!(out.called_as_alias, Some("tickets_close"));
    let e = ts
        .call("tickets_delete", json!({}), &ctx)
        .await
        .expect_err("unknown");
    assert_eq!((e.code.as_ref(), e.retryable), ("unknown_tool", false));
    assert_eq!(
        e.details["allowed"],
        json!(["tickets_close", "tickets_search"])
    );
    let e = ts
        .call("tickets_close", json!({"ticket": "T-1"}), &ctx)
        .await
        .expect_err("invalid");
    assert_eq!(e.code, "invalid_arguments");
    assert!(
        e.message
            .ends_with(r#"Example of a valid call: {"ticket_id":"T-1"}"#)
    );
    assert_eq!(ts.definitions().len(), 2);
}

#[tokio::test]
async fn pages_walk_to_the_end_and_cursors_stay_bound_to_the_query() {
    let ts = toolset();
    let ctx = CallContext::new();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10 {
        let mut args = json!({});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let out = ts
            .call("tickets_search", args, &ctx)
            .await
            .expect("page")
            .structured;
        assert_eq!(out["total"], 5);
        seen.extend(
            out["tickets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap()),
        );
        match out.get("next_cursor") {
            Some(c) => cursor = Some(c.as_str().unwrap().to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, [1, 2, 3, 4, 5]);
    // A cursor of the search tool handed to the close tool's namespace is refused.
    let first = ts
        .call("tickets_search", json!({}), &ctx)
        .await
        .expect("page")
        .structured;
    let c = first["next_cursor"].as_str().unwrap();
    let changed_limit = ts
        .call("tickets_search", json!({"cursor": c, "limit": 3}), &ctx)
        .await
        .expect("limit may change");
    assert_eq!(changed_limit.structured["tickets"], json!([3, 4, 5]));
    let e = ts
        .call("tickets_search", json!({"cursor": format!("x{c}")}), &ctx)
        .await
        .expect_err("edited");
    assert_eq!(e.code, "invalid_cursor");
}

#[test]
fn helper_futures_are_send_so_generated_toolsets_can_box_them() {
    fn assert_send<T: Send>(_: T) {}
    let rt = Runtime::in_memory().expect("runtime");
    let gate = Gate {
        tool: "t",
        fingerprint: "fp",
        preview_id: None,
        idempotency_key: Some("k"),
        idempotency_ttl: Duration::from_secs(1),
        preview_ttl: Duration::from_secs(1),
        confirmation: toolspec_runtime::engine::Confirmation::HostOrPreview,
        effect: toolspec_runtime::store::Effect::Store,
        host: None,
        limits: Default::default(),
    };
    assert_send(rt.gated(
        gate,
        || async { Ok(json!({})) },
        |p, _work| async move { Ok(p) },
    ));
    assert_send(
        rt.idempotent("t", None, "fp", Duration::from_secs(1), |_work| async {
            Ok(json!({}))
        }),
    );
}
