//! [`PostgresStore`]: the runtime's records in PostgreSQL (feature `postgres`), shared by
//! every replica of a server, and units of work that are PostgreSQL transactions.
//!
//! The tables are those of the SQLite store (`toolspec_idempotency`, `toolspec_previews`,
//! `toolspec_approvals`, `toolspec_outbox`), with the same columns and the same row forms
//! ([`super::rows`]), created or brought up to date by [`PostgresStore::connect`] under an
//! advisory lock, so that replicas starting together do not race.
//!
//! What makes "one effect per key" hold across replicas:
//!
//! - **Lease**: one transaction per lease, serialized per key by a transaction-scoped
//!   advisory lock on the key's hash; of many replicas leasing one key at once, one gets it,
//!   the others see `InProgress` (or the replay, once it is done).
//! - **Fencing**: a unit of work stores its key's outcome with an `UPDATE` that matches the
//!   lease token it was given; if another call took the key over since, no row matches and
//!   the transaction rolls back, the user's writes with it. The row lock that `UPDATE` takes
//!   holds a takeover off until the commit is decided.
//! - **Previews**: consumed with an `UPDATE ... WHERE state = 'open'`, so of two applies of
//!   one preview one consumes it; the other waits for the first to commit and then finds it
//!   used.
//! - A unit of work that is dropped without committing gives its connection up instead of
//!   returning it to the pool: the server rolls the transaction back when the connection
//!   closes, and no later call can find itself inside it. A replica killed mid-call closes
//!   its connections the same way.

mod keys;
mod outbox;
mod previews;
mod rates;
mod tasks;
mod transaction;

pub use transaction::PostgresTransaction;

use std::any::Any;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use serde_json::Value;
use tokio_postgres::NoTls;

use super::rows::{
    KeyRow, TASK_COLUMNS, TaskColumns, classify, outcome_to_text, preview_row, task_row, verdict,
};
use super::{Decision, KeyRef, OutboxMessage, Purged, Reservation, Transaction, token};
use crate::future::BoxFuture;
use crate::preview::{Consume, KEEP_AFTER_EXPIRY_MS, StoredPreview, judge};
use crate::rate::{Admission, Counter, RateLimit, decide};
use crate::store::{Outcome, StoreError};
use crate::task::{TaskRecord, TaskStatus};

/// The tables, as SQLite's, in PostgreSQL's types (times are Unix milliseconds).
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS toolspec_idempotency (
    tool TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_progress', 'done')),
    result TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    lease_token TEXT,
    lease_until BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (tool, key)
);
CREATE INDEX IF NOT EXISTS toolspec_idempotency_expiry ON toolspec_idempotency (expires_at);
CREATE TABLE IF NOT EXISTS toolspec_previews (
    id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    preview TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    state TEXT NOT NULL DEFAULT 'open'
);
CREATE INDEX IF NOT EXISTS toolspec_previews_expiry ON toolspec_previews (expires_at);
CREATE TABLE IF NOT EXISTS toolspec_approvals (
    seq BIGSERIAL PRIMARY KEY,
    preview_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('approved', 'declined', 'cancelled')),
    decided_by TEXT NOT NULL,
    decided_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS toolspec_approvals_preview ON toolspec_approvals (preview_id);
