//! The write path of [`Runtime`]: a keyed call leases its key, runs the method in a unit of
//! work, and commits the method's writes with the call's records; every way that can fail
//! answers what is true afterwards.

use std::future::Future;
use std::time::Duration;

use serde_json::Value;

use super::runtime::Runtime;
use crate::error::ToolError;
use crate::idempotency::Outcome;
use crate::preview::Consume;
use crate::rate::RateLimit;

/// What a call is held to besides its arguments: how many calls its caller may make
/// ([`crate::rate`]) and how long its method may run ([`Runtime::within`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct CallLimits<'a> {
    /// The tool's rate limit, if any.
    pub rate: Option<&'a RateLimit>,
    /// The tool's time limit, if any.
    pub time: Option<Duration>,
}
use crate::store::{Attempt, Decision, Effect, KeyRef, Reservation, Work};

impl Runtime {
    /// Runs a write at most once per idempotency key, in a unit of work (see
    /// [`crate::idempotency`] and [`crate::store`]).
    ///
    /// `run` gets the [`Work`] to write through. Without a key it runs once, and its writes
    /// commit when it returns `Ok`. With one: a free key is leased, `run` runs, and its
    /// writes commit together with the key's outcome; a finished key with the same
    /// fingerprint returns the stored outcome without running (`"replayed": true`); other
    /// arguments give `idempotency_key_reused`, a live lease `idempotency_in_progress`.
    /// Successful results are objects and get `"replayed": false` on a first run.
    /// Non-retryable errors from `run` are stored and replayed (its writes rolled back);
    /// retryable ones roll back and give the key up so a retry runs again.
    ///
    /// `fingerprint` must come from the validated arguments, and validation must happen
    /// before this call: a call that fails validation never reaches the store.
    pub async fn idempotent<F, Fut>(
        &self,
        tool: &str,
        key: Option<&str>,
        fingerprint: &str,
        ttl: Duration,
        run: F,
    ) -> Result<Value, ToolError>
    where
        F: FnOnce(Work) -> Fut,
        Fut: Future<Output = Outcome>,
    {
        self.idempotent_at(Effect::Store, tool, key, fingerprint, ttl, run)
            .await
    }

    /// [`Runtime::idempotent`] for a write whose change happens where `effect` says: the
    /// [`Work`] handed to `run` carries the key to forward and whether an earlier attempt
    /// may have made the change ([`crate::store::Remote`]), and a call whose method ran
    /// but whose outcome could not be recorded says the change may have been made, instead
    /// of "nothing was changed".
    pub async fn idempotent_at<F, Fut>(
        &self,
        effect: Effect,
        tool: &str,
        key: Option<&str>,
        fingerprint: &str,
        ttl: Duration,
        run: F,
    ) -> Result<Value, ToolError>
    where
        F: FnOnce(Work) -> Fut,
        Fut: Future<Output = Outcome>,
    {
        self.idempotent_within(
            effect,
            CallLimits::default(),
            tool,
            key,
            fingerprint,
            ttl,
            run,
        )
        .await
    }

    /// [`Runtime::idempotent_at`] held to `limits`: once the key is leased, the call is
    /// counted against its rate limit ([`crate::rate`]) before `run` runs (a call past it
    /// gives the key back and is refused with `rate_limited`, nothing done; a replay or a
    /// key in progress answers before that, and counts nothing), and `run` is stopped at its
    /// time limit (`timeout`: its writes roll back and the key is given back).
    #[allow(clippy::too_many_arguments)]
    pub async fn idempotent_within<F, Fut>(
        &self,
        effect: Effect,
        limits: CallLimits<'_>,
        tool: &str,
        key: Option<&str>,
        fingerprint: &str,
        ttl: Duration,
        run: F,
    ) -> Result<Value, ToolError>
    where
        F: FnOnce(Work) -> Fut,
        Fut: Future<Output = Outcome>,
    {
        let record = crate::caller::bound(tool);
        let lease = match self.lease_key(tool, &record, key, fingerprint, ttl).await? {
            Ok(lease) => lease,
            Err(answer) => return answer,
        };
        let write = Write {
            time_limit: limits.time,
            ..Write::new(tool, fingerprint, effect, lease.as_ref())
        };
        self.admit_write(limits.rate, &write).await?;
        self.record_invocation(tool, false);
        self.commit_write(write, run).await
    }

