//! SqliteStore's outbox.

use super::*; // the backend's rows, helpers and imports

impl crate::store::OutboxStore for SqliteStore {
    fn outbox_pending(
        &self,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<OutboxMessage>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let mut stmt = conn
                .prepare(
                    "SELECT id, topic, payload, attempts FROM toolspec_outbox
                     WHERE delivered_at IS NULL ORDER BY seq LIMIT ?1",
                )
                .map_err(sql)?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = stmt
                .query_map([limit], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, u32>(3)?,
                    ))
                })
                .map_err(sql)?;
            let mut out = Vec::new();
            for row in rows {
                let (id, topic, payload, attempts) = row.map_err(sql)?;
                let payload = serde_json::from_str(&payload)
                    .map_err(|e| StoreError::Backend(format!("stored outbox payload: {e}")))?;
                out.push(OutboxMessage {
                    id,
                    topic,
                    payload,
                    attempts,
                });
            }
            Ok(out)
        })
    }

    fn outbox_settle<'a>(
        &'a self,
        id: &'a str,
        ok: bool,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            conn.execute(
                "UPDATE toolspec_outbox SET attempts = attempts + 1,
                   delivered_at = CASE WHEN ?2 THEN ?3 ELSE delivered_at END
                 WHERE id = ?1",
                params![id, ok, now_ms],
            )
            .map_err(sql)?;
            Ok(())
        })
    }
}
