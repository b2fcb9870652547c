//! What an HTTP request holds while it runs: a place among the large requests, a place among
//! its session's calls, and its JSON-RPC id in that session, all given back when the
//! response has been sent (or the client went away).
//!
//! rmcp answers a session's POSTs on a stream that ends with the response, so the end of the
//! response body is the end of the call. Holding the places until then is what bounds the
//! work a client can start, not just the bytes it can send.

use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use hyper::body::{Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::guard::HttpGuard;

/// The shared state of one server's guard: its limits and what is in flight.
#[derive(Debug)]
pub(super) struct Inflight {
    pub(super) limits: HttpGuard,
    /// Places for requests whose body is over [`HttpGuard::large_body_bytes`].
    pub(super) large: Arc<Semaphore>,
    /// Each session with calls in flight: its places and the ids it uses. A session leaves
    /// the map with its last call, so the map never outgrows what is in flight, whatever
    /// session ids clients make up.
    sessions: Mutex<HashMap<String, Session>>,
    /// The served tools, whose scopes a call is checked against (by authorization only).
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(super) tools: &'static [toolspec_core::engine::ToolDefinition],
    /// Every scope a tool needs, each once, sorted: what the first challenge and the
    /// metadata name.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(super) scopes: Vec<String>,
}

#[derive(Debug)]
struct Session {
    calls: Arc<Semaphore>,
    ids: HashSet<String>,
}

/// A request's id is already used by a request of its session that has not been answered
/// (the id, as JSON text).
pub(super) struct DuplicateId(pub(super) String);

impl Inflight {
    pub(super) fn new(
        limits: HttpGuard,
        tools: &'static [toolspec_core::engine::ToolDefinition],
    ) -> Arc<Self> {
        let mut scopes: Vec<String> = tools
            .iter()
            .flat_map(|t| t.scopes.iter().map(|s| (*s).to_owned()))
            .collect();
        scopes.sort();
        scopes.dedup();
        Arc::new(Self {
            large: Arc::new(Semaphore::new(limits.large_bodies_at_once.max(1))),
            limits,
            sessions: Mutex::new(HashMap::new()),
            tools,
            scopes,
        })
    }

    /// Registers `id` in `session` and waits for one of the session's call places; refused
    /// when an unanswered request of the session has that id (its answer could otherwise go
    /// to either caller).
    pub(super) async fn enter(
        self: &Arc<Self>,
        session: &str,
        id: String,
    ) -> Result<CallPlace, DuplicateId> {
        let calls = {
            let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
            let entry = sessions
                .entry(session.to_owned())
                .or_insert_with(|| Session {
                    calls: Arc::new(Semaphore::new(self.limits.max_calls_per_session.max(1))),
                    ids: HashSet::new(),
                });
            if !entry.ids.insert(id.clone()) {
                return Err(DuplicateId(id));
            }
            entry.calls.clone()
        };
        // Registered first, so the id is held (and a duplicate refused) while it waits.
        let mut place = CallPlace {
            inflight: self.clone(),
            session: session.to_owned(),
            id,
            permit: None,
        };
        place.permit = calls.acquire_owned().await.ok();
        Ok(place)
    }

    fn leave(&self, session: &str, id: &str) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = sessions.get_mut(session) {
            entry.ids.remove(id);
            if entry.ids.is_empty() {
                sessions.remove(session);
            }
        }
    }
}

/// A call's place in its session; leaving drops the id and gives the place back.
#[derive(Debug)]
pub(super) struct CallPlace {
    inflight: Arc<Inflight>,
    session: String,
    id: String,
    permit: Option<OwnedSemaphorePermit>,
}

impl Drop for CallPlace {
    fn drop(&mut self) {
        self.permit.take();
        self.inflight.leave(&self.session, &self.id);
    }
}

/// Everything a request holds until its response is sent.
#[derive(Debug, Default)]
pub(super) struct Hold {
    pub(super) call: Option<CallPlace>,
    /// Set for a large request: its place, and after it the freed memory goes back to the
    /// system.
    pub(super) large: Option<OwnedSemaphorePermit>,
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.call.take();
        if self.large.take().is_some() {
            super::memory::give_back_freed();
        }
    }
}

/// A response body that keeps a [`Hold`] until it ends or is dropped.
pub(super) struct HeldBody {
    inner: Body,
    hold: Option<Hold>,
}

impl HeldBody {
    pub(super) fn new(inner: Body, hold: Hold) -> Self {
        Self {
            inner,
            hold: Some(hold),
        }
    }
}

impl hyper::body::Body for HeldBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            self.hold.take();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sessions(inflight: &Inflight) -> usize {
        inflight.sessions.lock().unwrap().len()
    }

    #[tokio::test]
    async fn a_session_leaves_the_map_with_its_last_call_whatever_ids_clients_invent() {
        let inflight = Inflight::new(HttpGuard::default(), &[]);
        let mut places = Vec::new();
        for s in 0..100 {
            places.push(
                inflight
                    .enter(&format!("made-up-{s}"), "1".into())
                    .await
                    .ok(),
            );
        }
        assert_eq!(sessions(&inflight), 100);
        drop(places);
        assert_eq!(
            sessions(&inflight),
            0,
            "nothing is kept for a session with no call"
        );
    }

    #[tokio::test]
    async fn an_id_is_refused_while_in_use_and_free_again_after() {
        let inflight = Inflight::new(HttpGuard::default(), &[]);
        let first = inflight.enter("s", "7".into()).await.ok();
        assert!(first.is_some());
        assert!(matches!(inflight.enter("s", "7".into()).await, Err(DuplicateId(id)) if id == "7"));
        assert!(
            inflight.enter("other", "7".into()).await.is_ok(),
            "ids are per session"
        );
        assert!(
            inflight.enter("s", "\"7\"".into()).await.is_ok(),
            "\"7\" is not 7"
        );
        drop(first);
        assert!(inflight.enter("s", "7".into()).await.is_ok());
    }
}
