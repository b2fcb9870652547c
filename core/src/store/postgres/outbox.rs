//! PostgresStore's outbox.

use super::*; // the backend's rows, helpers and imports

impl crate::store::OutboxStore for PostgresStore {
    fn outbox_pending(
        &self,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<OutboxMessage>, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = client
                .query(
                    "SELECT id, topic, payload, attempts FROM toolspec_outbox
                     WHERE delivered_at IS NULL ORDER BY seq LIMIT $1",
                    &[&limit],
                )
                .await
                .map_err(pg)?;
            rows.iter()
                .map(|r| {
                    let payload: String = r.get(2);
                    let attempts: i32 = r.get(3);
                    Ok(OutboxMessage {
                        id: r.get(0),
                        topic: r.get(1),
                        payload: serde_json::from_str(&payload).map_err(|e| {
                            StoreError::Backend(format!("stored outbox payload: {e}"))
                        })?,
                        attempts: u32::try_from(attempts).unwrap_or(0),
                    })
                })
                .collect()
        })
    }

    fn outbox_settle<'a>(
        &'a self,
        id: &'a str,
        ok: bool,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            client
                .execute(
                    "UPDATE toolspec_outbox SET attempts = attempts + 1,
                       delivered_at = CASE WHEN $2 THEN $3 ELSE delivered_at END
                     WHERE id = $1",
                    &[&id, &ok, &now_ms],
                )
                .await
                .map_err(pg)?;
            Ok(())
        })
    }
}