    /// Counts a write against its rate limit once its key is leased, before its method
    /// runs; a call past the limit gives its key back (nothing ran) and is refused.
    pub(super) async fn admit_write(
        &self,
        limit: Option<&RateLimit>,
        write: &Write<'_>,
    ) -> Result<(), ToolError> {
        if let Err(refused) = self.admit(write.tool, limit).await {
            self.release(write).await;
            return Err(refused);
        }
        Ok(())
    }

    /// Leases the call's `key`, if it has one: `Ok` with the lease (`None` without a key),
    /// or `Err(answer)` when the key already answers (a replay, a mismatch, a live lease).
    ///
    /// The key is kept under `record`, the tool's name bound to the caller
    /// ([`crate::caller::bound`]): another caller's same key is another record.
    pub(super) async fn lease_key<'k>(
        &self,
        tool: &str,
        record: &'k str,
        key: Option<&'k str>,
        fingerprint: &str,
        ttl: Duration,
    ) -> Result<Result<Option<Held<'k>>, Result<Value, ToolError>>, ToolError> {
        let Some(key) = key else {
            return Ok(Ok(None));
        };
        let now = self.now_ms();
        let r = self
            .stores
            .keys
            .lease(
                KeyRef { tool: record, key },
                fingerprint,
                now,
                ttl_ms(ttl),
                ttl_ms(self.lease),
            )
            .await?;
        Ok(match r {
            Reservation::Leased { token, earlier } => Ok(Some((
                KeyRef { tool: record, key },
                Lease { token, earlier },
            ))),
            other => Err(answer_existing(other, tool, key, now)
                .unwrap_or_else(|| Err(ToolError::not_applied(tool, "lease answered free")))),
        })
    }

    /// Runs `run` in a unit of work and commits its writes with the records `write` names:
    /// the key's outcome (fenced by its lease token), the preview's consumption, the
    /// approval. On any failure nothing of it stays, the lease is given back, and the
    /// answer says what is true now.
    pub(super) async fn commit_write<F, Fut>(
        &self,
        write: Write<'_>,
        run: F,
    ) -> Result<Value, ToolError>
    where
        F: FnOnce(Work) -> Fut,
        Fut: Future<Output = Outcome>,
    {
        let mut tx = match self.stores.work.begin().await {
            Ok(tx) => tx,
            Err(e) => return Err(self.give_up(&write, e).await),
        };
        // The lease and the preview are claimed first, inside the transaction: a call
        // that lost either runs nothing (and on a store that checks again at commit, the
        // claim is checked again there).
        let now = self.now_ms();
        let claimed = async {
            if let Some((key, token)) = write.lease
                && !tx.holds(key, token).await?
            {
                return Ok(false);
            }
            if let Some(id) = write.preview
                && !matches!(
                    tx.consume_preview(write.tool, id, write.fingerprint, now)
                        .await?,
                    Consume::Applied(_)
                )
            {
                return Ok(false);
            }
            Ok::<_, crate::idempotency::StoreError>(true)
        }
        .await;
        match claimed {
            Ok(true) => {}
            Ok(false) => {
                drop(tx);
                return self.explain_lost(&write).await;
            }
            Err(e) => {
                drop(tx);
                return Err(self.give_up(&write, e).await);
            }
        }
        // Derived from the record's name, so two callers' same key forwards two keys.
        let attempt = Attempt::new(
            write.lease.map_or(write.tool, |(key, _)| key.tool),
            write.lease.map(|(key, _)| key.key),
            write.fingerprint,
            write.earlier,
        );
        // The method runs marked with the connection its unit of work holds, so that taking
        // that connection again inside it is refused at once rather than waiting forever.
        let held = tx.connection_id();
        let work = Work::new(tx, now, attempt);
        let method = self.within(
            write.tool,
            write.time_limit,
            Some(write.effect),
            crate::store::held::holding(held, run(work.clone())),
        );
        let outcome = self.renewing(&write, method).await;
        // From here on the method has run: a change it made outside the store stays,
        // whatever becomes of this transaction.
        let write = Write { ran: true, ..write };
        let Some(mut tx) = work.finish() else {
            return Err(self
                .give_up(
                    &write,
                    crate::idempotency::StoreError::Backend("unit of work taken twice".into()),
                )
                .await);
        };
        let value = match outcome {
            Ok(value) => mark(value, "replayed", false),
            Err(e) if e.retryable => {
                drop(tx);
                self.release(&write).await;
                return Err(e);
            }
            Err(e) => {
                // The method's writes roll back; a keyed call stores the refusal, which a
                // retry replays (Stripe's rule).
                drop(tx);
                let Some((key, token)) = write.lease else {
                    return Err(e);
                };
                let stored = Err(e);
                return match self.stores.keys.complete(key, token, &stored).await {
                    Ok(true) => stored,
                    Ok(false) => self.explain_lost(&write).await,
                    Err(se) => {
                        self.release(&write).await;
                        crate::error::log_incident(&format!(
                            "idempotency store for {}: {se}",
                            write.tool
                        ));
                        stored
                    }
                };
            }
        };
        let done = Ok(value.clone());
        let recorded = async {
            if let Some((key, _)) = write.lease {
                tx.complete(key, &done).await?;
            }
            if let Some(decision) = &write.approval {
                tx.record(decision).await?;
            }
            Ok::<_, crate::idempotency::StoreError>(())
        }
        .await;
        if let Err(e) = recorded {
            drop(tx);
            return Err(self.give_up(&write, e).await);
        }
        if self.hooks.take_failing_commit() {
            // A fault the gauntlet made on purpose: the same answer as a real failed
            // commit, without an incident for the operator.
            drop(tx);
            self.release(&write).await;
            return Err(write.not_recorded(None));
        }
        match tx.commit().await {
            Ok(()) => {
                for change in work.committed() {
                    change();
                }
                Ok(value)
            }
            Err(_) => self.explain_lost(&write).await,
        }
    }

    /// Runs a write's `method`, renewing its lease (if it holds one) every third of the
    /// lease while it runs: a write holds its key for as long as it truly runs, and a key
    /// whose process died is free one lease after its last renewal. A renewal that finds
    /// the lease lost stops renewing; the commit is then refused (fencing), as before.
    async fn renewing<F: Future>(&self, write: &Write<'_>, method: F) -> F::Output {
        let Some((key, token)) = write.lease else {
            return method.await;
        };
        let lease_ms = ttl_ms(self.lease);
        let heartbeat = async {
            let every = u64::try_from(lease_ms / 3).unwrap_or(1).max(1);
            while let Some(sleep) = self.clock.sleep(every) {
                sleep.await;
                let until = self.now_ms().saturating_add(lease_ms);
                if !matches!(self.stores.keys.renew(key, token, until).await, Ok(true)) {
                    return;
                }
            }
        };
        super::alongside(method, heartbeat).await
    }

    /// Gives the key back after a call that committed nothing. After a method whose change
    /// happens at a service it can query (`remote_lookup`) ran, the key is kept in progress
    /// with its lease ended instead, so the retry is told of this attempt
    /// ([`crate::store::Remote::earlier_attempt`]) rather than finding the key free.
    async fn release(&self, write: &Write<'_>) {
        let Some((key, token)) = write.lease else {
            return;
        };
        let released = if write.ran && write.effect == Effect::RemoteLookup {
            self.stores.keys.lapse(key, token, self.now_ms()).await
        } else {
            self.stores.keys.release(key, token).await
        };
        if let Err(e) = released {
            // The lease lapses by itself; until then a retry hears "in progress", truly
            // bounded by the lease.
            crate::error::log_incident(&format!("releasing a lease of {}: {e}", write.tool));
        }
    }

    /// The store failed before anything committed: give the lease back and say so.
    async fn give_up(&self, write: &Write<'_>, e: crate::idempotency::StoreError) -> ToolError {
        self.release(write).await;
        let incident = crate::error::log_incident(&e.to_string());
        write.not_recorded(Some(&incident))
    }

    /// A commit that did not happen (lost lease, preview taken, store conflict): nothing of
    /// this call stayed; answer what the records say now.
    async fn explain_lost(&self, write: &Write<'_>) -> Result<Value, ToolError> {
        self.release(write).await;
        let now = self.now_ms();
        if let Some((key, _)) = write.lease
            && let Ok(found) = self.stores.keys.peek(key, write.fingerprint, now).await
            && let Some(answer) = answer_existing(found, key.tool, key.key, now)
        {
            return answer;
        }
        if let Some(id) = write.preview
            && let Ok(verdict) = self
                .stores
                .previews
                .check_preview(write.tool, id, write.fingerprint, now)
                .await
            && let Some(refusal) = refusal(write.tool, id, verdict)
        {
            return Err(refusal);
        }
        let incident =
            crate::error::log_incident("the commit did not happen (lost lease or conflict)");
        Err(write.not_recorded(Some(&incident)))
    }
}

