//! Authorization over HTTP (feature `auth`): the server as an OAuth 2.1 resource server, as
//! the MCP authorization specification asks.
//!
//! With an [`Authorization`] in its [`HttpGuard`](super::HttpGuard)'s
//! [`access`](super::HttpGuard::access), a server:
//!
//! - answers every request to `/mcp` that carries no valid access token `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="..."` (and `error="invalid_token"` when a
//!   token was given: too large, not a JWT access token, not signed by a key the issuer
//!   publishes, from another issuer, for another audience, expired, not yet valid; a token in
//!   the query string, another scheme). Nothing of the token is repeated or logged.
//! - publishes Protected Resource Metadata (RFC 9728) at the URL the challenge names (the
//!   path-suffixed well-known location of its resource) and at the root well-known location:
//!   `resource`, `authorization_servers` (the issuer, exactly as configured),
//!   `scopes_supported`, `bearer_methods_supported: ["header"]`.
//! - validates tokens as RFC 9068 asks: `typ` `at+jwt`; signed with a key from the issuer's
//!   `jwks_uri` (found through its RFC 8414 or OpenID metadata) in that key's one algorithm
//!   (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 or EdDSA; never `none`, never an
//!   HMAC); `iss` the configured issuer, `aud` holding the server's resource, `exp` and `nbf`
//!   with a minute's leeway. Keys are cached and fetched again when a token names an unknown
//!   one, at most once per [`Authorization::with_refetch_cooldown`].
//! - refuses a `tools/call` whose tool needs a scope the token does not grant with `403` and
//!   `error="insufficient_scope", scope="<every scope the tool needs>"`, and lists to each
//!   caller only the tools its scopes allow.
//! - runs each call as its [`Caller`], so idempotency keys, previews
//!   and cursors are the caller's own.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn run(server: toolspec_runtime::mcp::McpServer) -> Result<(), Box<dyn std::error::Error>> {
//! use toolspec_runtime::mcp::auth::Authorization;
//! use toolspec_runtime::mcp::{Access, HttpGuard, HttpServer};
//!
//! let auth = Authorization::new("https://auth.example.com", "https://tickets.example.com/mcp")?;
//! let guard = HttpGuard { access: Access::Bearer(auth), ..HttpGuard::default() };
//! let config = Default::default();
//! let http = HttpServer::bind_guarded(server, "0.0.0.0:8080", config, guard).await?;
//! http.wait().await?;
//! # Ok(()) }
//! ```

mod keys;
mod seen;
mod token;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};

pub use token::MAX_TOKEN_BYTES;

use keys::KeySource;
use token::{Expect, Refusal};
use toolspec_core::caller::Caller;

/// The well-known path of Protected Resource Metadata (RFC 9728 §3).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// How a server validates its callers' access tokens: the issuer it trusts and the resource
/// (its own canonical URI) tokens must be issued for.
#[derive(Clone)]
pub struct Authorization {
    issuer: String,
    resource: String,
    scopes_supported: Option<Vec<String>>,
    leeway: Duration,
    keys: Arc<KeySource>,
    seen: Arc<seen::Seen>,
}

impl fmt::Debug for Authorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorization")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Authorization {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.keys, &other.keys)
    }
}

impl Eq for Authorization {}

/// A configuration [`Authorization::new`] refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationError(String);

impl fmt::Display for AuthorizationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AuthorizationError {}

/// How long after a fetch of the issuer's keys a token naming an unknown key may cause the
/// next one: rotations are followed within this, and a flood of made-up key ids costs the
/// issuer one request per period.
pub const REFETCH_COOLDOWN: Duration = Duration::from_secs(5);

/// How long fetched keys are used before they are fetched again.
pub const KEYS_MAX_AGE: Duration = Duration::from_secs(600);

