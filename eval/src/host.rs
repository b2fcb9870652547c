//! The harness as an MCP host: it starts (or reaches) the server, lists its tools, makes the
//! model's calls, and plays the person when the server asks for an approval.
//!
//! Over stdio every run gets a fresh server process, and `{dir}` in its command becomes a
//! new empty directory, removed after the run: irreversible tools act on a throwaway store.
//! Over streamable HTTP the server is the user's; resetting it between runs is theirs too.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, FormElicitationCapability, Implementation,
};
use rmcp::service::{RequestContext, RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use serde_json::{Value, json};

use crate::turn::{Call, ToolAnswer};

/// Where the server under evaluation is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Server {
    /// A command started for each run, speaking MCP on its standard input and output.
    Command(Vec<String>),
    /// A streamable HTTP endpoint.
    Url(String),
}

impl Server {
    /// `--server`'s value: a URL (`http://` or `https://`), or a command line split as a
    /// shell would (quotes group words; no variables, no globs).
    pub fn parse(text: &str) -> Result<Server, String> {
        let text = text.trim();
        if text.starts_with("http://") || text.starts_with("https://") {
            return Ok(Server::Url(text.to_string()));
        }
        let words = split_words(text)?;
        if words.is_empty() {
            return Err(
                "`--server` is empty: give a command (`'./server --db {dir}/t.db'`) or a URL"
                    .into(),
            );
        }
        Ok(Server::Command(words))
    }
}

/// Splits a command line into words: spaces separate them, single and double quotes group
/// them, a backslash escapes the next character outside single quotes.
fn split_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"') | None, '\\') => {
                word.extend(chars.next());
                in_word = true;
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!("`--server` has an unclosed {q} quote"));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// The person, as the task plays them: approves or declines whatever the server asks.
#[derive(Clone)]
struct Person {
    approve: bool,
    asked: Arc<Mutex<Vec<(String, String)>>>,
}

