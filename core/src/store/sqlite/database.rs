//! One SQLite file for an app's own tables and the runtime's records (feature `sqlite`).
//!
//! Open the file once as a [`Database`], keep your tables in it, and build the runtime on
//! the same handle ([`crate::engine::Runtime::sqlite`]): then a write method's changes,
//! made through the transaction of its [`crate::store::Work`]
//! ([`Work::sqlite`](crate::store::Work::sqlite)), commit together with the idempotency
//! key's outcome, the preview's consumption, the approval and the outbox, or not at all.
//! The runtime's tables are `toolspec_idempotency`, `toolspec_previews`,
//! `toolspec_approvals` and `toolspec_outbox`, created (or brought up to date) on open.
//!
//! Several processes may share the file: every write transaction is `BEGIN IMMEDIATE`,
//! so they queue on SQLite's write lock (with a 5 s busy timeout) instead of failing.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::Connection;
use tokio::sync::{Mutex, MutexGuard, OwnedMutexGuard};

use crate::error::ToolError;
use crate::store::StoreError;

/// A SQLite connection shared by the app and the runtime. Cheap to clone.
///
/// The lock is asynchronous because a unit of work holds it for the whole write method,
/// across its `.await`s: one connection has one transaction, so nothing else may run a
/// statement on it meanwhile (it would join that transaction, and be rolled back with it).
#[derive(Clone)]
pub struct Database {
    conn: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database").finish_non_exhaustive()
    }
}

impl Database {
    /// Opens (or creates) the database at `path` in WAL mode with a 5 s busy timeout. WAL
    /// lets readers proceed while one writer commits; the timeout makes a second process
    /// wait for the write lock instead of failing at once. `":memory:"` opens a private
    /// in-memory database.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let conn = Connection::open(path).map_err(sql)?;
        Self::from_connection(conn)
    }

    /// Shares an existing connection, with the runtime's settings applied (WAL, busy
    /// timeout; an in-memory database keeps its `memory` journal).
    pub fn from_connection(conn: Connection) -> Result<Self, StoreError> {
        conn.busy_timeout(Duration::from_secs(5)).map_err(sql)?;
        // journal_mode answers with a row, so it is read as a query, not executed.
        let _mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(sql)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    /// The connection, for read methods and for setting up your tables. Do not hold it
    /// across a call to the runtime.
    ///
    /// Inside a write method it is refused at once (a not-retryable `internal_error`
    /// whose incident says what to do): the method's unit of work holds this connection
    /// until the method returns, so waiting for it would never end. Read and write there
    /// through the unit of work, `work.sqlite(|conn| ..)`, so the writes commit with the
    /// call's records.
    ///
    /// ```
    /// # use toolspec_runtime::sqlite::Database;
    /// # async fn read(db: &Database) -> Result<i64, toolspec_runtime::ToolError> {
    /// let conn = db.lock().await?;
    /// let n = conn.query_row("SELECT 40 + 2", [], |row| row.get(0))?;
    /// # Ok(n) }
    /// ```
    pub async fn lock(&self) -> Result<MutexGuard<'_, Connection>, ToolError> {
        if crate::store::held::is_held(connection_id(&self.conn)) {
            return Err(ToolError::misconfigured(
                "Database::lock was called inside a write method, whose unit of work holds \
                 this connection until the method returns: waiting for it would never end. \
                 Read and write through the method's unit of work instead: \
                 `work.sqlite(|conn| ...)`",
            ));
        }
        Ok(self.conn.lock().await)
    }

    /// The connection from synchronous code, for setting up tables before serving: an
    /// error, not a wait, when something holds it.
    pub fn try_lock(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        self.conn.try_lock().map_err(|_| {
            StoreError::Backend(
                "the database connection is in use (inside a write method, use \
                 `work.sqlite(|conn| ...)`, which holds it)"
                    .into(),
            )
        })
    }

    /// The connection for the runtime's own statements, without [`Database::lock`]'s check.
    pub(crate) async fn lock_unchecked(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().await
    }

    pub(crate) async fn lock_owned(&self) -> OwnedMutexGuard<Connection> {
        Arc::clone(&self.conn).lock_owned().await
    }
}

/// The identity of a [`Database`]'s connection, shared by its clones: what a SQLite unit
/// of work reports as the connection it holds.
pub(crate) fn connection_id(conn: &Arc<Mutex<Connection>>) -> usize {
    Arc::as_ptr(conn) as usize
}

/// A SQLite error as a store error.
pub(crate) fn sql(e: rusqlite::Error) -> StoreError {
    StoreError::Backend(e.to_string())
}
