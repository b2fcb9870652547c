//! Time, injectable: every TTL decision in the runtime reads a [`Clock`], so tests move time
//! forward by hand instead of sleeping.
//!
//! Times are Unix milliseconds (`i64`): they fit a SQLite `INTEGER`, compare cheaply, and need
//! no date library. [`format_rfc3339`] turns one into the text agents see (`expires_at`).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{SystemTime, UNIX_EPOCH};

/// A wait on a clock: completes once the clock has moved on by the time asked for.
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A source of "now", in Unix milliseconds, and of waits on the same time.
///
/// The runtime holds one (`Arc<dyn Clock>`); stores take `now` as a plain parameter so they
/// never read the wall clock themselves.
pub trait Clock: Send + Sync {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    fn now_ms(&self) -> i64;

    /// A wait of `ms` on this clock, for the runtime's timers (a write's lease renewed while
    /// its method runs); `None` when this clock cannot wait where the call runs, and the
    /// runtime then does without the timer. The default: `None`.
    fn sleep(&self, ms: u64) -> Option<Sleep> {
        let _ = ms;
        None
    }
}

/// The machine's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
            // A clock set before 1970: treat as the epoch rather than failing a call.
            Err(_) => 0,
        }
    }

    /// A wait on the runtime's own timer thread (one for the process): it works on any executor, with
    /// or without a tokio timer, so time limits and lease renewals hold whatever features the
    /// runtime was built with. `None` only if that thread cannot be started.
    fn sleep(&self, ms: u64) -> Option<Sleep> {
        timer::sleep(std::time::Duration::from_millis(ms))
    }
}

/// A clock that only moves when told to: for tests of TTLs and expiry.
///
/// ```
/// use toolspec_runtime::clock::{Clock, ManualClock};
/// let clock = ManualClock::new(1_000);
/// clock.advance_ms(500);
/// assert_eq!(clock.now_ms(), 1_500);
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    now: Arc<AtomicI64>,
    /// Waits not yet over: their deadline and who to wake when the clock passes it.
    waiting: Arc<Mutex<Vec<(i64, Waker)>>>,
}

impl ManualClock {
    /// A clock that reads `start_ms` until moved.
    pub fn new(start_ms: i64) -> Self {
        Self {
            now: Arc::new(AtomicI64::new(start_ms)),
            waiting: Arc::default(),
        }
    }

    /// Moves the clock forward (or back, with a negative value) by `ms`; waits it passes
    /// the end of are woken.
    pub fn advance_ms(&self, ms: i64) {
        self.now.fetch_add(ms, Ordering::SeqCst);
        self.wake_due();
    }

    /// Sets the clock to `ms`.
    pub fn set_ms(&self, ms: i64) {
        self.now.store(ms, Ordering::SeqCst);
        self.wake_due();
    }

    fn wake_due(&self) {
        let now = self.now.load(Ordering::SeqCst);
        let due: Vec<Waker> = {
            let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
            let (due, later) = waiting.drain(..).partition(|(at, _)| *at <= now);
            *waiting = later;
            due.into_iter().map(|(_, w)| w).collect()
        };
        due.into_iter().for_each(Waker::wake);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }

    /// A wait that ends when the clock is moved to or past its end, never by itself.
    fn sleep(&self, ms: u64) -> Option<Sleep> {
        let until = self
            .now_ms()
            .saturating_add(i64::try_from(ms).unwrap_or(i64::MAX));
        let (now, waiting) = (self.now.clone(), self.waiting.clone());
        Some(Box::pin(std::future::poll_fn(
            move |cx: &mut Context<'_>| {
                if now.load(Ordering::SeqCst) >= until {
                    return Poll::Ready(());
                }
                let mut waiting = waiting.lock().unwrap_or_else(|p| p.into_inner());
                let known = waiting
                    .iter()
                    .any(|(at, w)| *at == until && w.will_wake(cx.waker()));
                if !known {
                    waiting.push((until, cx.waker().clone()));
                }
                // Moved while the waker was put down: do not wait for the next move.
                if now.load(Ordering::SeqCst) >= until {
                    return Poll::Ready(());
                }
                Poll::Pending
            },
        )))
    }
}

