//! In-process preview store.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::{Consume, KEEP_AFTER_EXPIRY_MS, PreviewStore, StoreError, StoredPreview, judge};

/// Previews in a `HashMap` behind a mutex; `consume` is atomic because it holds the lock.
#[derive(Debug, Default)]
pub struct MemoryPreviewStore {
    entries: Mutex<HashMap<String, (StoredPreview, bool)>>,
}

impl MemoryPreviewStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, (StoredPreview, bool)>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl PreviewStore for MemoryPreviewStore {
    fn insert(&self, preview: &StoredPreview, now_ms: i64) -> Result<(), StoreError> {
        let mut map = self.lock();
        // Sweeping on insert bounds memory by the previews of one TTL window plus a day.
        map.retain(|_, (p, _)| p.expires_at_ms.saturating_add(KEEP_AFTER_EXPIRY_MS) > now_ms);
        map.insert(preview.id.clone(), (preview.clone(), false));
        Ok(())
    }

    fn consume(
        &self,
        tool: &str,
        id: &str,
        fingerprint: &str,
        now_ms: i64,
    ) -> Result<Consume, StoreError> {
        let mut map = self.lock();
        let entry = map.get_mut(id);
        let verdict = judge(
            entry.as_ref().map(|(p, used)| (p, *used)),
            tool,
            fingerprint,
            now_ms,
        );
        if let (Consume::Applied(_), Some((_, used))) = (&verdict, entry) {
            *used = true;
        }
        Ok(verdict)
    }

    fn purge_expired(&self, now_ms: i64) -> Result<usize, StoreError> {
        let mut map = self.lock();
        let before = map.len();
        map.retain(|_, (p, _)| p.expires_at_ms.saturating_add(KEEP_AFTER_EXPIRY_MS) > now_ms);
        Ok(before - map.len())
    }
}
