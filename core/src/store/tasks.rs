//! Calls that run as tasks: the contract of [`TaskStore`].

use serde_json::Value;

use super::{Purged, StoreError, ready};
use crate::future::BoxFuture;

pub use crate::task::{TaskRecord, TaskStatus};

/// Tasks ([`crate::task`]): calls that outlive their request, polled by the client.
/// Independent of the unit of work. Every method has a default that keeps no tasks and
/// says so, so `impl TaskStore for MyStore {}` is a store without them: the MCP adapter
/// then serves every tool's calls the ordinary way.
pub trait TaskStore: Send + Sync {
    /// Keeps a new task.
    fn task_create<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = task;
        ready(Err(keeps_no_tasks()))
    }

    /// Task `id` as stored, unless unknown or forgotten (past its `expires_ms` at `now_ms`).
    fn task_get<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let _ = (id, now_ms);
        ready(Err(keeps_no_tasks()))
    }

    /// A beat of the replica running task `id`: while it works, its beat time becomes
    /// `now_ms` and, when given, its message `message`. Answers the status stored (a task
    /// another replica cancelled answers [`TaskStatus::Cancelled`]), `None` when unknown.
    fn task_beat<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        let _ = (id, now_ms, message);
        ready(Err(keeps_no_tasks()))
    }

    /// Ends task `id` with `status` and `outcome` if it still works: `Ok(true)` when this
    /// call ended it, `Ok(false)` when it had already ended (or is unknown).
    fn task_settle<'a>(
        &'a self,
        id: &'a str,
        status: TaskStatus,
        outcome: Option<&'a Value>,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let _ = (id, status, outcome, now_ms);
        ready(Err(keeps_no_tasks()))
    }

    /// Forgets tasks past their time at `now_ms`; says how many ([`Purged::tasks`]). The
    /// default, for a store that keeps none, forgets none.
    fn purge_tasks(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        let _ = now_ms;
        ready(Ok(Purged::default()))
    }
}

fn keeps_no_tasks() -> StoreError {
    StoreError::Unsupported(
        "this store keeps no tasks (implement TaskStore::task_create and the rest)".into(),
    )
}
