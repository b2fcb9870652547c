//! PostgresStore's previews.

use super::*; // the backend's rows, helpers and imports

impl crate::store::PreviewStore for PostgresStore {
    fn insert_preview<'a>(
        &'a self,
        preview: &'a StoredPreview,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            // An indexed delete on each insert keeps the table to one TTL window plus a day.
            client
                .execute(
                    "DELETE FROM toolspec_previews WHERE expires_at <= $1",
                    &[&now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)],
                )
                .await
                .map_err(pg)?;
            client
                .execute(
                    "INSERT INTO toolspec_previews
                     (id, tool, fingerprint, preview, created_at, expires_at, state)
                     VALUES ($1, $2, $3, $4, $5, $6, 'open')",
                    &[
                        &preview.id,
                        &preview.tool,
                        &preview.fingerprint,
                        &preview.preview.to_string(),
                        &now_ms,
                        &preview.expires_at_ms,
                    ],
                )
                .await
                .map_err(pg)?;
            Ok(())
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
            let client = self.pooled().await?;
            judge_preview(&**client, tool, id, fingerprint, now_ms).await
        })
    }

    fn refuse_preview<'a>(
        &'a self,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut client = self.pooled().await?;
            let tx = client.transaction().await.map_err(pg)?;
            tx.execute(
                "UPDATE toolspec_previews SET state = 'refused' WHERE id = $1 AND state = 'open'",
                &[&decision.preview_id],
            )
            .await
            .map_err(pg)?;
            record(&*tx, decision).await?;
            tx.commit().await.map_err(pg)
        })
    }

    fn decisions<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<Decision>, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let rows = client
                .query(
                    "SELECT tool, fingerprint, verdict, decided_by, decided_at
                     FROM toolspec_approvals WHERE preview_id = $1 ORDER BY seq",
                    &[&id],
                )
                .await
                .map_err(pg)?;
            Ok(rows
                .iter()
                .map(|r| Decision {
                    preview_id: id.to_owned(),
                    tool: r.get(0),
                    fingerprint: r.get(1),
                    verdict: verdict(r.get(2)),
                    decided_by: r.get(3),
                    decided_at_ms: r.get(4),
                })
                .collect())
        })
    }

    fn purge_previews(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let gone = client
                .query(
                    "DELETE FROM toolspec_previews WHERE expires_at <= $1
                     RETURNING tool, state = 'open'",
                    &[&now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)],
                )
                .await
                .map_err(pg)?;
            let mut purged = Purged::default();
            for row in gone {
                purged.preview(row.get(0), row.get(1));
            }
            Ok(purged)
        })
    }
}