impl Authorization {
    /// Tokens from `issuer` (compared as this exact string, no slash added or removed), issued
    /// for `resource` (this server's canonical URI, e.g. `https://tickets.example.com/mcp`,
    /// the same string its metadata publishes).
    ///
    /// Refused: an issuer or resource that is not an absolute `http(s)` URL, one with a
    /// fragment or query, and an `http://` issuer on anything but a loopback host (outside
    /// development the issuer must be HTTPS, or anyone on the path could hand out keys).
    pub fn new(
        issuer: impl Into<String>,
        resource: impl Into<String>,
    ) -> Result<Self, AuthorizationError> {
        let (issuer, resource) = (issuer.into(), resource.into());
        check_url("issuer", &issuer)?;
        check_url("resource", &resource)?;
        if issuer.starts_with("http://") && !is_loopback_url(&issuer) {
            return Err(AuthorizationError(format!(
                "the issuer {issuer} is plain http on a host that is not loopback; use its \
                 https:// URL (http is accepted only on 127.0.0.1, ::1 and localhost, for \
                 development)"
            )));
        }
        Ok(Self {
            keys: Arc::new(KeySource::new(
                issuer.clone(),
                REFETCH_COOLDOWN,
                KEYS_MAX_AGE,
            )),
            issuer,
            resource,
            scopes_supported: None,
            leeway: Duration::from_secs(60),
            seen: Arc::new(seen::Seen::default()),
        })
    }

    /// The scopes the metadata and the first challenge name (by default, every scope a tool
    /// of the served toolset needs).
    pub fn with_scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// How far `exp` and `nbf` may be off (a minute by default; RFC 9068 asks for "no more
    /// than a few minutes").
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of the issuer's keys ([`REFETCH_COOLDOWN`]).
    pub fn with_refetch_cooldown(mut self, cooldown: Duration) -> Self {
        self.keys = Arc::new(KeySource::new(self.issuer.clone(), cooldown, KEYS_MAX_AGE));
        self
    }

    /// The issuer, as configured.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The resource tokens must be issued for (the metadata's `resource`).
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// Where the metadata is published: `/.well-known/oauth-protected-resource` inserted
    /// between the resource's host and path (RFC 9728 §3), the URL every challenge names.
    pub fn metadata_url(&self) -> String {
        let (origin, path) = keys::split_origin(&self.resource);
        format!("{origin}{METADATA_PATH}{}", path.trim_end_matches('/'))
    }

    /// The paths this server answers with its metadata: the path-suffixed one of its
    /// resource, that of `/mcp`, and the root one.
    pub(crate) fn metadata_paths(&self) -> Vec<String> {
        let (_, path) = keys::split_origin(&self.resource);
        let mut paths = vec![
            format!("{METADATA_PATH}{}", path.trim_end_matches('/')),
            format!("{METADATA_PATH}{}", super::HTTP_PATH),
            METADATA_PATH.to_owned(),
        ];
        paths.sort();
        paths.dedup();
        paths
    }