impl ClientHandler for Person {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let message = match &request {
            ElicitRequestParams::FormElicitationParams { message, .. } => message.clone(),
            ElicitRequestParams::UrlElicitationParams { message, .. } => message.clone(),
            _ => String::new(),
        };
        let answer = if self.approve { "accept" } else { "decline" };
        if let Ok(mut asked) = self.asked.lock() {
            asked.push((message, answer.to_string()));
        }
        Ok(if self.approve {
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({}))
        } else {
            ElicitResult::new(ElicitationAction::Decline)
        })
    }

    fn get_info(&self) -> ClientConfig {
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::default());
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(elicitation);
        ClientConfig::new(
            capabilities,
            Implementation::new("toolspec-eval", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// A connection to the server for one run.
pub struct Host {
    service: RunningService<RoleClient, Person>,
    asked: Arc<Mutex<Vec<(String, String)>>>,
    child: Option<tokio::process::Child>,
    /// Set when a call found the connection closed: the server is gone even if its process
    /// has not been reaped yet.
    gone: std::sync::atomic::AtomicBool,
    log: Option<std::path::PathBuf>,
    _dir: Option<TempDir>,
}

/// How long the server may take to start and answer `initialize`.
const START: Duration = Duration::from_secs(30);

impl Host {
    /// Starts (or reaches) `server` and initializes a session; the server's standard error
    /// goes to `log`. The person answers approvals with `approve`.
    pub async fn start(server: &Server, approve: bool, log: &Path) -> Result<Host, String> {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let person = Person {
            approve,
            asked: asked.clone(),
        };
        match server {
            Server::Url(url) => {
                let transport = StreamableHttpClientTransport::from_uri(url.as_str());
                let service = tokio::time::timeout(START, person.serve(transport))
                    .await
                    .map_err(|_| {
                        format!("{url} did not answer `initialize` in {} s", START.as_secs())
                    })?
                    .map_err(|e| format!("cannot start a session at {url}: {e}"))?;
                Ok(Host {
                    service,
                    asked,
                    child: None,
                    gone: Default::default(),
                    log: None,
                    _dir: None,
                })
            }
            Server::Command(words) => {
                let dir = TempDir::new()?;
                let words: Vec<String> = words
                    .iter()
                    .map(|w| w.replace("{dir}", &dir.path.to_string_lossy()))
                    .collect();
                let stderr = std::fs::File::create(log)
                    .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
                let mut child = tokio::process::Command::new(&words[0])
                    .args(&words[1..])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::from(stderr))
                    .kill_on_drop(true)
                    .spawn()
                    .map_err(|e| format!("cannot start `{}`: {e}", words[0]))?;
                let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                    return Err("the server's standard streams are not there".into());
                };
                let started = tokio::time::timeout(START, person.serve((stdout, stdin))).await;
                let service = match started {
                    Ok(Ok(service)) => service,
                    Ok(Err(e)) => {
                        return Err(format!(
                            "`{}` did not start an MCP session: {e}{}",
                            words[0],
                            last_words(log)
                        ));
                    }
                    Err(_) => {
                        return Err(format!(
                            "`{}` did not answer `initialize` in {} s{}",
                            words[0],
                            START.as_secs(),
                            last_words(log)
                        ));
                    }
                };
                Ok(Host {
                    service,
                    asked,
                    child: Some(child),
                    gone: Default::default(),
                    log: Some(log.to_path_buf()),
                    _dir: Some(dir),
                })
            }
        }
    }

    /// The names of the tools the server lists.
    pub async fn tool_names(&self) -> Result<Vec<String>, String> {
        let tools = tokio::time::timeout(START, self.service.peer().list_all_tools())
            .await
            .map_err(|_| "the server did not list its tools in time".to_string())?
            .map_err(|e| {
                format!(
                    "the server did not list its tools: {e}{}",
                    self.last_words()
                )
            })?;
        Ok(tools.into_iter().map(|t| t.name.to_string()).collect())
    }

    /// Makes `call` and says what the model is told, with the time it took. A call that
    /// gets no answer (the server stopped, or took longer than `timeout`) is an error the
    /// model is told about, with the code `no_answer`.
    pub async fn call(&self, call: &Call, timeout: Duration) -> (ToolAnswer, u64) {
        let started = Instant::now();
        let fail = |code: &str, text: String| ToolAnswer {
            call_id: call.id.clone(),
            name: call.name.clone(),
            text: text.clone(),
            structured: Some(json!({"code": code, "message": text})),
            is_error: true,
        };
        let Value::Object(arguments) = &call.arguments else {
            let text = format!(
                "the arguments of {} must be a JSON object, not {}",
                call.name,
                crate::client::cut(&call.arguments.to_string(), 200)
            );
            return (fail("invalid_arguments", text), 0);
        };
        let params =
            CallToolRequestParams::new(call.name.clone()).with_arguments(arguments.clone());
        let answer = match tokio::time::timeout(timeout, self.service.call_tool(params)).await {
            Err(_) => fail(
                "no_answer",
                format!("the server did not answer in {} s", timeout.as_secs()),
            ),
            Ok(Err(ServiceError::McpError(e))) => {
                let code = if e.code == rmcp::model::ErrorCode::INVALID_PARAMS
                    && e.message.contains(call.name.as_str())
                {
                    "unknown_tool"
                } else {
                    "protocol_error"
                };
                fail(code, e.message.to_string())
            }
            Ok(Err(e)) => {
                self.gone.store(true, std::sync::atomic::Ordering::Relaxed);
                fail(
                    "no_answer",
                    format!("the server gave no answer: {e}{}", self.last_words()),
                )
            }
            Ok(Ok(result)) => {
                let text: Vec<String> = result
                    .content
                    .iter()
                    .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                    .collect();
                ToolAnswer {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    text: text.join("\n"),
                    structured: result.structured_content,
                    is_error: result.is_error == Some(true),
                }
            }
        };
        (answer, started.elapsed().as_millis() as u64)
    }

    /// The approvals asked since the last look, each with the host's answer.
    pub fn take_approvals(&self) -> Vec<(String, String)> {
        self.asked
            .lock()
            .map(|mut a| std::mem::take(&mut *a))
            .unwrap_or_default()
    }

    /// Whether the server process is gone.
    pub fn stopped(&mut self) -> bool {
        self.gone.load(std::sync::atomic::Ordering::Relaxed)
            || self
                .child
                .as_mut()
                .is_some_and(|c| !matches!(c.try_wait(), Ok(None)))
    }

    /// Ends the session and, over stdio, the server (killed if it does not go in time).
    pub async fn stop(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.service.cancel()).await;
        if let Some(mut child) = self.child.take()
            && tokio::time::timeout(Duration::from_secs(5), child.wait())
                .await
                .is_err()
        {
            let _ = child.kill().await;
        }
    }

    fn last_words(&self) -> String {
        self.log.as_deref().map(last_words).unwrap_or_default()
    }
}

/// The last line the server wrote to standard error, as a clause.
fn last_words(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    match text.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(line) => format!(
            " (its last words: {})",
            crate::client::cut(line.trim(), 300)
        ),
        None => String::new(),
    }
}

/// A new empty directory, removed with everything in it when dropped.
struct TempDir {
    path: std::path::PathBuf,
}

impl TempDir {
    fn new() -> Result<TempDir, String> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "toolspec-eval-{}-{n}-{nanos:x}",
            std::process::id()
        ));
        std::fs::create_dir(&path)
            .map_err(|e| format!("cannot make a store directory {}: {e}", path.display()))?;
        Ok(TempDir { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_command_is_split_as_a_shell_would() {
        assert_eq!(
            Server::parse(r#"./server --db "{dir}/my db.sqlite" --name 'a b' c\ d"#).unwrap(),
            Server::Command(vec![
                "./server".into(),
                "--db".into(),
                "{dir}/my db.sqlite".into(),
                "--name".into(),
                "a b".into(),
                "c d".into(),
            ])
        );
        assert_eq!(
            Server::parse("http://127.0.0.1:8080/mcp").unwrap(),
            Server::Url("http://127.0.0.1:8080/mcp".into())
        );
        assert!(Server::parse("  ").unwrap_err().contains("empty"));
        assert!(
            Server::parse("./server 'open")
                .unwrap_err()
                .contains("unclosed")
        );
        assert_eq!(
            Server::parse("a '' b").unwrap(),
            Server::Command(vec!["a".into(), "".into(), "b".into()])
        );
    }
}
