//! [`Work`]: the unit of work a write method is handed.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::Transaction;
use super::remote::Attempt;
use crate::error::ToolError;

/// The unit of work of one write: a transaction of the runtime's store, handed to the
/// user's reversible and apply methods.
///
/// Write your effects through it and they commit together with the runtime's records of
/// the call (the idempotency key's outcome, the preview's consumption, the approval), or
/// not at all: a retry then never makes a second effect, and a failed call leaves nothing
/// behind. After the method returns `Ok`, the runtime adds its records and commits; after
/// an error, or if the process dies first, everything rolls back.
///
/// - Effects in the store's database: with [`crate::store::SqliteStore`], run your SQL on
///   [`Work::sqlite`], the connection inside the transaction; read there too, since the
///   unit of work holds the connection until the method returns
///   ([`crate::sqlite::Database::lock`] in the method is refused, as waiting would never
///   end). With [`crate::store::PostgresStore`], on [`Work::postgres`].
/// - Effects outside it (an email, a call to another service): [`Work::outbox`] writes a
///   message in the same transaction; a deliverer sends it after the commit, at least
///   once, with the message id as the receiver's idempotency key
///   ([`crate::engine::Runtime::deliver_outbox`]).
///
/// - Effects in process memory (an app without a database, on
///   [`crate::store::MemoryStore`]): make them in [`Work::on_commit`].
///
/// A write made any other way (another connection, a file, a direct HTTP call, a change to
/// memory in the method itself) is not rolled back when the call fails, and may happen
/// twice if the process dies between that write and the commit. A tool whose change is
/// made at another service by design says so in its spec (`effect: remote_keyed` or
/// `remote_lookup`), and its method is handed a [`super::Remote`] that keeps a retry from
/// making the change twice. The gauntlet's
/// `writes_only_through_the_unit_of_work` check finds such writes where the toolset's read
/// tools can see them.
#[derive(Clone)]
pub struct Work {
    /// The transaction until the runtime takes it back to commit; shared, so the method can
    /// own its handle (and keep no borrow across its `.await`s).
    tx: Arc<Mutex<Slot>>,
    /// What runs once the transaction committed ([`Work::on_commit`]).
    after: Arc<Mutex<Vec<AfterCommit>>>,
    now_ms: i64,
    /// What this attempt of the call knows of itself, for [`super::Remote`].
    attempt: Arc<Attempt>,
}

type AfterCommit = Box<dyn FnOnce() + Send>;

impl std::fmt::Debug for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Work").finish_non_exhaustive()
    }
}

impl Work {
    pub(crate) fn new(tx: Box<dyn Transaction>, now_ms: i64, attempt: Attempt) -> Self {
        Self {
            tx: Arc::new(Mutex::new(Slot::Open(tx))),
            after: Arc::default(),
            now_ms,
            attempt: Arc::new(attempt),
        }
    }

    pub(crate) fn attempt(&self) -> &Attempt {
        &self.attempt
    }

