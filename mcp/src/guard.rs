//! [`HttpGuard`]: what an HTTP request may cost before rmcp parses it, and where it may come
//! from.
//!
//! A JSON-RPC request is parsed into a tree whose size is several times the text's, before
//! any tool code can refuse it; so the body's size and nesting depth are checked on the
//! bytes, first. A browser page on another site can reach a server on `localhost`; the MCP
//! transport specification asks servers to validate `Origin` for that reason.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use tokio::sync::OwnedSemaphorePermit;

use toolspec_core::engine::Limits;

use super::envelope::{self, Envelope};
use super::inflight::{DuplicateId, HeldBody, Hold, Inflight};

/// The limits and origins the HTTP transport enforces on every request.
///
/// Every field has a default fit for a tool server on a small machine; change the ones you
/// need with struct update syntax:
///
/// ```
/// use toolspec_runtime::mcp::HttpGuard;
///
/// let guard = HttpGuard {
///     max_body_bytes: 4 << 20,
///     ..HttpGuard::default()
/// }
/// .allow_origin("https://app.example.com");
/// assert_eq!(guard.max_depth, HttpGuard::MAX_DEPTH);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpGuard {
    /// The largest request body, in bytes ([`HttpGuard::MAX_BODY_BYTES`] by default). A
    /// larger body is read and dropped in chunks (never held), then refused with 413.
    pub max_body_bytes: usize,
    /// The deepest nesting of arrays and objects in a request ([`HttpGuard::MAX_DEPTH`]).
    pub max_depth: usize,
    /// Origins allowed besides loopback ones (`http://localhost:*`, `http://127.0.0.1:*`,
    /// `http://[::1]:*`, always allowed), written exactly as browsers send them
    /// (`https://app.example.com`). A request without `Origin` (not from a browser) passes.
    pub allowed_origins: Vec<String>,
    /// How long a client may take to send a request's headers
    /// ([`HttpGuard::HEADER_READ_TIMEOUT`]); a slower one is disconnected, so slow clients
    /// cannot hold connections open.
    pub header_read_timeout: Duration,
    /// How long a client may take to send a request's body
    /// ([`HttpGuard::BODY_READ_TIMEOUT`]); a slower one gets 408.
    pub body_read_timeout: Duration,
    /// The most connections served at once ([`HttpGuard::MAX_CONNECTIONS`]); further ones
    /// wait in the system's listen queue until one closes.
    pub max_connections: usize,
    /// The most calls one session runs at once ([`HttpGuard::MAX_CALLS_PER_SESSION`]);
    /// further calls of that session wait for one to finish. Calls of a session run
    /// concurrently up to this bound.
    pub max_calls_per_session: usize,
    /// A body over this many bytes ([`HttpGuard::LARGE_BODY_BYTES`]) is a large request:
    /// it is read past this point only when one of the
    /// [`large_bodies_at_once`](HttpGuard::large_bodies_at_once) places is free, and when it
    /// is answered the freed memory is given back to the system. Small calls never wait
    /// for large ones.
    pub large_body_bytes: usize,
    /// How many large requests are read and run at once ([`HttpGuard::large_bodies_default`]:
    /// half the machine's cores, at least one), so a burst of them takes at most that many
    /// cores and that many bodies' worth of memory, and normal calls go on meanwhile. A
    /// large request that finds no free place within
    /// [`body_read_timeout`](HttpGuard::body_read_timeout) gets 503.
    pub large_bodies_at_once: usize,
    /// Who may call ([`Access::Local`] by default: anyone who reaches the server, which
    /// then serves loopback addresses only).
    pub access: Access,
}

/// Who may call a server over HTTP.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Access {
    /// No authorization: every request is the local user's. A server with this access
    /// refuses to start on an address other than loopback, since anyone who can reach
    /// it could then call every tool.
    #[default]
    Local,
    /// No authorization, on any address: the operator said so (behind their own gateway,
    /// say). Every request is treated as the local user's.
    Open,
    /// OAuth 2.1 access tokens from one issuer (feature `auth`): every request to `/mcp`
    /// must carry one, and runs as its caller.
    #[cfg(feature = "auth")]
    Bearer(super::auth::Authorization),
}

