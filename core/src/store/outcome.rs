//! What a store keeps of a call ([`Outcome`]) and how a store fails ([`StoreError`]): the
//! words of the store's contract that every backend and the engine share.

use serde_json::Value;

use crate::error::ToolError;

/// A stored result of a user's method: its output, or the error it returned.
pub type Outcome = Result<Value, ToolError>;

/// A failure of a store: nothing of the call it interrupted was committed.
///
/// Non-exhaustive: match the kinds you act on and treat the rest as [`StoreError::Backend`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// The backend failed: I/O, SQL, a pool, a lost race at commit. What failed, in words.
    Backend(String),
    /// The server is put together wrong (a connection taken inside a unit of work): the
    /// fix, in words. Becomes [`ToolError::misconfigured`], not retryable.
    Misconfigured(String),
    /// The store keeps no records of this kind (tasks, a cursor key): what to implement
    /// or choose instead.
    Unsupported(String),
}

impl StoreError {
    /// A failure of the backend, from anything that says what failed.
    pub fn backend(cause: impl std::fmt::Display) -> Self {
        StoreError::Backend(cause.to_string())
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Backend(cause) => write!(f, "store error: {cause}"),
            StoreError::Misconfigured(fix) => {
                write!(f, "store error: {}{fix}", crate::error::MISCONFIGURED)
            }
            StoreError::Unsupported(what) => write!(f, "store error: {what}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Misconfigured(fix) => ToolError::misconfigured(&fix),
            other => ToolError::internal(other),
        }
    }
}
