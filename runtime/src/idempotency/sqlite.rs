//! Durable idempotency store in SQLite (feature `sqlite`).

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use serde_json::{Value, json};

use super::{IdempotencyStore, Outcome, Reservation, StoreError};
use crate::error::ToolError;
use crate::sqlite::{SharedConnection, lock, sql};

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS toolspec_idempotency (
    tool TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_progress', 'done')),
    result TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (tool, key)
);
CREATE INDEX IF NOT EXISTS toolspec_idempotency_expiry ON toolspec_idempotency (expires_at);";

/// Keys in the table `toolspec_idempotency`. Each `begin` runs in an `IMMEDIATE`
/// transaction, so it is atomic across threads and across processes sharing the file, and
/// purges expired keys on the way (an indexed delete).
#[derive(Debug, Clone)]
pub struct SqliteStore {
    conn: SharedConnection,
}

impl SqliteStore {
    /// Opens (or creates) the database file at `path` (WAL mode).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::from_shared(crate::sqlite::open(path)?)
    }

    /// Uses an existing connection (settings applied by [`crate::sqlite::configure`]).
    pub fn from_connection(conn: Connection) -> Result<Self, StoreError> {
        Self::from_shared(crate::sqlite::share(crate::sqlite::configure(conn)?))
    }

    /// Uses a connection the app shares with its own tables and the preview store.
    pub fn from_shared(conn: SharedConnection) -> Result<Self, StoreError> {
        lock(&conn).execute_batch(SCHEMA).map_err(sql)?;
        Ok(Self { conn })
    }

    /// The shared connection, to hand to other stores or to the app.
    pub fn connection(&self) -> SharedConnection {
        self.conn.clone()
    }
}

type Row = (String, String, Option<String>);

fn read(conn: &Connection, tool: &str, key: &str, now_ms: i64) -> Result<Option<Row>, StoreError> {
    conn.query_row(
        "SELECT fingerprint, state, result FROM toolspec_idempotency
         WHERE tool = ?1 AND key = ?2 AND expires_at > ?3",
        params![tool, key, now_ms],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .optional()
    .map_err(sql)
}

fn classify(row: Row, fingerprint: &str) -> Result<Reservation, StoreError> {
    let (stored, state, result) = row;
    if stored != fingerprint {
        return Ok(Reservation::Mismatch);
    }
    match (state.as_str(), result) {
        ("done", Some(text)) => Ok(Reservation::Replay(outcome_from_text(&text)?)),
        _ => Ok(Reservation::InProgress),
    }
}

impl IdempotencyStore for SqliteStore {
    fn begin(
        &self,
        tool: &str,
        key: &str,
        fingerprint: &str,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<Reservation, StoreError> {
        let mut conn = lock(&self.conn);
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        tx.execute(
            "DELETE FROM toolspec_idempotency WHERE expires_at <= ?1",
            params![now_ms],
        )
        .map_err(sql)?;
        let answer = match read(&tx, tool, key, now_ms)? {
            Some(row) => classify(row, fingerprint)?,
            None => {
                tx.execute(
                    "INSERT INTO toolspec_idempotency
                     (tool, key, fingerprint, state, result, created_at, expires_at)
                     VALUES (?1, ?2, ?3, 'in_progress', NULL, ?4, ?5)",
                    params![
                        tool,
                        key,
                        fingerprint,
                        now_ms,
                        now_ms.saturating_add(ttl_ms)
                    ],
                )
                .map_err(sql)?;
                Reservation::New
            }
        };
        // Committed in every case, so the purge of expired keys sticks.
        tx.commit().map_err(sql)?;
        Ok(answer)
    }

    fn peek(
        &self,
        tool: &str,
        key: &str,
        fingerprint: &str,
        now_ms: i64,
    ) -> Result<Reservation, StoreError> {
        let conn = lock(&self.conn);
        match read(&conn, tool, key, now_ms)? {
            Some(row) => classify(row, fingerprint),
            None => Ok(Reservation::New),
        }
    }

    fn complete(&self, tool: &str, key: &str, outcome: &Outcome) -> Result<(), StoreError> {
        let conn = lock(&self.conn);
        conn.execute(
            "UPDATE toolspec_idempotency SET state = 'done', result = ?3
             WHERE tool = ?1 AND key = ?2",
            params![tool, key, outcome_to_text(outcome)],
        )
        .map_err(sql)?;
        Ok(())
    }

    fn release(&self, tool: &str, key: &str) -> Result<(), StoreError> {
        let conn = lock(&self.conn);
        conn.execute(
            "DELETE FROM toolspec_idempotency
             WHERE tool = ?1 AND key = ?2 AND state = 'in_progress'",
            params![tool, key],
        )
        .map_err(sql)?;
        Ok(())
    }

    fn purge_expired(&self, now_ms: i64) -> Result<usize, StoreError> {
        let conn = lock(&self.conn);
        conn.execute(
            "DELETE FROM toolspec_idempotency WHERE expires_at <= ?1",
            params![now_ms],
        )
        .map_err(sql)
    }
}

/// Outcome to stored JSON text: `{"ok": value}` or `{"error": ToolError}`.
fn outcome_to_text(outcome: &Outcome) -> String {
    match outcome {
        Ok(v) => json!({ "ok": v }).to_string(),
        Err(e) => json!({ "error": e }).to_string(),
    }
}

/// Stored JSON text back to an outcome.
fn outcome_from_text(text: &str) -> Result<Outcome, StoreError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| StoreError(format!("stored outcome: {e}")))?;
    if let Some(ok) = value.get("ok") {
        return Ok(Ok(ok.clone()));
    }
    match value
        .get("error")
        .map(|e| serde_json::from_value::<ToolError>(e.clone()))
    {
        Some(Ok(err)) => Ok(Err(err)),
        _ => Err(StoreError("stored outcome has neither ok nor error".into())),
    }
}
