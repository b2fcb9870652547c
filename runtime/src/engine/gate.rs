//! Irreversible tools: preview first, then apply exactly that preview, once.

use std::future::Future;
use std::time::Duration;

use serde_json::{Map, Value};

use super::runtime::{Runtime, answer_existing, mark, ttl_ms};
use crate::clock::{expiry, format_rfc3339};
use crate::error::ToolError;
use crate::preview::{Consume, StoredPreview, new_preview_id};

/// The facts of one call to an irreversible tool.
#[derive(Debug, Clone, Copy)]
pub struct Gate<'a> {
    /// Canonical tool name.
    pub tool: &'a str,
    /// Fingerprint of the validated arguments (control parameters excluded).
    pub fingerprint: &'a str,
    /// The call's `preview_id`, if any: present means "apply".
    pub preview_id: Option<&'a str>,
    /// The call's `idempotency_key`, if any.
    pub idempotency_key: Option<&'a str>,
    /// How long an idempotency key is remembered.
    pub idempotency_ttl: Duration,
    /// How long a preview may be applied.
    pub preview_ttl: Duration,
}

impl Runtime {
    /// Serves an irreversible tool.
    ///
    /// **Without `preview_id`**: runs `preview` (which must have no side effects), stores it,
    /// and returns `{"applied": false, "preview": {"preview_id", "expires_at", "summary",
    /// ...the preview's own fields}}`. If the preview has no string `summary`, a generic one
    /// is added. When an idempotency key is given and already finished for these arguments,
    /// its stored apply result is replayed instead (a retry of an apply that lost its
    /// `preview_id` still gets its answer); a key held for other arguments or still running
    /// is refused as in [`Runtime::idempotent`].
    ///
    /// **With `preview_id`**: reserves the idempotency key first (replaying a finished one),
    /// then consumes the preview (it must match tool and fingerprint, be unused and
    /// unexpired); if the preview is refused, the reservation is released so nothing is
    /// stored. Then `apply` runs once with the stored preview and its result gets
    /// `"applied": true` (and `"replayed"` as with [`Runtime::idempotent`]).
    pub async fn gated<P, PF, A, AF>(
        &self,
        gate: Gate<'_>,
        preview: P,
        apply: A,
    ) -> Result<Value, ToolError>
    where
        P: FnOnce() -> PF,
        PF: Future<Output = Result<Value, ToolError>>,
        A: FnOnce(Value) -> AF,
        AF: Future<Output = Result<Value, ToolError>>,
    {
        let Some(preview_id) = gate.preview_id else {
            if let Some(key) = gate.idempotency_key {
                let found =
                    self.idempotency
                        .peek(gate.tool, key, gate.fingerprint, self.now_ms())?;
                if let Some(answer) = answer_existing(found, gate.tool, key) {
                    return answer;
                }
            }
            self.record_invocation(gate.tool, true);
            return self.make_preview(&gate, preview().await?);
        };

        if let Some(key) = gate.idempotency_key {
            let now = self.now_ms();
            let r = self.idempotency.begin(
                gate.tool,
                key,
                gate.fingerprint,
                now,
                ttl_ms(gate.idempotency_ttl),
            )?;
            if let Some(answer) = answer_existing(r, gate.tool, key) {
                return answer;
            }
        }
        let stored = match self.consume(&gate, preview_id) {
            Ok(stored) => stored,
            Err(refused) => {
                if let Some(key) = gate.idempotency_key {
                    self.idempotency.release(gate.tool, key)?;
                }
                return Err(refused);
            }
        };
        self.record_invocation(gate.tool, false);
        let outcome = apply(stored.preview)
            .await
            .map(|v| mark(v, "applied", true));
        match gate.idempotency_key {
            Some(key) => self.settle(gate.tool, key, outcome),
            None => outcome.map(|v| mark(v, "replayed", false)),
        }
    }

    fn consume(&self, gate: &Gate<'_>, id: &str) -> Result<StoredPreview, ToolError> {
        let now = self.now_ms();
        match self
            .previews
            .consume(gate.tool, id, gate.fingerprint, now)?
        {
            Consume::Applied(p) => Ok(p),
            Consume::NotFound => Err(ToolError::preview_not_found(gate.tool, id)),
            Consume::Used => Err(ToolError::preview_used(gate.tool, id)),
            Consume::Expired { expires_at_ms } => Err(ToolError::preview_expired(
                gate.tool,
                id,
                &format_rfc3339(expires_at_ms),
            )),
            Consume::Mismatch => Err(ToolError::preview_mismatch(gate.tool, id)),
        }
    }

    fn make_preview(&self, gate: &Gate<'_>, preview: Value) -> Result<Value, ToolError> {
        let mut fields = match preview {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => Map::from_iter([("value".to_owned(), other)]),
        };
        if !fields.get("summary").is_some_and(Value::is_string) {
            let summary = format!(
                "Preview of {}: nothing has changed yet. Show this to the user, then call {} \
                 again with the same arguments and this preview_id to apply it.",
                gate.tool, gate.tool
            );
            fields.insert("summary".into(), summary.into());
        }
        let now = self.now_ms();
        let expires_at_ms = expiry(now, gate.preview_ttl);
        let id = new_preview_id().map_err(ToolError::internal)?;
        self.previews.insert(
            &StoredPreview {
                id: id.clone(),
                tool: gate.tool.to_owned(),
                fingerprint: gate.fingerprint.to_owned(),
                preview: Value::Object(fields.clone()),
                expires_at_ms,
            },
            now,
        )?;
        let mut shown = Map::new();
        shown.insert("preview_id".into(), id.into());
        shown.insert("expires_at".into(), format_rfc3339(expires_at_ms).into());
        shown.extend(fields);
        let mut result = Map::new();
        result.insert("applied".into(), false.into());
        result.insert("preview".into(), Value::Object(shown));
        Ok(Value::Object(result))
    }
}
