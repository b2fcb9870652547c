//! Previews and the decisions on them: the contract of [`PreviewStore`].

use super::{Purged, StoreError};
use crate::future::BoxFuture;

pub use crate::preview::{Consume, StoredPreview};

/// The person's (or the preview flow's) answer to a preview, as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Approved: the change was applied in the same transaction.
    Approved,
    /// The person said no.
    Declined,
    /// The person dismissed the request without answering.
    Cancelled,
}

impl Verdict {
    /// The word stored and logged: `approved`, `declined` or `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approved => "approved",
            Verdict::Declined => "declined",
            Verdict::Cancelled => "cancelled",
        }
    }
}

/// One approval or refusal of a preview, as recorded in the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The preview decided on, as kept: for a caller over HTTP, the id the caller was shown
    /// followed by `@` and the caller's [`tag`](crate::caller::Caller::tag).
    pub preview_id: String,
    /// Canonical tool name.
    pub tool: String,
    /// Fingerprint of the arguments decided on.
    pub fingerprint: String,
    /// What was decided.
    pub verdict: Verdict,
    /// Who decided: `host:<client name>` when the host asked the person through
    /// elicitation, `preview_id` when the model presented the preview's id (the preview
    /// flow, which catches the model's mistakes but is not a person's approval); over HTTP
    /// with authorization, followed by ` for <subject>`, the caller who asked for the
    /// change ([`crate::caller::Caller::subject`]).
    pub decided_by: String,
    /// When, Unix ms.
    pub decided_at_ms: i64,
}

/// Previews of irreversible changes and the decisions on them. A preview is consumed and an
/// approval recorded inside the unit of work that applies it
/// ([`super::Transaction::consume_preview`], [`super::Transaction::record`]), so a store's
/// previews and its transactions are one table.
pub trait PreviewStore: Send + Sync {
    /// Stores a new preview.
    fn insert_preview<'a>(
        &'a self,
        preview: &'a StoredPreview,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Judges preview `id` for `tool` and `fingerprint` at `now_ms` without consuming it
    /// ([`Consume::Applied`] means "may be applied").
    fn check_preview<'a>(
        &'a self,
        tool: &'a str,
        id: &'a str,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Consume, StoreError>>;

    /// Records a refusal ([`Verdict::Declined`] or [`Verdict::Cancelled`]) and closes the
    /// preview: it can never be applied.
    fn refuse_preview<'a>(
        &'a self,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The recorded decisions on preview `id`, oldest first.
    fn decisions<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<Decision>, StoreError>>;

    /// Forgets previews long past their expiry at `now_ms`, whatever became of them; says
    /// how many, and per tool how many were never used ([`Purged::previews`],
    /// [`Purged::unused_previews`]).
    fn purge_previews(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>>;
}
