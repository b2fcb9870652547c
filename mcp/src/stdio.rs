//! The stdio transport, with the limits of the HTTP one: one JSON-RPC message per line, a
//! line at most [`StdioGuard::max_line_bytes`] long and nested at most
//! [`StdioGuard::max_depth`] levels, and an answer for every line that is not a message.
//!
//! rmcp's own stdio transport drops an over-long line (16 MiB) and a line that is not JSON
//! (a nesting deeper than serde_json's 128 levels is one) without a word, so the client
//! waits for an answer that never comes. Here each such line gets a JSON-RPC error: -32700
//! for text that is not JSON, -32600 for a line too long, too deep, or not a message, with
//! the request's id when it can be read. Notifications are never answered, as JSON-RPC asks.
//!
//! Standard output is written by one task, a whole line at a time, so the server's messages
//! and these errors never interleave.

use std::io;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::envelope::{self, Envelope};
use super::guard::{HttpGuard, too_deep};

/// The limits the stdio transport enforces on every line it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StdioGuard {
    /// The longest line, in bytes, newline excluded ([`HttpGuard::MAX_BODY_BYTES`] by
    /// default, the same as an HTTP body). A longer line is read and dropped in pieces,
    /// never held, and answered with an error.
    pub max_line_bytes: usize,
    /// The deepest nesting of arrays and objects in a line ([`HttpGuard::MAX_DEPTH`]).
    pub max_depth: usize,
}

impl Default for StdioGuard {
    fn default() -> Self {
        Self {
            max_line_bytes: HttpGuard::MAX_BODY_BYTES,
            max_depth: HttpGuard::MAX_DEPTH,
        }
    }
}

impl From<toolspec_core::engine::Limits> for StdioGuard {
    /// A toolset's request limits ([`Toolset::limits`](toolspec_core::engine::Toolset::limits)),
    /// what [`serve_stdio`](super::serve_stdio) uses.
    fn from(limits: toolspec_core::engine::Limits) -> Self {
        Self {
            max_line_bytes: limits.max_request_bytes,
            max_depth: limits.max_depth,
        }
    }
}

impl From<&HttpGuard> for StdioGuard {
    /// The same request size and depth as an HTTP server with `guard`.
    fn from(guard: &HttpGuard) -> Self {
        Self {
            max_line_bytes: guard.max_body_bytes,
            max_depth: guard.max_depth,
        }
    }
}

/// How many lines may wait for standard output before senders wait.
const OUTPUT_QUEUE: usize = 64;

/// A transport on a reader and a writer (standard input and output), guarded.
pub(super) struct GuardedLines<R> {
    read: BufReader<R>,
    guard: StdioGuard,
    line: Vec<u8>,
    /// While the rest of a line already too long is dropped: its bytes so far.
    dropping: Option<usize>,
    /// An error answer read but not yet queued (kept here so a cancelled `receive`, which
    /// rmcp's loop does, loses nothing).
    pending: Option<Vec<u8>>,
    out: mpsc::Sender<Vec<u8>>,
}

/// What one bounded read of a line found.
enum Line {
    /// A whole line is in `GuardedLines::line`.
    Whole,
    /// A line longer than the limit (this many bytes), dropped.
    TooLong(usize),
    /// End of input.
    End,
}

