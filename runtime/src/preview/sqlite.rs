//! Durable preview store in SQLite (feature `sqlite`).

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde_json::Value;

use super::{Consume, KEEP_AFTER_EXPIRY_MS, PreviewStore, StoreError, StoredPreview, judge};
use crate::sqlite::{SharedConnection, lock, sql};

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS toolspec_previews (
    id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    preview TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
);
CREATE INDEX IF NOT EXISTS toolspec_previews_expiry ON toolspec_previews (expires_at);";

/// Previews in the table `toolspec_previews`; `consume` runs in an `IMMEDIATE` transaction.
#[derive(Debug, Clone)]
pub struct SqlitePreviewStore {
    conn: SharedConnection,
}

impl SqlitePreviewStore {
    /// Opens (or creates) the database file at `path` (WAL mode).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::from_shared(crate::sqlite::open(path)?)
    }

    /// Uses an existing connection (settings applied by [`crate::sqlite::configure`]).
    pub fn from_connection(conn: Connection) -> Result<Self, StoreError> {
        Self::from_shared(crate::sqlite::share(crate::sqlite::configure(conn)?))
    }

    /// Uses a connection the app shares with its own tables and the idempotency store.
    pub fn from_shared(conn: SharedConnection) -> Result<Self, StoreError> {
        lock(&conn).execute_batch(SCHEMA).map_err(sql)?;
        Ok(Self { conn })
    }

    /// The shared connection.
    pub fn connection(&self) -> SharedConnection {
        self.conn.clone()
    }
}

impl PreviewStore for SqlitePreviewStore {
    fn insert(&self, preview: &StoredPreview, now_ms: i64) -> Result<(), StoreError> {
        let conn = lock(&self.conn);
        // An indexed delete on each insert keeps the table to one TTL window plus a day.
        conn.execute(
            "DELETE FROM toolspec_previews WHERE expires_at <= ?1",
            params![now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)],
        )
        .map_err(sql)?;
        conn.execute(
            "INSERT INTO toolspec_previews (id, tool, fingerprint, preview, created_at, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
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
    }

    fn consume(
        &self,
        tool: &str,
        id: &str,
        fingerprint: &str,
        now_ms: i64,
    ) -> Result<Consume, StoreError> {
        let mut conn = lock(&self.conn);
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let row: Option<(String, String, String, i64, Option<i64>)> = tx
            .query_row(
                "SELECT tool, fingerprint, preview, expires_at, used_at
                 FROM toolspec_previews WHERE id = ?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()
            .map_err(sql)?;
        let found = match row {
            Some((stored_tool, stored_fp, text, expires_at_ms, used_at)) => {
                let preview: Value = serde_json::from_str(&text)
                    .map_err(|e| StoreError(format!("stored preview: {e}")))?;
                Some((
                    StoredPreview {
                        id: id.to_owned(),
                        tool: stored_tool,
                        fingerprint: stored_fp,
                        preview,
                        expires_at_ms,
                    },
                    used_at.is_some(),
                ))
            }
            None => None,
        };
        let verdict = judge(
            found.as_ref().map(|(p, u)| (p, *u)),
            tool,
            fingerprint,
            now_ms,
        );
        if matches!(verdict, Consume::Applied(_)) {
            tx.execute(
                "UPDATE toolspec_previews SET used_at = ?2 WHERE id = ?1 AND used_at IS NULL",
                params![id, now_ms],
            )
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        Ok(verdict)
    }

    fn purge_expired(&self, now_ms: i64) -> Result<usize, StoreError> {
        let conn = lock(&self.conn);
        conn.execute(
            "DELETE FROM toolspec_previews WHERE expires_at <= ?1",
            params![now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)],
        )
        .map_err(sql)
    }
}
