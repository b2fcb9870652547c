//! Progress: a method says how far it got, and the client that asked hears it.
//!
//! A method reports with [`report`]; nothing else is needed in its signature. Over MCP the
//! adapter sends each report as `notifications/progress` when the request carried a
//! `progressToken`, and to a call run as a task it becomes the task's status message;
//! otherwise reporting costs a thread-local read.
//!
//! ```
//! use toolspec_runtime::progress::{self, Progress, Update};
//! use std::sync::{Arc, Mutex};
//!
//! async fn export(rows: u64) {
//!     for done in 1..=rows {
//!         // ... export one row ...
//!         progress::report(done, Some(rows), format!("{done} of {rows} rows"));
//!     }
//! }
//!
//! let heard = Arc::new(Mutex::new(Vec::<Update>::new()));
//! let sink = Arc::clone(&heard);
//! let progress = Progress::new(move |update| sink.lock().unwrap().push(update));
//! futures_lite(progress::scope(progress.clone(), export(1000)));
//! progress.flush();
//! let heard = heard.lock().unwrap();
//! // A chatty method is thinned out, but the client always hears where it ended.
//! assert!(heard.len() < 10);
//! assert_eq!(heard.last().unwrap().done, 1000);
//! # fn futures_lite<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f) }
//! ```
//!
//! What the client hears is bounded: at most one update per [`Progress::EVERY`] (the
//! latest wins, and the last is sent by [`Progress::flush`] when the call ends), only
//! updates that move forward (the protocol requires progress to increase), and messages of
//! at most [`MESSAGE_LIMIT`] characters.

use std::cell::RefCell;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest progress message sent, in characters; longer ones are cut with `…`.
pub const MESSAGE_LIMIT: usize = 200;

/// One progress report as the client hears it.
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    /// How much is done, in the method's own unit (rows, files, steps).
    pub done: u64,
    /// How much there is in all, when known.
    pub total: Option<u64>,
    /// What is happening, in words; `None` when the report had none.
    pub message: Option<String>,
}

type Sink = Box<dyn Fn(Update) + Send + Sync>;

/// Where one call's progress goes, thinned out (see the module doc). Cheap to clone.
#[derive(Clone)]
pub struct Progress(Arc<Inner>);

struct Inner {
    sink: Sink,
    every: Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// When an update was last handed to the sink.
    sent_at: Option<Instant>,
    /// The `done` of the last update accepted (sent or pending).
    done: Option<u64>,
    /// The latest update not yet sent: held back by the rate.
    pending: Option<Update>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("every", &self.0.every)
            .finish_non_exhaustive()
    }
}

impl Progress {
    /// At most one update per this long reaches the client.
    pub const EVERY: Duration = Duration::from_millis(250);

    /// Progress handed to `sink`, at most one update per [`Progress::EVERY`].
    pub fn new(sink: impl Fn(Update) + Send + Sync + 'static) -> Self {
        Self::every(Self::EVERY, sink)
    }

    /// Progress handed to `sink`, at most one update per `every`.
    pub fn every(every: Duration, sink: impl Fn(Update) + Send + Sync + 'static) -> Self {
        Self(Arc::new(Inner {
            sink: Box::new(sink),
            every,
            state: Mutex::new(State::default()),
        }))
    }

    /// Takes one report: sent at once when the last was at least [`Progress::EVERY`] ago,
    /// otherwise kept as the latest until then (or until [`Progress::flush`]). A report that
    /// does not move forward is dropped.
    pub fn report(&self, done: u64, total: Option<u64>, message: Option<&str>) {
        let now = Instant::now();
        let mut state = self.0.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.done.is_some_and(|last| done <= last) {
            return;
        }
        state.done = Some(done);
        let update = Update {
            done,
            total,
            message: message.filter(|m| !m.is_empty()).map(bounded),
        };
        let due = state
            .sent_at
            .is_none_or(|at| now.duration_since(at) >= self.0.every);
        if !due {
            state.pending = Some(update);
            return;
        }
        state.pending = None;
        state.sent_at = Some(now);
        drop(state);
        (self.0.sink)(update);
    }

