//! The boxed future the runtime's object-safe traits return (the engine's `Toolset`, the
//! stores), in a module of its own so that the layers below the engine need nothing of it.

use std::future::Future;
use std::pin::Pin;

/// A boxed `Send` future, so the runtime's traits stay object safe without extra crates.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
