//! [`MemoryStore`]: the runtime's records in process memory, for tests, development and
//! servers whose keys and previews need not survive a restart.
//!
//! A unit of work here cannot enlist the app's own data (an in-memory `Vec` has no
//! transactions): the runtime's records of a call still commit together, checked again at
//! commit, but what the method changed in memory stays changed if the call then fails.

mod keys;
mod outbox;
mod previews;
mod rates;
mod tasks;
mod transaction;

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use super::{
    Decision, KeyRef, OutboxMessage, Purged, Reservation, Transaction, Verdict, ready, token,
};
use crate::future::BoxFuture;
use crate::preview::{Consume, KEEP_AFTER_EXPIRY_MS, PreviewState, StoredPreview, judge};
use crate::rate::{Admission, Counter, RateLimit, decide};
use crate::store::{Outcome, StoreError};
use crate::task::{TaskRecord, TaskStatus};

#[derive(Debug)]
struct KeyRow {
    fingerprint: String,
    outcome: Option<Outcome>,
    token: String,
    lease_until: i64,
    expires_at: i64,
}

#[derive(Debug)]
struct PreviewRow {
    preview: StoredPreview,
    state: PreviewState,
}

#[derive(Debug, Default)]
struct State {
    keys: HashMap<(String, String), KeyRow>,
    previews: HashMap<String, PreviewRow>,
    decisions: Vec<Decision>,
    outbox: Vec<(OutboxMessage, bool)>,
    leases: u64,
    /// Rate-limit records by holder, with when each may be forgotten.
    counters: HashMap<String, (Counter, i64)>,
    admits: u64,
    tasks: HashMap<String, TaskRecord>,
    /// Made by the first [`crate::store::CursorKeyStore::cursor_key`], shared by the store's clones.
    cursor_key: Option<crate::cursor::CursorKey>,
}

/// Expired keys are swept every this many leases, and spent rate-limit records every this
/// many admits, so memory stays bounded by the records of one TTL window or rate window
/// without scanning the maps on every call.
const SWEEP_EVERY: u64 = 256;

/// Records in a `HashMap` behind a mutex. Cheap to clone: clones share the records.
#[derive(Debug, Default, Clone)]
pub struct MemoryStore {
    state: Arc<Mutex<State>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // Every operation leaves the maps consistent before it can panic, so a poisoned lock
    // still guards consistent data.
    state.lock().unwrap_or_else(|p| p.into_inner())
}

fn id(key: KeyRef<'_>) -> (String, String) {
    (key.tool.to_owned(), key.key.to_owned())
}

fn classify(row: &KeyRow, fingerprint: &str, now_ms: i64) -> Option<Reservation> {
    if row.fingerprint != fingerprint {
        return Some(Reservation::Mismatch);
    }
    match &row.outcome {
        Some(outcome) => Some(Reservation::Replay(outcome.clone())),
        None if row.lease_until > now_ms => Some(Reservation::InProgress {
            lease_until_ms: row.lease_until,
        }),
        None => None,
    }
}

impl State {
    fn live_key(&self, key: KeyRef<'_>, now_ms: i64) -> Option<&KeyRow> {
        self.keys
            .get(&id(key))
            .filter(|row| row.expires_at > now_ms)
    }

    fn holds(&self, key: KeyRef<'_>, token: &str) -> bool {
        self.keys
            .get(&id(key))
            .is_some_and(|row| row.outcome.is_none() && row.token == token)
    }

    fn judge(&self, tool: &str, id: &str, fingerprint: &str, now_ms: i64) -> Consume {
        let found = self.previews.get(id).map(|r| (&r.preview, r.state));
        judge(found, tool, fingerprint, now_ms)
    }
}

impl crate::store::CursorKeyStore for MemoryStore {
    fn cursor_key(&self) -> BoxFuture<'_, Result<crate::cursor::CursorKey, StoreError>> {
        let mut state = lock(&self.state);
        let key = match &state.cursor_key {
            Some(key) => Ok(key.clone()),
            None => crate::cursor::CursorKey::random()
                .map(|key| state.cursor_key.insert(key).clone())
                .map_err(|e| StoreError::Backend(format!("random cursor key: {e}"))),
        };
        ready(key)
    }
}
