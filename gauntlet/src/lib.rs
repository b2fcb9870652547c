//! The gauntlet: every promise a spec makes, checked against the running implementation.
//!
//! A spec's descriptions promise things: a default and a maximum `limit`, the allowed values
//! of a status, that a retry with the same key changes nothing, that a preview changes
//! nothing and the apply does what it showed, that an undo call restores the state, how long
//! keys and previews live. `toolspec generate --emit tests` (or `toolspec::Builder`) writes a
//! `<service>_gauntlet.rs` that states those facts as static data ([`Facts`]) together with
//! a macro expanding to one `#[test]` per check, and this module runs each check against the
//! user's own implementation. A failure names the promise that broke, the call that showed
//! it, what came back and what the spec expected ([`Failure`]).
//!
//! # Using it
//!
//! The test crate enables the `gauntlet` feature, includes the generated file, and hands the
//! macro a **fixture**: a function that builds a fresh implementation on throwaway state
//! (in memory, or a temporary SQLite file) around the [`Runtime`] it is given. The runtime
//! has in-memory stores and a manual clock the gauntlet moves to test TTLs, and it counts
//! how often the implementation's methods run; build the server with it.
//!
//! ```ignore
//! // tests/gauntlet.rs (with toolspec-runtime's feature "gauntlet" in dev-dependencies)
//! use my_crate::tickets::TicketsServer;
//! use toolspec_runtime::engine::Runtime;
//!
//! include!(concat!(env!("OUT_DIR"), "/tickets_gauntlet.rs"));
//!
//! fn fixture(runtime: Runtime) -> TicketsServer<Desk> {
//!     TicketsServer::new(Desk::seeded_for_the_spec_examples(), runtime)
//! }
//!
//! tickets_gauntlet!(fixture);          // or: tickets_gauntlet!(async fixture);
//! ```
//!
//! `cargo test` then lists `gauntlet::tickets_search::pagination_walks_every_item_once` and
//! the rest. The fixture's data must make the spec's examples true (the ticket an example
//! reads exists, the total an example states matches): the examples are promises too.
//!
//! Implementations that need a reactor (tokio, sqlx...) pass an executor that blocks on a
//! future: `tickets_gauntlet!(fixture, executor = |f| my_runtime().block_on(f))`. Without
//! one, [`block_on`] runs every call on the test's thread.
//!
//! # The checks
//!
//! Each [`Check`] runs on fresh fixtures:
//!
//! - **schema**: the served definition is the one generated from the spec (title,
//!   description, annotations, aliases, example call, input and output schema, compared
//!   through the digests in the facts, part by part), and its validator table enforces what
//!   its input schema says (parameters, required, types, enums, bounds, formats, defaults).
//!   Every other check reads the parameters' constraints from that validator table, the one
//!   form they have; the facts add only the spec's example of each.
//! - **examples**: every example gives the outcome the spec says (its `result` is a subset
//!   of the real one, or its error code); an irreversible success runs preview then apply.
//! - **error recovery**: per parameter, a missing value, a wrong type, a value outside the
//!   enum, range, length, pattern or format, and an unknown argument each come back with the
//!   right code, `retryable: false`, the allowed facts in `details`, a message naming the
//!   parameter, and a valid call in the message that really succeeds.
//! - **retry**: the same key twice makes one effect (counted at the user's method) and two
//!   equivalent answers, the second a replay; the same key with other arguments is refused;
//!   concurrent calls with one key make one effect; the key lives exactly its TTL.
//! - **dry run**: a preview changes nothing the read tools see (every read-only tool's
//!   successful examples, before and after); apply does what the preview said; apply with
//!   changed arguments, a used id or an expired id is refused; a preview lives its TTL.
//! - **who may call**: for each OAuth scope the tool needs, a caller granted every other
//!   one is refused with `insufficient_scope` naming the missing scope, and nothing changes;
//!   a caller granted them all is not refused for its scopes.
//! - **rate limits**: the calls the stated limit allows at once run, the next is refused
//!   with `rate_limited` (retryable, `details.retry_after_ms` within the window) and
//!   changes nothing, and after that wait on the gauntlet's clock the call goes through.
//! - **undo**: the undo call is valid and brings back what the read tools saw before.
//! - **pagination**: walking every page returns every item once, at most `limit` a page,
//!   as many as `total`; the default and maximum `limit` are what the description says; a
//!   forged cursor is refused.
//! - **output**: every success validates against the output schema; concise results hold
//!   no detailed-only field; every allowed value and every bound is accepted.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// A `Failure` is the gauntlet's whole product: built once, on the cold path where a promise
// broke, and read by a person. Boxing it would add noise to every check for no gain.
#![allow(clippy::result_large_err)]

