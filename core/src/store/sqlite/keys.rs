//! SqliteStore's keys.

use super::*; // the backend's rows, helpers and imports

impl crate::store::KeyStore for SqliteStore {
    fn lease<'a>(
        &'a self,
        key: KeyRef<'a>,
        fingerprint: &'a str,
        now_ms: i64,
        ttl_ms: i64,
        lease_ms: i64,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>> {
        Box::pin(async move {
            let mut conn = self.db.lock_unchecked().await;
            // A key that is done, held by a live lease or held for other arguments answers
            // from one read: those states change only by expiry, the lease's end or the
            // holder's commit, and the answer is true when it is read. Only a free or lapsed
            // key takes the write transaction.
            if let Some(row) = read_key(&conn, key, now_ms)?
                && let Some(answer) = classify(row, fingerprint, now_ms)?
            {
                return Ok(answer);
            }
            immediate(&mut conn, |tx| {
                tx.execute(
                    "DELETE FROM toolspec_idempotency WHERE expires_at <= ?1",
                    params![now_ms],
                )
                .map_err(sql)?;
                // A row classify lets through is an earlier attempt of this call whose
                // lease lapsed without an outcome.
                let earlier = match read_key(tx, key, now_ms)? {
                    Some(row) => match classify(row, fingerprint, now_ms)? {
                        Some(answer) => return Ok(answer),
                        None => true,
                    },
                    None => false,
                };
                let fresh = token("ls_")?;
                tx.execute(
                    "INSERT INTO toolspec_idempotency
                     (tool, key, fingerprint, state, result, created_at, expires_at,
                      lease_token, lease_until)
                     VALUES (?1, ?2, ?3, 'in_progress', NULL, ?4, ?5, ?6, ?7)
                     ON CONFLICT (tool, key) DO UPDATE SET
                       fingerprint = excluded.fingerprint, state = 'in_progress',
                       result = NULL, lease_token = excluded.lease_token,
                       lease_until = excluded.lease_until, created_at = excluded.created_at,
                       expires_at = excluded.expires_at",
                    params![
                        key.tool,
                        key.key,
                        fingerprint,
                        now_ms,
                        now_ms.saturating_add(ttl_ms),
                        fresh,
                        now_ms.saturating_add(lease_ms)
                    ],
                )
                .map_err(sql)?;
                Ok(Reservation::Leased {
                    token: fresh,
                    earlier,
                })
            })
        })
    }

    fn peek<'a>(
        &'a self,
        key: KeyRef<'a>,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            Ok(match read_key(&conn, key, now_ms)? {
                Some(row) => classify(row, fingerprint, now_ms)?.unwrap_or(Reservation::Free),
                None => Reservation::Free,
            })
        })
    }

    fn release<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            conn.execute(
                "DELETE FROM toolspec_idempotency
                 WHERE tool = ?1 AND key = ?2 AND state = 'in_progress' AND lease_token = ?3",
                params![key.tool, key.key, token],
            )
            .map_err(sql)?;
            Ok(())
        })
    }

    fn lapse<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            conn.execute(
                "UPDATE toolspec_idempotency SET lease_until = MIN(lease_until, ?4)
                 WHERE tool = ?1 AND key = ?2 AND state = 'in_progress' AND lease_token = ?3",
                params![key.tool, key.key, token, now_ms],
            )
            .map_err(sql)?;
            Ok(())
        })
    }

    fn renew<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
        lease_until_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            // While a unit of work of this process holds the connection this waits for it;
            // its IMMEDIATE transaction keeps every other writer off the key meanwhile.
            let conn = self.db.lock_unchecked().await;
            let n = conn
                .prepare_cached(
                    "UPDATE toolspec_idempotency SET lease_until = MAX(lease_until, ?4)
                     WHERE tool = ?1 AND key = ?2 AND state = 'in_progress' AND lease_token = ?3",
                )
                .map_err(sql)?
                .execute(params![key.tool, key.key, token, lease_until_ms])
                .map_err(sql)?;
            Ok(n == 1)
        })
    }

    fn complete<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
        outcome: &'a Outcome,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut conn = self.db.lock_unchecked().await;
            immediate(&mut conn, |tx| {
                let held = holds(tx, key, token)?;
                if held {
                    store_outcome(tx, key, outcome)?;
                }
                Ok(held)
            })
        })
    }

    fn purge_keys(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        Box::pin(async move {
            Ok(Purged {
                keys: self.delete_expired("toolspec_idempotency", now_ms).await?,
                ..Purged::default()
            })
        })
    }
}
