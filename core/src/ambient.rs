//! What a call carries without a parameter: its [caller](crate::caller), its
//! [cancellation](crate::cancel) and its [progress](crate::progress). The transport puts
//! each in scope around the call's future ([`Scoped`]); the runtime and the user's method
//! read it with the module's `current()` while that future runs.
//!
//! A thread-local set for each poll rather than a task-local: the call's future may move
//! between threads on a multi-threaded runtime, and whichever thread polls it sees the
//! value. A task the method spawns does not: read what it needs before spawning.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::thread::LocalKey;

/// The slot one kind of ambient value lives in, per thread.
pub(crate) type Slot<T> = LocalKey<RefCell<Option<T>>>;

/// The value in `slot` for the future being polled, if a [`Scoped`] put one there.
pub(crate) fn current<T: Clone + 'static>(slot: &'static Slot<T>) -> Option<T> {
    slot.with(|current| current.borrow().clone())
}

/// A future with one ambient value in scope: each poll puts `value` in its slot and the
/// previous value back after it, even when the future panics (a caught panic must not leave
/// a value behind for the next call polled on the thread).
pub struct Scoped<T: Clone + 'static, F> {
    slot: &'static Slot<T>,
    value: Option<T>,
    future: Pin<Box<F>>,
}

impl<T: Clone + 'static, F: Future> Scoped<T, F> {
    pub(crate) fn new(slot: &'static Slot<T>, value: Option<T>, future: F) -> Self {
        Self {
            slot,
            value,
            future: Box::pin(future),
        }
    }
}

impl<T: Clone + 'static, F> std::fmt::Debug for Scoped<T, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scoped")
            .field("in_scope", &self.value.is_some())
            .finish_non_exhaustive()
    }
}

impl<T: Clone + Unpin + 'static, F: Future> Future for Scoped<T, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        struct Restore<T: 'static> {
            slot: &'static Slot<T>,
            previous: Option<T>,
        }
        impl<T: 'static> Drop for Restore<T> {
            fn drop(&mut self) {
                let previous = self.previous.take();
                self.slot.with(|current| *current.borrow_mut() = previous);
            }
        }
        let previous = this
            .slot
            .with(|current| current.replace(this.value.clone()));
        let _restore = Restore {
            slot: this.slot,
            previous,
        };
        this.future.as_mut().poll(cx)
    }
}
