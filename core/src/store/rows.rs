//! The records as both SQL backends store them: a key's row and what it answers, outcomes
//! as JSON text, verdicts as words. One form, so a row written by one backend reads the same
//! way in the other.

use serde_json::{Value, json};

use super::{Reservation, Verdict};
use crate::error::ToolError;
use crate::preview::{PreviewState, StoredPreview};
use crate::store::{Outcome, StoreError};
use crate::task::{TaskRecord, TaskStatus};

/// A live idempotency key's row.
pub(crate) struct KeyRow {
    pub(crate) fingerprint: String,
    pub(crate) state: String,
    pub(crate) result: Option<String>,
    pub(crate) lease_until: i64,
}

/// What a live row answers; `None` when it is an in-progress row whose lease lapsed.
pub(crate) fn classify(
    row: KeyRow,
    fingerprint: &str,
    now_ms: i64,
) -> Result<Option<Reservation>, StoreError> {
    if row.fingerprint != fingerprint {
        return Ok(Some(Reservation::Mismatch));
    }
    match (row.state.as_str(), row.result) {
        ("done", Some(text)) => Ok(Some(Reservation::Replay(outcome_from_text(&text)?))),
        _ if row.lease_until > now_ms => Ok(Some(Reservation::InProgress {
            lease_until_ms: row.lease_until,
        })),
        _ => Ok(None),
    }
}

/// A stored verdict word back to its [`Verdict`].
pub(crate) fn verdict(word: &str) -> Verdict {
    match word {
        "approved" => Verdict::Approved,
        "declined" => Verdict::Declined,
        _ => Verdict::Cancelled,
    }
}

/// Outcome to stored JSON text: `{"ok": value}` or `{"error": ToolError}`.
pub(crate) fn outcome_to_text(outcome: &Outcome) -> String {
    match outcome {
        Ok(v) => json!({ "ok": v }).to_string(),
        Err(e) => json!({ "error": e }).to_string(),
    }
}

/// Stored JSON text back to an outcome.
pub(crate) fn outcome_from_text(text: &str) -> Result<Outcome, StoreError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| StoreError::Backend(format!("stored outcome: {e}")))?;
    if let Some(ok) = value.get("ok") {
        return Ok(Ok(ok.clone()));
    }
    match value
        .get("error")
        .map(|e| serde_json::from_value::<ToolError>(e.clone()))
    {
        Some(Ok(err)) => Ok(Err(err)),
        _ => Err(StoreError::Backend(
            "stored outcome has neither ok nor error".into(),
        )),
    }
}

/// A preview row's columns (`tool, fingerprint, preview, expires_at, state`) as the preview
/// and its state.
pub(crate) fn preview_row(
    id: &str,
    tool: String,
    fingerprint: String,
    text: &str,
    expires_at_ms: i64,
    state: &str,
) -> Result<(StoredPreview, PreviewState), StoreError> {
    let preview: Value = serde_json::from_str(text)
        .map_err(|e| StoreError::Backend(format!("stored preview: {e}")))?;
    Ok((
        StoredPreview {
            id: id.to_owned(),
            tool,
            fingerprint,
            preview,
            expires_at_ms,
        },
        PreviewState::parse(state),
    ))
}

/// The columns of `toolspec_tasks`, in the order [`task_row`] reads them.
pub(crate) const TASK_COLUMNS: &str = "id, tool, status, message, outcome, writes, \
    idempotency_key, created_at, updated_at, beat_at, expires_at";

/// A task's columns, as either backend reads them ([`TASK_COLUMNS`]' order).
pub(crate) struct TaskColumns {
    pub(crate) id: String,
    pub(crate) tool: String,
    pub(crate) status: String,
    pub(crate) message: Option<String>,
    pub(crate) outcome: Option<String>,
    pub(crate) writes: bool,
    pub(crate) idempotency_key: Option<String>,
    pub(crate) times: [i64; 4],
}

/// A task row back to its record.
pub(crate) fn task_row(c: TaskColumns) -> Result<TaskRecord, StoreError> {
    let status = TaskStatus::parse(&c.status)
        .ok_or_else(|| StoreError::Backend(format!("stored task status {:?}", c.status)))?;
    let outcome = c
        .outcome
        .map(|text| serde_json::from_str(&text))
        .transpose()
        .map_err(|e| StoreError::Backend(format!("stored task outcome: {e}")))?;
    let [created_ms, updated_ms, beat_ms, expires_ms] = c.times;
    Ok(TaskRecord {
        id: c.id,
        tool: c.tool,
        status,
        message: c.message,
        outcome,
        writes: c.writes,
        idempotency_key: c.idempotency_key,
        created_ms,
        updated_ms,
        beat_ms,
        expires_ms,
    })
}
