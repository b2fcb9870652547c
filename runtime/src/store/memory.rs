//! [`MemoryStore`]: the runtime's records in process memory, for tests, development and
//! servers whose keys and previews need not survive a restart.
//!
//! A unit of work here cannot enlist the app's own data (an in-memory `Vec` has no
//! transactions): the runtime's records of a call still commit together, checked again at
//! commit, but what the method changed in memory stays changed if the call then fails.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use super::{
    Decision, KeyRef, OutboxMessage, Purged, Reservation, Store, Transaction, Verdict, ready, token,
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
    /// Made by the first [`Store::cursor_key`], shared by the store's clones.
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

impl Store for MemoryStore {
    fn cursor_key(&self) -> BoxFuture<'_, Result<crate::cursor::CursorKey, StoreError>> {
        let mut state = lock(&self.state);
        let key = match &state.cursor_key {
            Some(key) => Ok(key.clone()),
            None => crate::cursor::CursorKey::random()
                .map(|key| state.cursor_key.insert(key).clone())
                .map_err(|e| StoreError(format!("random cursor key: {e}"))),
        };
        ready(key)
    }

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

    fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>> {
        let tx: Box<dyn Transaction> = Box::new(MemoryTransaction {
            state: Arc::clone(&self.state),
            pending: Vec::new(),
        });
        ready(Ok(tx))
    }

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

    fn purge_expired(&self, now_ms: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
        let mut state = lock(&self.state);
        let keys = state.keys.len();
        state.keys.retain(|_, row| row.expires_at > now_ms);
        let counters = state.counters.len();
        state.counters.retain(|_, (_, until)| *until > now_ms);
        let mut purged = Purged {
            keys: keys - state.keys.len(),
            counters: counters - state.counters.len(),
            ..Purged::default()
        };
        let tasks = state.tasks.len();
        state.tasks.retain(|_, t| t.expires_ms > now_ms);
        purged.tasks = tasks - state.tasks.len();
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

    fn task_create<'a>(&'a self, task: &'a TaskRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut state = lock(&self.state);
        let now = task.created_ms;
        state.tasks.retain(|_, t| t.expires_ms > now);
        if state.tasks.contains_key(&task.id) {
            return ready(Err(StoreError(format!("task {} exists", task.id))));
        }
        state.tasks.insert(task.id.clone(), task.clone());
        ready(Ok(()))
    }

    fn task_get<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let state = lock(&self.state);
        let found = state.tasks.get(id).filter(|t| t.expires_ms > now_ms);
        ready(Ok(found.cloned()))
    }

    fn task_beat<'a>(
        &'a self,
        id: &'a str,
        now_ms: i64,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<TaskStatus>, StoreError>> {
        let mut state = lock(&self.state);
        let Some(task) = state.tasks.get_mut(id) else {
            return ready(Ok(None));
        };
        if task.status == TaskStatus::Working {
            task.beat_ms = now_ms;
            if let Some(message) = message
                && task.message.as_deref() != Some(message)
            {
                task.message = Some(message.to_owned());
                task.updated_ms = now_ms;
            }
        }
        ready(Ok(Some(task.status)))
    }

    fn task_settle<'a>(
        &'a self,
        id: &'a str,
        status: TaskStatus,
        outcome: Option<&'a Value>,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut state = lock(&self.state);
        let Some(task) = state.tasks.get_mut(id) else {
            return ready(Ok(false));
        };
        if task.status != TaskStatus::Working {
            return ready(Ok(false));
        }
        task.status = status;
        task.outcome = outcome.cloned();
        task.updated_ms = now_ms;
        ready(Ok(true))
    }
}

/// What a memory transaction will do at commit, checked again there under the lock.
#[derive(Debug)]
enum Pending {
    Fence {
        key: (String, String),
        token: String,
    },
    Complete {
        key: (String, String),
        outcome: Outcome,
    },
    Consume {
        id: String,
    },
    Record(Decision),
    Outbox(OutboxMessage),
}

