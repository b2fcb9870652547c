//! MemoryStore's previews.

use super::*; // the backend's rows, helpers and imports

impl crate::store::PreviewStore for MemoryStore {
    fn insert_preview<'a>(
        &'a self,
        preview: &'a StoredPreview,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut state = lock(&self.state);
        let horizon = now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS);
        state
            .previews
            .retain(|_, r| r.preview.expires_at_ms > horizon);
        state.previews.insert(
            preview.id.clone(),
            PreviewRow {
                preview: preview.clone(),
                state: PreviewState::Open,
            },
        );
        ready(Ok(()))
    }

    fn check_preview<'a>(
        &'a self,
        tool: &'a str,
        id: &'a str,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Consume, StoreError>> {
        ready(Ok(lock(&self.state).judge(tool, id, fingerprint, now_ms)))
    }

    fn refuse_preview<'a>(
        &'a self,
        decision: &'a Decision,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut state = lock(&self.state);
        if let Some(row) = state.previews.get_mut(&decision.preview_id)
            && row.state == PreviewState::Open
        {
            row.state = PreviewState::Refused;
        }
        state.decisions.push(decision.clone());
        ready(Ok(()))
    }

    fn decisions<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<Decision>, StoreError>> {
        let state = lock(&self.state);
        let found = state
            .decisions
            .iter()
            .filter(|d| d.preview_id == id)
            .cloned()
            .collect();
        ready(Ok(found))
    }

    fn purge_previews(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        let mut state = lock(&self.state);
        let mut purged = Purged::default();
        let horizon = now_ms.saturating_sub(KEEP_AFTER_EXPIRY_MS);
        state.previews.retain(|_, r| {
            let keep = r.preview.expires_at_ms > horizon;
            if !keep {
                purged.preview(&r.preview.tool, r.state == PreviewState::Open);
            }
            keep
        });
        ready(Ok(purged))
    }
}
