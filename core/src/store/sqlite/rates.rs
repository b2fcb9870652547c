//! SqliteStore's rates.

use super::*; // the backend's rows, helpers and imports

impl crate::store::RateStore for SqliteStore {
    fn admit<'a>(
        &'a self,
        limit: &'a RateLimit,
        holder: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Admission, StoreError>> {
        Box::pin(async move {
            let mut conn = self.db.lock_unchecked().await;
            // A count need not survive a power cut (losing one lets a caller one call more),
            // so this commit skips the fsync the app's own commits keep: in WAL mode the
            // next full commit makes it durable anyway, in order.
            let synchronous: i64 = conn
                .query_row("PRAGMA synchronous", [], |r| r.get(0))
                .map_err(sql)?;
            conn.execute_batch("PRAGMA synchronous = NORMAL")
                .map_err(sql)?;
            let decided = admit_in(&mut conn, limit, holder, now_ms);
            conn.execute_batch(&format!("PRAGMA synchronous = {synchronous}"))
                .map_err(sql)?;
            decided
        })
    }

    fn purge_counters(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        Box::pin(async move {
            Ok(Purged {
                counters: self.delete_expired("toolspec_rate", now_ms).await?,
                ..Purged::default()
            })
        })
    }
}
