//! One log line per tool call, on standard error.
//!
//! Standard output is the stdio transport: a stray byte there corrupts the protocol, so
//! the adapter never writes to it. The default logger writes one line per call to standard
//! error; a server may replace it (to feed its own logger or a test) or turn it off.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// How one `tools/call` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome<'a> {
    /// The tool returned a result.
    Ok,
    /// The tool returned a [`toolspec_core::ToolError`] with this code (an `isError` result).
    Error(&'a str),
    /// No tool nor alias has the name: a JSON-RPC error, nothing ran.
    UnknownTool,
}

/// What the adapter knows about one finished call.
#[derive(Debug, Clone, Copy)]
pub struct CallRecord<'a> {
    /// The name the client called: a tool, an alias, or an unknown name.
    pub called: &'a str,
    /// The canonical name, when `called` was a deprecated alias.
    pub canonical: Option<&'a str>,
    /// The JSON-RPC request id.
    pub request_id: &'a str,
    /// Time spent in the tool (zero for an unknown tool).
    pub elapsed: Duration,
    /// How it ended.
    pub outcome: CallOutcome<'a>,
}

impl fmt::Display for CallRecord<'_> {
    /// `mcp tools/call tickets_search id=3 12.4ms ok`, or `error=invalid_enum`,
    /// `unknown_tool`; a call through an alias shows `old_name->new_name`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mcp tools/call {}", self.called)?;
        if let Some(canonical) = self.canonical {
            write!(f, "->{canonical}")?;
        }
        let ms = self.elapsed.as_secs_f64() * 1000.0;
        write!(f, " id={} {ms:.1}ms ", self.request_id)?;
        match self.outcome {
            CallOutcome::Ok => f.write_str("ok"),
            CallOutcome::Error(code) => write!(f, "error={code}"),
            CallOutcome::UnknownTool => f.write_str("unknown_tool"),
        }
    }
}

/// Receives every finished call. `None` in [`crate::McpServer::with_call_logger`]
/// turns logging off.
pub type CallLogger = Arc<dyn Fn(&CallRecord<'_>) + Send + Sync>;

/// The default logger: the record's line on standard error, written in batches by a thread
/// of its own (every 20 ms, and when the server is dropped), so a call does not wait for a
/// system call. A process killed outright loses at most the last 20 ms of lines.
pub fn stderr_logger() -> CallLogger {
    let log = super::batched::BatchedStderr::start();
    Arc::new(move |record: &CallRecord<'_>| log.push(&record.to_string()))
}
