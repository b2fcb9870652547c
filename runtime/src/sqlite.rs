//! One SQLite file for an app's own tables and the runtime's keys and previews
//! (feature `sqlite`).
//!
//! Both [`crate::idempotency::SqliteStore`] and [`crate::preview::SqlitePreviewStore`] work
//! on a [`SharedConnection`], so an app can open its database once, keep its tickets there,
//! and hand the same handle to both stores. Their tables are `toolspec_idempotency` and
//! `toolspec_previews`, created if absent.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::Connection;

use crate::idempotency::StoreError;

/// A connection shared by the app and the runtime's stores.
pub type SharedConnection = Arc<Mutex<Connection>>;

/// Opens (or creates) the database at `path` in WAL mode with a 5 s busy timeout, ready to
/// share. WAL lets readers proceed while one writer commits; the timeout makes a second
/// process wait for the write lock instead of failing at once.
pub fn open(path: impl AsRef<Path>) -> Result<SharedConnection, StoreError> {
    let conn = Connection::open(path).map_err(sql)?;
    Ok(share(configure(conn)?))
}

/// Applies the runtime's settings (WAL, busy timeout) to an existing connection.
/// For an in-memory database WAL does not apply and SQLite keeps its `memory` journal.
pub fn configure(conn: Connection) -> Result<Connection, StoreError> {
    conn.busy_timeout(Duration::from_secs(5)).map_err(sql)?;
    // journal_mode answers with a row, so it is read as a query, not executed.
    let _mode: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .map_err(sql)?;
    Ok(conn)
}

/// Wraps a connection to share it.
pub fn share(conn: Connection) -> SharedConnection {
    Arc::new(Mutex::new(conn))
}

/// Locks a shared connection, surviving a poisoned lock (SQLite keeps its own consistency
/// through transactions, so a panic elsewhere leaves nothing half-written).
pub(crate) fn lock(conn: &SharedConnection) -> MutexGuard<'_, Connection> {
    conn.lock().unwrap_or_else(|p| p.into_inner())
}

/// A SQLite error as a store error.
pub(crate) fn sql(e: rusqlite::Error) -> StoreError {
    StoreError(e.to_string())
}