impl HttpGuard {
    /// 1 MiB ([`Limits::DEFAULT`]): a tool call with a large text argument fits; a hostile
    /// one costs little.
    pub const MAX_BODY_BYTES: usize = Limits::DEFAULT.max_request_bytes;
    /// 64 levels ([`Limits::DEFAULT`]): far beyond any tool's arguments, far below a
    /// stack's limits.
    pub const MAX_DEPTH: usize = Limits::DEFAULT.max_depth;
    /// 10 s to send the headers.
    pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
    /// 30 s to send the body.
    pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
    /// 1,024 connections at once.
    pub const MAX_CONNECTIONS: usize = 1024;
    /// 64 calls of one session at once: more than a host runs in parallel, and calls that
    /// wait for a person's approval keep their place while they wait.
    pub const MAX_CALLS_PER_SESSION: usize = 64;
    /// 64 KiB: every ordinary tool call is smaller.
    pub const LARGE_BODY_BYTES: usize = 64 << 10;
    /// The most of a body that is read (and dropped) to answer it with 413 instead of a
    /// reset connection; a longer upload is cut off.
    const DRAIN_BYTES: usize = 64 << 20;

    /// Half the machine's cores, at least one: the default of
    /// [`large_bodies_at_once`](HttpGuard::large_bodies_at_once).
    pub fn large_bodies_default() -> usize {
        std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
    }

    /// The default guard with a toolset's request `limits` (what [`HttpServer::bind`] and
    /// [`HttpServer::bind_with`] use, with the served toolset's [`Toolset::limits`]).
    ///
    /// [`HttpServer::bind`]: super::HttpServer::bind
    /// [`HttpServer::bind_with`]: super::HttpServer::bind_with
    /// [`Toolset::limits`]: toolspec_core::engine::Toolset::limits
    pub fn with_limits(limits: Limits) -> Self {
        Self {
            max_body_bytes: limits.max_request_bytes,
            max_depth: limits.max_depth,
            ..Self::default()
        }
    }

    /// Allows `origin` too.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        is_loopback(origin) || self.allowed_origins.iter().any(|o| o == origin)
    }
}

impl Default for HttpGuard {
    fn default() -> Self {
        Self {
            max_body_bytes: Self::MAX_BODY_BYTES,
            max_depth: Self::MAX_DEPTH,
            allowed_origins: Vec::new(),
            header_read_timeout: Self::HEADER_READ_TIMEOUT,
            body_read_timeout: Self::BODY_READ_TIMEOUT,
            max_connections: Self::MAX_CONNECTIONS,
            max_calls_per_session: Self::MAX_CALLS_PER_SESSION,
            large_body_bytes: Self::LARGE_BODY_BYTES,
            large_bodies_at_once: Self::large_bodies_default(),
            access: Access::Local,
        }
    }
}

/// Whether `origin` is `http(s)://` a loopback host, with any port.
fn is_loopback(origin: &str) -> bool {
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => rest.split(':').next().unwrap_or_default(),
    };
    host == "localhost" || host == "::1" || host.starts_with("127.") && host.split('.').count() == 4
}

/// A JSON-RPC error response for a request refused before it was parsed (so its id is
/// unknown: `null`, as JSON-RPC says), with HTTP status `status`.
fn refuse(status: StatusCode, code: i64, message: String) -> Response {
    json_response(status, envelope::error_response(None, code, &message))
}

/// The JSON-RPC answer to request `id`: an error, as a 200 response like any other answer.
fn answer_error(id: serde_json::Value, code: i64, message: String) -> Response {
    json_response(
        StatusCode::OK,
        envelope::error_response(Some(&id), code, &message),
    )
}

