//! [`Purged`]: what the stores' purges forgot.

use std::collections::BTreeMap;

/// What one purge forgot ([`crate::engine::Runtime::purge_expired`] adds up each concern's
/// purge).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Purged {
    /// Idempotency keys past their TTL.
    pub keys: usize,
    /// Previews long past their expiry, whatever became of them.
    pub previews: usize,
    /// Of those previews, per tool, how many were never applied nor declined: the agent
    /// asked for them and nothing followed.
    pub unused_previews: BTreeMap<String, u64>,
    /// Rate-limit records whose window and spacing had passed.
    pub counters: usize,
    /// Tasks past their time.
    pub tasks: usize,
}

impl Purged {
    /// Rows forgotten in all: keys, previews, rate-limit records and tasks.
    pub fn rows(&self) -> usize {
        self.keys + self.previews + self.counters + self.tasks
    }

    /// Adds what another purge forgot.
    pub fn add(&mut self, other: Purged) {
        self.keys += other.keys;
        self.previews += other.previews;
        self.counters += other.counters;
        self.tasks += other.tasks;
        for (tool, count) in other.unused_previews {
            *self.unused_previews.entry(tool).or_default() += count;
        }
    }

    /// Counts one purged preview of `tool`, unused when `open`.
    pub(crate) fn preview(&mut self, tool: &str, open: bool) {
        self.previews += 1;
        if open {
            *self.unused_previews.entry(tool.to_owned()).or_default() += 1;
        }
    }
}
