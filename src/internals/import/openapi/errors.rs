//! The error catalog from the documented error responses: one code per HTTP status, with a
//! message that says what to do, retryable only where a retry can help (429, 502, 503, 504).

use super::document::{Document, Operation};
use crate::import::report::Report;
use crate::import::yaml::Node;
use indexmap::IndexMap;
use serde_json::{Value, json};

/// How many of the operations' own descriptions of a status the catalog's `when` quotes.
const WHEN_QUOTES: usize = 3;

/// The catalog being built, by code.
#[derive(Default)]
pub struct Catalog {
    entries: IndexMap<String, Entry>,
}

struct Entry {
    status: u16,
    quotes: Vec<String>,
}

/// A status's code, whether a retry can help, and the message's advice.
fn terms(status: u16) -> (String, bool, &'static str) {
    let (code, retryable, advice) = match status {
        400 => (
            "bad_request",
            false,
            "The API refused the arguments: {reason}. Fix them as it says and call again.",
        ),
        401 => (
            "unauthorized",
            false,
            "The API refused the server's credentials: {reason}. The server's operator must fix its configuration; retrying will not help.",
        ),
        403 => (
            "forbidden",
            false,
            "The API does not allow this call: {reason}. Retrying will not help; ask the user whether they have access.",
        ),
        404 => (
            "not_found",
            false,
            "The API found nothing for these arguments: {reason}. Check the ids and names passed; list or search first if unsure.",
        ),
        405 => (
            "method_not_allowed",
            false,
            "The API does not take this call here: {reason}. Retrying will not help.",
        ),
        409 => (
            "conflict",
            false,
            "The API reports a conflict with the current state: {reason}. Read the current state, then decide again.",
        ),
        410 => (
            "gone",
            false,
            "What the call names is gone from the API: {reason}. Retrying will not help.",
        ),
        412 => (
            "precondition_failed",
            false,
            "A precondition of the call failed: {reason}. Read the current state, then decide again.",
        ),
        413 => (
            "too_large",
            false,
            "The API found the request too large: {reason}. Send less.",
        ),
        415 => (
            "unsupported_media_type",
            false,
            "The API cannot read the request's format: {reason}. Retrying will not help.",
        ),
        422 => (
            "unprocessable",
            false,
            "The API could not process the arguments: {reason}. Fix them as it says and call again.",
        ),
        429 => (
            "rate_limited",
            true,
            "The API is limiting the rate of calls: {reason}. Wait, then retry.",
        ),
        500 => (
            "upstream_error",
            false,
            "The API failed on this call: {reason}. It may work later; do not retry in a loop.",
        ),
        502 => (
            "bad_gateway",
            true,
            "The API could not be reached through its gateway: {reason}. Retry in a moment.",
        ),
        503 => (
            "unavailable",
            true,
            "The API is unavailable: {reason}. Retry in a moment.",
        ),
        504 => (
            "upstream_timeout",
            true,
            "The API took too long to answer: {reason}. Retry in a moment.",
        ),
        _ => ("", false, ""),
    };
    if code.is_empty() {
        let retryable = status >= 500;
        let advice = if retryable {
            "The API answered an error: {reason}. Retry in a moment."
        } else {
            "The API refused the call: {reason}. Retrying the same call will not help."
        };
        return (format!("http_{status}"), retryable, advice);
    }
    // A code the runtime has built in (every toolset has it) gets a prefix: the catalog
    // may not redefine it.
    let code = if toolspec_runtime::catalog::find(code).is_some() {
        format!("api_{code}")
    } else {
        code.to_string()
    };
    (code, retryable, advice)
}

impl Catalog {
    /// The codes of `op`'s documented 4xx and 5xx responses, adding each to the catalog.
    pub fn errors_of(
        &mut self,
        doc: &Document,
        op: &Operation,
        report: &mut Report,
    ) -> Vec<String> {
        let mut codes = Vec::new();
        let Some(responses) = op.op.get("responses").and_then(Value::as_object) else {
            return codes;
        };
        for (status, response) in responses {
            let Ok(status) = status.parse::<u16>() else {
                continue;
            };
            if !(400..600).contains(&status) {
                continue;
            }
            let (code, _, _) = terms(status);
            let quote = doc
                .resolve(response)
                .ok()
                .and_then(|r| r.get("description"))
                .and_then(Value::as_str)
                .map(super::schema::clean)
                .filter(|d| !d.is_empty());
            let entry = self.entries.entry(code.clone()).or_insert(Entry {
                status,
                quotes: Vec::new(),
            });
            if let Some(q) = quote
                && !entry.quotes.contains(&q)
                && entry.quotes.len() < WHEN_QUOTES
            {
                entry.quotes.push(q);
            }
            report.carried(1);
            if !codes.contains(&code) {
                codes.push(code);
            }
        }
        codes
    }

    /// `upstream.statuses`: each documented status and its code.
    pub fn statuses(&self) -> Option<Node> {
        if self.entries.is_empty() {
            return None;
        }
        let mut out = Node::map();
        for (code, e) in &self.entries {
            out.set(e.status.to_string(), Node::str(code));
        }
        Some(out)
    }

    /// The `errors:` section of the draft.
    pub fn node(&self) -> Option<Node> {
        if self.entries.is_empty() {
            return None;
        }
        let mut out = Node::map();
        for (code, e) in &self.entries {
            let (_, retryable, message) = terms(e.status);
            let mut def = Node::map();
            def.set("message", Node::str(message));
            def.set("retryable", Node::Scalar(Value::Bool(retryable)));
            let mut when = format!("The API answers {}", e.status);
            if !e.quotes.is_empty() {
                when.push_str(&format!(" ({})", e.quotes.join("; ")));
            }
            when.push('.');
            def.set("when", Node::str(when));
            let mut reason = Node::map();
            reason.set("type", Node::str("string"));
            reason.set(
                "description",
                Node::str("The API's own words about the failure, cut at 500 characters."),
            );
            reason.set("max_length", Node::Scalar(json!(500)));
            reason.set("example", Node::str(example_reason(e.status)));
            let mut details = Node::map();
            details.set("reason", reason);
            if e.status == 429 {
                let mut wait = Node::map();
                wait.set("type", Node::str("integer"));
                wait.set("description", Node::str("Seconds the API asks to wait before a retry (its Retry-After), when it says."));
                wait.set("minimum", Node::Scalar(json!(0)));
                wait.set("example", Node::Scalar(json!(30)));
                wait.set("required", Node::Scalar(Value::Bool(false)));
                details.set("retry_after_seconds", wait);
            }
            def.set("details", details);
            out.set(code, def);
        }
        Some(out)
    }
}

fn example_reason(status: u16) -> &'static str {
    match status {
        404 => "Not Found",
        429 => "Too Many Requests",
        400 | 422 => "Invalid input",
        401 | 403 => "Forbidden",
        409 => "Conflict",
        _ => "Service Unavailable",
    }
}
