//! MCP's tasks extension (`io.modelcontextprotocol/tasks`) over the runtime's task records
//! ([`toolspec_core::task`]): a call of a tool the spec lets run as a task, from a client that
//! declared the extension, is answered at once with a task handle and goes on here; its
//! state lives in the store, so `tasks/get` and `tasks/cancel` are answered by any replica
//! that shares it.
//!
//! Tasks belong to their caller: over HTTP a task's id is kept with the caller's tag, so
//! another caller's `tasks/get` finds nothing. Only the replica running a task can stop it;
//! a `tasks/cancel` answered elsewhere marks it cancelled in the store, and the running
//! replica stops the call at its next beat ([`toolspec_core::task::BEAT`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, CreateTaskResult, DetailedTask, GetTaskResult, JsonObject, Task, TaskPayload,
    TaskStatus as WireStatus,
};
use serde_json::Value;

use toolspec_core::ToolError;
use toolspec_core::caller::Caller;
use toolspec_core::cancel::Cancel;
use toolspec_core::clock::format_rfc3339;
use toolspec_core::engine::Runtime;
use toolspec_core::for_adapters::{bound_for, unbound};
use toolspec_core::progress::Progress;
use toolspec_core::task::{BEAT, TaskRecord, TaskStatus};

/// How often a client should poll a task, said in every task it is shown.
pub const POLL_INTERVAL_MS: u64 = 1_000;

/// How many tasks may run at once: a task handle returns at once, so without a bound one
/// caller could start far more background calls than the per-session call limit lets it
/// run in the foreground.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// The most tasks one session runs at once ([`TaskLimits::PER_SESSION`]).
    pub per_session: usize,
    /// The most tasks one caller runs at once, over all their sessions
    /// ([`TaskLimits::PER_CALLER`]); over stdio, the local user's.
    pub per_caller: usize,
}

impl TaskLimits {
    /// 16 tasks of one session at once.
    pub const PER_SESSION: usize = 16;
    /// 32 tasks of one caller at once.
    pub const PER_CALLER: usize = 32;
}

impl Default for TaskLimits {
    fn default() -> Self {
        Self {
            per_session: Self::PER_SESSION,
            per_caller: Self::PER_CALLER,
        }
    }
}

/// The tasks this process runs, by kept id: the handle that stops each at once when its
/// `tasks/cancel` reaches this replica, and how many each caller and session runs. Shared
/// by every session's server (clones share it).
#[derive(Debug, Default, Clone)]
pub(super) struct Running(Arc<Mutex<Tasks>>);

#[derive(Debug, Default)]
struct Tasks {
    limits: TaskLimits,
    by_id: HashMap<String, RunningTask>,
    by_caller: HashMap<String, usize>,
    by_session: HashMap<String, usize>,
}

#[derive(Debug)]
struct RunningTask {
    cancel: Cancel,
    caller: String,
    session: Option<String>,
}

impl Running {
    pub(super) fn with_limits(limits: TaskLimits) -> Self {
        Running(Arc::new(Mutex::new(Tasks {
            limits,
            ..Tasks::default()
        })))
    }

    /// Counts the task `id` of `caller` in `session`, unless one of them already runs as
    /// many as the limits allow: then the error the call gets.
    fn admit(
        &self,
        id: &str,
        cancel: Cancel,
        caller: &str,
        session: Option<&str>,
        tool: &str,
    ) -> Result<(), ToolError> {
        let mut tasks = self.lock();
        let limits = tasks.limits;
        let of_caller = tasks.by_caller.get(caller).copied().unwrap_or(0);
        let of_session = session.map_or(0, |s| tasks.by_session.get(s).copied().unwrap_or(0));
        if of_session >= limits.per_session {
            return Err(too_many(tool, "this session", of_session));
        }
        if of_caller >= limits.per_caller {
            return Err(too_many(tool, "this caller", of_caller));
        }
        *tasks.by_caller.entry(caller.to_owned()).or_default() += 1;
        if let Some(s) = session {
            *tasks.by_session.entry(s.to_owned()).or_default() += 1;
        }
        tasks.by_id.insert(
            id.to_owned(),
            RunningTask {
                cancel,
                caller: caller.to_owned(),
                session: session.map(str::to_owned),
            },
        );
        Ok(())
    }

