//! The key cursors are signed with: the contract of [`CursorKeyStore`].

use super::{StoreError, ready};
use crate::cursor::CursorKey;
use crate::future::BoxFuture;

/// Keeps the key cursors are signed with ([`crate::engine::Runtime::open`] builds a
/// runtime with it): made once, by whichever process asks first, so that every server on
/// the store accepts the cursors any of them issued, and a restart keeps them valid.
pub trait CursorKeyStore: Send + Sync {
    /// The store's cursor key, made on first use. The built-in stores keep one (a
    /// [`super::MemoryStore`] for as long as it lives); the default keeps none and says to
    /// choose one ([`crate::engine::Runtime::new`]).
    fn cursor_key(&self) -> BoxFuture<'_, Result<CursorKey, StoreError>> {
        ready(Err(StoreError::Unsupported(
            "this store keeps no cursor key: choose one and build the runtime with \
             `Runtime::new(key, store)`"
                .into(),
        )))
    }
}
