//! [`Runtime`]: the store, keys and clock a generated server shares across calls, with the
//! paging helpers (its write path is `write.rs`).

use crate::caller::bound;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::clock::{Clock, SystemClock};
use crate::cursor::CursorKey;
use crate::error::ToolError;
use crate::rate::{Admission, RateLimit};
use crate::store::{
    KeyStore, MemoryStore, OutboxMessage, OutboxStore, PreviewStore, RateStore, Store, TaskStore,
    WorkStore,
};

/// How long a call holds its idempotency key before another call may take it over, unless
/// set with [`Runtime::with_lease`]. The lease is renewed every third of it while the write's
/// method runs, so a slow write keeps its key; a key whose process died is free at most this
/// long after the last renewal.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(6);

/// What a generated server holds for the behaviour that outlives one call: the cursor key,
/// the store of keys, previews, approvals and outbox, the lease and the clock. Cheap to
/// clone: clones share everything.
#[derive(Clone)]
pub struct Runtime {
    pub(super) cursor_key: CursorKey,
    pub(super) stores: Stores,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) lease: Duration,
    /// Whether calls are recorded (feature `metrics`; see [`Runtime::with_metrics`]).
    pub(super) metrics: bool,
    /// Faults the gauntlet makes and the effects it counts ([`crate::test_hooks`]).
    pub(super) hooks: Arc<crate::test_hooks::Hooks>,
}

/// The store a runtime was given, and the one it uses for each concern: the same store,
/// unless one concern was set apart ([`Runtime::with_rate_store`] and the like).
#[derive(Clone)]
pub(super) struct Stores {
    pub(super) whole: Arc<dyn Store>,
    pub(super) keys: Arc<dyn KeyStore>,
    pub(super) previews: Arc<dyn PreviewStore>,
    pub(super) outbox: Arc<dyn OutboxStore>,
    pub(super) work: Arc<dyn WorkStore>,
    pub(super) rates: Arc<dyn RateStore>,
    pub(super) tasks: Arc<dyn TaskStore>,
}

impl Stores {
    /// Every concern from one store.
    fn of(store: Arc<dyn Store>) -> Self {
        Self {
            keys: store.clone(),
            previews: store.clone(),
            outbox: store.clone(),
            work: store.clone(),
            rates: store.clone(),
            tasks: store.clone(),
            whole: store,
        }
    }
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

    /// The runtime on `store`, signing cursors with the key the store keeps
    /// ([`crate::store::CursorKeyStore::cursor_key`]): the way to build one unless you manage the key yourself.
    /// Every server on the same SQLite file or PostgreSQL database then accepts the cursors
    /// the others issued, and cursors outlive a restart.
    ///
    /// ```no_run
    /// # #[cfg(feature = "sqlite")]
    /// # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use toolspec_runtime::engine::Runtime;
    /// use toolspec_runtime::sqlite::Database;
    /// use toolspec_runtime::store::SqliteStore;
    ///
    /// let db = Database::open("shop.db")?;
    /// let runtime = Runtime::open(Arc::new(SqliteStore::new(db.clone())?)).await?;
    /// # Ok(()) }
    /// ```
    pub async fn open(store: Arc<dyn Store>) -> Result<Self, crate::idempotency::StoreError> {
        let key = store.cursor_key().await?;
        Ok(Self::new(key, store))
    }

    /// A runtime over the given key and store, with the system clock and [`DEFAULT_LEASE`]
    /// (to choose the cursor key yourself; [`Runtime::open`] takes the store's).
    pub fn new(cursor_key: CursorKey, store: Arc<dyn Store>) -> Self {
        Self {
            cursor_key,
            stores: Stores::of(store),
            clock: Arc::new(SystemClock),
            lease: DEFAULT_LEASE,
            metrics: true,
            hooks: Arc::default(),
        }
    }

    /// The records in the SQLite database the app keeps its own tables in (feature
    /// `sqlite`): write methods' [`Work`](crate::store::Work) is a transaction on it.
    /// Creates the runtime's tables; call it before serving (it fails if the connection is
    /// in use). Cursors are signed with `cursor_key`; to keep the key in the file instead,
    /// use [`Runtime::open`] on a [`crate::store::SqliteStore`].
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

    /// How long a call holds its idempotency key between renewals ([`DEFAULT_LEASE`]: 6 s).
    /// While the write's method runs, the lease is renewed every third of this (on a clock
    /// that can wait: the system clock on tokio, or a [`crate::clock::ManualClock`]), so a
    /// write may run longer than its lease and still commit. A call that dies holding it
    /// blocks retries of that key for at most this long after its last renewal; a call whose
    /// renewals stop (its process stalled past the lease) may see a retry take the key over,
    /// and then its own commit is refused (fencing), so the effect still happens once.
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

