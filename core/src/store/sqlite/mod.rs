//! [`SqliteStore`]: the runtime's records in the app's SQLite file (feature `sqlite`), and
//! units of work that are transactions on the shared connection.

pub mod database;
mod keys;
mod outbox;
mod previews;
mod rates;
mod tasks;
mod transaction;

pub(crate) use transaction::SqliteTransaction;

use std::any::Any;

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;
use tokio::sync::OwnedMutexGuard;

use super::rows::{
    KeyRow, TASK_COLUMNS, TaskColumns, classify, outcome_to_text, preview_row, task_row, verdict,
};
use super::{Decision, KeyRef, OutboxMessage, Purged, Reservation, Transaction, ready, token};
use super::{Outcome, StoreError};
use crate::future::BoxFuture;
use crate::preview::{Consume, KEEP_AFTER_EXPIRY_MS, StoredPreview, judge};
use crate::rate::{Admission, Counter, RateLimit, decide};
use crate::task::{TaskRecord, TaskStatus};
use database::{Database, sql};

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
CREATE INDEX IF NOT EXISTS toolspec_idempotency_expiry ON toolspec_idempotency (expires_at);
CREATE TABLE IF NOT EXISTS toolspec_previews (
    id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    preview TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
);
CREATE INDEX IF NOT EXISTS toolspec_previews_expiry ON toolspec_previews (expires_at);
CREATE TABLE IF NOT EXISTS toolspec_approvals (
    preview_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('approved', 'declined', 'cancelled')),
    decided_by TEXT NOT NULL,
    decided_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS toolspec_approvals_preview ON toolspec_approvals (preview_id);
CREATE TABLE IF NOT EXISTS toolspec_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    delivered_at INTEGER
);
CREATE INDEX IF NOT EXISTS toolspec_outbox_pending ON toolspec_outbox (delivered_at, seq);
CREATE TABLE IF NOT EXISTS toolspec_rate (
    holder TEXT PRIMARY KEY,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    tat INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS toolspec_rate_expiry ON toolspec_rate (expires_at);
CREATE TABLE IF NOT EXISTS toolspec_tasks (
    id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('working', 'completed', 'failed', 'cancelled')),
    message TEXT,
    outcome TEXT,
    writes INTEGER NOT NULL,
    idempotency_key TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    beat_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS toolspec_tasks_expiry ON toolspec_tasks (expires_at);
CREATE TABLE IF NOT EXISTS toolspec_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);";

/// Columns added since the first release, with the statement that fills them in an older
/// file: a file written by an older server opens and keeps its keys and previews.
const ADDED_COLUMNS: &[(&str, &str, &str)] = &[
    // An old in_progress row has no lease: it reads as lapsed, so the key is free again
    // (the old release held it for the whole TTL instead).
    ("toolspec_idempotency", "lease_token TEXT", ""),
    (
        "toolspec_idempotency",
        "lease_until INTEGER NOT NULL DEFAULT 0",
        "",
    ),
    (
        "toolspec_previews",
        "state TEXT NOT NULL DEFAULT 'open'",
        "UPDATE toolspec_previews SET state = 'used' WHERE used_at IS NOT NULL",
    ),
];

/// The records in tables `toolspec_*` of a [`Database`]. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    db: Database,
}

impl SqliteStore {
    /// Creates (or brings up to date) the runtime's tables in `db`; call it before serving
    /// (it fails if the connection is in use).
    pub fn new(db: Database) -> Result<Self, StoreError> {
        migrate(&*db.try_lock()?)?;
        Ok(Self { db })
    }

    /// The database the records live in.
    pub fn database(&self) -> &Database {
        &self.db
    }

    /// The key cursors are signed with, kept in the file (table `toolspec_settings`):
    /// made by whichever process asks first, so every server on the file accepts the
    /// cursors the others issued, and cursors stay valid across a restart. Copying the
    /// file copies the key; delete its row to make a new one, which ends every cursor
    /// issued so far.
    pub async fn cursor_key(&self) -> Result<crate::cursor::CursorKey, StoreError> {
        let fresh = crate::random::token("", 32)
            .map_err(|e| StoreError::Backend(format!("random key: {e}")))?;
        let conn = self.db.lock_unchecked().await;
        conn.execute(
            "INSERT INTO toolspec_settings (name, value) VALUES ('cursor_key', ?1)
             ON CONFLICT (name) DO NOTHING",
            [&fresh],
        )
        .map_err(sql)?;
        let key: String = conn
            .query_row(
                "SELECT value FROM toolspec_settings WHERE name = 'cursor_key'",
                [],
                |r| r.get(0),
            )
            .map_err(sql)?;
        Ok(crate::cursor::CursorKey::from_bytes(key.as_bytes()))
    }
}

fn migrate(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch(SCHEMA).map_err(sql)?;
    for (table, column, fill) in ADDED_COLUMNS {
        let name = column.split_whitespace().next().unwrap_or_default();
        let present: bool = conn
            .query_row(
                &format!("SELECT COUNT(*) > 0 FROM pragma_table_info('{table}') WHERE name = ?1"),
                [name],
                |r| r.get(0),
            )
            .map_err(sql)?;
        if !present {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column}; {fill}"))
                .map_err(sql)?;
        }
    }
    Ok(())
}

