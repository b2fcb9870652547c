//! The transcript of a run: one JSON line per event, everything the model was sent and
//! answered, every tool call and what the server said, the state read after the run.
//!
//! A transcript holds all a score needs (the task, the tools' tiers, the times), so
//! `toolspec eval --rescore DIR` scores recorded runs again offline and gets the same report.
//! No key is ever written: keys travel in headers, which are not recorded, and any text that
//! holds one is cut out before it is written ([`Redactor`]).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::turn::{Call, ToolAnswer, Usage};

/// A task as a transcript records it: what it asked and how it is judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// Its id.
    pub id: String,
    /// `written`, `routing`, `misroute` or `recovery`.
    pub origin: String,
    /// What the model was asked.
    pub prompt: String,
    /// The tiers it may use; all when empty.
    #[serde(default)]
    pub tiers: Vec<String>,
    /// The host's answer to an approval request.
    pub approve: bool,
    /// The most model turns.
    pub max_turns: u32,
    /// The tool that must be called first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_tool: Option<String>,
    /// The tool whose refused calls must be followed by a valid one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovers: Option<String>,
    /// Reads of the state after the run, and what each must find.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub state: Vec<StateRecord>,
    /// Calls the run must make, in this order (arguments a subset).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallRecord>,
    /// Text the final answer must contain (case-insensitive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_contains: Option<String>,
    /// Text the final answer must be (case and surrounding space aside).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_equals: Option<String>,
}

/// A call a task names: a tool and (some of) its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The tool.
    pub tool: String,
    /// The arguments, or the part that must match.
    #[serde(default)]
    pub arguments: serde_json::Map<String, Value>,
}

/// A read of the state after a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateRecord {
    /// The read.
    pub call: CallRecord,
    /// Where in its result (a JSON Pointer; the whole result when empty).
    #[serde(default)]
    pub at: String,
    /// What must be found there.
    pub equals: Value,
}

/// One line of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The run's setting: first line of every transcript.
    Start {
        /// The task's place in the evaluation (reports keep this order).
        index: usize,
        /// The repeat, from 1.
        repeat: u32,
        /// The task.
        task: TaskRecord,
        /// The toolspec version that ran it.
        toolspec: String,
        /// The provider (`anthropic`...).
        provider: String,
        /// Its wire, in words.
        wire: String,
        /// The model, as asked for.
        model: String,
        /// When the run started (UTC, RFC 3339).
        date: String,
        /// The system prompt.
        system: String,
        /// Which lists the model was sent: `deferred` (as toolspec writes them, groups not
        /// loaded up front deferred) or `whole` (every tool loaded).
        #[serde(default = "crate::lists::unnamed")]
        list: String,
        /// Tokens of the tool list the model reads before any search (o200k_base count).
        list_tokens: u64,
        /// Each tool of the specs and its tier.
        tiers: BTreeMap<String, String>,
    },
    /// A request of one model turn (the same body goes again on a retry).
    Request {
        /// The turn, from 1.
        turn: u32,
        /// The body sent.
        body: Value,
    },
    /// The provider's answer to one attempt.
    Response {
        /// The turn.
        turn: u32,
        /// The attempt, from 1.
        attempt: u32,
        /// The HTTP status; 0 when no answer came.
        status: u16,
        /// Time waiting for it.
        ms: u64,
        /// The wait before the next attempt, when there is one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_in_ms: Option<u64>,
        /// Its body (JSON, or the text when it was not JSON, or what went wrong).
        body: Value,
    },
    /// What the harness read from the model's turn.
    Model {
        /// The turn.
        turn: u32,
        /// Its text.
        text: String,
        /// Its calls.
        calls: Vec<Call>,
        /// Tool searches the provider ran for it, loading deferred tools.
        #[serde(default, skip_serializing_if = "is_zero")]
        searches: u32,
        /// Its tokens.
        usage: Usage,
        /// The provider's word for why it ended.
        stop: String,
    },
    /// The server asked the person to approve something; the host answered.
    Approval {
        /// What the person was shown.
        message: String,
        /// `accept` or `decline`.
        answer: String,
    },
    /// One tool call and the server's answer.
    Tool {
        /// The turn whose call it was.
        turn: u32,
        /// The call.
        call: Call,
        /// The answer.
        answer: ToolAnswer,
        /// Time the server took.
        ms: u64,
    },
    /// A read of the state after the run.
    State {
        /// Which check of the task.
        index: usize,
        /// The server's answer.
        answer: ToolAnswer,
    },
    /// The run's end: last line of every transcript.
    End {
        /// The model's last text.
        answer: String,
        /// Why the run stopped before the model was done, if it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<String>,
    },
}

