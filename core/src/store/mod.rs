//! Where the runtime keeps what outlives a call (idempotency keys, previews, approvals, the
//! outbox, rate-limit records, tasks, the cursor key), and the unit of work it hands write
//! methods.
//!
//! A keyed write runs in two steps, after Stripe's *atomic phases*:
//!
//! 1. **Lease** ([`KeyStore::lease`], its own short transaction): a free key is leased to this
//!    call for a short time ([`crate::engine::Runtime::with_lease`], seconds, not the key's
//!    TTL) under a fresh token. A key whose lease lapsed (its call died or hung) is leased
//!    again: safe, because nothing of an unfinished call ever committed.
//! 2. **Unit of work** ([`WorkStore::begin`], one transaction): the user's method writes through
//!    the [`Work`] it is handed; then, in the same transaction, the runtime checks the lease
//!    is still this call's (fencing: a call that outlived its lease must not commit), stores
//!    the key's outcome, consumes the preview and records the approval. Commit makes all of it
//!    true at once; any failure before commit leaves none of it.
//!
//! So for every key, the agent is told "replayed" only when an outcome is stored,
//! "in progress" only while a live lease holds the key, and a preview is "used" only once
//! its effect committed.

mod cursor_key;
pub(crate) mod held;
mod keys;
mod memory;
mod outbox;
mod outcome;
#[cfg(feature = "postgres")]
mod postgres;
mod previews;
mod purged;
mod rates;
mod remote;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod rows;
#[cfg(feature = "sqlite")]
pub(crate) mod sqlite;
mod tasks;
mod transaction;
mod work;

pub use cursor_key::CursorKeyStore;
pub use keys::{KeyRef, KeyStore, Reservation};
pub use memory::MemoryStore;
pub use outbox::{OutboxMessage, OutboxStore};
pub use outcome::{Outcome, StoreError};
#[cfg(feature = "postgres")]
pub use postgres::{PostgresStore, PostgresTransaction};
pub use previews::{Consume, Decision, PreviewStore, StoredPreview, Verdict};
pub use purged::Purged;
pub use rates::{Admission, RateLimit, RateStore};
pub(crate) use remote::Attempt;
pub use remote::{Effect, Remote};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;
pub use tasks::{TaskRecord, TaskStatus, TaskStore};
pub use transaction::{Transaction, WorkStore};
#[cfg(feature = "postgres")]
pub use work::PostgresWork;
pub use work::Work;

use crate::future::BoxFuture;

/// Every concern of the runtime's durable records, in one store: what
/// [`crate::engine::Runtime::with_store`] takes. Nothing to implement: any type that
/// implements each concern's trait is a `Store`.
///
/// | trait | keeps | shares the unit of work |
/// |---|---|---|
/// | [`KeyStore`] | idempotency keys, their leases and outcomes | yes |
/// | [`PreviewStore`] | previews and the decisions on them | yes |
/// | [`OutboxStore`] | messages for other systems, until delivered | yes |
/// | [`WorkStore`] | opens the [`Transaction`] of a unit of work | it is the unit of work |
/// | [`RateStore`] | rate-limit records | no |
/// | [`TaskStore`] | calls that run as tasks (defaults: none kept) | no |
/// | [`CursorKeyStore`] | the key cursors are signed with (default: none kept) | no |
///
/// The built-in stores are [`MemoryStore`], `SqliteStore` (feature `sqlite`) and
/// `PostgresStore` (feature `postgres`). A store that changes one concern of another does
/// not wrap it whole: it implements that concern's trait alone and is set beside it
/// ([`crate::engine::Runtime::with_rate_store`] and the like), so every other concern,
/// lease renewal among them, stays the original's.
pub trait Store:
    KeyStore + PreviewStore + OutboxStore + WorkStore + RateStore + TaskStore + CursorKeyStore
{
}

impl<T> Store for T where
    T: KeyStore + PreviewStore + OutboxStore + WorkStore + RateStore + TaskStore + CursorKeyStore
{
}

/// A fresh fencing token or outbox id: `prefix` + 64 random bits in hex.
pub(crate) fn token(prefix: &str) -> Result<String, StoreError> {
    crate::random::token(prefix, 8).map_err(|e| StoreError::Backend(format!("random token: {e}")))
}

/// A ready future, for stores whose operations never wait.
pub(crate) fn ready<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(value))
}
