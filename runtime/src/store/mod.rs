//! Where the runtime keeps what outlives a call (idempotency keys, previews, approvals and
//! the outbox), and the unit of work it hands write methods.
//!
//! A keyed write runs in two steps, after Stripe's *atomic phases*:
//!
//! 1. **Lease** ([`Store::lease`], its own short transaction): a free key is leased to this
//!    call for a short time ([`crate::engine::Runtime::with_lease`], seconds, not the key's
//!    TTL) under a fresh token. A key whose lease lapsed (its call died or hung) is leased
//!    again: safe, because nothing of an unfinished call ever committed.
//! 2. **Unit of work** ([`Store::begin`], one transaction): the user's method writes through
//!    the [`Work`] it is handed; then, in the same transaction, the runtime checks the lease
//!    is still this call's (fencing: a call that outlived its lease must not commit), stores
//!    the key's outcome, consumes the preview and records the approval. Commit makes all of it
//!    true at once; any failure before commit leaves none of it.
//!
//! So for every key, the agent is told "replayed" only when an outcome is stored,
//! "in progress" only while a live lease holds the key, and a preview is "used" only once
//! its effect committed.

pub(crate) mod held;
mod memory;
mod outcome;
#[cfg(feature = "postgres")]
mod postgres;
mod remote;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod rows;
#[cfg(feature = "sqlite")]
pub(crate) mod sqlite;
mod work;

pub use memory::MemoryStore;
pub use outcome::{Outcome, StoreError};
#[cfg(feature = "postgres")]
pub use postgres::{PostgresStore, PostgresTransaction};
pub(crate) use remote::Attempt;
pub use remote::{Effect, Remote};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;
#[cfg(feature = "postgres")]
pub use work::PostgresWork;
pub use work::Work;

use std::any::Any;

use serde_json::Value;

use crate::future::BoxFuture;
use crate::preview::{Consume, StoredPreview};
use crate::rate::{Admission, RateLimit};
use crate::task::{TaskRecord, TaskStatus};

/// One idempotency key: keys are scoped per tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRef<'a> {
    /// Canonical tool name.
    pub tool: &'a str,
    /// The caller's `idempotency_key`.
    pub key: &'a str,
}

/// What a store found when a key was presented.
#[derive(Debug, Clone, PartialEq)]
pub enum Reservation {
    /// From [`Store::peek`] only: nothing holds the key.
    Free,
    /// From [`Store::lease`] only: the key is now leased to this call under `token`.
    Leased {
        /// The fencing token the unit of work must still hold when it commits.
        token: String,
        /// The key was taken over from an earlier attempt of the same call (same
        /// fingerprint) whose lease lapsed without an outcome: that attempt may have made a
        /// change outside the store ([`Remote::earlier_attempt`]).
        earlier: bool,
    },
    /// The key is done with the same fingerprint: the stored outcome.
    Replay(Outcome),
    /// The key is held (running or done) with another fingerprint.
    Mismatch,
    /// A live lease with the same fingerprint holds the key until `lease_until_ms`.
    InProgress {
        /// When the holder's lease ends, Unix ms: the earliest useful retry.
        lease_until_ms: i64,
    },
}

/// The person's (or the preview flow's) answer to a preview, as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Approved: the change was applied in the same transaction.
    Approved,
    /// The person said no.
    Declined,
    /// The person dismissed the request without answering.
    Cancelled,
}

impl Verdict {
    /// The word stored and logged: `approved`, `declined` or `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approved => "approved",
            Verdict::Declined => "declined",
            Verdict::Cancelled => "cancelled",
        }
    }
}

/// One approval or refusal of a preview, as recorded in the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The preview decided on, as kept: for a caller over HTTP, the id the caller was shown
    /// followed by `@` and the caller's [`tag`](crate::caller::Caller::tag).
    pub preview_id: String,
    /// Canonical tool name.
    pub tool: String,
    /// Fingerprint of the arguments decided on.
    pub fingerprint: String,
    /// What was decided.
    pub verdict: Verdict,
    /// Who decided: `host:<client name>` when the host asked the person through
    /// elicitation, `preview_id` when the model presented the preview's id (the preview
    /// flow, which catches the model's mistakes but is not a person's approval); over HTTP
    /// with authorization, followed by ` for <subject>`, the caller who asked for the
    /// change ([`crate::caller::Caller::subject`]).
    pub decided_by: String,
    /// When, Unix ms.
    pub decided_at_ms: i64,
}

/// A message for a system outside the store, written by a unit of work
/// ([`Work::outbox`]) and delivered after it committed.
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxMessage {
    /// Unique and stable: the receiver's idempotency key, so a redelivery is harmless.
    pub id: String,
    /// What kind of message (`email`, `charge`...), for the deliverer to route on.
    pub topic: String,
    /// The message.
    pub payload: Value,
    /// Delivery attempts so far.
    pub attempts: u32,
}