/// A call's key and the lease it holds on it.
pub(super) type Held<'k> = (KeyRef<'k>, Lease);

/// A key leased to one call.
pub(super) struct Lease {
    /// The fencing token.
    pub(super) token: String,
    /// Taken over from an earlier attempt of the same call that recorded no outcome.
    pub(super) earlier: bool,
}

/// What one unit of work commits besides the method's own writes.
pub(super) struct Write<'a> {
    pub(super) tool: &'a str,
    pub(super) fingerprint: &'a str,
    /// The idempotency key and the lease token that must still hold it.
    pub(super) lease: Option<(KeyRef<'a>, &'a str)>,
    /// The lease was taken over from an earlier attempt that recorded no outcome.
    pub(super) earlier: bool,
    /// Where the method's change happens.
    pub(super) effect: Effect,
    /// Whether the method has run (set by [`Runtime::commit_write`]): from then on a
    /// remote change may have been made, whatever the store does.
    pub(super) ran: bool,
    /// The preview this write applies.
    pub(super) preview: Option<&'a str>,
    /// The approval to record with it.
    pub(super) approval: Option<Decision>,
    /// How long its method may run.
    pub(super) time_limit: Option<Duration>,
}

impl<'a> Write<'a> {
    /// A write of `tool` with these arguments' `fingerprint`, whose change happens where
    /// `effect` says, under `lease` when the call has a key; no preview, no approval.
    pub(super) fn new(
        tool: &'a str,
        fingerprint: &'a str,
        effect: Effect,
        lease: Option<&'a Held<'a>>,
    ) -> Self {
        Write {
            tool,
            fingerprint,
            lease: lease.map(|(k, l)| (*k, l.token.as_str())),
            earlier: lease.is_some_and(|(_, l)| l.earlier),
            effect,
            ran: false,
            preview: None,
            approval: None,
            time_limit: None,
        }
    }

