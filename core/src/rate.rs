//! Rate limits: how many calls each caller may make, said in the tool's description and kept
//! by the generated layer across every replica that shares a store.
//!
//! A [`RateLimit`] of `calls` per `per` gives each caller a **window** that opens with their
//! first call and lasts `per`: in it, the first `calls` calls run and the rest are refused
//! with `rate_limited`, `retry_after_ms` saying when the window ends. So "at most 20 calls
//! per minute" is true of every window, and a caller who waits as told gets through. With a
//! `burst` of `b`, calls are also spaced: at most `b` run back to back, then one every
//! `per / calls` (the generic cell rate algorithm, one timestamp), still never more than
//! `calls` in a window.
//!
//! **What counts** is a tool method about to run: a read, a preview, an apply, a write.
//! A call refused by validation or by its scopes, a replay answered from an idempotency
//! record, a key still in progress, and `tools/list` run no method and count nothing. A
//! preview and its apply each count: both run code of the tool.
//!
//! **Where the counts live**: in the runtime's store ([`crate::store::RateStore::admit`]), one
//! record per limit and caller, decided atomically: replicas on one PostgreSQL database, or
//! servers on one SQLite file, share one limit per caller; the memory store keeps them per
//! process. Records whose window and spacing have both passed are purged with the other
//! expired records.
//!
//! ```
//! use std::time::Duration;
//! use toolspec_runtime::rate::{self, Admission, RateLimit};
//!
//! const SEARCH: RateLimit = RateLimit::new("tickets_search", 2, Duration::from_secs(60));
//! let (first, state) = rate::decide(&SEARCH, None, 1_000);
//! let (second, state) = rate::decide(&SEARCH, state, 1_500);
//! let (third, _) = rate::decide(&SEARCH, state, 2_000);
//! assert_eq!((first, second), (Admission::Admitted, Admission::Admitted));
//! // The window opened at 1_000 ms and ends a minute later.
//! assert_eq!(third, Admission::Refused { retry_after_ms: 59_000 });
//! assert_eq!(rate::sentence(&SEARCH), "At most 2 calls per minute per caller.");
//! ```

use std::time::Duration;

/// One rate limit, as the generated layer holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// What the counts are kept under: the tool's name for a tool's own limit, the service's
    /// name for the toolset's limit that its tools share.
    pub key: &'static str,
    /// Calls a caller may make in one window.
    pub calls: u32,
    /// How long a window lasts (at least a second).
    pub per: Duration,
    /// When set, at most this many calls back to back, then one every `per / calls`.
    pub burst: Option<u32>,
}

impl RateLimit {
    /// `calls` per `per`, kept under `key`, with no burst spacing.
    pub const fn new(key: &'static str, calls: u32, per: Duration) -> Self {
        Self {
            key,
            calls,
            per,
            burst: None,
        }
    }

    /// The same limit, with at most `burst` calls back to back.
    pub const fn with_burst(mut self, burst: u32) -> Self {
        self.burst = Some(burst);
        self
    }

    /// The window's length in milliseconds.
    pub fn per_ms(&self) -> i64 {
        i64::try_from(self.per.as_millis()).unwrap_or(i64::MAX)
    }

    /// The spacing of calls under a burst: `per / calls`, in milliseconds (at least 1).
    pub fn interval_ms(&self) -> i64 {
        (self.per_ms() / i64::from(self.calls.max(1))).max(1)
    }

    /// How far ahead of now the spacing may run: `(burst - 1)` intervals; `None` without a
    /// burst.
    pub fn tolerance_ms(&self) -> Option<i64> {
        self.burst
            .map(|b| i64::from(b.max(1) - 1).saturating_mul(self.interval_ms()))
    }
}

/// What one caller's record of one limit holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    /// When the caller's current window opened, Unix ms.
    pub window_start_ms: i64,
    /// Calls admitted in that window.
    pub count: u32,
    /// The theoretical arrival time of the next call under the burst spacing, Unix ms
    /// (`window_start_ms` when the limit has no burst).
    pub tat_ms: i64,
}

impl Counter {
    /// When this record says nothing any more (its window is over and its spacing passed):
    /// it may be purged from then on.
    pub fn expires_at_ms(&self, limit_per_ms: i64) -> i64 {
        self.window_start_ms
            .saturating_add(limit_per_ms)
            .max(self.tat_ms)
    }
}

/// The answer to one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// The call may run; it was counted.
    Admitted,
    /// The caller is past the limit: nothing was counted, and a call made after
    /// `retry_after_ms` goes through.
    Refused {
        /// How long to wait, in milliseconds (at least 1).
        retry_after_ms: u64,
    },
}

/// Decides one call of a caller whose record is `counter` (`None`: no record yet) at
/// `now_ms`, and returns the record to keep: the counted one when admitted, `counter`
/// unchanged when refused. Every store decides with this function, or (PostgreSQL) with
/// SQL that the store tests hold to the same answers.
pub fn decide(
    limit: &RateLimit,
    counter: Option<Counter>,
    now_ms: i64,
) -> (Admission, Option<Counter>) {
    let per = limit.per_ms();
    let (start, count, tat) = match counter {
        Some(c) if now_ms < c.window_start_ms.saturating_add(per) => {
            (c.window_start_ms, c.count, c.tat_ms)
        }
        // A new window opens with this call; the spacing carries over.
        Some(c) => (now_ms, 0, c.tat_ms),
        None => (now_ms, 0, now_ms),
    };
    let mut wait: i64 = 0;
    if count >= limit.calls {
        wait = start.saturating_add(per) - now_ms;
    }
    if let Some(tolerance) = limit.tolerance_ms() {
        let ahead = tat - now_ms;
        if ahead > tolerance {
            wait = wait.max(ahead - tolerance);
        }
    }
    if wait > 0 {
        let retry_after_ms = u64::try_from(wait).unwrap_or(u64::MAX);
        return (Admission::Refused { retry_after_ms }, counter);
    }
    let tat = if limit.burst.is_some() {
        tat.max(now_ms).saturating_add(limit.interval_ms())
    } else {
        start
    };
    let kept = Counter {
        window_start_ms: start,
        count: count + 1,
        tat_ms: tat,
    };
    (Admission::Admitted, Some(kept))
}

