//! In-process idempotency store: for tests, development and single-process servers whose
//! keys need not survive a restart.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use super::{IdempotencyStore, Outcome, Reservation, StoreError};

#[derive(Debug)]
struct Entry {
    fingerprint: String,
    outcome: Option<Outcome>,
    expires_at: i64,
}

/// Keys in a `HashMap` behind a mutex; `begin` is atomic because it holds the lock.
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<(String, String), Entry>>,
    begins: AtomicU64,
}

/// Expired keys are swept every this many `begin`s, so memory stays bounded by the keys
/// of one TTL window without scanning the map on every call.
const SWEEP_EVERY: u64 = 256;

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<(String, String), Entry>> {
        // A panic elsewhere while holding the lock leaves the map consistent (each operation
        // is one insert or remove), so keep serving rather than propagate the poison.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn classify(entry: &Entry, fingerprint: &str) -> Reservation {
    if entry.fingerprint != fingerprint {
        return Reservation::Mismatch;
    }
    match &entry.outcome {
        Some(outcome) => Reservation::Replay(outcome.clone()),
        None => Reservation::InProgress,
    }
}

impl IdempotencyStore for MemoryStore {
    fn begin(
        &self,
        tool: &str,
        key: &str,
        fingerprint: &str,
        now_ms: i64,
        ttl_ms: i64,
    ) -> Result<Reservation, StoreError> {
        let mut map = self.lock();
        if self.begins.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            map.retain(|_, e| e.expires_at > now_ms);
        }
        let id = (tool.to_owned(), key.to_owned());
        if let Some(entry) = map.get(&id)
            && entry.expires_at > now_ms
        {
            return Ok(classify(entry, fingerprint));
        }
        map.insert(
            id,
            Entry {
                fingerprint: fingerprint.to_owned(),
                outcome: None,
                expires_at: now_ms.saturating_add(ttl_ms),
            },
        );
        Ok(Reservation::New)
    }

    fn peek(
        &self,
        tool: &str,
        key: &str,
        fingerprint: &str,
        now_ms: i64,
    ) -> Result<Reservation, StoreError> {
        let map = self.lock();
        Ok(match map.get(&(tool.to_owned(), key.to_owned())) {
            Some(entry) if entry.expires_at > now_ms => classify(entry, fingerprint),
            _ => Reservation::New,
        })
    }

    fn complete(&self, tool: &str, key: &str, outcome: &Outcome) -> Result<(), StoreError> {
        let mut map = self.lock();
        if let Some(entry) = map.get_mut(&(tool.to_owned(), key.to_owned())) {
            entry.outcome = Some(outcome.clone());
        }
        Ok(())
    }

    fn release(&self, tool: &str, key: &str) -> Result<(), StoreError> {
        let mut map = self.lock();
        let id = (tool.to_owned(), key.to_owned());
        if map.get(&id).is_some_and(|e| e.outcome.is_none()) {
            map.remove(&id);
        }
        Ok(())
    }

    fn purge_expired(&self, now_ms: i64) -> Result<usize, StoreError> {
        let mut map = self.lock();
        let before = map.len();
        map.retain(|_, e| e.expires_at > now_ms);
        Ok(before - map.len())
    }
}
