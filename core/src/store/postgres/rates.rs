//! PostgresStore's rates.

use super::*; // the backend's rows, helpers and imports

impl crate::store::RateStore for PostgresStore {
    fn admit<'a>(
        &'a self,
        limit: &'a RateLimit,
        holder: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Admission, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            // Prepared once per pooled connection: an admitted call is one round trip.
            let admit = client.prepare_cached(ADMIT).await.map_err(pg)?;
            let admitted = client
                .query_opt(
                    &admit,
                    &[
                        &holder,
                        &now_ms,
                        &limit.per_ms(),
                        &i64::from(limit.calls),
                        &limit.interval_ms(),
                        &limit.tolerance_ms(),
                    ],
                )
                .await
                .map_err(pg)?;
            if admitted.is_some() {
                return Ok(Admission::Admitted);
            }
            // Refused (the rare path): read the record to say how long to wait. Another
            // replica may have moved it since; the wait is then a little long, never short
            // of the truth by more than that call's own count.
            let row = client
                .query_opt(
                    "SELECT window_start, count, tat FROM toolspec_rate WHERE holder = $1",
                    &[&holder],
                )
                .await
                .map_err(pg)?;
            let counter = row.map(|r| Counter {
                window_start_ms: r.get(0),
                count: u32::try_from(r.get::<_, i64>(1)).unwrap_or(u32::MAX),
                tat_ms: r.get(2),
            });
            Ok(match decide(limit, counter, now_ms).0 {
                refused @ Admission::Refused { .. } => refused,
                // The window ended between the two statements: the next call goes through.
                Admission::Admitted => Admission::Refused { retry_after_ms: 1 },
            })
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
