//! [`Work`]: the unit of work a write method is handed.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::Transaction;
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
///   unit of work holds the connection until the method returns (locking the
///   [`crate::sqlite::Database`] in the method would wait forever).
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
/// twice if the process dies between that write and the commit. The gauntlet's
/// `writes_only_through_the_unit_of_work` check finds such writes where the toolset's read
/// tools can see them.
#[derive(Clone)]
pub struct Work {
    /// The transaction until the runtime takes it back to commit; shared, so the method can
    /// own its handle (and keep no borrow across its `.await`s).
    tx: Arc<Mutex<Option<Box<dyn Transaction>>>>,
    /// What runs once the transaction committed ([`Work::on_commit`]).
    after: Arc<Mutex<Vec<AfterCommit>>>,
    now_ms: i64,
}

type AfterCommit = Box<dyn FnOnce() + Send>;

impl std::fmt::Debug for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Work").finish_non_exhaustive()
    }
}

impl Work {
    pub(crate) fn new(tx: Box<dyn Transaction>, now_ms: i64) -> Self {
        Self {
            tx: Arc::new(Mutex::new(Some(tx))),
            after: Arc::default(),
            now_ms,
        }
    }

    /// The closures given to [`Work::on_commit`], to run now that the commit happened.
    pub(crate) fn committed(&self) -> Vec<AfterCommit> {
        std::mem::take(&mut *self.after.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Takes the transaction back to commit it; later uses of any clone of this handle
    /// fail ([`Work::with`]).
    pub(crate) fn finish(&self) -> Option<Box<dyn Transaction>> {
        self.tx.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&mut dyn Transaction) -> Result<T, ToolError>,
    ) -> Result<T, ToolError> {
        let mut slot = self.tx.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_mut() {
            Some(tx) => f(tx.as_mut()),
            None => Err(ToolError::internal(
                "a unit of work was used after its call ended (a handle kept past the method)",
            )),
        }
    }

    /// Runs `f` on the SQLite connection inside the transaction (feature `sqlite`): the
    /// method's own SQL, which commits with the call's records. An error when the runtime's
    /// store is not a [`crate::store::SqliteStore`].
    ///
    /// ```ignore
    /// let num: i64 = work.sqlite(|conn| {
    ///     conn.query_row("INSERT INTO tickets (title) VALUES (?1) RETURNING num", [&title], |r| r.get(0))
    /// })?;
    /// ```
    #[cfg(feature = "sqlite")]
    pub fn sqlite<T>(
        &self,
        f: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T>,
    ) -> Result<T, ToolError> {
        self.with(|tx| {
            match tx
                .backend()
                .downcast_mut::<super::sqlite::SqliteTransaction>()
            {
                Some(tx) => f(tx.connection()).map_err(ToolError::internal),
                None => Err(ToolError::internal(
                    "Work::sqlite called on a unit of work that is not a SQLite transaction \
                     (build the runtime with Runtime::sqlite)",
                )),
            }
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
    pub fn outbox(&self, topic: &str, payload: Value) -> Result<String, ToolError> {
        let now = self.now_ms;
        self.with(|tx| {
            tx.push_outbox(topic, &payload, now)
                .map_err(ToolError::from)
        })
    }
}