    /// The Protected Resource Metadata document, given the scopes the toolset's tools need.
    pub(crate) fn metadata(&self, tool_scopes: &[String]) -> serde_json::Value {
        serde_json::json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": self.scopes_supported.as_deref().unwrap_or(tool_scopes),
            "bearer_methods_supported": ["header"],
        })
    }

    /// The caller of a request, from its `Authorization: Bearer` header; or the refusal to
    /// answer with.
    pub(crate) async fn authenticate(
        &self,
        parts: &Parts,
        tool_scopes: &[String],
    ) -> Result<Arc<Caller>, Response> {
        let refuse = |description: &str| {
            self.challenge(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", description)),
                None,
                None,
            )
        };
        if parts.uri.query().is_some_and(|q| {
            q.split('&')
                .any(|p| p.starts_with("access_token=") || p.starts_with("token="))
        }) {
            return Err(refuse(
                "access tokens are accepted only in the Authorization header, never in the URL",
            ));
        }
        let mut headers = parts.headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (headers.next(), headers.next()) else {
            if parts.headers.contains_key(header::AUTHORIZATION) {
                return Err(refuse("send one Authorization header"));
            }
            // No credentials at all: a challenge without an error code (RFC 6750 §3.1).
            let scope = tool_scopes.join(" ");
            return Err(self.challenge(StatusCode::UNAUTHORIZED, None, Some(&scope), None));
        };
        let Some(token) = value
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
        else {
            return Err(refuse(
                "only a Bearer access token in the Authorization header is accepted",
            ));
        };
        let expect = Expect {
            issuer: &self.issuer,
            audience: &self.resource,
            leeway_s: self.leeway.as_secs(),
        };
        if let Some(caller) = self.seen.get(token) {
            return Ok(caller);
        }
        match token::validate(token, &expect, &self.keys).await {
            Ok((caller, exp)) => Ok(self.seen.insert(token, caller, exp)),
            Err(Refusal::Invalid(why)) => Err(refuse(why)),
            Err(Refusal::KeysUnavailable) => {
                let body = super::envelope::error_response(
                    None,
                    -32603,
                    "The authorization server's keys cannot be fetched right now, so no token \
                     can be checked; nothing was done. Retry in a few seconds.",
                );
                let mut response = (StatusCode::SERVICE_UNAVAILABLE, body).into_response();
                let headers = response.headers_mut();
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
                headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                Err(response)
            }
        }
    }

    /// The `403` for a call of `tool` that needs `needed`, which the caller's token does not
    /// all grant (SEP-835: every scope the call needs, in one challenge).
    pub(crate) fn insufficient_scope(
        &self,
        tool: &str,
        needed: &[&str],
        id: Option<&serde_json::Value>,
    ) -> Response {
        let scope = needed.join(" ");
        let description = format!(
            "{} needs a token granting {scope}; nothing was done",
            toolspec_core::for_adapters::echo(tool)
        );
        self.challenge(
            StatusCode::FORBIDDEN,
            Some(("insufficient_scope", &description)),
            Some(&scope),
            id,
        )
    }

    /// A `WWW-Authenticate: Bearer` challenge with status `status`, and the same words in a
    /// JSON-RPC error body.
    fn challenge(
        &self,
        status: StatusCode,
        error: Option<(&str, &str)>,
        scope: Option<&str>,
        id: Option<&serde_json::Value>,
    ) -> Response {
        let mut params = Vec::new();
        if let Some((code, description)) = error {
            params.push(format!("error=\"{code}\""));
            params.push(format!("error_description=\"{}\"", quoted(description)));
        }
        if let Some(scope) = scope.filter(|s| !s.is_empty()) {
            params.push(format!("scope=\"{}\"", quoted(scope)));
        }
        params.push(format!(
            "resource_metadata=\"{}\"",
            quoted(&self.metadata_url())
        ));
        let value = format!("Bearer {}", params.join(", "));
        let message = match (status, error) {
            (StatusCode::FORBIDDEN, Some((_, description))) => {
                format!("Forbidden: {description}.")
            }
            (_, Some((_, description))) => format!(
                "Unauthorized: {description}. Get an access token for this server from {} \
                 (see {}).",
                self.issuer,
                self.metadata_url()
            ),
            _ => format!(
                "Unauthorized: this server needs an access token from {} (see {}).",
                self.issuer,
                self.metadata_url()
            ),
        };
        let body = super::envelope::error_response(id, -32001, &message);
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// `text` fit for a quoted-string of a header: printable ASCII, `"` and `\` escaped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => out.push('?'),
        }
    }
    out
}

fn check_url(what: &str, url: &str) -> Result<(), AuthorizationError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| {
        AuthorizationError(format!("the {what} {url:?} is not an absolute URL ({e})"))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(AuthorizationError(format!(
            "the {what} {url} is not an http(s) URL with a host"
        )));
    }
    if parsed.fragment().is_some() || parsed.query().is_some() {
        return Err(AuthorizationError(format!(
            "the {what} {url} has a query or fragment; give it without"
        )));
    }
    Ok(())
}

fn is_loopback_url(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    match parsed.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issuers_are_https_except_on_loopback() {
        let r = "http://127.0.0.1:8080/mcp";
        assert!(Authorization::new("http://127.0.0.1:9000", r).is_ok());
        assert!(Authorization::new("http://localhost:9000/t1", r).is_ok());
        assert!(Authorization::new("https://auth.example.com", r).is_ok());
        let plain = Authorization::new("http://auth.example.com", r).unwrap_err();
        assert!(plain.to_string().contains("https://"), "{plain}");
        assert!(Authorization::new("auth.example.com", r).is_err());
        assert!(Authorization::new("https://a.example", "https://x.example/mcp#f").is_err());
    }

    #[test]
    fn metadata_lives_where_the_resource_says() {
        let a = Authorization::new("http://127.0.0.1:9000", "http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(
            a.metadata_url(),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            a.metadata_paths(),
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/mcp"
            ]
        );
        let doc = a.metadata(&["tickets:read".into()]);
        assert_eq!(doc["authorization_servers"][0], "http://127.0.0.1:9000");
        assert_eq!(
            doc["bearer_methods_supported"],
            serde_json::json!(["header"])
        );
        assert_eq!(doc["scopes_supported"], serde_json::json!(["tickets:read"]));
    }

    #[test]
    fn header_values_cannot_be_broken_out_of() {
        assert_eq!(quoted("a \"b\" \\ c\r\nd"), "a \\\"b\\\" \\\\ c??d");
    }
}