mod checks;
mod facts;
mod failure;
mod session;
mod values;

pub use facts::{
    Check, CheckDef, ErrorFacts, ExampleFacts, Facts, PagingFacts, ParamExample, ParamFacts,
    PreviewFacts, Range, ResponseFormatFacts, Tier, ToolFacts, Violation,
};
pub use failure::Failure;

/// The cause logged with `incident` (the `details.incident` of an `internal_error`), while
/// it is among the last 256 of the process: for a test that wants to say why an
/// implementation failed. The gauntlet's own failures already carry it.
pub fn incident_cause(incident: &str) -> Option<String> {
    toolspec_core::test_hooks::incident_cause(incident)
}

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use session::{START_MS, Session, block};
use toolspec_core::clock::ManualClock;
use toolspec_core::cursor::CursorKey;
use toolspec_core::engine::{Runtime, ToolDefinition, Toolset};
use toolspec_core::store::MemoryStore;

/// A boxed future that need not be `Send`.
pub type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Runs a future to completion on the calling thread (see [`block_on`] for the default).
pub type Executor<'a> = dyn Fn(LocalBoxFuture<'_, ()>) + Sync + 'a;

/// How to build a fresh implementation around a [`Runtime`]: what the generated macro wraps
/// the user's fixture function in.
pub struct Fixture<'a> {
    make: Box<dyn Fn(Runtime) -> LocalBoxFuture<'a, Box<dyn Toolset>> + 'a>,
}

impl<'a> Fixture<'a> {
    /// A fixture from a function `fn(Runtime) -> impl Toolset`.
    pub fn new<S, F>(fixture: F) -> Self
    where
        S: Toolset + 'static,
        F: Fn(Runtime) -> S + 'a,
    {
        let fixture = Arc::new(fixture);
        Self {
            make: Box::new(move |runtime| {
                let fixture = fixture.clone();
                Box::pin(async move { Box::new(fixture(runtime)) as Box<dyn Toolset> })
            }),
        }
    }

    /// A fixture from an async function `async fn(Runtime) -> impl Toolset`.
    pub fn new_async<S, F, Fut>(fixture: F) -> Self
    where
        S: Toolset + 'static,
        F: Fn(Runtime) -> Fut + 'a,
        Fut: Future<Output = S> + 'a,
    {
        Self {
            make: Box::new(move |runtime| {
                let made = fixture(runtime);
                Box::pin(async move { Box::new(made.await) as Box<dyn Toolset> })
            }),
        }
    }
}

/// Runs the checks of one toolset's [`Facts`] against implementations from a [`Fixture`].
pub struct Gauntlet<'a> {
    facts: &'static Facts,
    fixture: Fixture<'a>,
    executor: Box<Executor<'a>>,
    /// The definitions the fixture's implementation serves, from the first session.
    served: OnceLock<&'static [ToolDefinition]>,
}

impl<'a> Gauntlet<'a> {
    /// A gauntlet over `facts` (from a generated file) and `fixture`, running calls with
    /// [`block_on`].
    pub fn new(facts: &'static Facts, fixture: Fixture<'a>) -> Self {
        Self {
            facts,
            fixture,
            executor: Box::new(|f| block_on(f)),
            served: OnceLock::new(),
        }
    }

    /// Runs every call with `executor` instead: a function that drives a future to
    /// completion, e.g. a tokio runtime's `block_on`, for implementations that need one.
    pub fn executor(mut self, executor: impl Fn(LocalBoxFuture<'_, ()>) + Sync + 'a) -> Self {
        self.executor = Box::new(executor);
        self
    }

    /// The facts it checks.
    pub fn facts(&self) -> &'static Facts {
        self.facts
    }

    /// Runs the check named `name` (`tickets_search::schema_matches_the_spec`).
    /// A panic in the implementation is reported as a failure of the check.
    pub fn run(&self, name: &str) -> Result<(), Failure> {
        let Some(def) = self.facts.check(name) else {
            return Err(Failure::new("the generated gauntlet lists this check")
                .got(format!("no check named {name}"))
                .expected("one of the checks in the facts")
                .fix("regenerate the gauntlet file from the spec")
                .named(name));
        };
        self.run_def(def)
    }

    /// Runs every check and reports each outcome by name.
    pub fn run_all(&self) -> Report {
        let outcomes = self
            .facts
            .checks
            .iter()
            .map(|def| Outcome {
                check: def.name,
                result: self.run_def(def),
            })
            .collect();
        Report { outcomes }
    }

