//! Lines for standard error, gathered and written a batch at a time.
//!
//! Writing a call's log line is a system call, and at thousands of calls a second those
//! calls were a twentieth of a server's time. Here a call only appends its line to a buffer;
//! a thread writes the buffer out every [`TICK`] (sooner when it passes [`EAGER_BYTES`]), and
//! whatever is left when the log is dropped (the server shutting down) is written then. A
//! process killed outright loses at most the last tick's lines.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::Duration;

/// How long a line may wait in the buffer.
pub(super) const TICK: Duration = Duration::from_millis(20);
/// A buffer this large is written at once.
const EAGER_BYTES: usize = 32 << 10;

struct Shared {
    buffer: Mutex<Vec<u8>>,
    full: Condvar,
    /// Where batches go: standard error, or a test's sink.
    out: Mutex<Box<dyn Write + Send>>,
}

impl Shared {
    /// Writes and empties the buffer. The output is locked before the batch is taken, so
    /// batches taken by the thread and by a final flush are written in order. A closed
    /// stderr must not fail the calls being logged, so a failed write is dropped.
    fn flush(&self) {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        let batch =
            std::mem::take(&mut *self.buffer.lock().unwrap_or_else(PoisonError::into_inner));
        if !batch.is_empty() {
            let _ = out.write_all(&batch);
            let _ = out.flush();
        }
    }
}

/// A batched standard-error log; lines are written by its thread, and the rest on drop.
pub(super) struct BatchedStderr {
    shared: Arc<Shared>,
    /// No thread could be started: each line is written at once.
    through: bool,
}

impl BatchedStderr {
    /// Starts the writing thread for standard error (if none can be started, lines are
    /// written at once).
    pub(super) fn start() -> Self {
        Self::to(Box::new(std::io::stderr()))
    }

    /// [`BatchedStderr::start`], writing to `out`.
    fn to(out: Box<dyn Write + Send>) -> Self {
        let shared = Arc::new(Shared {
            buffer: Mutex::new(Vec::new()),
            full: Condvar::new(),
            out: Mutex::new(out),
        });
        let weak = Arc::downgrade(&shared);
        let through = std::thread::Builder::new()
            .name("toolspec-log".into())
            .spawn(move || write_batches(&weak))
            .is_err();
        Self { shared, through }
    }

    /// Appends one line (a newline is added).
    pub(super) fn push(&self, line: &str) {
        {
            let mut buffer = self
                .shared
                .buffer
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            buffer.extend_from_slice(line.as_bytes());
            buffer.push(b'\n');
            if buffer.len() < EAGER_BYTES && !self.through {
                return;
            }
        }
        if self.through {
            self.shared.flush();
        } else {
            self.shared.full.notify_one();
        }
    }
}

impl Drop for BatchedStderr {
    fn drop(&mut self) {
        self.shared.flush();
    }
}

/// The writing thread: every tick (or when the buffer is full), writes the batch; ends when
/// the log is gone.
fn write_batches(weak: &Weak<Shared>) {
    while let Some(shared) = weak.upgrade() {
        let buffer = shared.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        let waited = shared.full.wait_timeout(buffer, TICK);
        drop(waited);
        shared.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink the test can read.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Sink {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn lines_are_written_within_a_few_ticks_and_the_rest_on_drop() {
        let sink = Sink::default();
        let log = BatchedStderr::to(Box::new(sink.clone()));
        log.push("one");
        log.push("two");
        let deadline = std::time::Instant::now() + TICK * 50;
        while sink.text().is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(TICK / 4);
        }
        assert_eq!(sink.text(), "one\ntwo\n", "written by the thread, in order");
        log.push("three");
        drop(log);
        assert_eq!(
            sink.text(),
            "one\ntwo\nthree\n",
            "the rest is written on drop"
        );
    }

    #[test]
    fn many_lines_from_many_threads_all_arrive_whole() {
        let sink = Sink::default();
        let log = Arc::new(BatchedStderr::to(Box::new(sink.clone())));
        let writers: Vec<_> = (0..8)
            .map(|t| {
                let log = Arc::clone(&log);
                std::thread::spawn(move || {
                    for i in 0..2000 {
                        log.push(&format!("thread {t} line {i}"));
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        drop(Arc::try_unwrap(log).ok().expect("the only owner"));
        let text = sink.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 16_000);
        for t in 0..8 {
            let own: Vec<&str> = lines
                .iter()
                .copied()
                .filter(|l| l.starts_with(&format!("thread {t} ")))
                .collect();
            let expected: Vec<String> = (0..2000).map(|i| format!("thread {t} line {i}")).collect();
            assert_eq!(own, expected, "each thread's lines whole and in order");
        }
    }
}
