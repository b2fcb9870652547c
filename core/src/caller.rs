//! [`Caller`]: who makes a call, and the records that belong to them.
//!
//! Over HTTP with authorization (`toolspec_runtime::mcp::auth`), every request carries an access
//! token; the token's issuer, subject, client and scopes are its caller. Over stdio the
//! host started the process for its local user: there is no caller object, and records are
//! kept as they always were.
//!
//! The caller of the call being served is in scope while its future runs
//! ([`Caller::current`]), so a method can apply its own row-level rules without any change
//! to its signature:
//!
//! ```
//! use std::sync::Arc;
//! use toolspec_runtime::caller::{self, Caller};
//!
//! async fn my_method() -> String {
//!     match Caller::current() {
//!         Some(caller) => format!("tickets of {}", caller.subject()),
//!         None => "tickets of the local user".to_owned(),
//!     }
//! }
//!
//! let alice = Arc::new(Caller::new("https://auth.example.com", "alice").with_scopes(["tickets:read"]));
//! let said = futures_lite(caller::scope(Some(alice), my_method()));
//! assert_eq!(said, "tickets of alice");
//! # fn futures_lite<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f) }
//! ```
//!
//! Idempotency keys, previews and cursors made in a caller's scope are bound to that caller:
//! the runtime keeps them under a tag derived from the issuer and subject, so another
//! caller's same key is a new key, and another caller's preview id or cursor is unknown.

use std::borrow::Cow;
use std::cell::RefCell;
use std::future::Future;
use std::sync::Arc;

use sha2::{Digest, Sha256};

/// Who makes a call: the subject of a validated access token, the client it was issued to,
/// and the scopes it grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    issuer: String,
    subject: String,
    client_id: Option<String>,
    scopes: Vec<String>,
    /// What the caller's records are kept under (see [`Caller::tag`]).
    tag: String,
}

impl Caller {
    /// The caller `subject` of tokens from `issuer`, with no client id and no scopes.
    pub fn new(issuer: impl Into<String>, subject: impl Into<String>) -> Self {
        let (issuer, subject) = (issuer.into(), subject.into());
        let tag = tag_of(&issuer, &subject);
        Self {
            issuer,
            subject,
            client_id: None,
            scopes: Vec::new(),
            tag,
        }
    }

    /// The same caller, acting through client `client_id`.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The same caller, granted `scopes` (kept sorted, each once).
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self.scopes.sort();
        self.scopes.dedup();
        self
    }

    /// The token's issuer (`iss`), as configured.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The token's subject (`sub`): the user, or for a client acting for itself, the client.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The client the token was issued to (`client_id`), when the token says.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The scopes the token grants, sorted.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether the token grants `scope` (scopes are compared as exact strings).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes
            .binary_search_by(|s| s.as_str().cmp(scope))
            .is_ok()
    }

    /// The scopes of `needed` this caller's token does not grant, in `needed`'s order:
    /// empty when the caller may make the call.
    pub fn missing<'a>(&self, needed: &[&'a str]) -> Vec<&'a str> {
        needed
            .iter()
            .copied()
            .filter(|s| !self.has_scope(s))
            .collect()
    }

    /// A short stable name for this caller's records: 16 hex digits of SHA-256 over the
    /// issuer and the subject. Nothing of the subject can be read back from it, so it may
    /// appear in stored keys and logs.
    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// The caller of the call being served, if the transport named one (see [`scope`]);
    /// `None` over stdio and in direct calls.
    ///
    /// Only the future handed to [`scope`] (and what it awaits) sees it: a task it spawns
    /// does not, so read it before spawning.
    pub fn current() -> Option<Arc<Caller>> {
        crate::ambient::current(&CURRENT)
    }
}

fn tag_of(issuer: &str, subject: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(issuer.as_bytes());
    hash.update([0]);
    hash.update(subject.as_bytes());
    let digest = hash.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Caller>>> = const { RefCell::new(None) };
}