    /// Sends the update held back by the rate, if any: the call calls it as it ends, so the
    /// client always hears the last report.
    pub fn flush(&self) {
        let pending = {
            let mut state = self.0.state.lock().unwrap_or_else(|p| p.into_inner());
            let pending = state.pending.take();
            if pending.is_some() {
                state.sent_at = Some(Instant::now());
            }
            pending
        };
        if let Some(update) = pending {
            (self.0.sink)(update);
        }
    }
}

fn bounded(message: &str) -> String {
    match message.char_indices().nth(MESSAGE_LIMIT) {
        None => message.to_owned(),
        Some((cut, _)) => {
            let mut short = message[..cut].to_owned();
            short.pop();
            short.push('…');
            short
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Progress>> = const { RefCell::new(None) };
}

/// Reports the current call's progress: `done` of `total` (when known), with a message
/// (empty for none). Does nothing when nobody asked to hear it.
pub fn report(done: u64, total: Option<u64>, message: impl AsRef<str>) {
    if let Some(progress) = current() {
        progress.report(done, total, Some(message.as_ref()));
    }
}

/// The progress of the call being served, if its client asked for it.
pub fn current() -> Option<Progress> {
    crate::ambient::current(&CURRENT)
}

/// Runs `future` with `progress` in scope: [`report`] reaches it whenever the future (or
/// anything it awaits) runs.
pub fn scope<F: Future>(progress: Progress, future: F) -> Scoped<F> {
    crate::ambient::Scoped::new(&CURRENT, Some(progress), future)
}

/// Runs `future` with `progress` in scope when there is one, and with none otherwise (so
/// a report never reaches another call's client).
#[doc(hidden)]
pub fn scope_if<F: Future>(progress: Option<Progress>, future: F) -> Scoped<F> {
    crate::ambient::Scoped::new(&CURRENT, progress, future)
}

/// The future [`scope`] returns.
pub type Scoped<F> = crate::ambient::Scoped<Progress, F>;

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(every: Duration) -> (Progress, Arc<Mutex<Vec<Update>>>) {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&heard);
        let progress = Progress::every(every, move |u| sink.lock().unwrap().push(u));
        (progress, heard)
    }

    #[test]
    fn the_first_report_goes_out_at_once_and_the_rest_wait_their_turn() {
        let (progress, heard) = heard(Duration::from_secs(3600));
        progress.report(1, Some(3), Some("one"));
        progress.report(2, Some(3), Some("two"));
        progress.report(3, Some(3), Some("three"));
        assert_eq!(heard.lock().unwrap().len(), 1);
        progress.flush();
        let heard = heard.lock().unwrap();
        assert_eq!(heard.len(), 2, "only the latest waiting report is sent");
        assert_eq!(heard[1].done, 3);
        assert_eq!(heard[1].message.as_deref(), Some("three"));
    }

    #[test]
    fn progress_that_does_not_move_forward_is_dropped() {
        let (progress, heard) = heard(Duration::ZERO);
        progress.report(5, None, None);
        progress.report(5, None, Some("again"));
        progress.report(4, None, None);
        progress.report(6, None, Some(""));
        let heard = heard.lock().unwrap();
        assert_eq!(heard.iter().map(|u| u.done).collect::<Vec<_>>(), vec![5, 6]);
        assert_eq!(heard[1].message, None, "an empty message is no message");
    }

    #[test]
    fn long_messages_are_cut() {
        let (progress, heard) = heard(Duration::ZERO);
        progress.report(1, None, Some(&"é".repeat(5000)));
        let message = heard.lock().unwrap()[0].message.clone().unwrap();
        assert_eq!(message.chars().count(), MESSAGE_LIMIT);
        assert!(message.ends_with('…'));
    }

    #[test]
    fn a_flush_with_nothing_waiting_sends_nothing() {
        let (progress, heard) = heard(Duration::from_secs(3600));
        progress.report(1, None, None);
        progress.flush();
        progress.flush();
        assert_eq!(heard.lock().unwrap().len(), 1);
    }

    #[test]
    fn reporting_outside_a_call_does_nothing() {
        report(1, Some(2), "nobody listens");
        assert!(current().is_none());
    }
}
