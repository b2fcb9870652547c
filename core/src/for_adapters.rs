//! What toolspec's own adapter crates (`toolspec-mcp`, `toolspec-gauntlet`) use of the core's
//! insides, in one place: the seam between the core and the crates built on it.
//!
//! Hidden from the docs and exempt from semver: nothing here is for a server's own code,
//! and it changes whenever the adapters do. Each item forwards to the one place its
//! behaviour is written.

use std::borrow::Cow;
use std::future::Future;

use crate::caller::Caller;
use crate::store::StoreError;

/// Sends `cause` to the incident hook under a fresh incident id and returns the id
/// ([`crate::error::set_incident_hook`]).
pub fn log_incident(cause: &str) -> String {
    crate::error::log_incident(cause)
}

/// A caller's text as a message may echo it: bounded, control characters escaped.
pub fn echo(text: &str) -> String {
    crate::text::echo(text)
}

/// The name a record of `caller` is kept under (its tag appended), or `name` itself
/// without a caller.
pub fn bound_for<'a>(caller: Option<&Caller>, name: &'a str) -> Cow<'a, str> {
    crate::caller::bound_for(caller, name)
}

/// A name kept by [`bound_for`] as its caller was given it.
pub fn unbound(kept: &str) -> &str {
    crate::caller::unbound(kept)
}

/// A fresh random id: `prefix` + 64 random bits in hex.
pub fn token(prefix: &str) -> Result<String, StoreError> {
    crate::store::token(prefix)
}

/// Runs `main` with `side` polled beside it until `main` ends: `main`'s output.
pub async fn alongside<F: Future, S: Future<Output = ()>>(main: F, side: S) -> F::Output {
    crate::engine::alongside(main, side).await
}

/// A JSON Pointer token for `key` (`~` and `/` escaped).
pub fn escape_pointer(key: &str) -> String {
    crate::problem::escape_pointer(key)
}

/// Whether the cause of an incident is a fault in how the server is put together
/// ([`crate::ToolError::misconfigured`]), not the implementation's failure.
pub fn is_misconfiguration(cause: &str) -> bool {
    cause.starts_with(crate::error::MISCONFIGURED)
}
