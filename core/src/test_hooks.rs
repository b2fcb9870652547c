//! Hooks the gauntlet and the runtime's own tests use to make faults and to see what the
//! engine did, in one place: a commit that fails on purpose, how often each tool's methods
//! ran, the causes of the last incidents.
//!
//! Hidden from the docs and exempt from semver: nothing in it is for a server's own code,
//! and it changes with the gauntlet. The hooks are always compiled (no feature reaches into
//! the engine for them) and cost one atomic operation per commit and one short lock per run
//! of a write method; a server that never calls them is unchanged by them.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

/// How many times the user's methods of one tool ran through a runtime. A replayed
/// idempotent call, a refused apply or a validation failure runs nothing and adds nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Invocations {
    /// Runs of a reversible tool's method plus applies of an irreversible one: the effects.
    pub writes: u64,
    /// Runs of an irreversible tool's preview method.
    pub previews: u64,
}

/// A runtime's hooks, shared by its clones: `runtime.test_hooks()`.
#[derive(Debug, Default)]
pub struct Hooks {
    /// Unit-of-work commits still to fail.
    failing_commits: AtomicU32,
    /// Runs of each tool's methods.
    invocations: Mutex<HashMap<String, Invocations>>,
}

impl Hooks {
    /// Whether this commit is to fail (and one fewer will).
    pub(crate) fn take_failing_commit(&self) -> bool {
        self.failing_commits
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }

    /// Counts one run of a user method of `tool`.
    pub(crate) fn record_invocation(&self, tool: &str, preview: bool) {
        let mut counts = self.invocations.lock().unwrap_or_else(|p| p.into_inner());
        let entry = match counts.get_mut(tool) {
            Some(entry) => entry,
            None => counts.entry(tool.to_owned()).or_default(),
        };
        if preview {
            entry.previews += 1;
        } else {
            entry.writes += 1;
        }
    }

    /// Makes the next `count` unit-of-work commits of the runtime (and its clones) fail as
    /// a crashed or busy store would: the call must then have changed nothing. The answer
    /// is that of a real failed commit, without an incident for the operator.
    pub fn fail_next_commits(&self, count: u32) {
        self.failing_commits.store(count, Ordering::SeqCst);
    }

    /// How many times the user's methods of `tool` ran through the runtime (clones share
    /// the counts).
    pub fn invocations(&self, tool: &str) -> Invocations {
        let counts = self.invocations.lock().unwrap_or_else(|p| p.into_inner());
        counts.get(tool).copied().unwrap_or_default()
    }
}

/// How many incident causes are kept: enough for the calls of one check, bounded for a long
/// run.
const INCIDENTS_KEPT: usize = 256;

static RECENT: Mutex<VecDeque<(String, String)>> = Mutex::new(VecDeque::new());

/// Keeps the cause of `incident` among the last ones.
pub(crate) fn remember_incident(incident: &str, cause: &str) {
    let mut recent = RECENT.lock().unwrap_or_else(|p| p.into_inner());
    if recent.len() == INCIDENTS_KEPT {
        recent.pop_front();
    }
    recent.push_back((incident.to_owned(), cause.to_owned()));
}

/// The cause logged with `incident` (the `details.incident` of an `internal_error`), while
/// it is among the last 256 of the process.
pub fn incident_cause(incident: &str) -> Option<String> {
    let recent = RECENT.lock().unwrap_or_else(|p| p.into_inner());
    recent
        .iter()
        .rev()
        .find(|(id, _)| id == incident)
        .map(|(_, cause)| cause.clone())
}