/// Writes buffered until commit, which re-checks every fence and preview under the lock:
/// optimistic, so a method may take its time without blocking other calls.
struct MemoryTransaction {
    state: Arc<Mutex<State>>,
    pending: Vec<Pending>,
}

impl Transaction for MemoryTransaction {
    fn holds<'a>(
        &'a mut self,
        key: KeyRef<'a>,
        token: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let held = lock(&self.state).holds(key, token);
        if held {
            self.pending.push(Pending::Fence {
                key: id(key),
                token: token.to_owned(),
            });
        }
        ready(Ok(held))
    }

    fn complete<'a>(
        &'a mut self,
        key: KeyRef<'a>,
        outcome: &'a Outcome,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.pending.push(Pending::Complete {
            key: id(key),
            outcome: outcome.clone(),
        });
        ready(Ok(()))
    }

    fn consume_preview<'a>(
        &'a mut self,
        tool: &'a str,
        id: &'a str,
        fingerprint: &'a str,
        now_ms: i64,
    ) -> BoxFuture<'a, Result<Consume, StoreError>> {
        let already = self
            .pending
            .iter()
            .any(|p| matches!(p, Pending::Consume { id: c } if c == id));
        let verdict = match lock(&self.state).judge(tool, id, fingerprint, now_ms) {
            Consume::Applied(_) if already => Consume::Used,
            other => other,
        };
        if matches!(verdict, Consume::Applied(_)) {
            self.pending.push(Pending::Consume { id: id.to_owned() });
        }
        ready(Ok(verdict))
    }

    fn record<'a>(&'a mut self, decision: &'a Decision) -> BoxFuture<'a, Result<(), StoreError>> {
        self.pending.push(Pending::Record(decision.clone()));
        ready(Ok(()))
    }

    fn push_outbox<'a>(
        &'a mut self,
        topic: &'a str,
        payload: &'a Value,
        _now_ms: i64,
    ) -> BoxFuture<'a, Result<String, StoreError>> {
        ready(token("ob_").inspect(|id| {
            self.pending.push(Pending::Outbox(OutboxMessage {
                id: id.clone(),
                topic: topic.to_owned(),
                payload: payload.clone(),
                attempts: 0,
            }));
        }))
    }

    fn commit(self: Box<Self>) -> BoxFuture<'static, Result<(), StoreError>> {
        ready((*self).commit_now())
    }

    fn backend(&mut self) -> &mut dyn Any {
        self
    }

    fn backend_ref(&self) -> &dyn Any {
        self
    }
}

impl MemoryTransaction {
    /// Checks the fences and preview claims again, then applies every pending record at
    /// once, under the one lock.
    fn commit_now(self) -> Result<(), StoreError> {
        let mut state = lock(&self.state);
        for p in &self.pending {
            let ok = match p {
                Pending::Fence { key, token } => state
                    .keys
                    .get(key)
                    .is_some_and(|row| row.outcome.is_none() && &row.token == token),
                Pending::Consume { id } => state
                    .previews
                    .get(id)
                    .is_some_and(|r| r.state == PreviewState::Open),
                _ => true,
            };
            if !ok {
                return Err(StoreError(
                    "conflict: another call committed first; nothing of this one was stored".into(),
                ));
            }
        }
        for p in self.pending {
            match p {
                Pending::Fence { .. } => {}
                Pending::Complete { key, outcome } => {
                    if let Some(row) = state.keys.get_mut(&key) {
                        row.outcome = Some(outcome);
                    }
                }
                Pending::Consume { id } => {
                    if let Some(row) = state.previews.get_mut(&id) {
                        row.state = PreviewState::Used;
                    }
                }
                Pending::Record(d) => {
                    debug_assert_eq!(d.verdict, Verdict::Approved);
                    state.decisions.push(d);
                }
                Pending::Outbox(m) => state.outbox.push((m, false)),
            }
        }
        Ok(())
    }
}
