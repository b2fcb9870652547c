//! SqliteStore's units of work.

use super::*; // the backend's rows, helpers and imports

impl crate::store::WorkStore for SqliteStore {
    fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_owned().await;
            conn.execute_batch("BEGIN IMMEDIATE").map_err(sql)?;
            let tx: Box<dyn Transaction> = Box::new(SqliteTransaction { conn, open: true });
            Ok(tx)
        })
    }
}

/// A `BEGIN IMMEDIATE` transaction holding the shared connection until it ends: no other
/// statement of this process runs on the connection meanwhile, and other processes wait
/// for SQLite's write lock.
pub(crate) struct SqliteTransaction {
    conn: OwnedMutexGuard<Connection>,
    open: bool,
}

impl SqliteTransaction {
    /// The connection, inside the transaction.
    pub(crate) fn connection(&self) -> &Connection {
        &self.conn
    }
}

impl Drop for SqliteTransaction {
    fn drop(&mut self) {
        if self.open {
            // Nothing of an unfinished unit of work may stay; a failed rollback leaves the
            // transaction to SQLite, which rolls it back when the connection next begins.
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

impl Transaction for SqliteTransaction {
    fn connection_id(&self) -> Option<usize> {
        Some(database::connection_id(OwnedMutexGuard::mutex(&self.conn)))
    }

    fn holds<'a>(
        &'a mut self,
        key: KeyRef<'a>,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        ready(holds(&self.conn, key, token))
    }

    fn complete<'a>(
        &'a mut self,
        key: KeyRef<'a>,
        outcome: &'a Outcome,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        ready(store_outcome(&self.conn, key, outcome))
    }

    fn consume_preview<'a>(
        &'a mut self,
        tool: &'a str,
        id: &'a str,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Consume, StoreError>> {
        ready((|| {
            let verdict = judge_preview(&self.conn, tool, id, fingerprint, now_ms)?;
            if matches!(verdict, Consume::Applied(_)) {
                self.conn
                    .execute(
                        "UPDATE toolspec_previews SET state = 'used', used_at = ?2 WHERE id = ?1",
                        params![id, now_ms],
                    )
                    .map_err(sql)?;
            }
            Ok(verdict)
        })())
    }

    fn record<'a>(&'a mut self, decision: &'a Decision) -> BoxFuture<'a, Result<(), StoreError>> {
        ready(record(&self.conn, decision))
    }

    fn push_outbox<'a>(
        &'a mut self,
        topic: &'a str,
        payload: &'a Value,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<String, StoreError>> {
        ready((|| {
            let id = token("ob_")?;
            self.conn
                .execute(
                    "INSERT INTO toolspec_outbox (id, topic, payload, created_at)
                     VALUES (?1, ?2, ?3, ?4)",
                    params![id, topic, payload.to_string(), now_ms],
                )
                .map_err(sql)?;
            Ok(id)
        })())
    }

    fn commit(mut self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        ready(match self.conn.execute_batch("COMMIT") {
            Ok(()) => {
                self.open = false;
                Ok(())
            }
            // Dropping rolls back what the failed commit left open.
            Err(e) => Err(sql(e)),
        })
    }

    fn backend(&mut self) -> &mut dyn Any {
        self
    }

    fn backend_ref(&self) -> &dyn Any {
        self
    }
}
