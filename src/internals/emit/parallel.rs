//! Independent emit jobs on every core, their results in the jobs' order.
//!
//! Emitters are pure functions of the model, so the files of one toolset's Rust, another's
//! tests and the docs can be rendered at once; collecting the results by job index (and
//! sorting the files afterwards) keeps the output byte for byte the same as one thread's.

use std::panic::resume_unwind;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

/// `f` of every item, computed on up to [`thread::available_parallelism`] threads, in
/// `items`' order. Jobs are handed out one at a time, so a long one does not hold up the
/// short ones queued behind it. A panic in `f` is resumed on the calling thread.
pub(crate) fn map<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let threads = thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<R>> = items.iter().map(|_| None).collect();
    thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        done.push((i, f(item)));
                    }
                })
            })
            .collect();
        for worker in workers {
            match worker.join() {
                Ok(done) => {
                    for (i, result) in done {
                        slots[i] = Some(result);
                    }
                }
                Err(panic) => resume_unwind(panic),
            }
        }
    });
    slots
        .into_iter()
        .map(|r| r.expect("every job ran: workers stop only when the queue is empty"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::map;

    #[test]
    fn results_come_in_the_items_order_whatever_finishes_first() {
        let items: Vec<u64> = (0..64).collect();
        let out = map(&items, |&i| {
            // Early items take longest, so they finish last on a multi-core machine.
            std::thread::sleep(std::time::Duration::from_micros(64 - i));
            i * 2
        });
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(map(&[] as &[u8], |_| 0).is_empty());
    }

    #[test]
    #[should_panic(expected = "job 3 broke")]
    fn a_panic_in_a_job_reaches_the_caller() {
        map(&[0, 1, 2, 3], |&i| {
            assert!(i != 3, "job {i} broke");
            i
        });
    }
}
