//! SqliteStore's tasks.

use super::*; // the backend's rows, helpers and imports

impl crate::store::TaskStore for SqliteStore {
    fn task_create<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let outcome = task.outcome.as_ref().map(Value::to_string);
            conn.execute(
                &format!(
                    "INSERT INTO toolspec_tasks ({TASK_COLUMNS})
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
                ),
                params![
                    task.id,
                    task.tool,
                    task.status.as_str(),
                    task.message,
                    outcome,
                    task.writes,
                    task.idempotency_key,
                    task.created_ms,
                    task.updated_ms,
                    task.beat_ms,
                    task.expires_ms
                ],
            )
            .map_err(sql)?;
            Ok(())
        })
    }

    fn task_get<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let columns = conn
                .query_row(
                    &format!(
                        "SELECT {TASK_COLUMNS} FROM toolspec_tasks WHERE id = ?1 AND expires_at > ?2"
                    ),
                    params![id, now_ms],
                    |r| {
                        Ok(TaskColumns {
                            id: r.get(0)?,
                            tool: r.get(1)?,
                            status: r.get(2)?,
                            message: r.get(3)?,
                            outcome: r.get(4)?,
                            writes: r.get(5)?,
                            idempotency_key: r.get(6)?,
                            times: [r.get(7)?, r.get(8)?, r.get(9)?, r.get(10)?],
                        })
                    },
                )
                .optional()
                .map_err(sql)?;
            columns.map(task_row).transpose()
        })
    }

    fn task_beat<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            conn.execute(
                "UPDATE toolspec_tasks SET beat_at = ?2,
                   updated_at = CASE WHEN ?3 IS NOT NULL AND message IS NOT ?3 THEN ?2 ELSE updated_at END,
                   message = COALESCE(?3, message)
                 WHERE id = ?1 AND status = 'working'",
                params![id, now_ms, message],
            )
            .map_err(sql)?;
            let status: Option<String> = conn
                .query_row(
                    "SELECT status FROM toolspec_tasks WHERE id = ?1",
                    params![id],
                    |r| r.get(0),
                )
                .optional()
                .map_err(sql)?;
            Ok(status.as_deref().and_then(TaskStatus::parse))
        })
    }

    fn task_settle<'a>(
        &'a self,
        id: &'a str,
        status: TaskStatus,
        outcome: Option<&'a Value>,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let settled = conn
                .execute(
                    "UPDATE toolspec_tasks SET status = ?2, outcome = ?3, updated_at = ?4
                     WHERE id = ?1 AND status = 'working'",
                    params![id, status.as_str(), outcome.map(Value::to_string), now_ms],
                )
                .map_err(sql)?;
            Ok(settled == 1)
        })
    }

    fn purge_tasks(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        Box::pin(async move {
            Ok(Purged {
                tasks: self.delete_expired("toolspec_tasks", now_ms).await?,
                ..Purged::default()
            })
        })
    }
}
