//! Units of work: the contract of [`WorkStore`] and its [`Transaction`].

use std::any::Any;

use serde_json::Value;

use super::{Consume, Decision, KeyRef, Outcome, StoreError};
use crate::future::BoxFuture;

/// Opens units of work: one transaction for the user's writes and the runtime's records of
/// the call (the key's outcome, the preview consumed, the approval, the outbox), committed
/// together. The keys, previews and outbox a transaction writes are the store's own
/// ([`super::KeyStore`], [`super::PreviewStore`], [`super::OutboxStore`]).
pub trait WorkStore: Send + Sync {
    /// Opens a unit of work.
    fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>>;
}

/// One open transaction of a [`WorkStore`]. Dropping it without [`Transaction::commit`] rolls
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

    /// The backend's own transaction, for [`super::Work`]'s typed accessors.
    fn backend(&mut self) -> &mut dyn Any;

    /// The backend's own transaction, shared.
    fn backend_ref(&self) -> &dyn Any;

    /// The identity of the app's shared connection this transaction holds while it is
    /// open (the [`crate::sqlite::Database`], a `PostgresStore`'s pool), if any: taking
    /// that connection again inside the write method is refused at once, instead of
    /// waiting for itself.
    fn connection_id(&self) -> Option<usize> {
        None
    }
}
