//! Per-thread rings of call samples, and the thread that empties them into the recorder.
//!
//! Each thread that records gets a single-producer ring (`rtrb`): a push is a write and a
//! release store, no lock and no shared cache line. The rings' consumer ends sit in one
//! list, emptied by a background thread (every [`BUSY`] while there is traffic, every
//! [`IDLE`] when there is none, and at once when a thread finds its ring half full) and
//! on demand by [`super::flush`]. The mutex on that list
//! (which also guards the recorder's cached handles) is the only lock; a call takes it only
//! to register its thread, or when its ring is full: it then empties the rings itself, so
//! a recorder that cannot keep up slows the calls down rather than losing samples.

use std::cell::RefCell;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::thread::Thread;
use std::time::Duration;

use rtrb::{Consumer, Producer, RingBuffer};

use super::CallSample;
use super::sink;

/// Samples one thread may have waiting (8192 of 56 bytes: 448 KiB a recording thread); a
/// full ring records in line. At 4096 a trivial call's ring filled 11 times in one run of
/// the dispatch bench (the background thread's 1 ms sleep can last longer on a busy VM),
/// and each time the call recorded 4096 samples itself.
const CAPACITY: usize = 8192;
/// How long the background thread sleeps after finding the rings empty.
const IDLE: Duration = Duration::from_millis(20);
/// How long it sleeps after finding samples: short enough that a busy thread's ring
/// (a million calls a second) never fills.
const BUSY: Duration = Duration::from_millis(1);
/// Every this many pushes a thread looks at its ring, and wakes the background thread
/// when the ring is half full: a burst after a quiet spell (the thread then sleeps for
/// [`IDLE`]) would otherwise fill the ring, and the call that finds it full records
/// every waiting sample itself.
const CHECK_EVERY: u32 = 512;

/// One thread's end of its ring.
struct Ring {
    producer: Producer<CallSample>,
    /// Pushes so far (wrapping), for [`CHECK_EVERY`].
    pushes: u32,
}

thread_local! {
    static RING: RefCell<Option<Ring>> = const { RefCell::new(None) };
}

/// The rings' consumer ends, and the recorder's handles, behind the one lock.
struct Drain {
    consumers: Vec<Consumer<CallSample>>,
    sink: sink::Sink,
}

static DRAIN: Mutex<Drain> = Mutex::new(Drain {
    consumers: Vec::new(),
    sink: sink::Sink::new(),
});
/// The background thread, once started (`None`: it could not be).
static DRAINER: OnceLock<Option<Thread>> = OnceLock::new();

/// The cycle counter durations are read from (calibrated once, on first use).
pub(super) fn clock() -> &'static quanta::Clock {
    static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();
    CLOCK.get_or_init(quanta::Clock::new)
}

fn state() -> MutexGuard<'static, Drain> {
    DRAIN.lock().unwrap_or_else(|p| p.into_inner())
}

/// Puts `sample` on this thread's ring (made on first use). When the ring is full, empties
/// every ring first; a thread being torn down records the sample directly.
pub(super) fn push(sample: CallSample) {
    // Err: the thread is being torn down and its ring is gone.
    let pushed = RING.try_with(|cell| {
        let mut ring = cell.borrow_mut();
        let ring = ring.get_or_insert_with(register);
        if ring.producer.push(sample).is_err() {
            drain();
            if ring.producer.push(sample).is_err() {
                return false;
            }
        }
        ring.pushes = ring.pushes.wrapping_add(1);
        if ring.pushes % CHECK_EVERY == 0 {
            wake_if_half_full(&ring.producer);
        }
        true
    });
    if pushed != Ok(true) {
        state().sink.record(&sample);
    }
}

/// Wakes the background thread when `producer`'s ring is half full (see [`CHECK_EVERY`]).
#[cold]
fn wake_if_half_full(producer: &Producer<CallSample>) {
    if producer.slots() < CAPACITY / 2
        && let Some(Some(drainer)) = DRAINER.get()
    {
        drainer.unpark();
    }
}

/// A new ring for this thread, its consumer listed for draining.
fn register() -> Ring {
    let (producer, consumer) = RingBuffer::new(CAPACITY);
    state().consumers.push(consumer);
    DRAINER.get_or_init(|| {
        let started = std::thread::Builder::new()
            .name("toolspec-metrics".into())
            .spawn(|| {
                loop {
                    let found = drain();
                    // A push that finds its ring half full cuts the sleep short.
                    std::thread::park_timeout(if found > 0 { BUSY } else { IDLE });
                }
            });
        match started {
            Ok(handle) => Some(handle.thread().clone()),
            Err(e) => {
                // Without the thread, samples still reach the recorder at each flush, and
                // a full ring records in line.
                crate::error::log_incident(&format!("starting the metrics thread: {e}"));
                None
            }
        }
    });
    Ring {
        producer,
        pushes: 0,
    }
}

/// Records every waiting sample and returns how many there were; forgets the rings of
/// threads that have ended.
pub(super) fn drain() -> usize {
    let mut state = state();
    let Drain { consumers, sink } = &mut *state;
    let mut found = 0;
    consumers.retain_mut(|consumer| {
        // Read before popping: a ring abandoned now has all its samples in it already.
        let ended = consumer.is_abandoned();
        while let Ok(sample) = consumer.pop() {
            sink.record(&sample);
            found += 1;
        }
        !ended
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::ResponseFormat;
    use metrics_util::debugging::{DebugValue, DebuggingRecorder};

    static TOOL: &str = "ring_test_tool";

    fn sample() -> CallSample {
        CallSample {
            tool: &TOOL,
            called_as: &TOOL,
            error: None,
            elapsed: 1,
            tokens: 3,
            items: 0,
            paged: false,
            format: ResponseFormat::Detailed,
            truncated: false,
            replayed: false,
            retried: false,
            preview: None,
        }
    }

    /// More samples than a ring holds, from one thread: none is dropped, and a flush hands
    /// every one to the recorder. (The only test of this crate's unit tests that installs a
    /// recorder: the facade has one per process.)
    #[test]
    fn a_full_ring_loses_no_sample() {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        recorder
            .install()
            .expect("the only recorder of this test binary");
        let calls = CAPACITY + 100;
        for _ in 0..calls {
            push(sample());
        }
        drain();
        let counted: u64 = snapshotter
            .snapshot()
            .into_vec()
            .into_iter()
            .filter(|(key, ..)| {
                key.key().name() == super::super::CALLS.name
                    && key.key().labels().any(|l| l.value() == "ring_test_tool")
            })
            .map(|(.., value)| match value {
                DebugValue::Counter(n) => n,
                _ => 0,
            })
            .sum();
        assert_eq!(counted, calls as u64);
    }
}
