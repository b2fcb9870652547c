//! Messages for systems outside the store: the contract of [`OutboxStore`].

use serde_json::Value;

use super::StoreError;
use crate::future::BoxFuture;

/// A message for a system outside the store, written by a unit of work
/// ([`super::Work::outbox`]) and delivered after it committed.
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

/// The outbox, read by the deliverer ([`crate::engine::Runtime::deliver_outbox`]). Messages
/// are written inside a unit of work ([`super::Transaction::push_outbox`]).
pub trait OutboxStore: Send + Sync {
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
}
