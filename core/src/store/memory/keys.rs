//! MemoryStore's keys.

use super::*; // the backend's rows, helpers and imports

impl crate::store::KeyStore for MemoryStore {
    fn lease<'a>(
        &'a self,
        key: KeyRef<'a>,
        fingerprint: &'a str,
        now_ms: i64,
        ttl_ms: i64,
        lease_ms: i64,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>> {
        let result = (|| {
            let mut state = lock(&self.state);
            state.leases += 1;
            if state.leases.is_multiple_of(SWEEP_EVERY) {
                state.keys.retain(|_, row| row.expires_at > now_ms);
            }
            // A live row that classify lets through is an earlier attempt of this call
            // whose lease lapsed without an outcome.
            let earlier = match state.live_key(key, now_ms) {
                Some(row) => match classify(row, fingerprint, now_ms) {
                    Some(answer) => return Ok(answer),
                    None => true,
                },
                None => false,
            };
            let fresh = token("ls_")?;
            state.keys.insert(
                id(key),
                KeyRow {
                    fingerprint: fingerprint.to_owned(),
                    outcome: None,
                    token: fresh.clone(),
                    lease_until: now_ms.saturating_add(lease_ms),
                    expires_at: now_ms.saturating_add(ttl_ms),
                },
            );
            Ok(Reservation::Leased {
                token: fresh,
                earlier,
            })
        })();
        ready(result)
    }

    fn peek<'a>(
        &'a self,
        key: KeyRef<'a>,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Reservation, StoreError>> {
        let state = lock(&self.state);
        let answer = state
            .live_key(key, now_ms)
            .and_then(|row| classify(row, fingerprint, now_ms))
            .unwrap_or(Reservation::Free);
        ready(Ok(answer))
    }

    fn release<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut state = lock(&self.state);
        if state.holds(key, token) {
            state.keys.remove(&id(key));
        }
        ready(Ok(()))
    }

    fn lapse<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut state = lock(&self.state);
        if state.holds(key, token)
            && let Some(row) = state.keys.get_mut(&id(key))
        {
            row.lease_until = row.lease_until.min(now_ms);
        }
        ready(Ok(()))
    }

    fn renew<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
        lease_until_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut state = lock(&self.state);
        let renewed = match state.keys.get_mut(&id(key)) {
            Some(row) if row.token == token && row.outcome.is_none() => {
                row.lease_until = row.lease_until.max(lease_until_ms);
                true
            }
            _ => false,
        };
        ready(Ok(renewed))
    }

    fn complete<'a>(
        &'a self,
        key: KeyRef<'a>,
        token: &'a str,
        outcome: &'a Outcome,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut state = lock(&self.state);
        let held = state.holds(key, token);
        if held && let Some(row) = state.keys.get_mut(&id(key)) {
            row.outcome = Some(outcome.clone());
        }
        ready(Ok(held))
    }

    fn purge_keys(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        let mut state = lock(&self.state);
        let before = state.keys.len();
        state.keys.retain(|_, row| row.expires_at > now_ms);
        let keys = before - state.keys.len();
        ready(Ok(Purged {
            keys,
            ..Purged::default()
        }))
    }
}
