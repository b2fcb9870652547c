//! Cancellation: a call whose client cancelled it (`notifications/cancelled`) stops its
//! method at its next await; a write's unit of work rolls back and its idempotency key is
//! given back at once; nothing is answered for it (the protocol says so, and the MCP
//! adapter sends nothing).
//!
//! The transport makes a [`Cancel`] for each call and runs the call in its [`scope`]; the
//! runtime watches it wherever a tool method runs ([`crate::engine::Runtime::within`]), so
//! methods need no parameter for it:
//!
//! ```
//! use toolspec_runtime::cancel::{self, Cancel};
//!
//! let cancel = Cancel::new();
//! assert!(!cancel.is_cancelled());
//! cancel.cancel();
//! let seen = futures_lite(cancel::scope(cancel.clone(), async { cancel::current() }));
//! assert!(seen.is_some_and(|c| c.is_cancelled()));
//! # fn futures_lite<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f) }
//! ```

use std::cell::RefCell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// One call's cancellation: set once, by the transport, when the client cancels the call.
/// Cheap to clone: clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    cancelled: AtomicBool,
    waiting: Mutex<Vec<Waker>>,
}

impl Cancel {
    /// A call not cancelled (yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels the call: whatever waits on [`Cancel::cancelled`] wakes.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        let waiting =
            std::mem::take(&mut *self.0.waiting.lock().unwrap_or_else(|p| p.into_inner()));
        waiting.into_iter().for_each(Waker::wake);
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Polls for cancellation: ready once the call is cancelled.
    pub fn poll_cancelled(&self, cx: &mut Context<'_>) -> Poll<()> {
        if self.is_cancelled() {
            return Poll::Ready(());
        }
        let mut waiting = self.0.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if !waiting.iter().any(|w| w.will_wake(cx.waker())) {
            waiting.push(cx.waker().clone());
        }
        drop(waiting);
        // Cancelled while the waker was put down: do not wait for another cancel.
        if self.is_cancelled() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// Completes once the call is cancelled.
    pub fn cancelled(&self) -> impl Future<Output = ()> + '_ {
        std::future::poll_fn(move |cx| self.poll_cancelled(cx))
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

/// The cancellation of the call being served, if its transport gave one.
pub fn current() -> Option<Cancel> {
    crate::ambient::current(&CURRENT)
}

/// Runs `future` with `cancel` in scope: [`current`] answers it whenever the future (or
/// anything it awaits) runs.
pub fn scope<F: Future>(cancel: Cancel, future: F) -> Scoped<F> {
    crate::ambient::Scoped::new(&CURRENT, Some(cancel), future)
}

/// The future [`scope`] returns.
pub type Scoped<F> = crate::ambient::Scoped<Cancel, F>;