impl<R: AsyncRead + Unpin + Send> GuardedLines<R> {
    /// The transport on `read`, and the task that writes every outgoing line to `write`
    /// (it ends once the transport and every send it started are gone).
    pub(super) fn new<W>(read: R, write: W, guard: StdioGuard) -> (Self, JoinHandle<()>)
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, lines) = mpsc::channel(OUTPUT_QUEUE);
        let writer = tokio::spawn(write_lines(lines, write));
        let transport = Self {
            read: BufReader::new(read),
            guard,
            line: Vec::new(),
            dropping: None,
            pending: None,
            out,
        };
        (transport, writer)
    }

    /// Reads one line into `self.line` without ever holding more than the limit. Safe to
    /// cancel: what was read stays in `self` for the next call.
    async fn read_line(&mut self) -> io::Result<Line> {
        // The newline itself does not count.
        let max = self.guard.max_line_bytes.saturating_add(1);
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(match self.dropping.take() {
                    Some(seen) => Line::TooLong(seen),
                    None if !self.line.is_empty() => Line::Whole,
                    None => Line::End,
                });
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            if self.dropping.is_none() && self.line.len().saturating_add(take) > max {
                self.dropping = Some(self.line.len());
                self.line = Vec::new();
            }
            match self.dropping.as_mut() {
                Some(seen) => *seen = seen.saturating_add(take),
                None => self.line.extend_from_slice(&available[..take]),
            }
            self.read.consume(take);
            if newline.is_some() {
                return Ok(match self.dropping.take() {
                    Some(seen) => Line::TooLong(seen.saturating_sub(1)),
                    None => Line::Whole,
                });
            }
        }
    }

    /// Queues `answer` for standard output; false when output is closed.
    async fn answer(&mut self, answer: Vec<u8>) -> bool {
        self.pending = Some(answer);
        self.flush_pending().await
    }

    async fn flush_pending(&mut self) -> bool {
        if self.pending.is_none() {
            return true;
        }
        // `reserve` is safe to cancel; the line is taken only once a place is held.
        let Ok(place) = self.out.reserve().await else {
            return false;
        };
        if let Some(line) = self.pending.take() {
            place.send(line);
        }
        true
    }

    /// The message in `self.line`, or the error answer it gets (`None` for a line that gets
    /// none: blank, or a notification that is not one rmcp knows).
    fn parse_line(&self) -> Result<RxJsonRpcMessage<RoleServer>, Option<Vec<u8>>> {
        let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Err(None);
        }
        if let Some(depth) = too_deep(line, self.guard.max_depth) {
            return Err(Some(error_line(
                None,
                -32600,
                &format!(
                    "The message nests arrays and objects {depth} levels deep; this server \
                     takes at most {} levels.",
                    self.guard.max_depth
                ),
            )));
        }
        match envelope::read(line) {
            Envelope::NotJson(reason) => {
                return Err(Some(error_line(
                    None,
                    -32700,
                    &format!("Parse error: the line is not JSON ({reason})."),
                )));
            }
            Envelope::BadCallParams { id, message } => {
                return Err(Some(error_line(Some(&id), -32602, &message)));
            }
            Envelope::Fine { .. } => {}
        }
        let error = match serde_json::from_slice(line) {
            Ok(message) => return Ok(message),
            Err(e) => e,
        };
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(line) else {
            return Err(Some(error_line(
                None,
                -32700,
                "Parse error: the line is not JSON.",
            )));
        };
        let id = value
            .get("id")
            .filter(|id| id.is_string() || id.is_number());
        match (value.get("method"), id) {
            // A request: its id says whose answer this is.
            (Some(_), Some(id)) => Err(Some(error_line(
                Some(id),
                -32600,
                &format!(
                    "Invalid request: {}.",
                    toolspec_core::for_adapters::echo(&error.to_string())
                ),
            ))),
            // A notification is never answered, even when malformed; nor is a response.
            (Some(_), None) => Err(None),
            (None, _) if value.get("result").is_some() || value.get("error").is_some() => {
                toolspec_core::for_adapters::log_incident(&format!(
                    "ignoring a malformed response: {error}"
                ));
                Err(None)
            }
            (None, _) => Err(Some(error_line(
                None,
                -32600,
                "Invalid request: a JSON-RPC message needs a method.",
            ))),
        }
    }
}

