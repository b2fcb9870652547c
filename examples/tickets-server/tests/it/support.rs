//! A minimal MCP client over stdio for the failure tests: newline-delimited JSON-RPC to a
//! `tickets-server` child process, many requests in flight at once, and SIGKILL.
//!
//! The binary is `$TICKETS_SERVER` when set (scripts/test points it at the release build),
//! else the one cargo built for these tests.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// The server binary under test.
pub fn binary() -> PathBuf {
    std::env::var_os("TICKETS_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_tickets-server")))
}

/// A scratch directory, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tickets-{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Self(dir)
    }
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

type Waiters = Arc<Mutex<HashMap<u64, Sender<Value>>>>;

/// One running server and its initialized session.
pub struct Server {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    waiters: Waiters,
    next: AtomicU64,
}

/// What one `tools/call` came back as, reduced to what the tests judge.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A success: its structured content.
    Ok(Value),
    /// An error result: its `{code, message, retryable, details}`.
    Err(Value),
    /// No answer: the server died first.
    Lost,
}

impl Answer {
    pub fn code(&self) -> Option<&str> {
        match self {
            Answer::Err(e) => e.get("code").and_then(Value::as_str),
            _ => None,
        }
    }
}

impl Server {
    /// Starts the server on `db` with `args` and initializes a session (no elicitation).
    pub fn start(db: &Path, args: &[&str]) -> Self {
        let mut child = Command::new(binary())
            .arg("--db")
            .arg(db)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", binary().display()));
        let stdin = Arc::new(Mutex::new(child.stdin.take().expect("stdin")));
        let stdout = child.stdout.take().expect("stdout");
        let waiters: Waiters = Arc::default();
        let routes = Arc::clone(&waiters);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if let Some(id) = msg.get("id").and_then(Value::as_u64)
                    && let Some(tx) = routes.lock().unwrap().remove(&id)
                {
                    let _ = tx.send(msg);
                }
            }
            // The server is gone: every waiter hears nothing more (its sender drops).
            routes.lock().unwrap().clear();
        });
        let server = Self {
            child,
            stdin,
            waiters,
            next: AtomicU64::new(1),
        };
        let init = server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "crash-test", "version": "1"}
            }),
        );
        assert!(
            init.recv_timeout(Duration::from_secs(30)).is_ok(),
            "the server answers initialize"
        );
        server.notify("notifications/initialized", json!({}));
        server
    }

    fn send(&self, msg: &Value) {
        let mut stdin = self.stdin.lock().unwrap();
        // A dead server's pipe refuses writes; its waiters then hear nothing.
        let _ = writeln!(stdin, "{msg}").and_then(|_| stdin.flush());
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request; its response arrives on the receiver (or the sender drops when the
    /// server dies).
    pub fn request(&self, method: &str, params: Value) -> Receiver<Value> {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = channel();
        self.waiters.lock().unwrap().insert(id, tx);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        rx
    }

    /// Sends a `tools/call`.
    pub fn call(&self, tool: &str, args: Value) -> Receiver<Value> {
        self.call_with_id(tool, args).1
    }

    /// Sends a `tools/call`; its request id (to cancel it by) and its answer.
    pub fn call_with_id(&self, tool: &str, args: Value) -> (u64, Receiver<Value>) {
        let id = self.next.load(Ordering::SeqCst);
        let rx = self.request("tools/call", json!({"name": tool, "arguments": args}));
        (id, rx)
    }

    /// Calls and waits for the answer.
    pub fn call_wait(&self, tool: &str, args: Value) -> Answer {
        answer(&self.call(tool, args))
    }

    /// SIGKILL, no goodbye.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for one call's answer.
pub fn answer(rx: &Receiver<Value>) -> Answer {
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(msg) => {
            let result = &msg["result"];
            let structured = result["structuredContent"].clone();
            if result["isError"] == true {
                Answer::Err(structured)
            } else if msg.get("error").is_some() {
                Answer::Err(json!({"code": "protocol_error", "message": msg["error"].to_string()}))
            } else {
                Answer::Ok(structured)
            }
        }
        Err(_) => Answer::Lost,
    }
}

/// The arguments of a create for key `i`.
pub fn create_args(i: usize) -> Value {
    json!({
        "title": format!("crash test ticket {i}"),
        "customer_email": format!("c{i}@example.com"),
        "idempotency_key": format!("key-{i}"),
    })
}

/// Rows of `SQL` on the database file, as a second process sees them.
pub fn count(db: &Path, sql: &str, arg: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).expect("open db");
    conn.busy_timeout(Duration::from_secs(5)).expect("timeout");
    conn.query_row(sql, [arg], |r| r.get(0)).expect("query")
}
