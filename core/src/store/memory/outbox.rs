//! MemoryStore's outbox.

use super::*; // the backend's rows, helpers and imports

impl crate::store::OutboxStore for MemoryStore {
    fn outbox_pending(
        &self,
        limit: usize,
    ) -> BoxFuture<'_, Result<Vec<OutboxMessage>, StoreError>> {
        let state = lock(&self.state);
        let pending = state
            .outbox
            .iter()
            .filter(|(_, delivered)| !delivered)
            .take(limit)
            .map(|(m, _)| m.clone())
            .collect();
        ready(Ok(pending))
    }

    fn outbox_settle<'a>(
        &'a self,
        id: &'a str,
        ok: bool,
        _now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut state = lock(&self.state);
        if let Some((message, delivered)) = state.outbox.iter_mut().find(|(m, _)| m.id == id) {
            message.attempts += 1;
            *delivered |= ok;
        }
        ready(Ok(()))
    }
}