    /// The same runtime (cursor key, clock, lease, counts) on another store: a fixture
    /// handed a runtime moves it onto the store its app writes to, so units of work are
    /// transactions there. Every concern comes from `store`, including any set apart before.
    pub fn with_store(mut self, store: Arc<dyn Store>) -> Self {
        self.stores = Stores::of(store);
        self
    }

    /// Rate-limit records kept apart from the store: a deployment's own counters, or a test
    /// that admits every call. Rate records share no unit of work, so any [`RateStore`]
    /// will do.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolspec_runtime::engine::{BoxFuture, Runtime};
    /// use toolspec_runtime::store::{Admission, Purged, RateLimit, RateStore, StoreError};
    ///
    /// /// Admits every call: limits stated, none kept.
    /// struct AdmitAll;
    ///
    /// impl RateStore for AdmitAll {
    ///     fn admit<'a>(&'a self, _: &'a RateLimit, _: &'a str, _: i64)
    ///         -> BoxFuture<'a, Result<Admission, StoreError>> {
    ///         Box::pin(async { Ok(Admission::Admitted) })
    ///     }
    ///     fn purge_counters(&self, _: i64) -> BoxFuture<'_, Result<Purged, StoreError>> {
    ///         Box::pin(async { Ok(Purged::default()) })
    ///     }
    /// }
    ///
    /// let runtime = Runtime::in_memory()?.with_rate_store(Arc::new(AdmitAll));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn with_rate_store(mut self, rates: Arc<dyn RateStore>) -> Self {
        self.stores.rates = rates;
        self
    }

    /// Tasks kept apart from the store. Tasks share no unit of work, so any [`TaskStore`]
    /// will do.
    pub fn with_task_store(mut self, tasks: Arc<dyn TaskStore>) -> Self {
        self.stores.tasks = tasks;
        self
    }

    /// Idempotency keys through a store of someone's own, which must keep them in the
    /// records the store's units of work fence on ([`crate::store::Transaction::holds`]):
    /// a wrapper around the store's own [`KeyStore`] (to count, delay or fail some calls
    /// in a test), never another database.
    pub fn with_key_store(mut self, keys: Arc<dyn KeyStore>) -> Self {
        self.stores.keys = keys;
        self
    }

    /// Previews through a store of someone's own, which must keep them in the records the
    /// store's units of work consume them from: a wrapper around the store's own
    /// [`PreviewStore`], never another database.
    pub fn with_preview_store(mut self, previews: Arc<dyn PreviewStore>) -> Self {
        self.stores.previews = previews;
        self
    }

    /// The outbox through a store of someone's own, which must read the messages the
    /// store's units of work write: a wrapper around the store's own [`OutboxStore`].
    pub fn with_outbox_store(mut self, outbox: Arc<dyn OutboxStore>) -> Self {
        self.stores.outbox = outbox;
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

    /// The runtime's test hooks, shared by its clones ([`crate::test_hooks`]: for the
    /// gauntlet and tests, exempt from semver).
    #[doc(hidden)]
    pub fn test_hooks(&self) -> &crate::test_hooks::Hooks {
        &self.hooks
    }

    /// Counts one run of a user method of `tool` ([`crate::test_hooks::Hooks::invocations`]).
    pub(super) fn record_invocation(&self, tool: &str, preview: bool) {
        self.hooks.record_invocation(tool, preview);
    }

    /// Counts a call of `tool` against `limit` (none: nothing to count) for the caller in
    /// scope ([`crate::caller::Caller::current`]; the local user over stdio), in the store
    /// every replica shares. A call past the limit is `rate_limited`, with
    /// `details.retry_after_ms`; the generated layer asks this just before a tool method
    /// runs, so a refused call has done nothing. A store that cannot answer refuses the
    /// call too (`internal_error`): a limit that cannot be counted is not kept by letting
    /// calls through.
    pub async fn admit(&self, tool: &str, limit: Option<&RateLimit>) -> Result<(), ToolError> {
        let Some(limit) = limit else {
            return Ok(());
        };
        let holder = crate::caller::bound(limit.key);
        match self
            .stores
            .rates
            .admit(limit, &holder, self.now_ms())
            .await?
        {
            Admission::Admitted => Ok(()),
            Admission::Refused { retry_after_ms } => {
                Err(ToolError::rate_limited(tool, limit, retry_after_ms))
            }
        }
    }

    /// Runs `method` of `tool` within `limit` (none: no limit), on the runtime's clock: a
    /// method still running at its limit is dropped, which stops it at its next await and
    /// rolls back what it wrote through its unit of work, and the call answers `timeout`
    /// (`write`: the write's effect, for what the answer may say was changed; `None` for a
    /// read or a preview). A clock that cannot wait where the call runs keeps no limit.
    ///
    /// A call whose client cancelled it ([`crate::cancel`]) is stopped the same way, at
    /// once, and answers `cancelled` (which the MCP adapter never sends: the protocol
    /// answers nothing for a cancelled request).
    pub async fn within<F, T>(
        &self,
        tool: &str,
        limit: Option<Duration>,
        write: Option<crate::store::Effect>,
        method: F,
    ) -> Result<T, ToolError>
    where
        F: Future<Output = Result<T, ToolError>>,
    {
        let cancel = crate::cancel::current();
        let timer = limit.and_then(|limit| {
            let ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
            Some((limit, self.clock.sleep(ms)?))
        });
        if cancel.is_none() && timer.is_none() {
            return method.await;
        }
        let mut timer = timer;
        let mut method = std::pin::pin!(method);
        // Cancel and timer first: a call cancelled or out of time makes no more progress,
        // even where its method would finish on this poll.
        std::future::poll_fn(|cx| {
            if let Some(cancel) = &cancel
                && cancel.poll_cancelled(cx).is_ready()
            {
                return std::task::Poll::Ready(Err(ToolError::cancelled(tool)));
            }
            if let Some((limit, sleep)) = &mut timer
                && sleep.as_mut().poll(cx).is_ready()
            {
                return std::task::Poll::Ready(Err(ToolError::timeout(tool, *limit, write)));
            }
            method.as_mut().poll(cx)
        })
        .await
    }

    /// Now, in Unix milliseconds, from the runtime's clock.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The key that signs cursors.
    pub fn cursor_key(&self) -> &CursorKey {
        &self.cursor_key
    }

    /// The store the runtime was given ([`Runtime::with_store`]), whole: concerns set
    /// apart since are not in it.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.stores.whole
    }

    /// The store of tasks the runtime uses ([`Runtime::with_task_store`]).
    pub fn task_store(&self) -> &Arc<dyn TaskStore> {
        &self.stores.tasks
    }

    /// Delivers what committed units of work left in the outbox
    /// ([`Work::outbox`](crate::store::Work::outbox)): up to `limit` messages, oldest
    /// first, each passed to `deliver`, which returns whether it was delivered; returns how
    /// many were. A message stays until `deliver` succeeds, so it may be delivered more
    /// than once (after a crash, or a failure of `deliver` to report): the receiver dedupes
    /// on [`OutboxMessage::id`]. Call it in a loop on a timer, in one task per process.
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
        for message in self.stores.outbox.outbox_pending(limit).await? {
            let id = message.id.clone();
            let ok = deliver(message).await;
            self.stores
                .outbox
                .outbox_settle(&id, ok, self.now_ms())
                .await?;
            delivered += usize::from(ok);
        }
        Ok(delivered)
    }

    /// Forgets expired idempotency keys, long-expired previews, spent rate-limit records and
    /// tasks past their time (each concern's purge, [`KeyStore::purge_keys`] and the like),
    /// and counts the previews that went unused in
    /// `tool_previews_total{outcome="unused"}` (feature `metrics`). Call it on a timer, in
    /// one task per process; replicas sharing a store may all run it, and each row is
    /// forgotten, and counted, by one of them.
    pub async fn purge_expired(&self) -> Result<crate::store::Purged, ToolError> {
        let now = self.now_ms();
        let mut purged = self.stores.keys.purge_keys(now).await?;
        purged.add(self.stores.previews.purge_previews(now).await?);
        purged.add(self.stores.rates.purge_counters(now).await?);
        purged.add(self.stores.tasks.purge_tasks(now).await?);
        #[cfg(feature = "metrics")]
        if self.metrics {
            for (tool, count) in &purged.unused_previews {
                crate::telemetry::unused_previews(tool, *count);
            }
        }
        Ok(purged)
    }

    /// The offset a call's `cursor` points at: 0 without a cursor, else the decoded offset,
    /// or `invalid_cursor` when it was not issued for this tool and query. Cursors are bound
    /// to their caller ([`crate::caller`]): another caller's is refused as made for another
    /// query.
    pub fn cursor_offset(
        &self,
        tool: &str,
        fingerprint: &str,
        cursor: Option<&str>,
    ) -> Result<u64, ToolError> {
        match cursor {
            None => Ok(0),
            Some(c) => self.cursor_key.decode(tool, &bound(fingerprint), c),
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
        self.cursor_key
            .decode_after(tool, &bound(fingerprint), cursor)
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
        let position = match crate::engine::glue::items_at(result, items_field)
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
                let cursor = self.cursor_key.encode_after(
                    serve.tool,
                    &bound(fingerprint),
                    next,
                    &position,
                )?;
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
    /// `items_field` is the key of the page's array (a path of keys joined by `/` for a
    /// nested list). The next page starts after the
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
            let cursor = self.cursor_key.encode(tool, &bound(fingerprint), next);
            map.insert("next_cursor".into(), cursor.into());
        } else {
            map.remove("next_cursor");
        }
    }
}

/// How many items the page's array `items_field` holds.
fn returned(result: &Value, items_field: &str) -> u64 {
    crate::engine::glue::items_at(result, items_field).map_or(0, |a| a.len() as u64)
}
