//! Tasks: a call that runs on after its request is answered, and whose state and result the
//! store keeps ([`TaskStore::task_create`](crate::store::TaskStore::task_create) and the rest), so
//! any replica sharing the store can say where it stands.
//!
//! A tool runs as a task when its spec says `time: { task: {} }` and the client speaks MCP's
//! tasks extension (the adapter is `toolspec_runtime::mcp`); the record kept here is the protocol's
//! task without its wire form. While the call runs, the replica running it *beats*: it
//! writes the time and the latest progress message every [`BEAT`]. A task whose beats
//! stopped for [`STALE`] lost the process that ran it, and [`TaskRecord::status_at`] reads
//! it as failed, with an account that is true: a read changed nothing; a write's change
//! may or may not have committed, and the same `idempotency_key` finds out.

use std::time::Duration;

use serde_json::Value;

/// How often the replica running a task writes that it still runs.
pub const BEAT: Duration = Duration::from_secs(1);

/// How long without a beat before a running task is read as lost: its process died.
pub const STALE: Duration = Duration::from_secs(5);

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    /// The call runs.
    Working,
    /// The call answered; its result (which may be a tool error) is kept.
    Completed,
    /// The call could not answer (its process died, or the server failed).
    Failed,
    /// The client cancelled it before it answered.
    Cancelled,
}

impl TaskStatus {
    /// The word stored and sent: `working`, `completed`, `failed` or `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// The status stored as `word`, if it is one.
    pub fn parse(word: &str) -> Option<TaskStatus> {
        [
            TaskStatus::Working,
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ]
        .into_iter()
        .find(|s| s.as_str() == word)
    }

    /// Whether nothing more will happen to the task.
    pub fn is_terminal(self) -> bool {
        self != TaskStatus::Working
    }
}

/// One task as the store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The id the client polls with; for a caller over HTTP, kept with `@` and the caller's
    /// tag, so another caller's id is unknown.
    pub id: String,
    /// Canonical name of the tool called.
    pub tool: String,
    /// Where it stands, as stored.
    pub status: TaskStatus,
    /// The latest progress message, or the account of a failure.
    pub message: Option<String>,
    /// The call's result once completed (a `CallToolResult` as JSON), or the JSON-RPC error
    /// of a failure.
    pub outcome: Option<Value>,
    /// Whether the tool writes: a lost write's account differs from a lost read's.
    pub writes: bool,
    /// The call's `idempotency_key`, if it gave one: how a lost write is found out.
    pub idempotency_key: Option<String>,
    /// When it was made, Unix ms.
    pub created_ms: i64,
    /// When its status or message last changed, Unix ms.
    pub updated_ms: i64,
    /// The last beat of the replica running it, Unix ms.
    pub beat_ms: i64,
    /// When it is forgotten, Unix ms.
    pub expires_ms: i64,
}

impl TaskRecord {
    /// A new task for a call of `tool`, working from `now_ms` and kept for `kept`.
    pub fn working(id: String, tool: &str, now_ms: i64, kept: Duration) -> Self {
        let kept_ms = i64::try_from(kept.as_millis()).unwrap_or(i64::MAX);
        Self {
            id,
            tool: tool.to_owned(),
            status: TaskStatus::Working,
            message: None,
            outcome: None,
            writes: false,
            idempotency_key: None,
            created_ms: now_ms,
            updated_ms: now_ms,
            beat_ms: now_ms,
            expires_ms: now_ms.saturating_add(kept_ms),
        }
    }

    /// How long the task is kept from its creation, in ms.
    pub fn kept_ms(&self) -> i64 {
        self.expires_ms.saturating_sub(self.created_ms)
    }

    /// The task as it truly stands at `now_ms`: a working task whose beats stopped for
    /// [`STALE`] is failed, with the account of what it left ([`TaskRecord::lost_account`]).
    pub fn status_at(&self, now_ms: i64) -> TaskRecord {
        let stale_ms = i64::try_from(STALE.as_millis()).unwrap_or(i64::MAX);
        if self.status != TaskStatus::Working || now_ms.saturating_sub(self.beat_ms) < stale_ms {
            return self.clone();
        }
        let account = self.lost_account();
        TaskRecord {
            status: TaskStatus::Failed,
            message: Some(account.clone()),
            outcome: Some(serde_json::json!({
                "code": -32603,
                "message": account,
                "data": { "code": "task_lost", "retryable": true },
            })),
            updated_ms: self.beat_ms.saturating_add(stale_ms),
            ..self.clone()
        }
    }

    /// What a task whose process died left behind, in words an agent can act on.
    pub fn lost_account(&self) -> String {
        let stopped = format!(
            "The server running this {} call stopped before it answered",
            self.tool
        );
        if !self.writes {
            return format!("{stopped}; it changed nothing. Call the tool again.");
        }
        match &self.idempotency_key {
            Some(key) => format!(
                "{stopped}; whether its change committed is not known here. Call {} again with \
                 idempotency_key {key:?}: it returns the change if it committed, or makes it once.",
                self.tool
            ),
            None => format!(
                "{stopped}; its change may or may not have committed, and the call had no \
                 idempotency_key to find out with. Read the current state before calling again."
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(writes: bool, key: Option<&str>) -> TaskRecord {
        let mut r = TaskRecord::working("task_1".into(), "tickets_export", 1_000, BEAT * 60);
        r.writes = writes;
        r.idempotency_key = key.map(str::to_owned);
        r
    }

    #[test]
    fn a_task_that_beats_is_working_and_one_that_stopped_is_lost() {
        let r = record(false, None);
        assert_eq!(r.status_at(1_000 + 4_999).status, TaskStatus::Working);
        let lost = r.status_at(1_000 + 5_000);
        assert_eq!(lost.status, TaskStatus::Failed);
        assert!(lost.message.unwrap().contains("it changed nothing"));
        assert_eq!(lost.outcome.unwrap()["data"]["code"], "task_lost");
    }

    #[test]
    fn a_lost_write_says_how_to_find_out_whether_it_committed() {
        let with_key = record(true, Some("k-1")).lost_account();
        assert!(with_key.contains("idempotency_key \"k-1\""), "{with_key}");
        let without = record(true, None).lost_account();
        assert!(without.contains("Read the current state"), "{without}");
    }

    #[test]
    fn a_finished_task_is_never_read_as_lost() {
        let mut r = record(false, None);
        r.status = TaskStatus::Completed;
        assert_eq!(r.status_at(i64::MAX).status, TaskStatus::Completed);
    }

    #[test]
    fn statuses_round_trip_through_their_words() {
        for s in [
            TaskStatus::Working,
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ] {
            assert_eq!(TaskStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(TaskStatus::parse("input_required"), None);
    }
}
