//! Previews for irreversible tools: what a call would do, with an id that the apply call
//! must present.
//!
//! A preview is stored as `(id, tool, fingerprint, preview JSON, created_at, expires_at,
//! used)`. Its id is `pv_` followed by 128 random bits in hex, so it cannot be guessed.
//! Applying consumes it: an unknown id (`preview_not_found`), a used one (`preview_used`), an
//! expired one (`preview_expired`) or one made for other arguments or another tool
//! (`preview_mismatch`) is refused, checked in that order. Consuming marks the preview used
//! atomically, so of two concurrent applies with one id exactly one commits.
//!
//! A preview is used only when its apply committed: consuming it is part of the apply's
//! unit of work ([`crate::store`]), so an apply that fails leaves it usable, and
//! `preview_used` always means the change was made. A preview the person declined (or
//! dismissed) through the host is closed: `approval_declined`, whatever id the model sends.
//! Rows are kept for [`KEEP_AFTER_EXPIRY_MS`] after expiry so a late apply
//! hears "expired" rather than "not found", then purged.

use serde_json::Value;

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
    /// The person declined or dismissed it: it can never be applied.
    Refused,
}

/// Where a stored preview is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewState {
    /// Not applied yet.
    Open,
    /// Applied: its effect committed.
    Used,
    /// Declined or dismissed by the person.
    Refused,
}

impl PreviewState {
    /// The word stored in SQL.
    pub fn as_str(self) -> &'static str {
        match self {
            PreviewState::Open => "open",
            PreviewState::Used => "used",
            PreviewState::Refused => "refused",
        }
    }

    /// The state a stored word names (unknown words read as `Refused`: never applicable).
    pub fn parse(word: &str) -> Self {
        match word {
            "open" => PreviewState::Open,
            "used" => PreviewState::Used,
            _ => PreviewState::Refused,
        }
    }
}

/// A fresh unguessable preview id: `pv_` + 128 random bits in hex.
pub fn new_preview_id() -> std::io::Result<String> {
    crate::random::token("pv_", 16)
}

/// The shared decision of both stores, given what is stored under the id.
pub(crate) fn judge(
    found: Option<(&StoredPreview, PreviewState)>,
    tool: &str,
    fingerprint: &str,
    now_ms: i64,
) -> Consume {
    match found {
        None => Consume::NotFound,
        Some((_, PreviewState::Used)) => Consume::Used,
        Some((_, PreviewState::Refused)) => Consume::Refused,
        Some((p, _)) if p.expires_at_ms <= now_ms => Consume::Expired {
            expires_at_ms: p.expires_at_ms,
        },
        Some((p, _)) if p.tool != tool || p.fingerprint != fingerprint => Consume::Mismatch,
        Some((p, _)) => Consume::Applied(p.clone()),
    }
}
