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

use std::any::Any;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use serde_json::Value;
use tokio_postgres::NoTls;

use super::rows::{
    KeyRow, TASK_COLUMNS, TaskColumns, classify, outcome_to_text, preview_row, task_row, verdict,
};
use super::{Decision, KeyRef, OutboxMessage, Purged, Reservation, Store, Transaction, token};
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
    StoreError(text)
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
                return Err(StoreError(format!(
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
        let fresh =
            crate::random::token("", 32).map_err(|e| StoreError(format!("random key: {e}")))?;
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
            return Err(StoreError::misconfigured(
                "PostgresStore::client was called inside a write method, whose unit of work \
                 is a transaction on another connection: a second connection would not see \
                 its writes, nor roll back with them. Read and write through the method's \
                 unit of work instead: `let db = work.postgres()?;`",
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

impl Store for PostgresStore {
    fn cursor_key(&self) -> BoxFuture<'_, Result<crate::cursor::CursorKey, StoreError>> {
        Box::pin(PostgresStore::cursor_key(self))
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

    fn insert_preview<'a>(
        &'a self,
        preview: &'a StoredPreview,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            // An indexed delete on each insert keeps the table to one TTL window plus a day.
            client
                .execute(
                    "DELETE FROM toolspec_previews WHERE expires_at <= $1",
                    &[&now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)],
                )
                .await
                .map_err(pg)?;
            client
                .execute(
                    "INSERT INTO toolspec_previews
                     (id, tool, fingerprint, preview, created_at, expires_at, state)
                     VALUES ($1, $2, $3, $4, $5, $6, 'open')",
                    &[
                        &preview.id,
                        &preview.tool,
                        &preview.fingerprint,
                        &preview.preview.to_string(),
                        &now_ms,
                        &preview.expires_at_ms,
                    ],
                )
                .await
                .map_err(pg)?;
            Ok(())
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
            let client = self.pooled().await?;
            judge_preview(&**client, tool, id, fingerprint, now_ms).await
        })
    }

    fn refuse_preview<'a>(
        &'a self,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut client = self.pooled().await?;
            let tx = client.transaction().await.map_err(pg)?;
            tx.execute(
                "UPDATE toolspec_previews SET state = 'refused' WHERE id = $1 AND state = 'open'",
                &[&decision.preview_id],
            )
            .await
            .map_err(pg)?;
            record(&*tx, decision).await?;
            tx.commit().await.map_err(pg)
        })
    }

    fn decisions<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<Decision>, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let rows = client
                .query(
                    "SELECT tool, fingerprint, verdict, decided_by, decided_at
                     FROM toolspec_approvals WHERE preview_id = $1 ORDER BY seq",
                    &[&id],
                )
                .await
                .map_err(pg)?;
            Ok(rows
                .iter()
                .map(|r| Decision {
                    preview_id: id.to_owned(),
                    tool: r.get(0),
                    fingerprint: r.get(1),
                    verdict: verdict(r.get(2)),
                    decided_by: r.get(3),
                    decided_at_ms: r.get(4),
                })
                .collect())
        })
    }

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

    fn outbox_pending(
        &self,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<OutboxMessage>, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = client
                .query(
                    "SELECT id, topic, payload, attempts FROM toolspec_outbox
                     WHERE delivered_at IS NULL ORDER BY seq LIMIT $1",
                    &[&limit],
                )
                .await
                .map_err(pg)?;
            rows.iter()
                .map(|r| {
                    let payload: String = r.get(2);
                    let attempts: i32 = r.get(3);
                    Ok(OutboxMessage {
                        id: r.get(0),
                        topic: r.get(1),
                        payload: serde_json::from_str(&payload)
                            .map_err(|e| StoreError(format!("stored outbox payload: {e}")))?,
                        attempts: u32::try_from(attempts).unwrap_or(0),
                    })
                })
                .collect()
        })
    }

    fn outbox_settle<'a>(
        &'a self,
        id: &'a str,
        ok: bool,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            client
                .execute(
                    "UPDATE toolspec_outbox SET attempts = attempts + 1,
                       delivered_at = CASE WHEN $2 THEN $3 ELSE delivered_at END
                     WHERE id = $1",
                    &[&id, &ok, &now_ms],
                )
                .await
                .map_err(pg)?;
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

    fn purge_expired(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let keys = client
                .execute(
                    "DELETE FROM toolspec_idempotency WHERE expires_at <= $1",
                    &[&now_ms],
                )
                .await
                .map_err(pg)?;
            let counters = client
                .execute(
                    "DELETE FROM toolspec_rate WHERE expires_at <= $1",
                    &[&now_ms],
                )
                .await
                .map_err(pg)?;
            let tasks = client
                .execute(
                    "DELETE FROM toolspec_tasks WHERE expires_at <= $1",
                    &[&now_ms],
                )
                .await
                .map_err(pg)?;
            let mut purged = Purged {
                keys: usize::try_from(keys).unwrap_or(usize::MAX),
                counters: usize::try_from(counters).unwrap_or(usize::MAX),
                tasks: usize::try_from(tasks).unwrap_or(usize::MAX),
                ..Purged::default()
            };
            let gone = client
                .query(
                    "DELETE FROM toolspec_previews WHERE expires_at <= $1
                     RETURNING tool, state = 'open'",
                    &[&now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS)],
                )
                .await
                .map_err(pg)?;
            for row in gone {
                purged.preview(row.get(0), row.get(1));
            }
            Ok(purged)
        })
    }

    fn task_create<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let outcome = task.outcome.as_ref().map(Value::to_string);
            client
                .execute(
                    &format!(
                        "INSERT INTO toolspec_tasks ({TASK_COLUMNS})
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
                    ),
                    &[
                        &task.id,
                        &task.tool,
                        &task.status.as_str(),
                        &task.message,
                        &outcome,
                        &task.writes,
                        &task.idempotency_key,
                        &task.created_ms,
                        &task.updated_ms,
                        &task.beat_ms,
                        &task.expires_ms,
                    ],
                )
                .await
                .map_err(pg)?;
            Ok(())
        })
    }

    fn task_get<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            let row = client
                .query_opt(
                    &format!(
                        "SELECT {TASK_COLUMNS} FROM toolspec_tasks WHERE id = $1 AND expires_at > $2"
                    ),
                    &[&id, &now_ms],
                )
                .await
                .map_err(pg)?;
            row.map(|r| {
                task_row(TaskColumns {
                    id: r.get(0),
                    tool: r.get(1),
                    status: r.get(2),
                    message: r.get(3),
                    outcome: r.get(4),
                    writes: r.get(5),
                    idempotency_key: r.get(6),
                    times: [r.get(7), r.get(8), r.get(9), r.get(10)],
                })
            })
            .transpose()
        })
    }

    fn task_beat<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        Box::pin(async move {
            let client = self.pooled().await?;
            // One round trip: the beat where the task works, and its status either way.
            let row = client
                .query_opt(
                    "WITH beat AS (
                       UPDATE toolspec_tasks SET beat_at = $2::BIGINT,
                         updated_at = CASE WHEN $3::TEXT IS NOT NULL AND message IS DISTINCT FROM $3::TEXT
                                           THEN $2::BIGINT ELSE updated_at END,
                         message = COALESCE($3::TEXT, message)
                       WHERE id = $1 AND status = 'working'
                       RETURNING status)
                     SELECT status FROM beat
                     UNION ALL
                     SELECT status FROM toolspec_tasks WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM beat)",
                    &[&id, &now_ms, &message],
                )
                .await
                .map_err(pg)?;
            Ok(row.and_then(|r| TaskStatus::parse(r.get::<_, &str>(0))))
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
            let client = self.pooled().await?;
            let outcome = outcome.map(Value::to_string);
            let settled = client
                .execute(
                    "UPDATE toolspec_tasks SET status = $2, outcome = $3, updated_at = $4
                     WHERE id = $1 AND status = 'working'",
                    &[&id, &status.as_str(), &outcome, &now_ms],
                )
                .await
                .map_err(pg)?;
            Ok(settled == 1)
        })
    }
}

/// One unit of work on [`PostgresStore`]: a pooled connection inside `BEGIN`. The user's
/// method runs its SQL on [`PostgresTransaction::client`] (through
/// [`super::Work::postgres`]), and it commits with the call's records.
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
            .ok_or_else(|| StoreError("the unit of work already committed".into()))
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
                _ => return Err(StoreError("the key's lease was not checked first".into())),
            };
            if store_if_held(self.open()?, key, &token, outcome).await? {
                Ok(())
            } else {
                Err(StoreError(
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
            assert!(e.0.contains("lower-case letters"), "{bad}: {e:?}");
        }
        assert!(PostgresStore::new("not a url", None).is_err());
    }
}
