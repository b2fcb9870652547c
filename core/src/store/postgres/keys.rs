//! PostgresStore's keys.

use super::*; // the backend's rows, helpers and imports

impl crate::store::KeyStore for PostgresStore {
    fn lease<'a>(
        &'a self,
        key: KeyRef<'a>,
        fingerprint: &'a str,
        now_ms: i64,
        ttl_ms: i64,
        lease_ms: i64,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>> {
        Box::pin(async move {
            let mut client = self.pooled().await?;
            // Done, live or mismatched keys answer from one read (see the SQLite store);
            // only a free or lapsed key takes the locked transaction.
            if let Some(row) = read_key(&**client, key, now_ms).await?
                && let Some(answer) = classify(row, fingerprint, now_ms)?
            {
                return Ok(answer);
            }
            let tx = client.transaction().await.map_err(pg)?;
            tx.execute(LOCK_KEY, &[&key.tool, &key.key])
                .await
                .map_err(pg)?;
            tx.execute(
                "DELETE FROM toolspec_idempotency
                 WHERE tool = $1 AND key = $2 AND expires_at <= $3",
                &[&key.tool, &key.key, &now_ms],
            )
            .await
            .map_err(pg)?;
            // A row classify lets through is an earlier attempt of this call whose lease
            // lapsed without an outcome.
            let earlier = match read_key(&*tx, key, now_ms).await? {
                Some(row) => match classify(row, fingerprint, now_ms)? {
                    Some(answer) => {
                        tx.commit().await.map_err(pg)?;
                        return Ok(answer);
                    }
                    None => true,
                },
                None => false,
            };
            let fresh = token("ls_")?;
            tx.execute(
                "INSERT INTO toolspec_idempotency
                 (tool, key, fingerprint, state, result, created_at, expires_at,
                  lease_token, lease_until)
                 VALUES ($1, $2, $3, 'in_progress', NULL, $4, $5, $6, $7)
                 ON CONFLICT (tool, key) DO UPDATE SET
                   fingerprint = excluded.fingerprint, state = 'in_progress',
                   result = NULL, lease_token = excluded.lease_token,
                   lease_until = excluded.lease_until, created_at = excluded.created_at,
                   expires_at = excluded.expires_at",
                &[
                    &key.tool,
                    &key.key,
                    &fingerprint,
                    &now_ms,
                    &now_ms.saturating_add(ttl_ms),
                    &fresh,
                    &now_ms.saturating_add(lease_ms),
                ],
            )
            .await
            .map_err(pg)?;
            tx.commit().await.map_err(pg)?;
            Ok(Reservation::Leased {
                token: fresh,
                earlier,
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
            let client = self.pooled().await?;
            Ok(match read_key(&**client, key, now_ms).await? {
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
            let client = self.pooled().await?;
            client
                .execute(
                    "DELETE FROM toolspec_idempotency
                     WHERE tool = $1 AND key = $2 AND state = 'in_progress' AND lease_token = $3",
                    &[&key.tool, &key.key, &token],
                )
                .await
                .map_err(pg)?;
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
            let client = self.pooled().await?;
            client
                .execute(
                    "UPDATE toolspec_idempotency SET lease_until = LEAST(lease_until, $4)
                     WHERE tool = $1 AND key = $2 AND state = 'in_progress' AND lease_token = $3",
                    &[&key.tool, &key.key, &token, &now_ms],
                )
                .await
                .map_err(pg)?;
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
            let client = self.pooled().await?;
            let n = client
                .execute(
                    "UPDATE toolspec_idempotency SET lease_until = GREATEST(lease_until, $4)
                     WHERE tool = $1 AND key = $2 AND state = 'in_progress' AND lease_token = $3",
                    &[&key.tool, &key.key, &token, &lease_until_ms],
                )
                .await
                .map_err(pg)?;
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
            let client = self.pooled().await?;
            store_if_held(&**client, key, token, outcome).await
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