CREATE TABLE IF NOT EXISTS toolspec_outbox (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    delivered_at BIGINT
);
CREATE INDEX IF NOT EXISTS toolspec_outbox_pending ON toolspec_outbox (delivered_at, seq);
CREATE TABLE IF NOT EXISTS toolspec_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolspec_rate (
    holder TEXT PRIMARY KEY,
    window_start BIGINT NOT NULL,
    count BIGINT NOT NULL,
    tat BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS toolspec_rate_expiry ON toolspec_rate (expires_at);
CREATE TABLE IF NOT EXISTS toolspec_tasks (
    id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('working', 'completed', 'failed', 'cancelled')),
    message TEXT,
    outcome TEXT,
    writes BOOLEAN NOT NULL,
    idempotency_key TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    beat_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS toolspec_tasks_expiry ON toolspec_tasks (expires_at);";

/// One call under a rate limit, decided and counted in one statement: the row is locked by
/// the upsert, so concurrent calls of one caller on every replica are judged one after
/// another, each on the count the one before left. `crate::rate::decide` in SQL (the store
/// tests hold the two to the same answers): `$1` holder, `$2` now, `$3` the window's
/// length, `$4` calls per window, `$5` the spacing under a burst, `$6` the burst's
/// tolerance (`NULL` without one). A row comes back only when the call is admitted.
const ADMIT: &str = "INSERT INTO toolspec_rate AS r (holder, window_start, count, tat, expires_at)
 VALUES ($1, $2::BIGINT, 1,
   CASE WHEN $6::BIGINT IS NULL THEN $2::BIGINT ELSE $2::BIGINT + $5::BIGINT END,
   GREATEST($2::BIGINT + $3::BIGINT, CASE WHEN $6::BIGINT IS NULL THEN $2::BIGINT ELSE $2::BIGINT + $5::BIGINT END))
 ON CONFLICT (holder) DO UPDATE SET
   window_start = CASE WHEN $2::BIGINT < r.window_start + $3::BIGINT THEN r.window_start ELSE $2::BIGINT END,
   count = CASE WHEN $2::BIGINT < r.window_start + $3::BIGINT THEN r.count + 1 ELSE 1 END,
   tat = CASE WHEN $6::BIGINT IS NULL
     THEN CASE WHEN $2::BIGINT < r.window_start + $3::BIGINT THEN r.window_start ELSE $2::BIGINT END
     ELSE GREATEST(r.tat, $2::BIGINT) + $5::BIGINT END,
   expires_at = GREATEST(
     CASE WHEN $2::BIGINT < r.window_start + $3::BIGINT THEN r.window_start ELSE $2::BIGINT END + $3::BIGINT,
     CASE WHEN $6::BIGINT IS NULL THEN 0 ELSE GREATEST(r.tat, $2::BIGINT) + $5::BIGINT END)
 WHERE ($2::BIGINT >= r.window_start + $3::BIGINT OR r.count < $4::BIGINT)
   AND ($6::BIGINT IS NULL OR r.tat - $2::BIGINT <= $6)
 RETURNING 1";

/// The advisory lock key the schema is created under (any fixed number; "toolspec").
const SCHEMA_LOCK: i64 = 0x746f_6f6c_7370_6563;

/// Most connections one replica opens.
const POOL_SIZE: usize = 16;

/// The records in tables `toolspec_*` of a PostgreSQL database, through a pool of
/// connections. Cheap to clone; every clone shares the pool.
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    /// The schema the tables live in, when not the user's default (`public`).
    schema: Option<String>,
    /// Set once the tables exist (created by the first operation, or by [`Self::connect`]).
    ready: std::sync::Arc<tokio::sync::OnceCell<()>>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("pool", &self.pool.status())
            .finish()
    }
}