/// Runs `future` with `caller` in scope: [`Caller::current`] answers it whenever the future
/// (or anything it awaits) runs. `None` runs it as the local user, as over stdio.
pub fn scope<F: Future>(caller: Option<Arc<Caller>>, future: F) -> Scoped<F> {
    crate::ambient::Scoped::new(&CURRENT, caller, future)
}

/// The future [`scope`] returns.
pub type Scoped<F> = crate::ambient::Scoped<Arc<Caller>, F>;

/// The name a record made in the current caller's scope is kept under: `name` itself for
/// the local user, `name@<tag>` for a caller. Tool names and generated ids never hold `@`,
/// so a caller's records can never be reached by the local user or by another caller.
pub(crate) fn bound(name: &str) -> Cow<'_, str> {
    bound_for(Caller::current().as_deref(), name)
}

/// [`bound`] for a caller known outside its scope (the MCP adapter, before the call runs).
pub(crate) fn bound_for<'a>(caller: Option<&Caller>, name: &'a str) -> Cow<'a, str> {
    match caller {
        Some(caller) => Cow::Owned(format!("{name}@{}", caller.tag())),
        None => Cow::Borrowed(name),
    }
}

/// What the caller presented as a record's name (a `preview_id`), as it is kept: `None`
/// when it holds `@`, which no name the runtime hands out does, so it is no one's record.
pub(crate) fn bound_presented(name: &str) -> Option<Cow<'_, str>> {
    (!name.contains('@')).then(|| bound(name))
}

/// A name kept by [`bound`] as its caller was given it: without the `@<tag>`.
pub(crate) fn unbound(kept: &str) -> &str {
    kept.split_once('@').map_or(kept, |(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::{Context, Poll};

    fn block_on<F: Future>(f: F) -> F::Output {
        // A busy poll is enough for these futures, which never wait.
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut f = std::pin::pin!(f);
        loop {
            if let Poll::Ready(out) = f.as_mut().poll(&mut cx) {
                return out;
            }
        }
    }

    #[test]
    fn the_caller_is_in_scope_only_inside() {
        let alice = Arc::new(Caller::new("https://as.example", "alice"));
        let seen = block_on(scope(Some(alice.clone()), async {
            Caller::current().map(|c| c.subject().to_owned())
        }));
        assert_eq!(seen.as_deref(), Some("alice"));
        assert!(Caller::current().is_none());
        // Nested: the inner scope wins, the outer comes back after it.
        let both = block_on(scope(Some(alice), async {
            let inner = scope(None, async { Caller::current().is_none() }).await;
            (inner, Caller::current().is_some())
        }));
        assert_eq!(both, (true, true));
    }

    #[test]
    fn records_are_bound_by_issuer_and_subject() {
        let a = Caller::new("https://as.example", "alice");
        let b = Caller::new("https://as.example", "bob");
        let other_issuer = Caller::new("https://other.example", "alice");
        assert_ne!(a.tag(), b.tag());
        assert_ne!(a.tag(), other_issuer.tag());
        assert_eq!(a.tag(), Caller::new("https://as.example", "alice").tag());
        assert_eq!(a.tag().len(), 16);
        assert_eq!(bound("k1"), "k1");
        let tag = a.tag().to_owned();
        let key = block_on(scope(Some(Arc::new(a)), async { bound("k1").into_owned() }));
        assert_eq!(key, format!("k1@{tag}"));
    }

    #[test]
    fn scopes_are_exact_strings() {
        let c = Caller::new("i", "s").with_scopes(["b:write", "a:read", "a:read"]);
        assert_eq!(c.scopes(), ["a:read", "b:write"]);
        assert!(c.has_scope("a:read"));
        assert!(!c.has_scope("a:rea"));
        assert_eq!(
            c.missing(&["a:read", "c:admin", "b:read"]),
            ["c:admin", "b:read"]
        );
    }
}
