//! [`Effect`]: where a write's change happens, and [`Remote`]: what a method whose change
//! happens at another service is handed to keep a retry from making it twice.
//!
//! A [`Work`] commits the method's writes with the call's records in one transaction, so a
//! change made through it happens exactly once per idempotency key. A change made at a
//! service the server does not own (a payments API, a code host, a chat service) cannot
//! join that transaction: if the process dies after the service made the change and before
//! the commit, the record rolls back and the change stays. A retry would make it again,
//! unless the service can tell it is a retry. Two ways it can:
//!
//! - it honours an idempotency key ([`Effect::RemoteKeyed`]): send [`Remote::key`], the
//!   same on every retry of one call, and the service makes the change once per key;
//! - it can be asked whether a change was made ([`Effect::RemoteLookup`]): tag the change
//!   with [`Remote::key`] (a client reference, a metadata field, a branch name), and when
//!   [`Remote::earlier_attempt`] says an earlier attempt of this very call may have made it,
//!   look it up by that tag before making it.
//!
//! Neither ([`Effect::RemoteUnprotected`]): a retry may make the change twice, and every
//! output of the spec says so.

use super::Work;

pub use crate::effect::Effect;

/// What one attempt of a write knows about itself, kept in its [`Work`].
#[derive(Debug, Clone)]
pub(crate) struct Attempt {
    /// The key to forward: derived from the tool, the caller's idempotency key and the
    /// arguments, so every retry of one call sends the same one; random for a call
    /// without a key (which runs again on every retry, as its words say).
    pub(crate) key: String,
    /// An earlier attempt of this call leased the key and never recorded an outcome.
    pub(crate) earlier: bool,
}

impl Attempt {
    /// The attempt of a call to `tool` with `key` (if any) and these arguments'
    /// `fingerprint`.
    pub(crate) fn new(tool: &str, key: Option<&str>, fingerprint: &str, earlier: bool) -> Self {
        use sha2::{Digest, Sha256};
        let key = match key {
            // Bound to the arguments too: the same caller key sent later with other
            // arguments (after its record expired) must not reach the service as a retry
            // of the first call, which a keyed service would refuse or, worse, replay.
            Some(key) => {
                let mut h = Sha256::new();
                for part in ["toolspec remote key", tool, key, fingerprint] {
                    h.update(part.as_bytes());
                    h.update([0]);
                }
                format!("tsk_{}", &crate::random::hex(&h.finalize())[..40])
            }
            None => crate::random::token("tsk_", 20).unwrap_or_else(|_| {
                // No randomness: a per-process counter still never repeats within the
                // process, and without a key nothing else is promised.
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                format!("tsk_local_{n}_{}", std::process::id())
            }),
        };
        Attempt { key, earlier }
    }
}

/// What a write method whose change happens at a remote service is handed (spec `effect:
/// remote_keyed` or `remote_lookup`), in place of a bare [`Work`].
///
/// ```ignore
/// async fn payments_charge(&self, input: ChargeInput, remote: Remote) -> Result<ChargeOutput, ToolError> {
///     // remote_lookup: a retry after an unknown outcome looks the charge up first.
///     if remote.earlier_attempt()
///         && let Some(charge) = self.api.find_charge_by_reference(remote.key()).await?
///     {
///         return Ok(charge.into());
///     }
///     // remote_keyed: the service dedupes on the header.
///     let charge = self.api.create_charge(&input, remote.key()).await?;
///     Ok(charge.into())
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Remote {
    work: Work,
}

impl Remote {
    /// The key that identifies this call at the remote service: the same on every retry of
    /// the same call (same tool, idempotency key and arguments), different for any other
    /// call. Send it as the service's idempotency key (`Idempotency-Key` header) or store it
    /// on the change as a reference to find it by. `tsk_` and 40 hex digits; a call made
    /// without an idempotency key gets a fresh one each time it runs.
    pub fn key(&self) -> &str {
        &self.work.attempt().key
    }

    /// Whether an earlier attempt of this very call (same key, same arguments) started and
    /// never recorded an outcome: the process died, or the answer was lost, after it may
    /// have made the change. Then look the change up by [`Remote::key`] before making it;
    /// `false` means no earlier attempt can have made it. The runtime learns this from the
    /// key's lease, recorded before the method runs, so it survives the process on a store
    /// that does (SQLite, PostgreSQL), not on [`crate::store::MemoryStore`].
    pub fn earlier_attempt(&self) -> bool {
        self.work.attempt().earlier
    }

    /// The call's unit of work, for records of the change kept in the runtime's store
    /// (they commit with the call's records, or not at all).
    pub fn work(&self) -> &Work {
        &self.work
    }
}

impl From<Work> for Remote {
    fn from(work: Work) -> Self {
        Remote { work }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_the_same_for_a_retry_and_different_for_anything_else() {
        let key = |tool, key, fp| Attempt::new(tool, key, fp, false).key;
        let first = key("pay", Some("k1"), "fp1");
        assert_eq!(first, key("pay", Some("k1"), "fp1"));
        assert!(first.starts_with("tsk_") && first.len() == 44, "{first}");
        for other in [
            key("refund", Some("k1"), "fp1"),
            key("pay", Some("k2"), "fp1"),
            key("pay", Some("k1"), "fp2"),
            // The parts are separated: moving a byte between them changes the key.
            key("pa", Some("yk1"), "fp1"),
        ] {
            assert_ne!(first, other);
        }
        assert_ne!(key("pay", None, "fp1"), key("pay", None, "fp1"));
    }
}
