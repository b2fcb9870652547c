//! [`Runtime`]: the store, keys and clock a generated server shares across calls, with the
//! idempotency and paging helpers.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::clock::{Clock, SystemClock};
use crate::cursor::CursorKey;
use crate::error::ToolError;
use crate::idempotency::Outcome;
use crate::preview::Consume;
use crate::store::{
    Attempt, Decision, Effect, KeyRef, MemoryStore, OutboxMessage, Reservation, Store, Work,
};

/// How long a call holds its idempotency key before another call may take it over, unless
/// set with [`Runtime::with_lease`].
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// What a generated server holds for the behaviour that outlives one call: the cursor key,
/// the store of keys, previews, approvals and outbox, the lease and the clock. Cheap to
/// clone: clones share everything.
#[derive(Clone)]
pub struct Runtime {
    pub(super) cursor_key: CursorKey,
    pub(super) store: Arc<dyn Store>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) lease: Duration,
    /// Whether calls are recorded (feature `metrics`; see [`Runtime::with_metrics`]).
    pub(super) metrics: bool,
    /// Commits the gauntlet makes fail (feature `gauntlet`), to hold failed calls to "nothing
    /// happened".
    #[cfg(feature = "gauntlet")]
    pub(super) failing_commits: Arc<std::sync::atomic::AtomicU32>,
    /// How often each tool's user methods ran (feature `gauntlet`: the retry checks count
    /// effects, which a replay must not add to).
    #[cfg(feature = "gauntlet")]
    pub(super) invocations: Arc<std::sync::Mutex<std::collections::HashMap<String, Invocations>>>,
}

/// How many times the user's methods of one tool ran through a [`Runtime`] (feature
/// `gauntlet`). A replayed idempotent call, a refused apply or a validation failure runs
/// nothing and adds nothing.
#[cfg(feature = "gauntlet")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Invocations {
    /// Runs of a reversible tool's method plus applies of an irreversible one: the effects.
    pub writes: u64,
    /// Runs of an irreversible tool's preview method.
    pub previews: u64,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").finish_non_exhaustive()
    }
}

impl Runtime {
    /// An in-memory store, a random per-process cursor key and the system clock: for tests
    /// and servers whose keys and previews need not survive a restart.
    pub fn in_memory() -> std::io::Result<Self> {
        Ok(Self::new(
            CursorKey::random()?,
            Arc::new(MemoryStore::new()),
        ))
    }

    /// A runtime over the given key and store, with the system clock and [`DEFAULT_LEASE`].
    pub fn new(cursor_key: CursorKey, store: Arc<dyn Store>) -> Self {
        Self {
            cursor_key,
            store,
            clock: Arc::new(SystemClock),
            lease: DEFAULT_LEASE,
            metrics: true,
            #[cfg(feature = "gauntlet")]
            failing_commits: Arc::default(),
            #[cfg(feature = "gauntlet")]
            invocations: Arc::default(),
        }
    }

    /// The records in the SQLite database the app keeps its own tables in (feature
    /// `sqlite`): write methods' [`Work`] is a transaction on it. Creates the runtime's
    /// tables; call it before serving (it fails if the connection is in use).
    #[cfg(feature = "sqlite")]
    pub fn sqlite(
        db: crate::sqlite::Database,
        cursor_key: CursorKey,
    ) -> Result<Self, crate::idempotency::StoreError> {
        Ok(Self::new(
            cursor_key,
            Arc::new(crate::store::SqliteStore::new(db)?),
        ))
    }

    /// How long a call holds its idempotency key ([`DEFAULT_LEASE`]: 30 s). A call that
    /// dies holding it blocks retries of that key for at most this long; a call that runs
    /// longer than this may see a retry take the key over, and then its own commit is
    /// refused (fencing), so the effect still happens once. Keep it well above your
    /// slowest write.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// Whether the generated layer records this runtime's calls (default: yes, with feature
    /// `metrics`; see [`crate::telemetry`]). Without a recorder installed, recording costs
    /// little; turn it off to measure a call without it, or for a server whose calls
    /// should not appear in the process's metrics.
    pub fn with_metrics(mut self, record: bool) -> Self {
        self.metrics = record;
        self
    }

    /// Makes the next `count` unit-of-work commits fail as a crashed or busy store would
    /// (feature `gauntlet`): the call must then have changed nothing.
    #[cfg(feature = "gauntlet")]
    pub fn fail_next_commits(&self, count: u32) {
        self.failing_commits
            .store(count, std::sync::atomic::Ordering::SeqCst);
    }

    /// The same runtime (cursor key, clock, lease, counts) on another store: a fixture
    /// handed a runtime moves it onto the store its app writes to, so units of work are
    /// transactions there.
    pub fn with_store(mut self, store: Arc<dyn Store>) -> Self {
        self.store = store;
        self
    }

