//! Idempotency keys: a retried write returns the first result instead of running again.
//!
//! A key is scoped per tool: `(tool, key) -> (fingerprint, state, outcome, lease token,
//! lease end, created_at, expires_at)`, `state` being `in_progress` or `done`. What the
//! runtime does with it ([`crate::engine::Runtime::idempotent`], and the apply step of
//! [`crate::engine::Runtime::gated`]) follows Stripe, the IETF draft and Stripe's atomic
//! phases (see [`crate::store`] for the two steps):
//!
//! | situation | answer |
//! |---|---|
//! | new key | lease it (`in_progress`, a fresh token, for the lease: seconds); run the method in a unit of work; commit its writes and the outcome (`done`) in one transaction |
//! | same key, same arguments, done | the stored outcome again, marked `"replayed": true`; nothing runs |
//! | same key, same arguments, lease live | `idempotency_in_progress` (retryable), with `details.retry_after_ms`: when the lease ends |
//! | same key, same arguments, lease lapsed | the holder died or hung, and nothing of it committed: leased again, and the method runs |
//! | the holder outlived its lease | its commit fails the fence (the token is no longer its), rolls back, and it answers what the key holds now |
//! | same key, other arguments | `idempotency_key_reused` (not retryable) |
//! | key older than its TTL | forgotten: the key is new again |
//! | call failed validation | never reaches the store |
//!
//! Outcomes stored are successes **and** non-retryable errors from the user's method
//! (business errors such as `not_found`; the method's writes are rolled back, the error is
//! stored and replayed, like Stripe). A retryable error (`rate_limited`, `internal_error`)
//! rolls the writes back and gives the lease up, so the retry really runs.
//!
//! What this guarantees depends on where the method writes: through the [`crate::store::Work`]
//! it is handed (the SQLite transaction, the outbox), an effect commits exactly when its key
//! is recorded, across crashes and replicas. A write made outside it (another connection, a
//! file, an HTTP call) is not rolled back when the call fails, and may happen twice if the
//! process dies between that write and the commit: put such effects in the outbox.

pub use crate::store::{Outcome, Reservation, StoreError};
