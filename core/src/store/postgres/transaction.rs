//! PostgresStore's units of work.

use super::*; // the backend's rows, helpers and imports

impl crate::store::WorkStore for PostgresStore {
    fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            client.batch_execute("BEGIN").await.map_err(pg)?;
            let tx: Box<dyn Transaction> = Box::new(PostgresTransaction {
                client: Some(client),
                fence: None,
                store: self.id(),
            });
            Ok(tx)
        })
    }
}

/// One unit of work on [`PostgresStore`]: a pooled connection inside `BEGIN`. The user's
/// method runs its SQL on [`PostgresTransaction::client`] (through
/// [`crate::store::Work::postgres`]), and it commits with the call's records.
pub struct PostgresTransaction {
    /// `None` once committed.
    client: Option<Object>,
    /// The lease this unit of work must still hold when it stores the key's outcome.
    fence: Option<(String, String, String)>,
    /// The [`PostgresStore::id`] it was begun on.
    store: usize,
}

impl PostgresTransaction {
    /// The connection inside the transaction.
    pub fn client(&self) -> &tokio_postgres::Client {
        match &self.client {
            Some(c) => c,
            // Only the runtime commits, after the method's last use.
            None => unreachable!("a committed PostgreSQL unit of work was used"),
        }
    }

    fn open(&self) -> Result<&tokio_postgres::Client, StoreError> {
        self.client
            .as_deref()
            .map(|c| &**c)
            .ok_or_else(|| StoreError::Backend("the unit of work already committed".into()))
    }
}

impl Drop for PostgresTransaction {
    fn drop(&mut self) {
        // Not committed: the connection leaves the pool and closes, which rolls the
        // transaction back on the server; it is never handed to another call mid-way.
        if let Some(client) = self.client.take() {
            drop(Object::take(client));
        }
    }
}

impl Transaction for PostgresTransaction {
    fn connection_id(&self) -> Option<usize> {
        Some(self.store)
    }

    fn holds<'a>(
        &'a mut self,
        key: KeyRef<'a>,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let c = self.open()?;
            let row = c
                .query_opt(
                    "SELECT 1 FROM toolspec_idempotency
                     WHERE tool = $1 AND key = $2 AND state = 'in_progress' AND lease_token = $3",
                    &[&key.tool, &key.key, &token],
                )
                .await
                .map_err(pg)?;
            if row.is_some() {
                self.fence = Some((key.tool.to_owned(), key.key.to_owned(), token.to_owned()));
            }
            Ok(row.is_some())
        })
    }

    fn complete<'a>(
        &'a mut self,
        key: KeyRef<'a>,
        outcome: &'a Outcome,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let token = match &self.fence {
                Some((tool, k, token)) if tool == key.tool && k == key.key => token.clone(),
                _ => {
                    return Err(StoreError::Backend(
                        "the key's lease was not checked first".into(),
                    ));
                }
            };
            if store_if_held(self.open()?, key, &token, outcome).await? {
                Ok(())
            } else {
                Err(StoreError::Backend(
                    "conflict: the key's lease was taken over; nothing of this call was stored"
                        .into(),
                ))
            }
        })
    }

    fn consume_preview<'a>(
        &'a mut self,
        tool: &'a str,
        id: &'a str,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Consume, StoreError>> {
        Box::pin(async move {
            let c = self.open()?;
            let verdict = judge_preview(c, tool, id, fingerprint, now_ms).await?;
            if !matches!(verdict, Consume::Applied(_)) {
                return Ok(verdict);
            }
            // The claim: of two applies of one preview, one changes the row; the other
            // waits for its commit, then matches nothing.
            let n = c
                .execute(
                    "UPDATE toolspec_previews SET state = 'used', used_at = $2
                     WHERE id = $1 AND state = 'open'",
                    &[&id, &now_ms],
                )
                .await
                .map_err(pg)?;
            if n == 1 {
                Ok(verdict)
            } else {
                judge_preview(c, tool, id, fingerprint, now_ms).await
            }
        })
    }

    fn record<'a>(&'a mut self, decision: &'a Decision) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { record(self.open()?, decision).await })
    }

    fn push_outbox<'a>(
        &'a mut self,
        topic: &'a str,
        payload: &'a Value,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<String, StoreError>> {
        Box::pin(async move {
            let id = token("ob_")?;
            self.open()?
                .execute(
                    "INSERT INTO toolspec_outbox (id, topic, payload, created_at)
                     VALUES ($1, $2, $3, $4)",
                    &[&id, &topic, &payload.to_string(), &now_ms],
                )
                .await
                .map_err(pg)?;
            Ok(id)
        })
    }

    fn commit(mut self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        Box::pin(async move {
            let result = self.open()?.batch_execute("COMMIT").await.map_err(pg);
            if result.is_ok() {
                // Committed: the connection goes back to the pool.
                self.client = None;
            }
            result
        })
    }

    fn backend(&mut self) -> &mut dyn Any {
        self
    }

    fn backend_ref(&self) -> &dyn Any {
        self
    }
}
