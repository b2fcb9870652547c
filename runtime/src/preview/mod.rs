//! Previews for irreversible tools: what a call would do, with an id that the apply call
//! must present.
//!
//! A preview is stored as `(id, tool, fingerprint, preview JSON, created_at, expires_at,
//! used)`. Its id is `pv_` followed by 128 random bits in hex, so it cannot be guessed.
//! Applying consumes it: an unknown id (`preview_not_found`), a used one (`preview_used`), an
//! expired one (`preview_expired`) or one made for other arguments or another tool
//! (`preview_mismatch`) is refused, checked in that order. Consuming marks the preview used
//! atomically, so of two concurrent applies with one id exactly one goes ahead.
//!
//! A preview is used from the moment its apply starts: if the apply then fails, the agent
//! asks for a new preview (the change may have been partly made; a fresh preview shows the
//! current state). Rows are kept for [`KEEP_AFTER_EXPIRY_MS`] after expiry so a late apply
//! hears "expired" rather than "not found", then purged.

mod memory;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use memory::MemoryPreviewStore;
#[cfg(feature = "sqlite")]
pub use sqlite::SqlitePreviewStore;

use serde_json::Value;

pub use crate::idempotency::StoreError;

/// How long a preview row outlives its expiry (24 h), to answer `preview_expired`.
pub const KEEP_AFTER_EXPIRY_MS: i64 = 24 * 60 * 60 * 1000;

/// A preview as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPreview {
    /// The id agents pass back as `preview_id`.
    pub id: String,
    /// The tool that made it.
    pub tool: String,
    /// Fingerprint of the previewed arguments.
    pub fingerprint: String,
    /// What the preview closure returned.
    pub preview: Value,
    /// Unix ms after which it cannot be applied.
    pub expires_at_ms: i64,
}

/// What consuming a preview found.
#[derive(Debug, Clone, PartialEq)]
pub enum Consume {
    /// It matched and is now marked used; apply exactly this preview.
    Applied(StoredPreview),
    /// No preview has this id.
    NotFound,
    /// It was applied before.
    Used,
    /// Its time ran out at `expires_at_ms`.
    Expired {
        /// When it expired, Unix ms.
        expires_at_ms: i64,
    },
    /// It was made for another tool or other arguments; it stays usable for those.
    Mismatch,
}

/// Where previews live. `consume` must be atomic: of concurrent consumes of one id, at most
/// one returns [`Consume::Applied`].
pub trait PreviewStore: Send + Sync {
    /// Stores a new preview (the id is made by the caller, see
    /// [`crate::engine::Runtime::gated`]).
    fn insert(&self, preview: &StoredPreview, now_ms: i64) -> Result<(), StoreError>;

    /// Checks `id` against `tool` and `fingerprint` at `now_ms` and, if it may be applied,
    /// marks it used.
    fn consume(
        &self,
        tool: &str,
        id: &str,
        fingerprint: &str,
        now_ms: i64,
    ) -> Result<Consume, StoreError>;

    /// Forgets previews expired more than [`KEEP_AFTER_EXPIRY_MS`] before `now_ms`.
    fn purge_expired(&self, now_ms: i64) -> Result<usize, StoreError>;
}

/// A fresh unguessable preview id: `pv_` + 128 random bits in hex.
pub fn new_preview_id() -> std::io::Result<String> {
    crate::random::token("pv_", 16)
}

/// The shared decision of both stores, given what is stored under the id.
pub(crate) fn judge(
    found: Option<(&StoredPreview, bool)>,
    tool: &str,
    fingerprint: &str,
    now_ms: i64,
) -> Consume {
    match found {
        None => Consume::NotFound,
        Some((_, true)) => Consume::Used,
        Some((p, false)) if p.expires_at_ms <= now_ms => Consume::Expired {
            expires_at_ms: p.expires_at_ms,
        },
        Some((p, false)) if p.tool != tool || p.fingerprint != fingerprint => Consume::Mismatch,
        Some((p, false)) => Consume::Applied(p.clone()),
    }
}
