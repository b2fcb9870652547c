//! MemoryStore's units of work.

use super::*; // the backend's rows, helpers and imports

impl crate::store::WorkStore for MemoryStore {
    fn begin(&self) -> BoxFuture<'_, Result<Box<dyn Transaction>, StoreError>> {
        let tx: Box<dyn Transaction> = Box::new(MemoryTransaction {
            state: Arc::clone(&self.state),
            pending: Vec::new(),
        });
        ready(Ok(tx))
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
                return Err(StoreError::Backend(
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
