//! [`Runtime`]: the stores, keys and clock a generated server shares across calls, with the
//! idempotency and paging helpers.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::clock::{Clock, SystemClock};
use crate::cursor::CursorKey;
use crate::error::ToolError;
use crate::idempotency::{IdempotencyStore, MemoryStore, Outcome, Reservation};
use crate::preview::{MemoryPreviewStore, PreviewStore};

/// What a generated server holds for the behaviour that outlives one call: the cursor key,
/// the idempotency and preview stores and the clock. Cheap to share behind an `Arc`.
#[derive(Clone)]
pub struct Runtime {
    pub(super) cursor_key: CursorKey,
    pub(super) idempotency: Arc<dyn IdempotencyStore>,
    pub(super) previews: Arc<dyn PreviewStore>,
    pub(super) clock: Arc<dyn Clock>,
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
    /// In-memory stores, a random per-process cursor key and the system clock: for tests and
    /// servers whose keys and previews need not survive a restart.
    pub fn in_memory() -> std::io::Result<Self> {
        Ok(Self::new(
            CursorKey::random()?,
            Arc::new(MemoryStore::new()),
            Arc::new(MemoryPreviewStore::new()),
        ))
    }

    /// A runtime over the given key and stores, with the system clock.
    pub fn new(
        cursor_key: CursorKey,
        idempotency: Arc<dyn IdempotencyStore>,
        previews: Arc<dyn PreviewStore>,
    ) -> Self {
        Self {
            cursor_key,
            idempotency,
            previews,
            clock: Arc::new(SystemClock),
            #[cfg(feature = "gauntlet")]
            invocations: Arc::default(),
        }
    }

    /// Both stores in one SQLite database shared with the app (feature `sqlite`).
    #[cfg(feature = "sqlite")]
    pub fn sqlite(
        conn: crate::sqlite::SharedConnection,
        cursor_key: CursorKey,
    ) -> Result<Self, crate::idempotency::StoreError> {
        Ok(Self::new(
            cursor_key,
            Arc::new(crate::idempotency::SqliteStore::from_shared(conn.clone())?),
            Arc::new(crate::preview::SqlitePreviewStore::from_shared(conn)?),
        ))
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

    /// The idempotency store.
    pub fn idempotency_store(&self) -> &Arc<dyn IdempotencyStore> {
        &self.idempotency
    }

    /// The preview store.
    pub fn preview_store(&self) -> &Arc<dyn PreviewStore> {
        &self.previews
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
        let returned = result
            .get(items_field)
            .and_then(Value::as_array)
            .map_or(0, |a| a.len() as u64);
        let next = offset.saturating_add(returned);
        let Value::Object(map) = result else { return };
        map.insert("total".into(), total.into());
        // An empty page with items "remaining" would loop forever: it ends paging instead.
        if returned > 0 && next < total {
            let cursor = self.cursor_key.encode(tool, fingerprint, next);
            map.insert("next_cursor".into(), cursor.into());
        } else {
            map.remove("next_cursor");
        }
    }

    /// Runs a write at most once per idempotency key (see [`crate::idempotency`]).
    ///
    /// Without a key, `run` simply runs. With one: a new key is reserved, `run` runs, and its
    /// outcome is stored; a finished key with the same fingerprint returns the stored
    /// outcome without running (`"replayed": true`); other arguments give
    /// `idempotency_key_reused`, a running first call `idempotency_in_progress`.
    /// Successful results are objects and get `"replayed": false` on a first run.
    /// Non-retryable errors from `run` are stored and replayed; retryable ones release the
    /// key so a retry runs again.
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
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Value, ToolError>>,
    {
        let Some(key) = key else {
            self.record_invocation(tool, false);
            return run().await.map(|v| mark(v, "replayed", false));
        };
        let now = self.now_ms();
        let reservation = self
            .idempotency
            .begin(tool, key, fingerprint, now, ttl_ms(ttl))?;
        if let Some(answer) = answer_existing(reservation, tool, key) {
            return answer;
        }
        self.record_invocation(tool, false);
        let outcome = run().await;
        self.settle(tool, key, outcome)
    }

    /// Records the outcome of a reserved key and returns it (see [`Runtime::idempotent`]).
    pub(super) fn settle(
        &self,
        tool: &str,
        key: &str,
        outcome: Outcome,
    ) -> Result<Value, ToolError> {
        let outcome = outcome.map(|v| mark(v, "replayed", false));
        let stored = match &outcome {
            Err(e) if e.retryable => self.idempotency.release(tool, key),
            _ => self.idempotency.complete(tool, key, &outcome),
        };
        if let Err(e) = stored {
            // The effect happened; the agent gets its result. The key stays in_progress until
            // its TTL, so a retry cannot run it twice; the operator hears about the failure.
            crate::error::log_incident(&format!("idempotency store for {tool}: {e}"));
        }
        outcome
    }
}

/// What to answer for a key that is not new: a replay or an error. `None` for `New`.
pub(super) fn answer_existing(
    r: Reservation,
    tool: &str,
    key: &str,
) -> Option<Result<Value, ToolError>> {
    match r {
        Reservation::New => None,
        Reservation::Replay(Ok(v)) => Some(Ok(mark(v, "replayed", true))),
        Reservation::Replay(Err(mut e)) => {
            e.details.insert("replayed".into(), true.into());
            Some(Err(e))
        }
        Reservation::Mismatch => Some(Err(ToolError::idempotency_key_reused(tool, key))),
        Reservation::InProgress => Some(Err(ToolError::idempotency_in_progress(tool, key))),
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
