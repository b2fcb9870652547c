//! PostgresStore's tasks.

use super::*; // the backend's rows, helpers and imports

impl crate::store::TaskStore for PostgresStore {
    fn task_create<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let outcome = task.outcome.as_ref().map(Value::to_string);
            client
                .execute(
                    &format!(
                        "INSERT INTO toolspec_tasks ({TASK_COLUMNS})
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
                    ),
                    &[
                        &task.id,
                        &task.tool,
                        &task.status.as_str(),
                        &task.message,
                        &outcome,
                        &task.writes,
                        &task.idempotency_key,
                        &task.created_ms,
                        &task.updated_ms,
                        &task.beat_ms,
                        &task.expires_ms,
                    ],
                )
                .await
                .map_err(pg)?;
            Ok(())
        })
    }

    fn task_get<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let row = client
                .query_opt(
                    &format!(
                        "SELECT {TASK_COLUMNS} FROM toolspec_tasks WHERE id = $1 AND expires_at > $2"
                    ),
                    &[&id, &now_ms],
                )
                .await
                .map_err(pg)?;
            row.map(|r| {
                task_row(TaskColumns {
                    id: r.get(0),
                    tool: r.get(1),
                    status: r.get(2),
                    message: r.get(3),
                    outcome: r.get(4),
                    writes: r.get(5),
                    idempotency_key: r.get(6),
                    times: [r.get(7), r.get(8), r.get(9), r.get(10)],
                })
            })
            .transpose()
        })
    }

    fn task_beat<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            // One round trip: the beat where the task works, and its status either way.
            let row = client
                .query_opt(
                    "WITH beat AS (
                       UPDATE toolspec_tasks SET beat_at = $2::BIGINT,
                         updated_at = CASE WHEN $3::TEXT IS NOT NULL AND message IS DISTINCT FROM $3::TEXT
                                           THEN $2::BIGINT ELSE updated_at END,
                         message = COALESCE($3::TEXT, message)
                       WHERE id = $1 AND status = 'working'
                       RETURNING status)
                     SELECT status FROM beat
                     UNION ALL
                     SELECT status FROM toolspec_tasks WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM beat)",
                    &[&id, &now_ms, &message],
                )
                .await
                .map_err(pg)?;
            Ok(row.and_then(|r| TaskStatus::parse(r.get::<_, &str>(0))))
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
            let client = self.pooled().await?;
            let outcome = outcome.map(Value::to_string);
            let settled = client
                .execute(
                    "UPDATE toolspec_tasks SET status = $2, outcome = $3, updated_at = $4
                     WHERE id = $1 AND status = 'working'",
                    &[&id, &status.as_str(), &outcome, &now_ms],
                )
                .await
                .map_err(pg)?;
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
