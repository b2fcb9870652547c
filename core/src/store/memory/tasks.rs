//! MemoryStore's tasks.

use super::*; // the backend's rows, helpers and imports

impl crate::store::TaskStore for MemoryStore {
    fn task_create<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut state = lock(&self.state);
        let now = task.created_ms;
        state.tasks.retain(|_, t| t.expires_ms > now);
        if state.tasks.contains_key(&task.id) {
            return ready(Err(StoreError::Backend(format!("task {} exists", task.id))));
        }
        state.tasks.insert(task.id.clone(), task.clone());
        ready(Ok(()))
    }

    fn task_get<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let state = lock(&self.state);
        let found = state.tasks.get(id).filter(|t| t.expires_ms > now_ms);
        ready(Ok(found.cloned()))
    }

    fn task_beat<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        let mut state = lock(&self.state);
        let Some(task) = state.tasks.get_mut(id) else {
            return ready(Ok(None));
        };
        if task.status == TaskStatus::Working {
            task.beat_ms = now_ms;
            if let Some(message) = message
                && task.message.as_deref() != Some(message)
            {
                task.message = Some(message.to_owned());
                task.updated_ms = now_ms;
            }
        }
        ready(Ok(Some(task.status)))
    }

    fn task_settle<'a>(
        &'a self,
        id: &'a str,
        status: TaskStatus,
        outcome: Option<&'a Value>,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut state = lock(&self.state);
        let Some(task) = state.tasks.get_mut(id) else {
            return ready(Ok(false));
        };
        if task.status != TaskStatus::Working {
            return ready(Ok(false));
        }
        task.status = status;
        task.outcome = outcome.cloned();
        task.updated_ms = now_ms;
        ready(Ok(true))
    }

    fn purge_tasks(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        let mut state = lock(&self.state);
        let before = state.tasks.len();
        state.tasks.retain(|_, t| t.expires_ms > now_ms);
        let tasks = before - state.tasks.len();
        ready(Ok(Purged {
            tasks,
            ..Purged::default()
        }))
    }
}