fn json_response(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The middleware: `Origin`, the body's size and depth, then the call's place in its session;
/// the places are held until the response has been sent.
pub(super) async fn guard(state: Arc<Inflight>, request: Request, next: Next) -> Response {
    let limits = &state.limits;
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !limits.origin_allowed(origin) {
            return refuse(
                StatusCode::FORBIDDEN,
                -32600,
                format!(
                    "Origin {} is not allowed to call this server; allow it in the server's \
                     HttpGuard if it should be.",
                    toolspec_core::for_adapters::echo(origin)
                ),
            );
        }
    }
    // Only authorization adds to the request's extensions.
    #[cfg_attr(not(feature = "auth"), allow(unused_mut))]
    let (mut parts, body) = request.into_parts();
    #[cfg(feature = "auth")]
    let caller = match &limits.access {
        Access::Bearer(auth) if is_mcp_path(parts.uri.path()) => {
            match auth.authenticate(&parts, &state.scopes).await {
                Ok(caller) => Some((auth, caller)),
                Err(refusal) => return refusal,
            }
        }
        _ => None,
    };
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    let (bytes, large) = match read_body(&state, body, declared).await {
        Ok(read) => read,
        Err(refusal) => return refusal,
    };
    if let Some(depth) = too_deep(&bytes, limits.max_depth) {
        return refuse(
            StatusCode::BAD_REQUEST,
            -32600,
            format!(
                "The request nests arrays and objects {depth} levels deep; this server takes \
                 at most {} levels.",
                limits.max_depth
            ),
        );
    }
    let mut hold = Hold { call: None, large };
    let closing = parts.method == Method::DELETE;
    let session = parts
        .headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok());
    let envelope = if parts.method == Method::POST {
        envelope::read(&bytes)
    } else {
        Envelope::Fine {
            request_id: None,
            tool: None,
        }
    };
    let request_id = match envelope {
        #[cfg(feature = "auth")]
        Envelope::Fine { request_id, tool } => {
            if let Some((auth, caller)) = &caller {
                // A tool the caller may not call is refused here, with the status and
                // challenge a client can step up from; the generated layer refuses it too.
                if let Some(tool) = tool
                    && let Some((def, _)) = toolspec_core::engine::find_tool(state.tools, &tool)
                    && !caller.missing(def.scopes).is_empty()
                {
                    let id = request_id
                        .as_deref()
                        .and_then(|id| serde_json::from_str::<serde_json::Value>(id).ok());
                    return auth.insufficient_scope(def.name, def.scopes, id.as_ref());
                }
                parts.extensions.insert(caller.clone());
            }
            request_id
        }
        #[cfg(not(feature = "auth"))]
        Envelope::Fine { request_id, .. } => request_id,
        Envelope::NotJson(reason) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                -32700,
                format!("Parse error: the request body is not JSON ({reason})."),
            );
        }
        Envelope::BadCallParams { id, message } => return answer_error(id, -32602, message),
    };
    if let (Some(session), Some(id)) = (session, request_id) {
        match state.enter(session, id).await {
            Ok(place) => hold.call = Some(place),
            Err(DuplicateId(id)) => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    format!(
                        "Request id {} is already used by a request of this session that has \
                         not been answered; give every request its own id.",
                        toolspec_core::for_adapters::echo(&id)
                    ),
                );
            }
        }
    }
    let mut response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    // rmcp answers a session's DELETE with 202 Accepted, though the session is closed by
    // then; the official Python client reads anything but 200 or 204 as a failure
    // ("Session termination failed: 202"). 204 No Content says what happened.
    if closing && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
        *response.body_mut() = Body::empty();
    }
    if hold.call.is_none() && hold.large.is_none() {
        return response;
    }
    let (parts, body) = response.into_parts();
    Response::from_parts(parts, Body::new(HeldBody::new(body, hold)))
}

