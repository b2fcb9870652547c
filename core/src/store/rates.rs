//! Rate-limit records: the contract of [`RateStore`].

use super::{Purged, StoreError};
use crate::future::BoxFuture;

pub use crate::rate::{Admission, RateLimit};

/// The records of rate limits ([`crate::rate`]), shared by every replica on the store.
/// Independent of the unit of work: a store of someone's own may keep them elsewhere.
pub trait RateStore: Send + Sync {
    /// Decides one call under a rate limit: the record of `limit` for `holder` (the
    /// limit's key followed by the caller's tag, when there is a caller) is read, judged by
    /// [`crate::rate::decide`] at `now_ms`, and written back when the call is admitted.
    /// Atomic: of many concurrent calls, no more are admitted than the limit allows, on
    /// every replica sharing the store.
    fn admit<'a>(
        &'a self,
        limit: &'a RateLimit,
        holder: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Admission, StoreError>>;

    /// Forgets records whose window and spacing have passed at `now_ms`; says how many
    /// ([`Purged::counters`]).
    fn purge_counters(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>>;
}