    /// Replaces the clock (tests inject a [`crate::clock::ManualClock`]).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The runtime's clock (to build another runtime on the same time, e.g. durable stores
    /// in a test whose fixture was handed a manual clock).
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.clock.clone()
    }

    /// How many times the user's methods of `tool` ran through this runtime (feature
    /// `gauntlet`; clones of a runtime share the counts).
    #[cfg(feature = "gauntlet")]
    pub fn invocations(&self, tool: &str) -> Invocations {
        let counts = self.invocations.lock().unwrap_or_else(|p| p.into_inner());
        counts.get(tool).copied().unwrap_or_default()
    }

    /// Counts one run of a user method of `tool` (a no-op without feature `gauntlet`).
    #[cfg_attr(not(feature = "gauntlet"), allow(unused_variables))]
    pub(super) fn record_invocation(&self, tool: &str, preview: bool) {
        #[cfg(feature = "gauntlet")]
        {
            let mut counts = self.invocations.lock().unwrap_or_else(|p| p.into_inner());
            let entry = counts.entry(tool.to_owned()).or_default();
            if preview {
                entry.previews += 1;
            } else {
                entry.writes += 1;
            }
        }
    }

    /// Now, in Unix milliseconds, from the runtime's clock.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The key that signs cursors.
    pub fn cursor_key(&self) -> &CursorKey {
        &self.cursor_key
    }

    /// The store of keys, previews, approvals and the outbox.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Delivers what committed units of work left in the outbox ([`Work::outbox`]): up to
    /// `limit` messages, oldest first, each passed to `deliver`, which returns whether it
    /// was delivered; returns how many were. A message stays until `deliver` succeeds, so
    /// it may be delivered more than once (after a crash, or a failure of `deliver` to
    /// report): the receiver dedupes on [`OutboxMessage::id`]. Call it in a loop on a
    /// timer, in one task per process.
    pub async fn deliver_outbox<F, Fut>(
        &self,
        limit: usize,
        mut deliver: F,
    ) -> Result<usize, ToolError>
    where
        F: FnMut(OutboxMessage) -> Fut,
        Fut: Future<Output = bool>,
    {
        let mut delivered = 0;
        for message in self.store.outbox_pending(limit).await? {
            let id = message.id.clone();
            let ok = deliver(message).await;
            self.store.outbox_settle(&id, ok, self.now_ms()).await?;
            delivered += usize::from(ok);
        }
        Ok(delivered)
    }

    /// Forgets expired idempotency keys and long-expired previews (see
    /// [`Store::purge_expired`]), and counts the previews that went unused in
    /// `tool_previews_total{outcome="unused"}` (feature `metrics`). Call it on a timer, in
    /// one task per process; replicas sharing a store may all run it, and each row is
    /// forgotten, and counted, by one of them.
    pub async fn purge_expired(&self) -> Result<crate::store::Purged, ToolError> {
        let purged = self.store.purge_expired(self.now_ms()).await?;
        #[cfg(feature = "metrics")]
        if self.metrics {
            for (tool, count) in &purged.unused_previews {
                crate::telemetry::unused_previews(tool, *count);
            }
        }
        Ok(purged)
    }

    /// The offset a call's `cursor` points at: 0 without a cursor, else the decoded offset,
    /// or `invalid_cursor` when it was not issued for this tool and query.
    pub fn cursor_offset(
        &self,
        tool: &str,
        fingerprint: &str,
        cursor: Option<&str>,
    ) -> Result<u64, ToolError> {
        match cursor {
            None => Ok(0),
            Some(c) => self.cursor_key.decode(tool, fingerprint, c),
        }
    }

    /// The offset and position a keyset cursor of `tool` for the query `fingerprint` carries
    /// (see [`crate::cursor`]).
    pub fn cursor_position(
        &self,
        tool: &str,
        fingerprint: &str,
        cursor: &str,
    ) -> Result<(u64, Vec<Value>), ToolError> {
        self.cursor_key.decode_after(tool, fingerprint, cursor)
    }

    /// Adds keyset paging to a page's result: `total` when known, and, when `more` items
    /// follow a non-empty page, a `next_cursor` carrying the sort key of the last item
    /// actually present (after the budget cut, so cut items come on the next page). An
    /// error when that item lacks one of the key fields, or its key is too long for a
    /// cursor: the method broke its keyset promise, and the agent could not go on.
    pub fn page_after(
        &self,
        serve: &crate::engine::glue::Serve,
        fingerprint: &str,
        result: &mut Value,
        offset: u64,
        total: Option<u64>,
        more: bool,
    ) -> Result<(), ToolError> {
        let items_field = serve.items.unwrap_or_default();
        let returned = returned(result, items_field);
        let position = match result
            .get(items_field)
            .and_then(Value::as_array)
            .and_then(|items| items.last())
        {
            Some(last) if more => Some::<Vec<Value>>(
                serve
                    .keyset
                    .iter()
                    .map(|field| {
                        last.get(*field).cloned().ok_or_else(|| {
                            ToolError::internal(format!(
                                "{}: an item has no `{field}`, its sort key field",
                                serve.tool
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            _ => None,
        };
        let Value::Object(map) = result else {
            return Ok(());
        };
        if let Some(total) = total {
            map.insert("total".into(), total.into());
        }
        match position {
            Some(position) => {
                let next = offset.saturating_add(returned);
                let cursor =
                    self.cursor_key
                        .encode_after(serve.tool, fingerprint, next, &position)?;
                map.insert("next_cursor".into(), cursor.into());
            }
            None => {
                map.remove("next_cursor");
            }
        }
        Ok(())
    }

    /// Adds paging to a page's result: `total`, and `next_cursor` when items remain.
    ///
    /// `items_field` is the top-level key of the page's array. The next page starts after the
    /// items actually present, so items dropped by the budget ([`crate::shape`]) come on the
    /// next page rather than being skipped. On the last page `next_cursor` is omitted (never
    /// `null`); an existing `next_cursor` key is removed there.
    pub fn page(
        &self,
        tool: &str,
        fingerprint: &str,
        result: &mut Value,
        items_field: &str,
        offset: u64,
        total: u64,
    ) {
        let next = offset.saturating_add(returned(result, items_field));
        if let Value::Object(map) = result {
            map.insert("total".into(), total.into());
        }
        self.next_cursor(tool, fingerprint, result, items_field, offset, next < total);
    }

    /// As [`Runtime::page`], for a backend that knows only whether items follow this page
    /// (`more`): no `total`, and a cursor only when `more` and the page is not empty.
    pub fn page_until(
        &self,
        tool: &str,
        fingerprint: &str,
        result: &mut Value,
        items_field: &str,
        offset: u64,
        more: bool,
    ) {
        self.next_cursor(tool, fingerprint, result, items_field, offset, more);
    }

    /// Sets `next_cursor` past this page's items when `more` follow, else removes it. An
    /// empty page with items "remaining" would loop forever: it ends paging instead.
    fn next_cursor(
        &self,
        tool: &str,
        fingerprint: &str,
        result: &mut Value,
        items_field: &str,
        offset: u64,
        more: bool,
    ) {
        let returned = returned(result, items_field);
        let Value::Object(map) = result else { return };
        if more && returned > 0 {
            let next = offset.saturating_add(returned);
            let cursor = self.cursor_key.encode(tool, fingerprint, next);
            map.insert("next_cursor".into(), cursor.into());
        } else {
            map.remove("next_cursor");
        }
    }

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
        let lease = match key {
            None => None,
            Some(key) => match self.lease_key(tool, key, fingerprint, ttl).await? {
                Ok(leased) => Some((KeyRef { tool, key }, leased)),
                Err(answer) => return answer,
            },
        };
        self.record_invocation(tool, false);
        let write = Write {
            tool,
            fingerprint,
            lease: lease.as_ref().map(|(k, l)| (*k, l.token.as_str())),
            earlier: lease.as_ref().is_some_and(|(_, l)| l.earlier),
            effect,
            ran: false,
            preview: None,
            approval: None,
        };
        self.commit_write(write, run).await
    }

    /// Leases `key`: `Ok` with the lease, or `Err(answer)` when the key already answers (a
    /// replay, a mismatch, a live lease).
    pub(super) async fn lease_key(
        &self,
        tool: &str,
        key: &str,
        fingerprint: &str,
        ttl: Duration,
    ) -> Result<Result<Lease, Result<Value, ToolError>>, ToolError> {
        let now = self.now_ms();
        let r = self
            .store
            .lease(
                KeyRef { tool, key },
                fingerprint,
                now,
                ttl_ms(ttl),
                ttl_ms(self.lease),
            )
            .await?;
        Ok(match r {
            Reservation::Leased { token, earlier } => Ok(Lease { token, earlier }),
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
        let mut tx = match self.store.begin().await {
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
        let attempt = Attempt::new(
            write.tool,
            write.lease.map(|(key, _)| key.key),
            write.fingerprint,
            write.earlier,
        );
        let work = Work::new(tx, now, attempt);
        let outcome = run(work.clone()).await;
        // From here on the method has run: a change it made outside the store stays,
        // whatever becomes of this transaction.
        let write = Write { ran: true, ..write };
        let Some(mut tx) = work.finish() else {
            return Err(self
                .give_up(
                    &write,
                    crate::idempotency::StoreError("unit of work taken twice".into()),
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
                return match self.store.complete(key, token, &stored).await {
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
        #[cfg(feature = "gauntlet")]
        if self.take_failing_commit() {
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

    #[cfg(feature = "gauntlet")]
    fn take_failing_commit(&self) -> bool {
        use std::sync::atomic::Ordering;
        self.failing_commits
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
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
            self.store.lapse(key, token, self.now_ms()).await
        } else {
            self.store.release(key, token).await
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
            && let Ok(found) = self.store.peek(key, write.fingerprint, now).await
            && let Some(answer) = answer_existing(found, key.tool, key.key, now)
        {
            return answer;
        }
        if let Some(id) = write.preview
            && let Ok(verdict) = self
                .store
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
}

impl Write<'_> {
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

/// How many items the page's array `items_field` holds.
fn returned(result: &Value, items_field: &str) -> u64 {
    result
        .get(items_field)
        .and_then(Value::as_array)
        .map_or(0, |a| a.len() as u64)
}