    /// The error for a call whose outcome was not recorded: before its method ran, or for
    /// a change in the store, nothing was changed; after a method whose change happens
    /// elsewhere ran, it may have been made, and the words say what a retry then does.
    fn not_recorded(&self, incident: Option<&str>) -> ToolError {
        if self.ran && self.effect.is_remote() {
            ToolError::outcome_unknown(self.tool, self.effect, self.lease.is_some(), incident)
        } else {
            ToolError::not_applied_as(self.tool, incident)
        }
    }
}

/// The error for a preview that may not be applied; `None` when it may.
pub(super) fn refusal(tool: &str, id: &str, verdict: Consume) -> Option<ToolError> {
    Some(match verdict {
        Consume::Applied(_) => return None,
        Consume::NotFound => ToolError::preview_not_found(tool, id),
        Consume::Used => ToolError::preview_used(tool, id),
        Consume::Expired { expires_at_ms } => {
            ToolError::preview_expired(tool, id, &crate::clock::format_rfc3339(expires_at_ms))
        }
        Consume::Mismatch => ToolError::preview_mismatch(tool, id),
        Consume::Refused => ToolError::approval_declined(tool, id),
    })
}

/// What to answer for a key that is not free: a replay or an error. `None` for a free or
/// newly leased key.
pub(super) fn answer_existing(
    r: Reservation,
    tool: &str,
    key: &str,
    now_ms: i64,
) -> Option<Result<Value, ToolError>> {
    match r {
        Reservation::Free | Reservation::Leased { .. } => None,
        Reservation::Replay(Ok(v)) => Some(Ok(mark(v, "replayed", true))),
        Reservation::Replay(Err(mut e)) => {
            e.details.insert("replayed".into(), true.into());
            Some(Err(e))
        }
        Reservation::Mismatch => Some(Err(ToolError::idempotency_key_reused(tool, key))),
        Reservation::InProgress { lease_until_ms } => Some(Err(
            ToolError::idempotency_in_progress(tool, key, lease_until_ms - now_ms),
        )),
    }
}

/// Sets `key` to `flag` on an object result (other values are returned unchanged).
pub(super) fn mark(mut value: Value, key: &str, flag: bool) -> Value {
    if let Value::Object(map) = &mut value {
        map.insert(key.to_owned(), flag.into());
    }
    value
}

pub(super) fn ttl_ms(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
}
