//! What a store keeps of a call ([`Outcome`]) and how a store fails ([`StoreError`]): the
//! words of the store's contract that every backend and the engine share.

use serde_json::Value;

use crate::error::ToolError;

/// A stored result of a user's method: its output, or the error it returned.
pub type Outcome = Result<Value, ToolError>;

/// A failure of the store itself (I/O, SQL, a lost race at commit). Nothing of the call it
/// interrupted was committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "store error: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    /// A refusal of a store's method because of how the server is put together (a
    /// connection taken inside a unit of work): it becomes [`ToolError::misconfigured`],
    /// not retryable, when converted. Marked in the message, since `StoreError` is a
    /// public newtype over it.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn misconfigured(fix: &str) -> Self {
        StoreError(format!("{}{fix}", crate::error::MISCONFIGURED))
    }
}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        match crate::error::misconfiguration(&e.0) {
            Some(fix) => ToolError::misconfigured(fix),
            None => ToolError::internal(e),
        }
    }
}