/// A PostgreSQL failure with its causes (`db error: ERROR: ...`): tokio-postgres keeps
/// the server's message in the source, and "db error" alone tells an operator nothing.
fn pg(e: impl std::error::Error) -> StoreError {
    let mut text = format!("postgres: {e}");
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    StoreError::Backend(text)
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user@host:port/db`) and creates (or brings up to
    /// date) the runtime's tables; call it before serving, so that a server that cannot
    /// reach its database fails at start. Fails when the server cannot be reached or the
    /// user may not create tables.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let store = Self::new(url, None)?;
        store.ready().await?;
        Ok(store)
    }

    /// A store on `url` without connecting yet: the first operation connects and creates
    /// the tables. With `schema`, the tables live in that schema (created if missing), so
    /// that several apps, or several tests, can share one database; it must be lower-case
    /// letters, digits and `_`, starting with a letter or `_`.
    pub fn new(url: &str, schema: Option<&str>) -> Result<Self, StoreError> {
        let mut config: tokio_postgres::Config = url.parse().map_err(pg)?;
        if let Some(name) = schema {
            let ok = name.len() <= 63
                && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !ok {
                return Err(StoreError::Backend(format!(
                    "schema `{name}`: use lower-case letters, digits and _, starting with a letter or _"
                )));
            }
            config.options(format!("-c search_path={name}"));
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .build()
            .map_err(pg)?;
        Ok(Self {
            pool,
            schema: schema.map(str::to_owned),
            ready: std::sync::Arc::default(),
        })
    }

    /// The key cursors are signed with, shared by every replica on this database: made
    /// once, by whichever replica asks first, so a cursor one replica issued is accepted by
    /// all of them.
    pub async fn cursor_key(&self) -> Result<crate::cursor::CursorKey, StoreError> {
        let fresh = crate::random::token("", 32)
            .map_err(|e| StoreError::Backend(format!("random key: {e}")))?;
        let client = self.pooled().await?;
        client
            .execute(
                "INSERT INTO toolspec_settings (name, value) VALUES ('cursor_key', $1)
                 ON CONFLICT (name) DO NOTHING",
                &[&fresh],
            )
            .await
            .map_err(pg)?;
        let row = client
            .query_one(
                "SELECT value FROM toolspec_settings WHERE name = 'cursor_key'",
                &[],
            )
            .await
            .map_err(pg)?;
        let key: String = row.get(0);
        Ok(crate::cursor::CursorKey::from_bytes(key.as_bytes()))
    }

    /// The pool itself (its size and status); [`Self::client`] is the way to a connection.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// A pooled connection for the app's own queries outside a unit of work (reads, its
    /// own tables), once the runtime's schema and tables exist.
    ///
    /// Inside a write method it is refused (with `?` in the method, a not-retryable
    /// `internal_error` whose incident says what to do): a connection of its own would
    /// neither see the method's uncommitted writes nor roll back with them. Read and write
    /// there through [`super::Work::postgres`].
    pub async fn client(&self) -> Result<Object, StoreError> {
        if super::held::is_held(self.id()) {
            return Err(StoreError::Misconfigured(
                "PostgresStore::client was called inside a write method, whose unit of work \
                 is a transaction on another connection: a second connection would not see \
                 its writes, nor roll back with them. Read and write through the method's \
                 unit of work instead: `let db = work.postgres()?;`"
                    .into(),
            ));
        }
        self.pooled().await
    }

    /// A pooled connection for the runtime's own statements, which may run inside a write
    /// method (a [`super::Remote`]'s records) on a connection of their own.
    async fn pooled(&self) -> Result<Object, StoreError> {
        self.ready().await?;
        self.pool.get().await.map_err(pg)
    }

    /// This store's identity, shared by its clones (the address of state they share).
    fn id(&self) -> usize {
        std::sync::Arc::as_ptr(&self.ready) as usize
    }

    async fn ready(&self) -> Result<(), StoreError> {
        self.ready
            .get_or_try_init(|| self.migrate())
            .await
            .map(|_| ())
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.pool.get().await.map_err(pg)?;
        let tx = client.transaction().await.map_err(pg)?;
        // Replicas starting together: one creates, the others find the tables made.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
            .await
            .map_err(pg)?;
        if let Some(name) = &self.schema {
            // Checked to be a plain identifier in `new`.
            tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {name}"))
                .await
                .map_err(pg)?;
        }
        tx.batch_execute(SCHEMA).await.map_err(pg)?;
        tx.commit().await.map_err(pg)
    }
}

/// Serializes the transactions that decide one key, across every replica.
const LOCK_KEY: &str = "SELECT pg_advisory_xact_lock(hashtextextended($1 || chr(31) || $2, 0))";

async fn read_key(
    c: &impl tokio_postgres::GenericClient,
    key: KeyRef<'_>,
    now_ms: i64,
) -> Result<Option<KeyRow>, StoreError> {
    let row = c
        .query_opt(
            "SELECT fingerprint, state, result, lease_until FROM toolspec_idempotency
             WHERE tool = $1 AND key = $2 AND expires_at > $3",
            &[&key.tool, &key.key, &now_ms],
        )
        .await
        .map_err(pg)?;
    Ok(row.map(|r| KeyRow {
        fingerprint: r.get(0),
        state: r.get(1),
        result: r.get(2),
        lease_until: r.get(3),
    }))
}

async fn judge_preview(
    c: &impl tokio_postgres::GenericClient,
    tool: &str,
    id: &str,
    fingerprint: &str,
    now_ms: i64,
) -> Result<Consume, StoreError> {
    let row = c
        .query_opt(
            "SELECT tool, fingerprint, preview, expires_at, state
             FROM toolspec_previews WHERE id = $1",
            &[&id],
        )
        .await
        .map_err(pg)?;
    let found = match row {
        Some(r) => Some(preview_row(
            id,
            r.get(0),
            r.get(1),
            r.get(2),
            r.get(3),
            r.get(4),
        )?),
        None => None,
    };
    Ok(judge(
        found.as_ref().map(|(p, s)| (p, *s)),
        tool,
        fingerprint,
        now_ms,
    ))
}

async fn record(c: &impl tokio_postgres::GenericClient, d: &Decision) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO toolspec_approvals
         (preview_id, tool, fingerprint, verdict, decided_by, decided_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &d.preview_id,
            &d.tool,
            &d.fingerprint,
            &d.verdict.as_str(),
            &d.decided_by,
            &d.decided_at_ms,
        ],
    )
    .await
    .map_err(pg)?;
    Ok(())
}

/// Stores `outcome` for `key` if it is still leased under `token`; whether it was.
async fn store_if_held(
    c: &impl tokio_postgres::GenericClient,
    key: KeyRef<'_>,
    token: &str,
    outcome: &Outcome,
) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "UPDATE toolspec_idempotency SET state = 'done', result = $4, lease_token = NULL
             WHERE tool = $1 AND key = $2 AND state = 'in_progress' AND lease_token = $3",
            &[&key.tool, &key.key, &token, &outcome_to_text(outcome)],
        )
        .await
        .map_err(pg)?;
    Ok(n == 1)
}

impl crate::store::CursorKeyStore for PostgresStore {
    fn cursor_key(&self) -> BoxFuture<'_, Result<crate::cursor::CursorKey, StoreError>> {
        Box::pin(PostgresStore::cursor_key(self))
    }
}

impl PostgresStore {
    /// Deletes the rows of `table` (one of the runtime's, named by the code, never by a
    /// caller) that expired by `now_ms`; says how many.
    async fn delete_expired(&self, table: &'static str, now_ms: i64) -> Result<usize, StoreError> {
        let client = self.pooled().await?;
        let gone = client
            .execute(
                &format!("DELETE FROM {table} WHERE expires_at <= $1"),
                &[&now_ms],
            )
            .await
            .map_err(pg)?;
        Ok(usize::try_from(gone).unwrap_or(usize::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema name goes into SQL unquoted, so only plain identifiers pass; nothing
    /// connects to check it.
    #[test]
    fn only_plain_schema_names_are_taken() {
        let url = "postgres://u@127.0.0.1:1/db";
        for ok in ["t_1", "_x", "app"] {
            assert!(PostgresStore::new(url, Some(ok)).is_ok(), "{ok}");
        }
        for bad in ["", "App", "1st", "a-b", "a;drop table x", &"a".repeat(64)] {
            let e = PostgresStore::new(url, Some(bad)).expect_err(bad);
            assert!(e.to_string().contains("lower-case letters"), "{bad}: {e:?}");
        }
        assert!(PostgresStore::new("not a url", None).is_err());
    }
}
