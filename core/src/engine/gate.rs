//! Irreversible tools: preview first, then apply exactly that preview, once, with the
//! person's approval when the host can ask for it.

use std::future::Future;
use std::time::Duration;

use serde_json::{Map, Value};

use super::approval::{ApprovalRequest, Confirmation, Host, HostAnswer, shown};
use super::runtime::Runtime;
use super::write::{Write, answer_existing, mark, refusal};
use crate::clock::expiry;
use crate::error::ToolError;
use crate::idempotency::Outcome;
use crate::preview::{Consume, StoredPreview, new_preview_id};
use crate::store::{Decision, Effect, KeyRef, Verdict, Work};

/// The facts of one call to an irreversible tool.
#[derive(Clone, Copy)]
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
    /// Who approves the change: the person through the host, or the preview flow.
    pub confirmation: Confirmation,
    /// Where the apply method's change happens.
    pub effect: Effect,
    /// The host of this call, when it can ask the person ([`super::CallContext::host`]).
    pub host: Option<&'a dyn Host>,
    /// How many calls each caller may make (a preview and an apply each count) and how
    /// long the preview and apply methods may run.
    pub limits: super::write::CallLimits<'a>,
}

impl std::fmt::Debug for Gate<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("tool", &self.tool)
            .field("preview_id", &self.preview_id)
            .field("confirmation", &self.confirmation)
            .field("host", &self.host.map(|h| h.name()))
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// Serves an irreversible tool.
    ///
    /// First, with an idempotency key already finished for these arguments, its stored
    /// apply result is replayed (a key held for other arguments, or by a live lease, is
    /// refused as in [`Runtime::idempotent`]).
    ///
    /// **The host asks the person** (the confirmation is [`Confirmation::Host`], or
    /// [`Confirmation::HostOrPreview`] and the call's host can ask): `preview` runs (it must change
    /// nothing), the preview is stored, and the host puts it to the person. On accept, the
    /// change is applied in the same call and the approval recorded with it; on decline or
    /// cancel nothing is applied, the refusal is recorded, the preview is closed for good,
    /// and the model is told `approval_declined`. The model never receives a token that
    /// approves: a `preview_id` it sends is checked, and the person is still asked.
    /// [`Confirmation::Host`] without a host that can ask is `approval_unavailable`.
    ///
    /// **The preview flow** (otherwise), which catches the model's mistakes but is not a
    /// person's approval: without `preview_id`, the preview is stored and returned as
    /// `{"applied": false, "preview": {"preview_id", "expires_at", "summary", ...}}` (a
    /// generic summary is added when the preview has none). With `preview_id`, the preview
    /// must match tool and fingerprint and be open and unexpired.
    ///
    /// Either way `apply` runs in a unit of work ([`Work`]), and its writes commit together
    /// with the preview's consumption, the key's outcome and the approval: a failed apply
    /// leaves the preview usable, and `preview_used` always means the change was made. The
    /// result gets `"applied": true` (and `"replayed"` as with [`Runtime::idempotent`]).
    pub async fn gated<P, PF, A, AF>(
        &self,
        gate: Gate<'_>,
        preview: P,
        apply: A,
    ) -> Result<Value, ToolError>
    where
        P: FnOnce() -> PF,
        PF: Future<Output = Result<Value, ToolError>>,
        A: FnOnce(Value, Work) -> AF,
        AF: Future<Output = Outcome>,
    {
        if let Some(answer) = self.key_answer(&gate).await? {
            return answer;
        }
        let host = match (gate.confirmation, gate.host) {
            (Confirmation::Preview, _) => None,
            (_, Some(host)) => Some(host),
            (Confirmation::Host, None) => return Err(ToolError::approval_unavailable(gate.tool)),
            (Confirmation::HostOrPreview, None) => None,
        };
        let Some(host) = host else {
            return match gate.preview_id {
                None => {
                    self.admit(gate.tool, gate.limits.rate).await?;
                    self.record_invocation(gate.tool, true);
                    let previewed = self
                        .within(gate.tool, gate.limits.time, None, preview())
                        .await?;
                    let stored = self.make_preview(&gate, previewed).await?;
                    Ok(serde_json::json!({"applied": false, "preview": shown(&stored)}))
                }
                Some(id) => match self.open_preview(&gate, id).await {
                    Ok(stored) => self.apply(&gate, stored, "preview_id", apply).await,
                    Err(answer) => answer,
                },
            };
        };

        // The host asks. A preview the model names, or the one a resumed round names, is
        // put to the person again; the id alone approves nothing.
        let named = gate.preview_id.or(host.resumed_preview());
        let stored = match named {
            Some(id) => match self.open_preview(&gate, id).await {
                Ok(stored) => stored,
                Err(answer) => return answer,
            },
            None => {
                self.admit(gate.tool, gate.limits.rate).await?;
                self.record_invocation(gate.tool, true);
                let previewed = self
                    .within(gate.tool, gate.limits.time, None, preview())
                    .await?;
                self.make_preview(&gate, previewed).await?
            }
        };
        let request = ApprovalRequest::new(gate.tool, &stored);
        let verdict = match host.ask(&request).await {
            HostAnswer::Accept => return self.apply(&gate, stored, &host.name(), apply).await,
            HostAnswer::Decline => Verdict::Declined,
            HostAnswer::Cancel => Verdict::Cancelled,
            HostAnswer::Later => return Err(ToolError::approval_pending(&request)),
            HostAnswer::Failed(cause) => {
                return Err(ToolError::not_applied(
                    gate.tool,
                    format!("asking the host for approval failed: {cause}"),
                ));
            }
        };
        let decision = self.decision(&gate, &stored.id, verdict, host.name());
        self.stores.previews.refuse_preview(&decision).await?;
        Err(ToolError::approval_declined(
            gate.tool,
            crate::caller::unbound(&stored.id),
        ))
    }

    /// What the call's idempotency key already answers (a replay, a mismatch, a live
    /// lease), if anything.
    async fn key_answer(
        &self,
        gate: &Gate<'_>,
    ) -> Result<Option<Result<Value, ToolError>>, ToolError> {
        let Some(key) = gate.idempotency_key else {
            return Ok(None);
        };
        let now = self.now_ms();
        let record = crate::caller::bound(gate.tool);
        let found = self
            .stores
            .keys
            .peek(KeyRef { tool: &record, key }, gate.fingerprint, now)
            .await?;
        Ok(answer_existing(found, gate.tool, key, now))
    }

    /// The stored preview `id`, if it may be applied for this call; else the refusal, or,
    /// when a concurrent call with the same key applied it meanwhile, that call's result.
    async fn open_preview(
        &self,
        gate: &Gate<'_>,
        id: &str,
    ) -> Result<StoredPreview, Result<Value, ToolError>> {
        let now = self.now_ms();
        // Kept under the caller's tag: another caller's id is not found, and says nothing.
        let verdict = match crate::caller::bound_presented(id) {
            Some(kept) => self
                .stores
                .previews
                .check_preview(gate.tool, &kept, gate.fingerprint, now)
                .await
                .map_err(|e| Err(e.into()))?,
            None => Consume::NotFound,
        };
        let refused = match verdict {
            Consume::Applied(stored) => return Ok(stored),
            other => refusal(gate.tool, id, other).unwrap_or_else(|| {
                ToolError::not_applied(gate.tool, "preview judged both open and closed")
            }),
        };
        if let Ok(Some(answer)) = self.key_answer(gate).await {
            return Err(answer);
        }
        Err(Err(refused))
    }

    fn decision(&self, gate: &Gate<'_>, id: &str, verdict: Verdict, by: String) -> Decision {
        Decision {
            preview_id: id.to_owned(),
            tool: gate.tool.to_owned(),
            fingerprint: gate.fingerprint.to_owned(),
            verdict,
            // Who asked for the change goes on record with who approved it.
            decided_by: match crate::caller::Caller::current() {
                Some(caller) => format!("{by} for {}", caller.subject()),
                None => by,
            },
            decided_at_ms: self.now_ms(),
        }
    }

    /// Leases the key (if any), then applies `stored` in a unit of work that consumes it.
    async fn apply<A, AF>(
        &self,
        gate: &Gate<'_>,
        stored: StoredPreview,
        approved_by: &str,
        apply: A,
    ) -> Result<Value, ToolError>
    where
        A: FnOnce(Value, Work) -> AF,
        AF: Future<Output = Outcome>,
    {
        let record = crate::caller::bound(gate.tool);
        let lease = match self
            .lease_key(
                gate.tool,
                &record,
                gate.idempotency_key,
                gate.fingerprint,
                gate.idempotency_ttl,
            )
            .await?
        {
            Ok(lease) => lease,
            Err(answer) => return answer,
        };
        let write = Write {
            preview: Some(&stored.id),
            approval: Some(self.decision(
                gate,
                &stored.id,
                Verdict::Approved,
                approved_by.to_owned(),
            )),
            ..Write::new(gate.tool, gate.fingerprint, gate.effect, lease.as_ref())
        };
        let write = Write {
            time_limit: gate.limits.time,
            ..write
        };
        self.admit_write(gate.limits.rate, &write).await?;
        self.record_invocation(gate.tool, false);
        let fields = stored.preview.clone();
        self.commit_write(write, move |work| async move {
            apply(fields, work).await.map(|v| mark(v, "applied", true))
        })
        .await
    }

    async fn make_preview(
        &self,
        gate: &Gate<'_>,
        preview: Value,
    ) -> Result<StoredPreview, ToolError> {
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
        let stored = StoredPreview {
            id: crate::caller::bound(&new_preview_id().map_err(ToolError::internal)?).into_owned(),
            tool: gate.tool.to_owned(),
            fingerprint: gate.fingerprint.to_owned(),
            preview: Value::Object(fields),
            expires_at_ms: expiry(now, gate.preview_ttl),
        };
        self.stores.previews.insert_preview(&stored, now).await?;
        Ok(stored)
    }
}