    fn run_def(&self, def: &'static CheckDef) -> Result<(), Failure> {
        let outcome = catch_unwind(AssertUnwindSafe(|| checks::run(self, def)));
        let result = match outcome {
            Ok(result) => result,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_else(|| "a panic".into());
                Err(Failure::new("the implementation answers without panicking")
                    .got(format!("panic: {message}"))
                    .expected("a result or a ToolError")
                    .fix("return Err(ToolError) instead of panicking; the panic's location is on stderr"))
            }
        };
        result.map_err(|f| f.named(def.name))
    }

    /// The tool definitions the implementation serves (a session is built the first time).
    pub(crate) fn served(&self) -> Result<&'static [ToolDefinition], Failure> {
        if let Some(served) = self.served.get() {
            return Ok(served);
        }
        let session = self.session()?;
        Ok(session.server.definitions())
    }

    /// A fresh implementation from the fixture, on a runtime with in-memory stores and a
    /// manual clock.
    pub(crate) fn session(&self) -> Result<Session<'_>, Failure> {
        let fresh = |e: String| {
            Failure::new("the fixture builds a fresh implementation")
                .got(e)
                .expected("a server built around the Runtime handed to the fixture")
        };
        let clock = Arc::new(ManualClock::new(START_MS));
        // A fixed cursor key and clock: every run makes the same cursors and expiry times,
        // so a failure reads the same each time it is reproduced.
        let runtime = Runtime::new(
            CursorKey::from_bytes(b"toolspec gauntlet: not a secret"),
            Arc::new(MemoryStore::new()),
        )
        .with_clock(clock.clone());
        let server = block(&*self.executor, (self.fixture.make)(runtime.clone()))
            .ok_or_else(|| fresh("the executor returned before the fixture finished".into()))?;
        let _ = self.served.set(server.definitions());
        Ok(Session {
            server,
            runtime,
            clock,
            exec: &*self.executor,
            host_only: self
                .facts
                .tools
                .iter()
                .filter(|t| t.preview.is_some_and(|p| p.host_only))
                .map(|t| t.name)
                .collect(),
            host: Arc::default(),
        })
    }
}

/// Runs one check for a generated `#[test]`: panics with the [`Failure`] (which prints the
/// broken promise) when it fails.
pub fn run_test(facts: &'static Facts, check: &str, fixture: Fixture<'_>) {
    if let Err(failure) = Gauntlet::new(facts, fixture).run(check) {
        panic!("{failure}");
    }
}

/// [`run_test`] with an executor that drives each call (see [`Gauntlet::executor`]).
pub fn run_test_with<'a, E>(facts: &'static Facts, check: &str, fixture: Fixture<'a>, executor: E)
where
    E: Fn(LocalBoxFuture<'_, ()>) + Sync + 'a,
{
    if let Err(failure) = Gauntlet::new(facts, fixture).executor(executor).run(check) {
        panic!("{failure}");
    }
}

/// The outcome of every check of a [`Gauntlet::run_all`].
#[derive(Debug, Clone)]
pub struct Report {
    /// One per check, in the facts' order.
    pub outcomes: Vec<Outcome>,
}

/// The outcome of one check.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The check's full name.
    pub check: &'static str,
    /// Passed, or why not.
    pub result: Result<(), Failure>,
}

impl Report {
    /// The checks that failed.
    pub fn failures(&self) -> impl Iterator<Item = &Failure> {
        self.outcomes.iter().filter_map(|o| o.result.as_ref().err())
    }

    /// The names of the checks that failed.
    pub fn failed(&self) -> Vec<&'static str> {
        self.outcomes
            .iter()
            .filter(|o| o.result.is_err())
            .map(|o| o.check)
            .collect()
    }

    /// The failure of the check named `name`, if it failed.
    pub fn failure(&self, name: &str) -> Option<&Failure> {
        self.outcomes
            .iter()
            .find(|o| o.check == name)
            .and_then(|o| o.result.as_ref().err())
    }

    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.outcomes.iter().all(|o| o.result.is_ok())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let failed = self.failed().len();
        writeln!(
            f,
            "gauntlet: {} checks, {} passed, {failed} failed",
            self.outcomes.len(),
            self.outcomes.len() - failed
        )?;
        for failure in self.failures() {
            writeln!(f, "\n{failure}")?;
        }
        Ok(())
    }
}

struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Drives `future` to completion on the current thread, parking it while the future waits.
/// Enough for implementations whose futures need no reactor (in-memory state, blocking
/// SQLite); others pass their runtime's `block_on` as the executor.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(out) => return out,
            Poll::Pending => thread::park(),
        }
    }
}
