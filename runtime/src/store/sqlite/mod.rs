//! [`SqliteStore`]: the runtime's records in the app's SQLite file (feature `sqlite`), and
//! units of work that are transactions on the shared connection.

pub mod database;

use std::any::Any;

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;
use tokio::sync::OwnedMutexGuard;

use super::rows::{
    KeyRow, TASK_COLUMNS, TaskColumns, classify, outcome_to_text, preview_row, task_row, verdict,
};
use super::{
    Decision, KeyRef, OutboxMessage, Purged, Reservation, Store, Transaction, ready, token,
};
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
        let fresh =
            crate::random::token("", 32).map_err(|e| StoreError(format!("random key: {e}")))?;
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

impl Store for SqliteStore {
    fn cursor_key(&self) -> BoxFuture<'_, Result<crate::cursor::CursorKey, StoreError>> {
        Box::pin(SqliteStore::cursor_key(self))
    }

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

    fn insert_preview<'a>(
        &'a self,
        preview: &'a StoredPreview,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut conn = self.db.lock_unchecked().await;
            immediate(&mut conn, |tx| {
                // An indexed delete on each insert keeps the table to one TTL window plus a day.
                tx.execute(
                    "DELETE FROM toolspec_previews WHERE expires_at <= ?1",
                    params![now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)],
                )
                .map_err(sql)?;
                tx.execute(
                    "INSERT INTO toolspec_previews
                     (id, tool, fingerprint, preview, created_at, expires_at, state)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'open')",
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
            })
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
            let conn = self.db.lock_unchecked().await;
            judge_preview(&conn, tool, id, fingerprint, now_ms)
        })
    }

    fn refuse_preview<'a>(
        &'a self,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut conn = self.db.lock_unchecked().await;
            immediate(&mut conn, |tx| {
                tx.execute(
                    "UPDATE toolspec_previews SET state = 'refused'
                     WHERE id = ?1 AND state = 'open'",
                    params![decision.preview_id],
                )
                .map_err(sql)?;
                record(tx, decision)
            })
        })
    }

    fn decisions<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<Decision>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let mut stmt = conn
                .prepare(
                    "SELECT tool, fingerprint, verdict, decided_by, decided_at
                     FROM toolspec_approvals WHERE preview_id = ?1 ORDER BY rowid",
                )
                .map_err(sql)?;
            let rows = stmt
                .query_map([id], |r| {
                    Ok(Decision {
                        preview_id: id.to_owned(),
                        tool: r.get(0)?,
                        fingerprint: r.get(1)?,
                        verdict: verdict(&r.get::<_, String>(2)?),
                        decided_by: r.get(3)?,
                        decided_at_ms: r.get(4)?,
                    })
                })
                .map_err(sql)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(sql)
        })
    }

    fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_owned().await;
            conn.execute_batch("BEGIN IMMEDIATE").map_err(sql)?;
            let tx: Box<dyn Transaction> = Box::new(SqliteTransaction { conn, open: true });
            Ok(tx)
        })
    }

    fn outbox_pending(
        &self,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<OutboxMessage>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let mut stmt = conn
                .prepare(
                    "SELECT id, topic, payload, attempts FROM toolspec_outbox
                     WHERE delivered_at IS NULL ORDER BY seq LIMIT ?1",
                )
                .map_err(sql)?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = stmt
                .query_map([limit], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, u32>(3)?,
                    ))
                })
                .map_err(sql)?;
            let mut out = Vec::new();
            for row in rows {
                let (id, topic, payload, attempts) = row.map_err(sql)?;
                let payload = serde_json::from_str(&payload)
                    .map_err(|e| StoreError(format!("stored outbox payload: {e}")))?;
                out.push(OutboxMessage {
                    id,
                    topic,
                    payload,
                    attempts,
                });
            }
            Ok(out)
        })
    }

    fn outbox_settle<'a>(
        &'a self,
        id: &'a str,
        ok: bool,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            conn.execute(
                "UPDATE toolspec_outbox SET attempts = attempts + 1,
                   delivered_at = CASE WHEN ?2 THEN ?3 ELSE delivered_at END
                 WHERE id = ?1",
                params![id, ok, now_ms],
            )
            .map_err(sql)?;
            Ok(())
        })
    }

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

    fn purge_expired(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        Box::pin(async move {
            let mut conn = self.db.lock_unchecked().await;
            immediate(&mut conn, |tx| {
                let keys = tx
                    .execute(
                        "DELETE FROM toolspec_idempotency WHERE expires_at <= ?1",
                        params![now_ms],
                    )
                    .map_err(sql)?;
                let counters = tx
                    .execute(
                        "DELETE FROM toolspec_rate WHERE expires_at <= ?1",
                        params![now_ms],
                    )
                    .map_err(sql)?;
                let tasks = tx
                    .execute(
                        "DELETE FROM toolspec_tasks WHERE expires_at <= ?1",
                        params![now_ms],
                    )
                    .map_err(sql)?;
                let mut purged = Purged {
                    keys,
                    counters,
                    tasks,
                    ..Purged::default()
                };
                let mut gone = tx
                    .prepare(
                        "DELETE FROM toolspec_previews WHERE expires_at <= ?1
                         RETURNING tool, state = 'open'",
                    )
                    .map_err(sql)?;
                let mut rows = gone
                    .query(params![now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)])
                    .map_err(sql)?;
                while let Some(row) = rows.next().map_err(sql)? {
                    let tool: String = row.get(0).map_err(sql)?;
                    purged.preview(&tool, row.get(1).map_err(sql)?);
                }
                Ok(purged)
            })
        })
    }

    fn task_create<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let outcome = task.outcome.as_ref().map(Value::to_string);
            conn.execute(
                &format!(
                    "INSERT INTO toolspec_tasks ({TASK_COLUMNS})
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
                ),
                params![
                    task.id,
                    task.tool,
                    task.status.as_str(),
                    task.message,
                    outcome,
                    task.writes,
                    task.idempotency_key,
                    task.created_ms,
                    task.updated_ms,
                    task.beat_ms,
                    task.expires_ms
                ],
            )
            .map_err(sql)?;
            Ok(())
        })
    }

    fn task_get<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let columns = conn
                .query_row(
                    &format!(
                        "SELECT {TASK_COLUMNS} FROM toolspec_tasks WHERE id = ?1 AND expires_at > ?2"
                    ),
                    params![id, now_ms],
                    |r| {
                        Ok(TaskColumns {
                            id: r.get(0)?,
                            tool: r.get(1)?,
                            status: r.get(2)?,
                            message: r.get(3)?,
                            outcome: r.get(4)?,
                            writes: r.get(5)?,
                            idempotency_key: r.get(6)?,
                            times: [r.get(7)?, r.get(8)?, r.get(9)?, r.get(10)?],
                        })
                    },
                )
                .optional()
                .map_err(sql)?;
            columns.map(task_row).transpose()
        })
    }

    fn task_beat<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            conn.execute(
                "UPDATE toolspec_tasks SET beat_at = ?2,
                   updated_at = CASE WHEN ?3 IS NOT NULL AND message IS NOT ?3 THEN ?2 ELSE updated_at END,
                   message = COALESCE(?3, message)
                 WHERE id = ?1 AND status = 'working'",
                params![id, now_ms, message],
            )
            .map_err(sql)?;
            let status: Option<String> = conn
                .query_row(
                    "SELECT status FROM toolspec_tasks WHERE id = ?1",
                    params![id],
                    |r| r.get(0),
                )
                .optional()
                .map_err(sql)?;
            Ok(status.as_deref().and_then(TaskStatus::parse))
        })
    }

    fn task_settle<'a>(
        &'a self,
        id: &'a str,
        status: TaskStatus,
        outcome: Option<&'a Value>,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let conn = self.db.lock_unchecked().await;
            let settled = conn
                .execute(
                    "UPDATE toolspec_tasks SET status = ?2, outcome = ?3, updated_at = ?4
                     WHERE id = ?1 AND status = 'working'",
                    params![id, status.as_str(), outcome.map(Value::to_string), now_ms],
                )
                .map_err(sql)?;
            Ok(settled == 1)
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
