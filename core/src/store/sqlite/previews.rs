//! SqliteStore's previews.

use super::*; // the backend's rows, helpers and imports

impl crate::store::PreviewStore for SqliteStore {
    fn insert_preview<'a>(
        &'a self,
        preview: &'a StoredPreview,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut conn = self.db.lock_unchecked().await;
            immediate(&mut conn, |tx| {
                // An indexed delete on each insert keeps the table to one TTL window plus a day.
                tx.execute(
                    "DELETE FROM toolspec_previews WHERE expires_at <= ?1",
                    params![now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)],
                )
                .map_err(sql)?;
                tx.execute(
                    "INSERT INTO toolspec_previews
                     (id, tool, fingerprint, preview, created_at, expires_at, state)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'open')",
                    params![
                        preview.id,
                        preview.tool,
                        preview.fingerprint,
                        preview.preview.to_string(),
                        now_ms,
                        preview.expires_at_ms
                    ],
                )
                .map_err(sql)?;
                Ok(())
            })
        })
    }

    fn check_preview<'a>(
        &'a self,
        tool: &'a str,
        id: &'a str,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Consume, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            judge_preview(&conn, tool, id, fingerprint, now_ms)
        })
    }

    fn refuse_preview<'a>(
        &'a self,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut conn = self.db.lock_unchecked().await;
            immediate(&mut conn, |tx| {
                tx.execute(
                    "UPDATE toolspec_previews SET state = 'refused'
                     WHERE id = ?1 AND state = 'open'",
                    params![decision.preview_id],
                )
                .map_err(sql)?;
                record(tx, decision)
            })
        })
    }

    fn decisions<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<Decision>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let mut stmt = conn
                .prepare(
                    "SELECT tool, fingerprint, verdict, decided_by, decided_at
                     FROM toolspec_approvals WHERE preview_id = ?1 ORDER BY rowid",
                )
                .map_err(sql)?;
            let rows = stmt
                .query_map([id], |r| {
                    Ok(Decision {
                        preview_id: id.to_owned(),
                        tool: r.get(0)?,
                        fingerprint: r.get(1)?,
                        verdict: verdict(&r.get::<_, String>(2)?),
                        decided_by: r.get(3)?,
                        decided_at_ms: r.get(4)?,
                    })
                })
                .map_err(sql)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(sql)
        })
    }

    fn purge_previews(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let mut purged = Purged::default();
            let mut gone = conn
                .prepare(
                    "DELETE FROM toolspec_previews WHERE expires_at <= ?1
                     RETURNING tool, state = 'open'",
                )
                .map_err(sql)?;
            let mut rows = gone
                .query(params![now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)])
                .map_err(sql)?;
            while let Some(row) = rows.next().map_err(sql)? {
                let tool: String = row.get(0).map_err(sql)?;
                purged.preview(&tool, row.get(1).map_err(sql)?);
            }
            Ok(purged)
        })
    }
}