/// Writes events to a JSONL file as they happen, so a run cut short keeps what it did.
pub struct Writer {
    file: std::io::BufWriter<Box<dyn Write + Send>>,
    redactor: Redactor,
    events: Vec<Event>,
}

impl Writer {
    /// A new transcript at `path` (which must not exist yet: no run overwrites another's).
    pub fn create(path: &Path, redactor: Redactor) -> std::io::Result<Writer> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        Ok(Writer::sink(Box::new(file), redactor))
    }

    /// A transcript written to `sink` (a file, or `std::io::sink()` where only the events
    /// matter).
    pub fn sink(sink: Box<dyn Write + Send>, redactor: Redactor) -> Writer {
        Writer {
            file: std::io::BufWriter::new(sink),
            redactor,
            events: Vec::new(),
        }
    }

    /// Records `event` (with any secret cut out) and keeps it for the score.
    pub fn push(&mut self, event: Event) -> std::io::Result<()> {
        let written = serde_json::to_string(&event).map_err(std::io::Error::other)?;
        let line = self.redactor.clean(&written);
        self.file.write_all(line.as_bytes())?;
        self.file.write_all(b"\n")?;
        self.file.flush()?;
        // What is scored is what was written, so a re-score reads the same events: a line
        // the redactor changed is read back.
        let event = match line {
            std::borrow::Cow::Borrowed(_) => event,
            std::borrow::Cow::Owned(line) => {
                serde_json::from_str(&line).map_err(std::io::Error::other)?
            }
        };
        self.events.push(event);
        Ok(())
    }

    /// The events written so far.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The events, once the run is over.
    pub fn finish(self) -> Vec<Event> {
        self.events
    }
}

/// Cuts secrets out of recorded text: each is replaced by `[redacted]` wherever it appears,
/// escaped as JSON writes it.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// A redactor for `secrets` (empty ones are ignored).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Redactor {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .filter(|s| s.len() >= 4)
            .flat_map(|s| {
                let escaped = serde_json::to_string(&s).unwrap_or_default();
                let escaped = escaped.trim_matches('"').to_string();
                [s, escaped]
            })
            .collect();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Redactor { secrets }
    }

    /// `text` with every secret replaced; borrowed when there was none.
    pub fn clean<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        let mut text = std::borrow::Cow::Borrowed(text);
        for secret in &self.secrets {
            if text.contains(secret.as_str()) {
                text = std::borrow::Cow::Owned(text.replace(secret.as_str(), "[redacted]"));
            }
        }
        text
    }
}

/// Reads a transcript back: every line an event, in order.
pub fn read(path: &Path) -> Result<Vec<Event>, String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut events = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let event = serde_json::from_str(&line)
            .map_err(|e| format!("{}:{}: not a transcript event: {e}", path.display(), n + 1))?;
        events.push(event);
    }
    Ok(events)
}

/// Whether a count is zero (and left out of a transcript line).
pub(crate) fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_cut_out_raw_and_as_json_escapes_it() {
        let redactor = Redactor::new(["sk-\"quoted\"-key".to_string(), String::new()]);
        let line = serde_json::to_string(&serde_json::json!({"echo": "sk-\"quoted\"-key"}))
            .unwrap_or_default();
        assert_eq!(redactor.clean(&line), r#"{"echo":"[redacted]"}"#);
        assert_eq!(redactor.clean("a sk-\"quoted\"-key b"), "a [redacted] b");
        assert!(matches!(
            redactor.clean("nothing"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
