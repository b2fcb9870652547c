//! Which shared connection the unit of work being polled holds.
//!
//! A SQLite unit of work holds the app's one connection from its `BEGIN` until the
//! runtime commits, across the whole write method; a PostgreSQL one holds a connection of
//! the pool inside `BEGIN`. Taking the shared connection again from inside the method
//! would wait for itself forever (SQLite), or read and write beside the transaction
//! (PostgreSQL). The runtime marks the method's future with the connection its unit of
//! work holds, so that [`crate::sqlite::Database::lock`] and
//! [`crate::store::PostgresStore::client`] refuse at once, saying to go through the
//! [`crate::store::Work`] instead.

use std::cell::RefCell;
use std::future::Future;

use crate::ambient::{Scoped, current};

thread_local! {
    /// The identity of the connection the unit of work being polled holds.
    static HELD: RefCell<Option<usize>> = const { RefCell::new(None) };
}

/// `method` with `held` (a [`super::Transaction::connection_id`]) in scope while it runs.
pub(crate) fn holding<F: Future>(held: Option<usize>, method: F) -> Scoped<usize, F> {
    Scoped::new(&HELD, held, method)
}

/// Whether the future being polled runs inside a unit of work holding connection `id`.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn is_held(id: usize) -> bool {
    current(&HELD) == Some(id)
}
