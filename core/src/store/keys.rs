//! Idempotency keys and their leases: the contract of [`KeyStore`].

use super::{Outcome, Purged, StoreError};
use crate::future::BoxFuture;

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
    /// From [`KeyStore::peek`] only: nothing holds the key.
    Free,
    /// From [`KeyStore::lease`] only: the key is now leased to this call under `token`.
    Leased {
        /// The fencing token the unit of work must still hold when it commits.
        token: String,
        /// The key was taken over from an earlier attempt of the same call (same
        /// fingerprint) whose lease lapsed without an outcome: that attempt may have made a
        /// change outside the store ([`super::Remote::earlier_attempt`]).
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

/// Idempotency keys: who holds each, under which lease, and the outcome of a call that
/// finished. The unit of work fences on the same records ([`super::Transaction::holds`]),
/// so a store's keys and its transactions are one table.
pub trait KeyStore: Send + Sync {
    /// Step 1 of a keyed write. Looks the key up and answers, forgetting expired keys on
    /// the way: [`Reservation::Leased`] when it was free, expired, or held by a lapsed lease
    /// (now leased to this call until `now_ms + lease_ms`, the key kept until
    /// `now_ms + ttl_ms`, counted again from a takeover, so a result is replayable for the
    /// whole TTL after the call that made it); otherwise what holds it. Atomic: of many
    /// concurrent leases of one key, one gets `Leased`.
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
    /// without a word.
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

    /// Forgets keys past their TTL at `now_ms`; says how many ([`Purged::keys`]).
    fn purge_keys(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>>;
}