/// Runs `f` in an `IMMEDIATE` transaction on `conn`, committing when it returns `Ok`.
fn immediate<T>(
    conn: &mut Connection,
    f: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(sql)?;
    let value = f(&tx)?;
    tx.commit().map_err(sql)?;
    Ok(value)
}

fn read_key(conn: &Connection, key: KeyRef<'_>, now_ms: i64) -> Result<Option<KeyRow>, StoreError> {
    // Every keyed call starts here, a replay ends here: the statement is compiled once per
    // connection.
    conn.prepare_cached(
        "SELECT fingerprint, state, result, lease_until FROM toolspec_idempotency
         WHERE tool = ?1 AND key = ?2 AND expires_at > ?3",
    )
    .map_err(sql)?
    .query_row(params![key.tool, key.key, now_ms], |r| {
        Ok(KeyRow {
            fingerprint: r.get(0)?,
            state: r.get(1)?,
            result: r.get(2)?,
            lease_until: r.get(3)?,
        })
    })
    .optional()
    .map_err(sql)
}

fn holds(conn: &Connection, key: KeyRef<'_>, token: &str) -> Result<bool, StoreError> {
    conn.query_row(
        "SELECT COUNT(*) > 0 FROM toolspec_idempotency
         WHERE tool = ?1 AND key = ?2 AND state = 'in_progress' AND lease_token = ?3",
        params![key.tool, key.key, token],
        |r| r.get(0),
    )
    .map_err(sql)
}

fn store_outcome(conn: &Connection, key: KeyRef<'_>, outcome: &Outcome) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE toolspec_idempotency SET state = 'done', result = ?3, lease_token = NULL
         WHERE tool = ?1 AND key = ?2",
        params![key.tool, key.key, outcome_to_text(outcome)],
    )
    .map_err(sql)?;
    Ok(())
}

fn judge_preview(
    conn: &Connection,
    tool: &str,
    id: &str,
    fingerprint: &str,
    now_ms: i64,
) -> Result<Consume, StoreError> {
    let row: Option<(String, String, String, i64, String)> = conn
        .query_row(
            "SELECT tool, fingerprint, preview, expires_at, state
             FROM toolspec_previews WHERE id = ?1",
            params![id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()
        .map_err(sql)?;
    let found = match row {
        Some((tool, fp, text, expires_at_ms, state)) => {
            Some(preview_row(id, tool, fp, &text, expires_at_ms, &state)?)
        }
        None => None,
    };
    Ok(judge(
        found.as_ref().map(|(p, s)| (p, *s)),
        tool,
        fingerprint,
        now_ms,
    ))
}

fn record(conn: &Connection, d: &Decision) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO toolspec_approvals
         (preview_id, tool, fingerprint, verdict, decided_by, decided_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            d.preview_id,
            d.tool,
            d.fingerprint,
            d.verdict.as_str(),
            d.decided_by,
            d.decided_at_ms
        ],
    )
    .map_err(sql)?;
    Ok(())
}

/// Reads and writes one rate-limit record under SQLite's write lock: servers on one file
/// never admit more than the limit between them.
fn admit_in(
    conn: &mut Connection,
    limit: &RateLimit,
    holder: &str,
    now_ms: i64,
) -> Result<Admission, StoreError> {
    immediate(conn, |tx| {
        let counter = tx
            .prepare_cached("SELECT window_start, count, tat FROM toolspec_rate WHERE holder = ?1")
            .map_err(sql)?
            .query_row(params![holder], |r| {
                Ok(Counter {
                    window_start_ms: r.get(0)?,
                    count: r.get(1)?,
                    tat_ms: r.get(2)?,
                })
            })
            .optional()
            .map_err(sql)?;
        let (admission, kept) = decide(limit, counter, now_ms);
        if let (Admission::Admitted, Some(kept)) = (admission, kept) {
            tx.prepare_cached(
                "INSERT INTO toolspec_rate (holder, window_start, count, tat, expires_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (holder) DO UPDATE SET window_start = excluded.window_start,
                   count = excluded.count, tat = excluded.tat, expires_at = excluded.expires_at",
            )
            .map_err(sql)?
            .execute(params![
                holder,
                kept.window_start_ms,
                kept.count,
                kept.tat_ms,
                kept.expires_at_ms(limit.per_ms())
            ])
            .map_err(sql)?;
        }
        Ok(admission)
    })
}

impl crate::store::CursorKeyStore for SqliteStore {
    fn cursor_key(&self) -> BoxFuture<'_, Result<crate::cursor::CursorKey, StoreError>> {
        Box::pin(SqliteStore::cursor_key(self))
    }
}

impl SqliteStore {
    /// Deletes the rows of `table` (one of the runtime's, named by the code, never by a
    /// caller) that expired by `now_ms`; says how many.
    async fn delete_expired(&self, table: &'static str, now_ms: i64) -> Result<usize, StoreError> {
        let conn = self.db.lock_unchecked().await;
        conn.execute(
            &format!("DELETE FROM {table} WHERE expires_at <= ?1"),
            params![now_ms],
        )
        .map_err(sql)
    }
}
