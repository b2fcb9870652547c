//! Idempotency keys: a retried write returns the first result instead of running again.
//!
//! A key is scoped per tool: `(tool, key) -> (fingerprint, state, outcome, created_at,
//! expires_at)`, `state` being `in_progress` or `done`. What the runtime does with it
//! ([`crate::engine::Runtime::idempotent`]) follows Stripe and the IETF draft:
//!
//! | situation | answer |
//! |---|---|
//! | new key | reserve it (`in_progress`), run once, store the outcome (`done`) |
//! | same key, same arguments, done | the stored outcome again, marked `"replayed": true`; nothing runs |
//! | same key, same arguments, running | `idempotency_in_progress` (retryable) |
//! | same key, other arguments | `idempotency_key_reused` (not retryable) |
//! | key older than its TTL | forgotten: the key is new again |
//! | call failed validation | never reaches the store |
//!
//! Outcomes stored are successes **and** non-retryable errors from the user's method
//! (business errors such as `not_found`), replayed like Stripe replays them. A retryable error
//! (`rate_limited`, `internal_error`) releases the reservation instead, because the method
//! said the same call may succeed later, which only holds if the retry really runs.
//!
//! A reservation whose process crashed (or whose call was cancelled) between reserve and
//! complete stays `in_progress` until its TTL. The runtime cannot know whether the effect
//! happened, so it never runs the call a second time under that key: a retry gets
//! `idempotency_in_progress` until the key expires. One effect at most beats a fast retry.

mod memory;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use memory::MemoryStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use serde_json::Value;

use crate::error::ToolError;

/// What a store found when a key was presented.
#[derive(Debug, Clone, PartialEq)]
pub enum Reservation {
    /// From [`IdempotencyStore::begin`]: the key was free (or expired) and is now reserved
    /// `in_progress` for this call. From [`IdempotencyStore::peek`]: the key is free.
    New,
    /// The key is done with the same fingerprint: the stored outcome.
    Replay(Outcome),
    /// The key is held (running or done) with another fingerprint.
    Mismatch,
    /// The key is reserved with the same fingerprint and has not completed.
    InProgress,
}

/// A stored result of a user's method: its output, or the error it returned.
pub type Outcome = Result<Value, ToolError>;

/// A failure of the store itself (I/O, SQL). The runtime reports it as `internal_error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "store error: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        ToolError::internal(e)
    }
}

/// Where idempotency keys live. Implementations must make `begin` atomic: of many
/// concurrent `begin`s with one free key, exactly one gets [`Reservation::New`].
///
/// Times are Unix milliseconds passed in by the caller (see [`crate::clock`]), so stores
/// never read a clock and TTL tests need no sleeping.
pub trait IdempotencyStore: Send + Sync {
    /// Looks the key up and, if free or expired, reserves it `in_progress` until
    /// `now_ms + ttl_ms`. Expired entries met on the way are forgotten.
    fn begin(
        &self,
        tool: &str,
        key: &str,
        fingerprint: &str,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<Reservation, StoreError>;

    /// Looks the key up without reserving it (`New` = free). Used by gated tools to replay
    /// a finished apply when the retry carries no `preview_id`.
    fn peek(
        &self,
        tool: &str,
        key: &str,
        fingerprint: &str,
        now_ms: i64,
    ) -> Result<Reservation, StoreError>;

    /// Stores the outcome of a reserved key and marks it `done`, in one step.
    fn complete(&self, tool: &str, key: &str, outcome: &Outcome) -> Result<(), StoreError>;

    /// Forgets a reservation that must not count (the call was refused before any effect).
    fn release(&self, tool: &str, key: &str) -> Result<(), StoreError>;

    /// Forgets every key expired at `now_ms`; returns how many.
    fn purge_expired(&self, now_ms: i64) -> Result<usize, StoreError>;
}