/// Formats Unix milliseconds as RFC 3339 UTC with second precision, e.g.
/// `2025-01-31T09:30:00Z`. Times before 1970 or past year 9999 are clamped to that range,
/// so the output is always a valid RFC 3339 `date-time`.
///
/// ```
/// assert_eq!(toolspec_runtime::clock::format_rfc3339(0), "1970-01-01T00:00:00Z");
/// assert_eq!(toolspec_runtime::clock::format_rfc3339(1_738_315_800_000), "2025-01-31T09:30:00Z");
/// ```
pub fn format_rfc3339(ms: i64) -> String {
    // 253402300799 = 9999-12-31T23:59:59Z.
    let secs = ms.div_euclid(1000).clamp(0, 253_402_300_799);
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Days since the epoch to (year, month, day), proleptic Gregorian (Howard Hinnant's
/// algorithm: exact, branch-light, no tables).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Adds a TTL to a time without overflow.
pub(crate) fn expiry(now_ms: i64, ttl: std::time::Duration) -> i64 {
    now_ms.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(format_rfc3339(-5), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339(i64::MAX), "9999-12-31T23:59:59Z");
    }
}

/// One thread that wakes every wait on the wall clock at its deadline, whichever executor
/// polls it. A wait is a shared flag and the waker of its last poll; the thread keeps the
/// deadlines in a heap and sleeps until the nearest one. A wait dropped before its deadline
/// stays in the heap until then (a few words), so nothing has to find and remove it.
mod timer {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::{Arc, Condvar, Mutex, OnceLock};
    use std::task::{Poll, Waker};
    use std::time::{Duration, Instant};

    use super::Sleep;

    /// What a wait and the thread share.
    struct Wait {
        done: AtomicBool,
        waker: Mutex<Option<Waker>>,
    }

    /// A deadline in the heap; ordered by time, then by arrival.
    struct Entry {
        at: Instant,
        seq: u64,
        wait: Arc<Wait>,
    }

    impl PartialEq for Entry {
        fn eq(&self, other: &Self) -> bool {
            (self.at, self.seq) == (other.at, other.seq)
        }
    }
    impl Eq for Entry {}
    impl PartialOrd for Entry {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Entry {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            (self.at, self.seq).cmp(&(other.at, other.seq))
        }
    }

    struct Timer {
        heap: Mutex<BinaryHeap<Reverse<Entry>>>,
        changed: Condvar,
        seq: AtomicU64,
    }

    /// The timer, its thread started on first use; `None` if the thread could not start.
    fn timer() -> Option<&'static Timer> {
        static TIMER: OnceLock<Option<&'static Timer>> = OnceLock::new();
        *TIMER.get_or_init(|| {
            let timer: &'static Timer = Box::leak(Box::new(Timer {
                heap: Mutex::new(BinaryHeap::new()),
                changed: Condvar::new(),
                seq: AtomicU64::new(0),
            }));
            std::thread::Builder::new()
                .name("toolspec-timer".into())
                .spawn(move || run(timer))
                .ok()
                .map(|_| timer)
        })
    }

    /// The thread: wakes what is due, then sleeps until the nearest deadline or a new one.
    fn run(timer: &'static Timer) {
        let mut heap = timer.heap.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let now = Instant::now();
            while heap.peek().is_some_and(|Reverse(e)| e.at <= now) {
                let Some(Reverse(entry)) = heap.pop() else {
                    break;
                };
                entry.wait.done.store(true, Ordering::Release);
                let waker = entry
                    .wait
                    .waker
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .take();
                if let Some(waker) = waker {
                    waker.wake();
                }
            }
            heap = match heap.peek().map(|Reverse(e)| e.at) {
                Some(at) => {
                    let wait = at.saturating_duration_since(Instant::now());
                    timer
                        .changed
                        .wait_timeout(heap, wait)
                        .map(|(guard, _)| guard)
                        .unwrap_or_else(|p| p.into_inner().0)
                }
                None => timer.changed.wait(heap).unwrap_or_else(|p| p.into_inner()),
            };
        }
    }

    /// A wait of `duration` on the wall clock.
    pub(super) fn sleep(duration: Duration) -> Option<Sleep> {
        let timer = timer()?;
        let wait = Arc::new(Wait {
            done: AtomicBool::new(false),
            waker: Mutex::new(None),
        });
        let entry = Entry {
            at: Instant::now() + duration,
            seq: timer.seq.fetch_add(1, Ordering::Relaxed),
            wait: wait.clone(),
        };
        {
            let mut heap = timer.heap.lock().unwrap_or_else(|p| p.into_inner());
            heap.push(Reverse(entry));
        }
        timer.changed.notify_one();
        Some(Box::pin(std::future::poll_fn(move |cx| {
            if wait.done.load(Ordering::Acquire) {
                return Poll::Ready(());
            }
            *wait.waker.lock().unwrap_or_else(|p| p.into_inner()) = Some(cx.waker().clone());
            // Due while the waker was put down: the thread may have found none to wake.
            if wait.done.load(Ordering::Acquire) {
                return Poll::Ready(());
            }
            Poll::Pending
        })))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A minimal executor: polls on the calling thread, parking between wakes.
        fn block_on(mut f: Sleep) {
            struct Unpark(std::thread::Thread);
            impl std::task::Wake for Unpark {
                fn wake(self: Arc<Self>) {
                    self.0.unpark();
                }
            }
            let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
            let mut cx = std::task::Context::from_waker(&waker);
            while f.as_mut().poll(&mut cx).is_pending() {
                std::thread::park();
            }
        }

        #[test]
        fn waits_end_at_their_deadlines_without_tokio_in_any_order() {
            let started = Instant::now();
            let long = sleep(Duration::from_millis(60)).expect("a timer");
            let short = sleep(Duration::from_millis(20)).expect("a timer");
            block_on(short);
            let after_short = started.elapsed();
            block_on(long);
            let after_long = started.elapsed();
            assert!(after_short >= Duration::from_millis(20), "{after_short:?}");
            assert!(after_long >= Duration::from_millis(60), "{after_long:?}");
            // A wait dropped unpolled does not stop the others.
            drop(sleep(Duration::from_millis(5)));
            block_on(sleep(Duration::from_millis(10)).expect("a timer"));
        }
    }
}