/// The runtime's durable records. Implementations: [`MemoryStore`] and (feature `sqlite`)
/// [`SqliteStore`]. Times are Unix milliseconds passed in by the caller (see
/// [`crate::clock`]), so stores never read a clock.
pub trait Store: Send + Sync {
    /// Step 1 of a keyed write. Looks the key up and answers, forgetting expired keys on
    /// the way: [`Reservation::Leased`] when it was free, expired, or held by a lapsed lease
    /// (now leased to this call until `now_ms + lease_ms`, the key kept until
    /// `now_ms + ttl_ms`, counted again from a takeover, so a result is replayable for the
    /// whole TTL after the call that made it); otherwise what holds it. Atomic: of many concurrent leases of
    /// one key, one gets `Leased`.
    fn lease<'a>(
        &'a self,
        key: KeyRef<'a>,
        fingerprint: &'a str,
        now_ms: i64,
        ttl_ms: i64,
        lease_ms: i64,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>>;

    /// Looks the key up without leasing it ([`Reservation::Free`] when nothing holds it).
    fn peek<'a>(
        &'a self,
        key: KeyRef<'a>,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>>;

    /// Gives back a lease held under `token` (the call was refused or failed before any
    /// effect committed). A key that is done, or leased under another token, is untouched.
    fn release<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Ends a lease held under `token` now, keeping the key in progress: the call ran a
    /// method that may have made a change outside the store (`effect: remote_lookup`) and
    /// could not record its outcome, so the next lease of the key must hear of this attempt
    /// ([`Reservation::Leased`]'s `earlier`) instead of finding the key free.
    fn lapse<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Extends a lease held under `token` to `lease_until_ms`, while its call's method
    /// still runs: `Ok(true)` when renewed, `Ok(false)` when the key is no longer leased
    /// under `token` (taken over, or done). Required, with no default: a store that renewed
    /// nothing would lose its slow writes' keys to retries (and have their commits refused)
    /// without a word, and a wrapper around another store must forward it.
    fn renew<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
        lease_until_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Stores the outcome of a key leased under `token` in its own transaction (the
    /// non-retryable error of a method whose writes were rolled back). `Ok(false)` when the
    /// lease was lost: nothing is stored.
    fn complete<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
        outcome: &'a Outcome,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Stores a new preview.
    fn insert_preview<'a>(
        &'a self,
        preview: &'a StoredPreview,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Judges preview `id` for `tool` and `fingerprint` at `now_ms` without consuming it
    /// ([`Consume::Applied`] means "may be applied").
    fn check_preview<'a>(
        &'a self,
        tool: &'a str,
        id: &'a str,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Consume, StoreError>>;

    /// Records a refusal ([`Verdict::Declined`] or [`Verdict::Cancelled`]) and closes the
    /// preview: it can never be applied.
    fn refuse_preview<'a>(
        &'a self,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The recorded decisions on preview `id`, oldest first.
    fn decisions<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<Decision>, StoreError>>;

    /// Opens a unit of work: one transaction for the user's writes and the runtime's records.
    fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>>;

    /// The key cursors are signed with, kept by the store ([`crate::engine::Runtime::open`]
    /// builds a runtime with it): made once, by whichever process asks first, so that
    /// every server on the store accepts the cursors any of them issued, and a restart
    /// keeps them valid. The built-in stores keep one (a [`MemoryStore`] for as long as it
    /// lives); the default says to choose one ([`crate::engine::Runtime::new`]).
    fn cursor_key(&self) -> BoxFuture<'_, Result<crate::cursor::CursorKey, StoreError>> {
        ready(Err(StoreError(
            "this store keeps no cursor key: choose one and build the runtime with \
             `Runtime::new(key, store)`"
                .into(),
        )))
    }

    /// Up to `limit` outbox messages not yet delivered, oldest first.
    fn outbox_pending(&self, limit: usize)
    -> BoxFuture<'_, Result<Vec<OutboxMessage>, StoreError>>;

    /// Marks an outbox message delivered (`ok`) or counts a failed attempt.
    fn outbox_settle<'a>(
        &'a self,
        id: &'a str,
        ok: bool,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Decides one call under a rate limit ([`crate::rate`]): the record of `limit` for
    /// `holder` (the limit's key followed by the caller's tag, when there is a caller) is read,
    /// judged by [`crate::rate::decide`] at `now_ms`, and written back when the call is
    /// admitted. Atomic: of many concurrent calls, no more are admitted than the limit
    /// allows, on every replica sharing the store.
    fn admit<'a>(
        &'a self,
        limit: &'a RateLimit,
        holder: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Admission, StoreError>>;