    fn remove(&self, id: &str) {
        let mut tasks = self.lock();
        let Some(task) = tasks.by_id.remove(id) else {
            return;
        };
        let release = |counts: &mut HashMap<String, usize>, key: String| {
            if let Some(n) = counts.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    // The maps never outgrow what runs, whatever ids clients make up.
                    counts.remove(&key);
                }
            }
        };
        release(&mut tasks.by_caller, task.caller);
        if let Some(s) = task.session {
            release(&mut tasks.by_session, s);
        }
    }

    fn cancel(&self, id: &str) {
        if let Some(task) = self.lock().by_id.get(id) {
            task.cancel.cancel();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tasks> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The refusal of a task past a limit: `rate_limited`, retryable once a task has ended.
fn too_many(tool: &str, whose: &str, running: usize) -> ToolError {
    ToolError::builtin(
        &toolspec_core::catalog::RATE_LIMITED,
        format!(
            "Nothing was done: {whose} already runs {running} tasks, the most it may run at once, so {tool} was not started. Wait for one to finish (tasks/get shows when), then make the same call again."
        ),
        serde_json::json!({ "retry_after_ms": POLL_INTERVAL_MS, "tasks_running": running }),
    )
}

/// Why a call was not started as a task.
pub(super) enum NotStarted {
    /// The store keeps no tasks: the call is served the ordinary way.
    Store(toolspec_core::idempotency::StoreError),
    /// A limit of running tasks is reached: the call gets this error.
    Busy(ToolError),
}

/// A task about to run: its record kept, the handle shown to the client, and what the
/// running call needs to keep the record true.
pub(super) struct Started {
    /// The answer to the `tools/call`.
    pub(super) handle: CreateTaskResult,
    /// Beats, settles and stops the task while `call` runs.
    pub(super) keeper: Keeper,
}

/// Keeps one running task's record true: beats while the call runs, stops the call when
/// the task is cancelled (here or on another replica), settles it with the call's result.
pub(super) struct Keeper {
    runtime_store: Arc<dyn toolspec_core::store::TaskStore>,
    clock: Arc<dyn toolspec_core::clock::Clock>,
    kept_id: String,
    running: Running,
    /// The call's cancellation: set by `tasks/cancel`.
    pub(super) cancel: Cancel,
    /// The call's progress: its latest report becomes the task's status message.
    pub(super) progress: Progress,
    latest: Arc<Mutex<Option<String>>>,
}

/// Makes the task for a call of `tool` by `caller`, kept for `kept`: stored before the
/// handle is returned, so a `tasks/get` on any replica finds it at once. Counted against
/// the task limits of `caller` and `session` (see [`TaskLimits`]).
#[allow(clippy::too_many_arguments)]
pub(super) async fn start(
    runtime: &Runtime,
    running: &Running,
    tool: &str,
    writes: bool,
    arguments: &Value,
    caller: Option<&Caller>,
    session: Option<&str>,
    kept: std::time::Duration,
) -> Result<Started, NotStarted> {
    let shown = toolspec_core::for_adapters::token("task").map_err(NotStarted::Store)?;
    let kept_id = bound_for(caller, &shown).into_owned();
    let cancel = Cancel::new();
    let who = caller.map_or("", Caller::tag);
    running
        .admit(&kept_id, cancel.clone(), who, session, tool)
        .map_err(NotStarted::Busy)?;
    let now = runtime.now_ms();
    let mut record = TaskRecord::working(kept_id.clone(), tool, now, kept);
    record.writes = writes;
    record.idempotency_key = arguments
        .get("idempotency_key")
        .and_then(Value::as_str)
        .map(|k| k.chars().take(200).collect());
    if let Err(e) = runtime.task_store().task_create(&record).await {
        running.remove(&kept_id);
        return Err(NotStarted::Store(e));
    }
    let latest = Arc::new(Mutex::new(None));
    let said = Arc::clone(&latest);
    // Every report is kept as the latest; the beat is what thins them out.
    let progress = Progress::every(std::time::Duration::ZERO, move |update| {
        let words = match (update.total, update.message) {
            (_, Some(message)) => message,
            (Some(total), None) => format!("{} of {total} done", update.done),
            (None, None) => format!("{} done", update.done),
        };
        *said.lock().unwrap_or_else(|p| p.into_inner()) = Some(words);
    });
    Ok(Started {
        handle: CreateTaskResult::new(wire_task(&record, &shown)),
        keeper: Keeper {
            runtime_store: Arc::clone(runtime.task_store()),
            clock: runtime.clock(),
            kept_id,
            running: running.clone(),
            cancel,
            progress,
            latest,
        },
    })
}

impl Keeper {
    /// Beats every [`BEAT`] until the call ends; stops the call when the task was cancelled
    /// in the store. Runs beside the call.
    pub(super) async fn beat(&self) {
        let every = u64::try_from(BEAT.as_millis()).unwrap_or(1_000);
        while let Some(sleep) = self.clock.sleep(every) {
            sleep.await;
            let message = self.latest.lock().unwrap_or_else(|p| p.into_inner()).take();
            let now = self.clock.now_ms();
            match (self.runtime_store)
                .task_beat(&self.kept_id, now, message.as_deref())
                .await
            {
                Ok(Some(TaskStatus::Working)) => {}
                // Cancelled on another replica (or gone): stop the call.
                Ok(Some(_) | None) => {
                    self.cancel.cancel();
                    return;
                }
                // A missed beat is retried at the next; five in a row read as lost, which
                // is then true: this replica cannot keep the task.
                Err(e) => eprintln!("task {}: beat not recorded: {e}", self.kept_id),
            }
        }
    }

    /// Ends the task with the call's `answer`, unless it was cancelled meanwhile: a
    /// cancelled task stays cancelled, whatever the call answered. An answer a task cannot
    /// carry (a request for the person's approval, which `check` keeps off tasks) fails it.
    pub(super) async fn settle(self, answer: CallToolResponse) {
        let now = self.clock.now_ms();
        let (status, outcome) = if self.cancel.is_cancelled() {
            (TaskStatus::Cancelled, None)
        } else {
            match answer {
                CallToolResponse::Complete(result) => match serde_json::to_value(result) {
                    Ok(result) => (TaskStatus::Completed, Some(result)),
                    Err(e) => (
                        TaskStatus::Failed,
                        Some(failure(&format!("its result: {e}"))),
                    ),
                },
                _ => (
                    TaskStatus::Failed,
                    Some(failure("it asked for input, which a task cannot")),
                ),
            }
        };
        for attempt in 0..3 {
            match (self.runtime_store)
                .task_settle(&self.kept_id, status, outcome.as_ref(), now)
                .await
            {
                Ok(_) => break,
                Err(e) => {
                    eprintln!("task {}: result not recorded ({e})", self.kept_id);
                    if attempt < 2
                        && let Some(sleep) = self.clock.sleep(200)
                    {
                        sleep.await;
                    }
                }
            }
        }
        self.running.remove(&self.kept_id);
    }
}

/// `tasks/get`: the task as it truly stands (a task whose replica died reads as failed).
pub(super) async fn get(
    runtime: &Runtime,
    caller: Option<&Caller>,
    shown: &str,
) -> Result<GetTaskResult, ErrorData> {
    let record = find(runtime, caller, shown).await?;
    let record = record.status_at(runtime.now_ms());
    Ok(GetTaskResult::new(detailed(&record, shown)))
}

/// `tasks/cancel`: a working task is marked cancelled in the store, and stopped at once
/// when this replica runs it (at its next beat when another does). A finished task is
/// left as it is.
pub(super) async fn cancel(
    runtime: &Runtime,
    running: &Running,
    caller: Option<&Caller>,
    shown: &str,
) -> Result<(), ErrorData> {
    let record = find(runtime, caller, shown).await?;
    let now = runtime.now_ms();
    // A lost task's account stands: it may have committed, so it is not "cancelled".
    if record.status_at(now).status != TaskStatus::Working {
        return Ok(());
    }
    runtime
        .task_store()
        .task_settle(&record.id, TaskStatus::Cancelled, None, now)
        .await
        .map_err(store_failed)?;
    running.cancel(&record.id);
    Ok(())
}

/// `tasks/update`: the task must exist; this server never asks for input within a task, so
/// there is nothing to deliver (responses to unknown requests are ignored, as the
/// extension says).
pub(super) async fn update(
    runtime: &Runtime,
    caller: Option<&Caller>,
    shown: &str,
) -> Result<(), ErrorData> {
    find(runtime, caller, shown).await.map(|_| ())
}

async fn find(
    runtime: &Runtime,
    caller: Option<&Caller>,
    shown: &str,
) -> Result<TaskRecord, ErrorData> {
    // An id holding `@` is no one's: the runtime hands out none.
    let found = if shown.contains('@') || shown.len() > 200 {
        None
    } else {
        let kept = bound_for(caller, shown);
        runtime
            .task_store()
            .task_get(&kept, runtime.now_ms())
            .await
            .map_err(store_failed)?
    };
    found.ok_or_else(|| {
        let shown: String = shown.chars().take(80).collect();
        ErrorData::invalid_params(
            format!(
                "No task {shown:?}: it was never made for this caller, or its result was kept \
                 for its stated time and is gone. Call the tool again."
            ),
            None,
        )
    })
}

/// A task's JSON-RPC error: the call ran but its answer could not be kept as the task's
/// result (`why`); nothing the call did is undone by this.
fn failure(why: &str) -> Value {
    serde_json::json!({
        "code": -32603,
        "message": format!("The call finished, but {why}; call the tool without a task."),
        "data": { "code": "task_result_unkept", "retryable": false },
    })
}

fn store_failed(e: toolspec_core::idempotency::StoreError) -> ErrorData {
    eprintln!("task store: {e}");
    ErrorData::internal_error(
        "The task store did not answer; nothing was changed. Try again shortly.",
        None,
    )
}

fn wire_task(record: &TaskRecord, shown: &str) -> Task {
    let mut task = Task::new(
        shown,
        wire_status(record.status),
        format_rfc3339(record.created_ms),
        format_rfc3339(record.updated_ms),
    )
    .with_ttl_ms(u64::try_from(record.kept_ms()).unwrap_or(0))
    .with_poll_interval_ms(POLL_INTERVAL_MS);
    if let Some(message) = &record.message {
        task = task.with_status_message(message.clone());
    }
    task
}

fn wire_status(status: TaskStatus) -> WireStatus {
    match status {
        TaskStatus::Working => WireStatus::Working,
        TaskStatus::Completed => WireStatus::Completed,
        TaskStatus::Failed => WireStatus::Failed,
        TaskStatus::Cancelled => WireStatus::Cancelled,
    }
}

fn detailed(record: &TaskRecord, shown: &str) -> DetailedTask {
    let object = |value: &Option<Value>| -> JsonObject {
        match value {
            Some(Value::Object(map)) => map.clone(),
            _ => JsonObject::new(),
        }
    };
    let payload = match record.status {
        TaskStatus::Working => TaskPayload::Working,
        TaskStatus::Completed => TaskPayload::Completed {
            result: object(&record.outcome),
        },
        TaskStatus::Failed => TaskPayload::Failed {
            error: object(&record.outcome),
        },
        TaskStatus::Cancelled => TaskPayload::Cancelled,
    };
    DetailedTask::new(wire_task(record, unbound(shown)), payload)
}

#[cfg(test)]
mod tests;