/// Whether `path` is the MCP endpoint's (what authorization protects; the metadata and
/// routes served beside it are not).
#[cfg(feature = "auth")]
fn is_mcp_path(path: &str) -> bool {
    path.strip_prefix(super::HTTP_PATH)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The header that names a request's session on the session protocols.
const SESSION_HEADER: &str = "mcp-session-id";

/// The body, and the large-request place it holds when it is over
/// [`HttpGuard::large_body_bytes`]; or the refusal to send instead.
async fn read_body(
    state: &Inflight,
    mut body: Body,
    declared: Option<usize>,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>), Response> {
    let limits = &state.limits;
    let (mut kept, mut seen) = (Kept::default(), 0usize);
    let too_large = |seen: usize| {
        refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            -32600,
            format!(
                "The request is {seen} bytes or more; this server takes at most {} bytes per \
                 request. Send smaller arguments.",
                limits.max_body_bytes
            ),
        )
    };
    let too_slow = || {
        refuse(
            StatusCode::REQUEST_TIMEOUT,
            -32600,
            format!(
                "The request body did not arrive within {} s; send it at once.",
                limits.body_read_timeout.as_secs_f64()
            ),
        )
    };
    // A body declared too large is never kept: read and dropped so the client hears why.
    if let Some(declared) = declared.filter(|&n| n > limits.max_body_bytes) {
        let _ = tokio::time::timeout(limits.body_read_timeout, drain(&mut body, &mut seen)).await;
        return Err(too_large(declared.max(seen)));
    }
    let ended = tokio::time::timeout(
        limits.body_read_timeout,
        read_until(&mut body, &mut kept, &mut seen, limits.large_body_bytes),
    )
    .await
    .map_err(|_| too_slow())?;
    if ended {
        return Ok((kept.into_bytes(), None));
    }
    let place = match tokio::time::timeout(
        limits.body_read_timeout,
        state.large.clone().acquire_owned(),
    )
    .await
    {
        Ok(Ok(place)) => place,
        _ => {
            let mut busy = refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                format!(
                    "The server is busy with other requests over {} bytes; retry in a few \
                     seconds, or send a smaller request.",
                    limits.large_body_bytes
                ),
            );
            busy.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
            return Err(busy);
        }
    };
    let ended = tokio::time::timeout(
        limits.body_read_timeout,
        read_until(&mut body, &mut kept, &mut seen, limits.max_body_bytes),
    )
    .await
    .map_err(|_| too_slow())?;
    if ended {
        return Ok((kept.into_bytes(), Some(place)));
    }
    drop(kept);
    let _ = tokio::time::timeout(limits.body_read_timeout, drain(&mut body, &mut seen)).await;
    Err(too_large(seen))
}

/// The frames of a body read so far.
#[derive(Default)]
struct Kept(Vec<Bytes>);

impl Kept {
    /// The body as one buffer: most requests arrive in one frame, kept as it is, uncopied.
    fn into_bytes(mut self) -> Bytes {
        match self.0.len() {
            0 => Bytes::new(),
            1 => self.0.pop().unwrap_or_default(),
            _ => Bytes::from(self.0.concat()),
        }
    }
}

/// Reads `body` into `kept` until it ends (`true`) or more than `max` bytes have been seen
/// (`false`, with the frame that crossed `max` kept too, so reading can go on). A body the client broke off counts as ended: nobody is left to answer, and
/// what arrived fails to parse.
async fn read_until(body: &mut Body, kept: &mut Kept, seen: &mut usize, max: usize) -> bool {
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { return true };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        *seen = seen.saturating_add(data.len());
        kept.0.push(data);
        if *seen > max {
            return false;
        }
    }
    true
}

/// Reads and drops the rest of `body`, up to [`HttpGuard::DRAIN_BYTES`] (a longer upload is
/// cut off).
async fn drain(body: &mut Body, seen: &mut usize) {
    while let Some(Ok(frame)) = body.frame().await {
        if let Ok(data) = frame.into_data() {
            *seen = seen.saturating_add(data.len());
            if *seen > HttpGuard::DRAIN_BYTES {
                break;
            }
        }
    }
}

/// The nesting depth of the JSON text `bytes` when it exceeds `max` (strings skipped).
pub(super) fn too_deep(bytes: &[u8], max: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(depth);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_pass_and_others_need_allowing() {
        for ok in [
            "http://localhost:6274",
            "http://127.0.0.1",
            "https://[::1]:8080",
            "http://localhost",
        ] {
            assert!(HttpGuard::default().origin_allowed(ok), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "null",
            "",
        ] {
            assert!(!HttpGuard::default().origin_allowed(bad), "{bad}");
        }
        assert!(
            HttpGuard::default()
                .allow_origin("https://app.example.com")
                .origin_allowed("https://app.example.com")
        );
    }

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert_eq!(too_deep(br#"{"a":[[1]],"s":"[[[[[["}"#, 3), None);
        assert_eq!(too_deep(br#"{"a":[[[1]]]}"#, 3), Some(4));
        assert_eq!(too_deep(br#"{"s":"\"[[[["}"#, 1), None);
    }
}
