//! A keyed write run as a task, through the MCP adapter over an in-process pipe with the
//! 2026-07-28 wire written by hand: the task completes with the write's result, a second
//! task of the same call replays it, and a cancelled task's write rolls back and gives its
//! key back, so the same call made the ordinary way then runs once.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::*;
use toolspec_runtime::mcp::McpServer;
use toolspec_runtime::store::Effect;
use toolspec_runtime::validate::{Field, ObjectShape, Shape, StringShape};

static INPUT: ObjectShape = ObjectShape::new(&[
    Field::required("job", Shape::String(StringShape::new())),
    Field::required("idempotency_key", Shape::String(StringShape::new())),
]);

const SCHEMA: &str = r#"{"type":"object","properties":{"job":{"type":"string"},"idempotency_key":{"type":"string"}},"required":["job","idempotency_key"]}"#;

static DEFS: [ToolDefinition; 1] = [ToolDefinition {
    name: "jobs_run",
    title: "Run a job",
    description: "Runs a job once per key.",
    input_schema: SCHEMA,
    output_schema: r#"{"type":"object"}"#,
    listed_output_schema: r#"{"type":"object"}"#,
    annotations: Annotations {
        read_only: false,
        destructive: false,
        idempotent: true,
        open_world: false,
    },
    deprecated_aliases: &[],
    scopes: &[],
    input: &INPUT,
    example_call: r#"{"job":"slow-0","idempotency_key":"k"}"#,
    group: None,
}];

/// `jobs_run` of `slow-MS` waits MS in its unit of work, then counts a run that commits.
struct Jobs {
    runtime: Runtime,
    runs: Arc<AtomicU32>,
}

impl Toolset for Jobs {
    fn definitions(&self) -> &'static [ToolDefinition] {
        &DEFS
    }

    fn task_runtime(&self) -> Option<&Runtime> {
        Some(&self.runtime)
    }

    fn task_kept(&self, tool: &str) -> Option<Duration> {
        (tool == "jobs_run").then_some(Duration::from_secs(3600))
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallOutput, ToolError>> {
        Box::pin(async move {
            let Some((def, _)) = find_tool(&DEFS, name) else {
                return Err(unknown_tool(&DEFS, name));
            };
            let args = def.prepare(arguments)?;
            let wait: u64 = args["job"]
                .as_str()
                .and_then(|j| j.strip_prefix("slow-"))
                .and_then(|ms| ms.parse().ok())
                .unwrap_or(0);
            let key = args["idempotency_key"].as_str().unwrap_or_default();
            let fingerprint = toolspec_runtime::fingerprint::fingerprint(&args);
            let runs = Arc::clone(&self.runs);
            let job = args["job"].clone();
            let limits = CallLimits {
                rate: None,
                time: Some(Duration::from_secs(10)),
            };
            let out = self
                .runtime
                .idempotent_within(
                    Effect::Store,
                    limits,
                    "jobs_run",
                    Some(key),
                    &fingerprint,
                    Duration::from_secs(86_400),
                    |work| async move {
                        tokio::time::sleep(Duration::from_millis(wait)).await;
                        work.on_commit(move || {
                            runs.fetch_add(1, Ordering::SeqCst);
                        });
                        Ok(json!({ "job": job }))
                    },
                )
                .await?;
            Ok(CallOutput::new(out))
        })
    }
}

/// The client end of the pipe, speaking JSON-RPC lines.
struct Wire {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    next: u64,
}

impl Wire {
    /// Sends `method` with `params` (and the 2026-07-28 `_meta`, declaring the tasks
    /// extension when `tasks`), and returns its response.
    async fn request(&mut self, method: &str, mut params: Value, tasks: bool) -> Value {
        let extensions = if tasks {
            json!({"io.modelcontextprotocol/tasks": {}})
        } else {
            json!({})
        };
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        });
        self.next += 1;
        let id = self.next;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        loop {
            let mut text = String::new();
            let read =
                tokio::time::timeout(Duration::from_secs(20), self.read.read_line(&mut text));
            read.await.expect("an answer within 20 s").unwrap();
            let message: Value = serde_json::from_str(&text).unwrap();
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    async fn call(&mut self, job: &str, key: &str, tasks: bool) -> Value {
        let params = json!({"name": "jobs_run", "arguments": {"job": job, "idempotency_key": key}});
        self.request("tools/call", params, tasks).await["result"].clone()
    }

    async fn task(&mut self, id: &str, method: &str) -> Value {
        self.request(method, json!({"taskId": id}), true).await
    }

    /// Polls `tasks/get` until the task ends.
    async fn finished(&mut self, id: &str) -> Value {
        loop {
            let state = self.task(id, "tasks/get").await["result"].clone();
            if state["status"] != "working" {
                return state;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn serve(runs: &Arc<AtomicU32>) -> Wire {
    let jobs = Jobs {
        runtime: Runtime::in_memory().unwrap(),
        runs: Arc::clone(runs),
    };
    let server = McpServer::new(Arc::new(jobs), "jobs", "1")
        .unwrap()
        .with_call_logger(None);
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(client_io);
    Wire {
        write,
        read: BufReader::new(read),
        next: 0,
    }
}

#[tokio::test]
async fn a_keyed_write_runs_as_a_task_once_per_key() {
    let runs = Arc::new(AtomicU32::new(0));
    let mut wire = serve(&runs);

    let handle = wire.call("slow-100", "k-1", true).await;
    assert_eq!(handle["resultType"], "task", "{handle}");
    let id = handle["taskId"].as_str().unwrap().to_owned();
    let done = wire.finished(&id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["replayed"], false,
        "{done}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // The same call again, as a task: the key's stored result, not a second run.
    let again = wire.call("slow-100", "k-1", true).await;
    let again = wire.finished(again["taskId"].as_str().unwrap()).await;
    assert_eq!(
        again["result"]["structuredContent"]["replayed"], true,
        "{again}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_cancelled_write_task_rolls_back_and_gives_its_key_back() {
    let runs = Arc::new(AtomicU32::new(0));
    let mut wire = serve(&runs);

    let handle = wire.call("slow-1500", "k-2", true).await;
    let id = handle["taskId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let acked = wire.task(&id, "tasks/cancel").await;
    assert!(acked.get("error").is_none(), "{acked}");
    let ended = wire.finished(&id).await;
    assert_eq!(ended["status"], "cancelled", "{ended}");

    // The key is free at once: the same call, the ordinary way, runs (not in progress).
    let ordinary = wire.call("slow-1500", "k-2", false).await;
    assert_ne!(ordinary["isError"], true, "{ordinary}");
    assert_eq!(
        ordinary["structuredContent"]["replayed"], false,
        "{ordinary}"
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "the cancelled write committed nothing"
    );
    let still = wire.task(&id, "tasks/get").await["result"].clone();
    assert_eq!(
        still["status"], "cancelled",
        "a cancelled task stays cancelled"
    );
}