    /// The closures given to [`Work::on_commit`], to run now that the commit happened.
    pub(crate) fn committed(&self) -> Vec<AfterCommit> {
        std::mem::take(&mut *self.after.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Takes the transaction back to commit it, once the method's own uses of it ended;
    /// later uses of any clone of this handle fail. `None` when it is gone: used after
    /// the call, or still out with a use that never finished (its future was dropped).
    pub(crate) fn finish(&self) -> Option<Box<dyn Transaction>> {
        match std::mem::replace(&mut *self.slot(), Slot::Ended) {
            Slot::Open(tx) => Some(tx),
            Slot::Busy | Slot::Ended => None,
        }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        self.tx.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes the transaction out for one asynchronous use (no lock is held across its
    /// `.await`s); [`Work::put_back`] returns it.
    fn take(&self) -> Result<Box<dyn Transaction>, ToolError> {
        let mut slot = self.slot();
        match std::mem::replace(&mut *slot, Slot::Busy) {
            Slot::Open(tx) => Ok(tx),
            other => {
                let error = match other {
                    Slot::Busy => in_use(),
                    _ => ended(),
                };
                *slot = other;
                Err(error)
            }
        }
    }

    fn put_back(&self, tx: Box<dyn Transaction>) {
        let mut slot = self.slot();
        if matches!(*slot, Slot::Busy) {
            *slot = Slot::Open(tx);
        }
    }

    /// Runs `f` on the SQLite connection inside the transaction (feature `sqlite`): the
    /// method's own SQL, reads and writes, which commits with the call's records.
    ///
    /// `f` returns the method's own error type, [`ToolError`]: `?` turns a
    /// `rusqlite::Error` into an `internal_error` and the toolset's catalog errors into
    /// theirs, so a refusal found inside the transaction leaves it like any other error
    /// (and rolls the transaction back).
    ///
    /// ```ignore
    /// let num = work.sqlite(|conn| {
    ///     let open: bool = conn.query_row("SELECT open FROM shop", [], |r| r.get(0))?;
    ///     if !open {
    ///         return Err(ShopError::Closed {}.into());
    ///     }
    ///     Ok(conn.query_row("INSERT INTO orders (item) VALUES (?1) RETURNING num", [&item], |r| r.get(0))?)
    /// })?;
    /// ```
    ///
    /// An error when the runtime's store is not the [`crate::store::SqliteStore`] of the
    /// database: the message names the call that builds it so.
    #[cfg(feature = "sqlite")]
    pub fn sqlite<T>(
        &self,
        f: impl FnOnce(&rusqlite::Connection) -> Result<T, ToolError>,
    ) -> Result<T, ToolError> {
        let mut slot = self.slot();
        let tx = match &mut *slot {
            Slot::Open(tx) => tx,
            Slot::Busy => return Err(in_use()),
            Slot::Ended => return Err(ended()),
        };
        match tx
            .backend()
            .downcast_mut::<super::sqlite::SqliteTransaction>()
        {
            Some(tx) => f(tx.connection()),
            None => Err(ToolError::misconfigured(
                "Work::sqlite was called, but the runtime's store is not a SQLite database, \
                 so the unit of work is not a SQLite transaction. Build the runtime on your \
                 Database: `Runtime::sqlite(db, cursor_key)` when serving, and in a gauntlet \
                 fixture `runtime.with_store(Arc::new(SqliteStore::new(db)?))`",
            )),
        }
    }

    /// The PostgreSQL connection inside the transaction (feature `postgres`): run the
    /// method's own SQL on it, and it commits with the call's records. While the returned
    /// handle lives, the unit of work is the method's alone; drop it before the method
    /// returns. An error when the runtime's store is not a
    /// [`crate::store::PostgresStore`].
    ///
    /// ```ignore
    /// let db = work.postgres()?;
    /// let row = db.query_one("INSERT INTO tickets (title) VALUES ($1) RETURNING num", &[&title]).await?;
    /// ```
    #[cfg(feature = "postgres")]
    pub fn postgres(&self) -> Result<PostgresWork<'_>, ToolError> {
        let tx = self.take()?;
        if !tx.backend_ref().is::<super::PostgresTransaction>() {
            self.put_back(tx);
            return Err(ToolError::misconfigured(
                "Work::postgres was called, but the runtime's store is not PostgreSQL, so the \
                 unit of work is not a PostgreSQL transaction. Build the runtime on your \
                 PostgresStore: `Runtime::new(store.cursor_key().await?, Arc::new(store))`, \
                 and in a gauntlet fixture `runtime.with_store(Arc::new(store.clone()))`",
            ));
        }
        Ok(PostgresWork {
            work: self,
            tx: Some(tx),
        })
    }

    /// Runs `change` once the unit of work committed, and never if it does not: for state
    /// the store's transaction cannot hold, such as an app that keeps its data in process
    /// memory (with [`crate::store::MemoryStore`], which commits the runtime's records in
    /// process memory too). It runs right after the commit, in the calling task, so it
    /// must not block; it is not durable: use it only for state that dies with the process
    /// anyway.
    pub fn on_commit(&self, change: impl FnOnce() + Send + 'static) {
        self.after
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Box::new(change));
    }

    /// Queues `payload` for a system outside the store, under `topic` (`email`,
    /// `charge`...), in this transaction; returns the message id, which is also the
    /// receiver's idempotency key. Nothing is sent unless the unit of work commits.
    pub async fn outbox(&self, topic: &str, payload: Value) -> Result<String, ToolError> {
        let mut tx = self.take()?;
        let id = tx.push_outbox(topic, &payload, self.now_ms).await;
        self.put_back(tx);
        id.map_err(ToolError::from)
    }
}

/// The PostgreSQL connection of a unit of work ([`Work::postgres`]); it dereferences to
/// a `tokio_postgres::Client` inside the call's transaction.
#[cfg(feature = "postgres")]
pub struct PostgresWork<'a> {
    work: &'a Work,
    tx: Option<Box<dyn Transaction>>,
}

#[cfg(feature = "postgres")]
impl std::ops::Deref for PostgresWork<'_> {
    type Target = tokio_postgres::Client;

    fn deref(&self) -> &tokio_postgres::Client {
        match self
            .tx
            .as_ref()
            .and_then(|t| t.backend_ref().downcast_ref::<super::PostgresTransaction>())
        {
            Some(tx) => tx.client(),
            // `Work::postgres` checked the type, and only `drop` takes the transaction.
            None => unreachable!("PostgresWork holds a PostgreSQL transaction"),
        }
    }
}

#[cfg(feature = "postgres")]
impl Drop for PostgresWork<'_> {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            self.work.put_back(tx);
        }
    }
}

/// Where the transaction of a [`Work`] is.
enum Slot {
    /// Ready for the method's next use.
    Open(Box<dyn Transaction>),
    /// Out with one asynchronous use.
    Busy,
    /// Taken back by the runtime at the end of the call.
    Ended,
}

/// The error of a second use while one is still running.
fn in_use() -> ToolError {
    ToolError::misconfigured(
        "the unit of work was used while another use of it was still running (a PostgresWork \
         handle still alive, or a second task of the same call): drop the handle from \
         `work.postgres()` before the next use, and use the unit of work from one task at a time",
    )
}

/// The error of a handle used after its call ended.
fn ended() -> ToolError {
    ToolError::misconfigured(
        "a unit of work was used after its call ended: a clone of the method's `Work` was \
         kept (in a spawned task, a struct field) past the method's return; use it only \
         before the method returns",
    )
}