    /// Forgets expired keys, long-expired previews, rate-limit records whose window and
    /// spacing have passed, and tasks past their time; says what went.
    fn purge_expired(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>>;

    /// Keeps a new task ([`crate::task`]). The default keeps none, and says so: the MCP
    /// adapter then serves the tool's calls the ordinary way.
    fn task_create<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = task;
        ready(Err(keeps_no_tasks()))
    }

    /// Task `id` as stored, unless unknown or forgotten (past its `expires_ms` at `now_ms`).
    fn task_get<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let _ = (id, now_ms);
        ready(Err(keeps_no_tasks()))
    }

    /// A beat of the replica running task `id`: while it works, its beat time becomes
    /// `now_ms` and, when given, its message `message`. Answers the status stored (a task
    /// another replica cancelled answers [`TaskStatus::Cancelled`]), `None` when unknown.
    fn task_beat<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        let _ = (id, now_ms, message);
        ready(Err(keeps_no_tasks()))
    }

    /// Ends task `id` with `status` and `outcome` if it still works: `Ok(true)` when this
    /// call ended it, `Ok(false)` when it had already ended (or is unknown).
    fn task_settle<'a>(
        &'a self,
        id: &'a str,
        status: TaskStatus,
        outcome: Option<&'a Value>,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let _ = (id, status, outcome, now_ms);
        ready(Err(keeps_no_tasks()))
    }
}

fn keeps_no_tasks() -> StoreError {
    StoreError("this store keeps no tasks (implement Store::task_create and the rest)".into())
}

/// What one [`Store::purge_expired`] forgot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Purged {
    /// Idempotency keys past their TTL.
    pub keys: usize,
    /// Previews long past their expiry, whatever became of them.
    pub previews: usize,
    /// Of those previews, per tool, how many were never applied nor declined: the agent
    /// asked for them and nothing followed.
    pub unused_previews: std::collections::BTreeMap<String, u64>,
    /// Rate-limit records whose window and spacing had passed.
    pub counters: usize,
    /// Tasks past their time.
    pub tasks: usize,
}

impl Purged {
    /// Rows forgotten in all: keys, previews, rate-limit records and tasks.
    pub fn rows(&self) -> usize {
        self.keys + self.previews + self.counters + self.tasks
    }

    /// Counts one purged preview of `tool`, unused when `open`.
    pub(crate) fn preview(&mut self, tool: &str, open: bool) {
        self.previews += 1;
        if open {
            *self.unused_previews.entry(tool.to_owned()).or_default() += 1;
        }
    }
}

/// One open transaction of a [`Store`]. Dropping it without [`Transaction::commit`] rolls
/// everything in it back. Its methods are asynchronous, so that a backend on the network
/// (PostgreSQL) can await its database; the embedded ones answer at once.
pub trait Transaction: Send {
    /// Fencing: whether the key is still leased under `token`.
    fn holds<'a>(
        &'a mut self,
        key: KeyRef<'a>,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Stores the key's outcome (`done`), in this transaction.
    fn complete<'a>(
        &'a mut self,
        key: KeyRef<'a>,
        outcome: &'a Outcome,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Marks preview `id` used if it may still be applied (open, unexpired, made for this
    /// tool and fingerprint), in this transaction; the verdict either way.
    fn consume_preview<'a>(
        &'a mut self,
        tool: &'a str,
        id: &'a str,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Consume, StoreError>>;

    /// Records an approval, in this transaction.
    fn record<'a>(&'a mut self, decision: &'a Decision) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Writes an outbox message, in this transaction; returns its id.
    fn push_outbox<'a>(
        &'a mut self,
        topic: &'a str,
        payload: &'a Value,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<String, StoreError>>;

    /// Commits.
    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>>;

    /// The backend's own transaction, for [`Work`]'s typed accessors.
    fn backend(&mut self) -> &mut dyn Any;

    /// The backend's own transaction, shared.
    fn backend_ref(&self) -> &dyn Any;

    /// The identity of the app's shared connection this transaction holds while it is
    /// open (the [`crate::sqlite::Database`], the [`PostgresStore`]'s pool), if any: taking
    /// that connection again inside the write method is refused at once, instead of
    /// waiting for itself.
    fn connection_id(&self) -> Option<usize> {
        None
    }
}

/// A fresh fencing token or outbox id: `prefix` + 64 random bits in hex.
pub(crate) fn token(prefix: &str) -> Result<String, StoreError> {
    crate::random::token(prefix, 8).map_err(|e| StoreError(format!("random token: {e}")))
}

/// A ready future, for stores whose operations never wait.
pub(crate) fn ready<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(value))
}
