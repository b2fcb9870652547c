//! Confirmation by the host: how an irreversible call asks the person, not the model.
//!
//! A preview id the model can pass back catches the model's own mistakes, but a model that
//! was prompt-injected passes it back too. When the client can ask the person (MCP
//! elicitation), the transport hands the engine a [`Host`] in the call's
//! [`super::CallContext`], and [`super::Runtime::gated`] puts the preview to the person
//! through it instead: the change is applied only on their yes.

use crate::text::for_person;
use serde_json::{Value, json};

use crate::clock::format_rfc3339;
use crate::engine::BoxFuture;
use crate::error::ToolError;
use crate::preview::StoredPreview;

/// Who approves an irreversible tool's change, as the spec chooses per toolset or tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Confirmation {
    /// The host asks the person when the client can (elicitation), else the preview flow.
    #[default]
    HostOrPreview,
    /// Only the person, through the host: clients that cannot ask get
    /// `approval_unavailable`.
    Host,
    /// Always the preview flow: the model presents the preview id (not a security control).
    Preview,
}

/// The host's side of one call: it can put a preview to the person.
pub trait Host: Send + Sync {
    /// Who answers, as recorded with the decision: `host:<client name>`.
    fn name(&self) -> String;

    /// Asks the person to approve `request`.
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, HostAnswer>;

    /// When this call resumes an earlier round (the 2026-07-28 protocol's input-required
    /// result, answered by the client): the preview that round asked about.
    fn resumed_preview(&self) -> Option<&str> {
        None
    }
}

/// The person's answer, as the host reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostAnswer {
    /// Approved.
    Accept,
    /// Said no.
    Decline,
    /// Dismissed without answering.
    Cancel,
    /// The answer comes in a later round of the same call (2026-07-28): the transport
    /// returns the request to the client, which asks and calls again.
    Later,
    /// The host could not ask (the request failed or timed out): nothing is decided.
    Failed(String),
}

/// What the person is shown: the preview's summary and fields, made safe to display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// Canonical tool name.
    pub tool: String,
    /// The preview asked about.
    pub preview_id: String,
    /// The text for the person: what would change, and that nothing happens without a yes.
    /// Control and bidirectional-override characters of the preview are shown escaped.
    pub message: String,
    /// The preview as the preview flow shows it (`preview_id`, `expires_at`, `summary` and
    /// the tool's fields), for hosts that render it themselves. Not escaped: it is data.
    pub preview: Value,
    /// When the preview expires, Unix ms: an answer after that could not be applied, so a
    /// host stops waiting for the person then.
    pub expires_at_ms: i64,
}

/// The most characters of one preview field shown to the person.
const FIELD_CHARS: usize = 300;
/// The most fields shown.
const FIELDS: usize = 20;

impl ApprovalRequest {
    /// The request for `stored`, a preview of `tool`.
    pub fn new(tool: &str, stored: &StoredPreview) -> Self {
        let mut message = format!("Approve this change ({tool})?\n");
        let fields = stored.preview.as_object();
        if let Some(summary) = fields
            .and_then(|f| f.get("summary"))
            .and_then(Value::as_str)
        {
            message.push('\n');
            message.push_str(&for_person(summary, FIELD_CHARS * 2));
            message.push('\n');
        }
        let listed: Vec<(&String, &Value)> = fields
            .map(|f| f.iter().filter(|(k, _)| *k != "summary").collect())
            .unwrap_or_default();
        if !listed.is_empty() {
            message.push('\n');
        }
        for (name, value) in listed.iter().take(FIELDS) {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            message.push_str(&format!(
                "{}: {}\n",
                for_person(name, 64),
                for_person(&text, FIELD_CHARS)
            ));
        }
        if listed.len() > FIELDS {
            message.push_str(&format!("... and {} more fields\n", listed.len() - FIELDS));
        }
        message.push_str(&format!(
            "\nNothing changes unless you approve. Preview {}, valid until {}.",
            crate::caller::unbound(&stored.id),
            format_rfc3339(stored.expires_at_ms)
        ));
        Self {
            tool: tool.to_owned(),
            preview_id: crate::caller::unbound(&stored.id).to_owned(),
            message,
            preview: shown(stored),
            expires_at_ms: stored.expires_at_ms,
        }
    }
}

/// A stored preview as agents and hosts see it: `preview_id`, `expires_at`, then its fields.
pub(crate) fn shown(stored: &StoredPreview) -> Value {
    let mut preview = serde_json::Map::new();
    let id = crate::caller::unbound(&stored.id);
    preview.insert("preview_id".into(), id.into());
    preview.insert(
        "expires_at".into(),
        format_rfc3339(stored.expires_at_ms).into(),
    );
    if let Value::Object(fields) = &stored.preview {
        preview.extend(fields.clone());
    }
    Value::Object(preview)
}

/// The code of the error a gated call returns when the host answers in a later round. It
/// never reaches the model: the MCP adapter turns it into an input-required result.
pub const APPROVAL_PENDING: &str = "approval_pending";

impl ToolError {
    /// The call waits for the person's answer to `request` in a later round.
    pub(crate) fn approval_pending(request: &ApprovalRequest) -> Self {
        ToolError::new(
            APPROVAL_PENDING,
            request.message.clone(),
            false,
            json!({ "preview_id": request.preview_id, "tool": request.tool, "preview": request.preview }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_controls_are_shown_escaped() {
        let shown = for_person("ok\u{202e}gnp.exe\nfake: line\u{1b}[2J", 100);
        assert_eq!(shown, "ok\\u{202e}gnp.exe\\u{a}fake: line\\u{1b}[2J");
        assert_eq!(for_person("abcdef", 3), "abc…");
    }

    #[test]
    fn the_person_sees_a_bounded_summary_of_the_preview() {
        let mut fields = serde_json::Map::new();
        fields.insert("summary".into(), json!("Send 25 invoices.\nreally"));
        for i in 0..25 {
            fields.insert(format!("f{i:02}"), json!("v".repeat(1000)));
        }
        let stored = StoredPreview {
            id: "pv_1".into(),
            tool: "t".into(),
            fingerprint: "fp".into(),
            preview: Value::Object(fields),
            expires_at_ms: 0,
        };
        let request = ApprovalRequest::new("orders_invoice_send", &stored);
        let m = &request.message;
        assert!(
            m.starts_with(
                "Approve this change (orders_invoice_send)?\n\nSend 25 invoices.\\u{a}really\n"
            ),
            "{m}"
        );
        assert!(
            m.contains(&format!("f00: {}…\n", "v".repeat(FIELD_CHARS))),
            "{m}"
        );
        assert!(!m.contains("f20:"), "{m}");
        assert!(m.contains("... and 5 more fields\n"), "{m}");
        assert!(m.ends_with("Nothing changes unless you approve. Preview pv_1, valid until 1970-01-01T00:00:00Z."), "{m}");
        assert!(m.len() < 8_000, "{}", m.len());
        assert_eq!(
            request.preview["f24"],
            json!("v".repeat(1000)),
            "the data itself is whole"
        );
    }
}
