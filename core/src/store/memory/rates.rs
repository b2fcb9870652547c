//! MemoryStore's rates.

use super::*; // the backend's rows, helpers and imports

impl crate::store::RateStore for MemoryStore {
    fn admit<'a>(
        &'a self,
        limit: &'a RateLimit,
        holder: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Admission, StoreError>> {
        let mut state = lock(&self.state);
        state.admits += 1;
        if state.admits.is_multiple_of(SWEEP_EVERY) {
            state.counters.retain(|_, (_, until)| *until > now_ms);
        }
        let counter = state.counters.get(holder).map(|(c, _)| *c);
        let (admission, kept) = decide(limit, counter, now_ms);
        if let (Admission::Admitted, Some(kept)) = (admission, kept) {
            let until = kept.expires_at_ms(limit.per_ms());
            state.counters.insert(holder.to_owned(), (kept, until));
        }
        ready(Ok(admission))
    }

    fn purge_counters(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        let mut state = lock(&self.state);
        let before = state.counters.len();
        state.counters.retain(|_, (_, until)| *until > now_ms);
        let counters = before - state.counters.len();
        ready(Ok(Purged {
            counters,
            ..Purged::default()
        }))
    }
}
