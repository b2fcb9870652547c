//! A tiny hand-written toolset for the MCP adapter tests, and a client connected to it
//! through an in-process duplex pipe (the same framing as stdio).
//!
//! Two tools: `notes_get` (read-only, deprecated alias `notes_fetch`) answers with the note;
//! `notes_delete` always refuses with the catalog error `locked`. Both panic for the id
//! `panic` (to show a panic becomes an `internal_error` result).
//!
//! `notes_get` of `hold-TAG-N` stays in flight until N calls of that TAG are (or 5 s pass;
//! `hold-TAG-0` for 300 ms), and [`most_held`] tells how many of them ever ran at once: the
//! concurrency tests' probe.
#![allow(dead_code)]

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::*;
use toolspec_runtime::mcp::{CallLogger, CallRecord, McpServer};
use toolspec_runtime::validate::{Field, ObjectShape, Shape, StringShape};

static NOTE_INPUT: ObjectShape = ObjectShape::new(&[Field::required(
    "note_id",
    Shape::String(StringShape::new().length(Some(1), Some(20))),
)]);

pub const GET_INPUT_SCHEMA: &str = r#"{"type":"object","properties":{"note_id":{"type":"string","minLength":1,"maxLength":20}},"required":["note_id"],"additionalProperties":false}"#;
pub const GET_OUTPUT_SCHEMA: &str = r#"{"type":"object","properties":{"note_id":{"type":"string"},"text":{"type":"string"}},"required":["note_id","text"],"additionalProperties":false}"#;

pub static DEFS: [ToolDefinition; 2] = [
    ToolDefinition {
        name: "notes_get",
        title: "Get a note",
        description: "Returns one note by id.",
        input_schema: GET_INPUT_SCHEMA,
        output_schema: GET_OUTPUT_SCHEMA,
        listed_output_schema: GET_OUTPUT_SCHEMA,
        annotations: Annotations {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        },
        deprecated_aliases: &["notes_fetch"],
        scopes: &["notes:read"],
        input: &NOTE_INPUT,
        example_call: r#"{"note_id":"N-1"}"#,
        group: None,
    },
    ToolDefinition {
        name: "notes_delete",
        title: "Delete a note",
        description: "Deletes a note for good.",
        input_schema: GET_INPUT_SCHEMA,
        output_schema: r#"{"type":"object","properties":{"deleted":{"type":"boolean"}}}"#,
        listed_output_schema: r#"{"type":"object","properties":{"deleted":{"type":"boolean"}}}"#,
        annotations: Annotations {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: false,
        },
        deprecated_aliases: &[],
        scopes: &["notes:write"],
        input: &NOTE_INPUT,
        example_call: r#"{"note_id":"N-1"}"#,
        group: None,
    },
];

/// The toolset, written the way generated code is: find, prepare, run, wrap.
pub struct Notes;

impl Toolset for Notes {
    fn definitions(&self) -> &'static [ToolDefinition] {
        &DEFS
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: serde_json::Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallOutput, ToolError>> {
        Box::pin(async move {
            let Some((def, via_alias)) = find_tool(&DEFS, name) else {
                return Err(unknown_tool(&DEFS, name));
            };
            let args = def.prepare(arguments)?;
            let id = args["note_id"].as_str().unwrap_or_default().to_owned();
            if let Some(hold) = id.strip_prefix("hold-") {
                held(hold).await;
            }
            if id == "panic" {
                panic!("the {} handler panicked on purpose", def.name);
            }
            if def.name == "notes_get" {
                let note = json!({ "note_id": id, "text": format!("text of {id}") });
                return Ok(CallOutput::new(note).via_alias(via_alias));
            }
            Err(ToolError::new(
                "locked",
                format!("Note {id} is locked and cannot be deleted. Ask its owner to unlock it."),
                false,
                json!({ "note_id": id }),
            ))
        })
    }
}

/// For each hold tag: calls of it in flight now, and the most ever at once.
static HOLDS: LazyLock<Mutex<HashMap<String, (usize, usize)>>> = LazyLock::new(Default::default);

/// Stays in flight (as one of `TAG`'s calls) until `N` of them are, or 5 s have passed
/// (300 ms for `N` = 0).
async fn held(spec: &str) {
    let (tag, n) = spec.rsplit_once('-').unwrap_or((spec, "1"));
    let n: usize = n.parse().unwrap_or(1);
    let count = |delta: isize| {
        let mut holds = HOLDS.lock().unwrap();
        let entry = holds.entry(tag.to_owned()).or_default();
        entry.0 = entry.0.saturating_add_signed(delta);
        entry.1 = entry.1.max(entry.0);
        entry.0
    };
    count(1);
    if n == 0 {
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while count(0) < n && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    count(-1);
}

/// The most calls of hold tag `tag` that were ever in flight at once.
pub fn most_held(tag: &str) -> usize {
    HOLDS.lock().unwrap().get(tag).map_or(0, |e| e.1)
}

/// The adapter over [`Notes`], with call logging captured in `log` (one line per call).
pub fn server(log: &Arc<Mutex<Vec<String>>>) -> McpServer {
    let sink = Arc::clone(log);
    let logger: CallLogger = Arc::new(move |record: &CallRecord<'_>| {
        sink.lock().unwrap().push(record.to_string());
    });
    McpServer::new(Arc::new(Notes), "notes-test", "1.2.3")
        .expect("the fixture's definitions are valid")
        .with_call_logger(Some(logger))
}

/// A real rmcp client connected to `server` through an in-process duplex pipe.
pub async fn connect(server: McpServer) -> RunningService<RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    within(().serve(client_io))
        .await
        .expect("initialize succeeds")
}

/// Awaits `fut`, failing the test instead of hanging if the protocol stalls.
pub async fn within<F: Future>(fut: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), fut)
        .await
        .expect("the MCP exchange finished within 20 s")
}