/// One JSON-RPC error response as a line of output.
fn error_line(id: Option<&serde_json::Value>, code: i64, message: &str) -> Vec<u8> {
    let mut line = envelope::error_response(id, code, message).into_bytes();
    line.push(b'\n');
    line
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for GuardedLines<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let out = self.out.clone();
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        async move {
            let line = line.map_err(io::Error::other)?;
            out.send(line)
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "standard output closed"))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.flush_pending().await {
                return None;
            }
            let read = match self.read_line().await {
                Ok(read) => read,
                Err(e) => {
                    toolspec_core::for_adapters::log_incident(&format!(
                        "reading standard input: {e}"
                    ));
                    return None;
                }
            };
            match read {
                Line::End => return None,
                Line::TooLong(bytes) => {
                    let message = format!(
                        "The message is {bytes} bytes; this server takes at most {} bytes per \
                         message. Send smaller arguments.",
                        self.guard.max_line_bytes
                    );
                    if !self.answer(error_line(None, -32600, &message)).await {
                        return None;
                    }
                }
                Line::Whole => {
                    let parsed = self.parse_line();
                    self.line.clear();
                    match parsed {
                        Ok(message) => return Some(message),
                        Err(None) => {}
                        Err(Some(answer)) => {
                            if !self.answer(answer).await {
                                return None;
                            }
                        }
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        Ok(())
    }
}

/// Writes each queued line to `write` whole, flushing after each, until every sender is gone.
async fn write_lines<W: AsyncWrite + Unpin>(mut lines: mpsc::Receiver<Vec<u8>>, mut write: W) {
    while let Some(line) = lines.recv().await {
        if let Err(e) = async {
            write.write_all(&line).await?;
            write.flush().await
        }
        .await
        {
            toolspec_core::for_adapters::log_incident(&format!("writing standard output: {e}"));
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// The transport on `input` (read in chunks of `chunk` bytes), with lines of at most
    /// `max` bytes, and what it wrote.
    async fn run(input: &[u8], chunk: usize, max: usize) -> (Vec<String>, String) {
        let (mut feed, read) = tokio::io::duplex(chunk);
        let (write, mut written) = tokio::io::duplex(1 << 16);
        let guard = StdioGuard {
            max_line_bytes: max,
            max_depth: 8,
        };
        let (mut lines, writer) = GuardedLines::new(read, write, guard);
        let input = input.to_vec();
        let feeder = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for piece in input.chunks(chunk) {
                feed.write_all(piece).await.unwrap();
            }
        });
        let mut received = Vec::new();
        while let Some(message) = Transport::<RoleServer>::receive(&mut lines).await {
            received.push(serde_json::to_value(&message).unwrap()["method"].to_string());
        }
        feeder.await.unwrap();
        drop(lines);
        writer.await.unwrap();
        let mut out = String::new();
        written.read_to_string(&mut out).await.unwrap();
        (received, out)
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_passes_and_one_byte_more_is_refused() {
        let at_limit = format!("{PING}\n");
        let (got, out) = run(at_limit.as_bytes(), 7, PING.len()).await;
        assert_eq!(got, [r#""ping""#], "{out}");
        assert!(out.is_empty(), "{out}");

        let padded = format!("{} {}\n", PING, "");
        let (got, out) = run(padded.as_bytes(), 7, PING.len()).await;
        assert!(got.is_empty());
        assert!(out.contains(r#""code":-32600"#), "{out}");
        assert!(
            out.contains(&format!("The message is {} bytes", PING.len() + 1)),
            "{out}"
        );
    }

    #[tokio::test]
    async fn after_a_refused_line_the_next_is_read_whatever_the_chunks() {
        let long = "x".repeat(1000);
        let input = format!("{long}\r\n{PING}\r\n\n{PING}");
        for chunk in [1, 3, 64, 4096] {
            let (got, out) = run(input.as_bytes(), chunk, 100).await;
            assert_eq!(got, [r#""ping""#, r#""ping""#], "chunk {chunk}: {out}");
            assert_eq!(out.lines().count(), 1, "one refusal, chunk {chunk}: {out}");
            assert!(out.contains("The message is 1001 bytes"), "{out}");
        }
    }

    #[tokio::test]
    async fn every_kind_of_bad_line_gets_its_error_and_notifications_none() {
        let input = [
            "{not json",
            r#"{"jsonrpc":"2.0","id":2,"method":"ping","x":[[[[[[[[[[1]]]]]]]]]]}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":7}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#,
            r#"{"nothing":"here"}"#,
            PING,
        ]
        .join("\n");
        let (got, out) = run(input.as_bytes(), 4096, 1 << 20).await;
        assert_eq!(got, [r#""ping""#]);
        let answers: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let codes: Vec<(serde_json::Value, i64)> = answers
            .iter()
            .map(|a| (a["id"].clone(), a["error"]["code"].as_i64().unwrap()))
            .collect();
        assert_eq!(
            codes,
            [
                (serde_json::Value::Null, -32700),
                (serde_json::Value::Null, -32600),
                (serde_json::json!(3), -32602),
                (serde_json::Value::Null, -32600),
            ],
            "{out}"
        );
    }
}