/// The one sentence every output says the limit in: "At most 20 calls per minute per
/// caller." (with a burst: "..., up to 5 at once."; a limit several tools share says so,
/// [`shared_sentence`]).
pub fn sentence(limit: &RateLimit) -> String {
    format!("{}.", clause(limit))
}

/// The limit inside a sentence: "at most 20 calls per minute per caller, up to 5 at once".
pub fn words(limit: &RateLimit) -> String {
    let clause = clause(limit);
    format!("a{}", &clause[1..])
}

/// The sentence for a limit this tool shares with other tools of `service` (the toolset's
/// budget): "At most 300 calls per minute per caller, shared with other tickets tools."
pub fn shared_sentence(limit: &RateLimit, service: &str) -> String {
    format!("{}, shared with other {service} tools.", clause(limit))
}

fn clause(limit: &RateLimit) -> String {
    let calls = match limit.calls {
        1 => "1 call".to_owned(),
        n => format!("{n} calls"),
    };
    let burst = match limit.burst {
        Some(b) => format!(", up to {b} at once"),
        None => String::new(),
    };
    format!(
        "At most {calls} per {} per caller{burst}",
        period(limit.per)
    )
}

/// "minute", "10 seconds", "2 hours": the period as the sentence says it.
pub fn period(per: Duration) -> String {
    let secs = per.as_secs().max(1);
    let (n, unit) = if secs.is_multiple_of(86_400) {
        (secs / 86_400, "day")
    } else if secs.is_multiple_of(3_600) {
        (secs / 3_600, "hour")
    } else if secs.is_multiple_of(60) {
        (secs / 60, "minute")
    } else {
        (secs, "second")
    };
    match n {
        1 => unit.to_owned(),
        n => format!("{n} {unit}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    fn run(limit: &RateLimit, times: &[i64]) -> Vec<Admission> {
        let mut state = None;
        times
            .iter()
            .map(|&t| {
                let (a, s) = decide(limit, state, t);
                state = s;
                a
            })
            .collect()
    }

    #[test]
    fn a_window_admits_exactly_its_calls_and_opens_again_when_it_ends() {
        let limit = RateLimit::new("t", 3, MINUTE);
        let got = run(&limit, &[0, 10, 20, 30, 59_999, 60_000, 60_001]);
        let refused = |ms| Admission::Refused { retry_after_ms: ms };
        assert_eq!(
            got,
            [
                Admission::Admitted,
                Admission::Admitted,
                Admission::Admitted,
                refused(59_970),
                refused(1),
                Admission::Admitted,
                Admission::Admitted,
            ]
        );
    }

    #[test]
    fn a_refused_call_changes_nothing() {
        let limit = RateLimit::new("t", 1, MINUTE);
        let (_, state) = decide(&limit, None, 0);
        let (refused, after) = decide(&limit, state, 5);
        assert!(matches!(refused, Admission::Refused { .. }));
        assert_eq!(after, state);
    }

    #[test]
    fn a_burst_spaces_calls_and_never_exceeds_the_window() {
        // 6 per minute, 2 at once: one every 10 s after the first two.
        let limit = RateLimit::new("t", 6, MINUTE).with_burst(2);
        let got = run(&limit, &[0, 0, 0]);
        assert_eq!(got[..2], [Admission::Admitted, Admission::Admitted]);
        assert_eq!(
            got[2],
            Admission::Refused {
                retry_after_ms: 10_000
            }
        );
        // Calls every 10 s: all admitted while the window has room; never more than 6 in
        // the window that opened at 0.
        let times: Vec<i64> = (0..12).map(|i| i * 5_000).collect();
        let admitted = run(&limit, &times)
            .iter()
            .filter(|a| **a == Admission::Admitted)
            .count();
        assert!(admitted <= 6, "{admitted} admitted in one window");
        assert!(admitted >= 5, "{admitted} admitted: the spacing starves");
    }

    #[test]
    fn sentences_say_the_limit_in_words() {
        let limit = RateLimit::new("t", 20, MINUTE);
        assert_eq!(sentence(&limit), "At most 20 calls per minute per caller.");
        assert_eq!(
            sentence(&limit.with_burst(5)),
            "At most 20 calls per minute per caller, up to 5 at once."
        );
        let one = RateLimit::new("t", 1, Duration::from_secs(10));
        assert_eq!(sentence(&one), "At most 1 call per 10 seconds per caller.");
        assert_eq!(
            shared_sentence(
                &RateLimit::new("t", 300, Duration::from_secs(3600)),
                "tickets"
            ),
            "At most 300 calls per hour per caller, shared with other tickets tools."
        );
        assert_eq!(period(Duration::from_secs(7_200)), "2 hours");
        assert_eq!(period(Duration::from_secs(1)), "second");
    }
}
