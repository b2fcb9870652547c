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
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use serde_json::json;

/// The limits and origins the HTTP transport enforces on every request.
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
}

impl HttpGuard {
    /// 1 MiB: a tool call with a large text argument fits; a hostile one costs little.
    pub const MAX_BODY_BYTES: usize = 1 << 20;
    /// 64 levels: far beyond any tool's arguments, far below a stack's limits.
    pub const MAX_DEPTH: usize = 64;
    /// 10 s to send the headers.
    pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
    /// 30 s to send the body.
    pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
    /// The most of a body that is read (and dropped) to answer it with 413 instead of a
    /// reset connection; a longer upload is cut off.
    const DRAIN_BYTES: usize = 64 << 20;

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
/// unknown: `null`, as JSON-RPC says).
fn refuse(status: StatusCode, code: i64, message: String) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    let mut response = (status, body.to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The middleware: `Origin`, then the body's size and depth.
pub(super) async fn guard(guard: Arc<HttpGuard>, request: Request, next: Next) -> Response {
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !guard.origin_allowed(origin) {
            return refuse(
                StatusCode::FORBIDDEN,
                -32600,
                format!(
                    "Origin {} is not allowed to call this server; allow it in the server's \
                     HttpGuard if it should be.",
                    crate::problem::echo(origin)
                ),
            );
        }
    }
    let (parts, body) = request.into_parts();
    let read = tokio::time::timeout(
        guard.body_read_timeout,
        read_limited(body, guard.max_body_bytes),
    );
    let bytes = match read.await {
        Ok(Ok(bytes)) => bytes,
        Err(_) => {
            return refuse(
                StatusCode::REQUEST_TIMEOUT,
                -32600,
                format!(
                    "The request body did not arrive within {} s; send it at once.",
                    guard.body_read_timeout.as_secs_f64()
                ),
            );
        }
        Ok(Err(size)) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                -32600,
                format!(
                    "The request is {size} bytes or more; this server takes at most {} bytes \
                     per request. Send smaller arguments.",
                    guard.max_body_bytes
                ),
            );
        }
    };
    if let Some(depth) = too_deep(&bytes, guard.max_depth) {
        return refuse(
            StatusCode::BAD_REQUEST,
            -32600,
            format!(
                "The request nests arrays and objects {depth} levels deep; this server takes \
                 at most {} levels.",
                guard.max_depth
            ),
        );
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The body, or `Err(bytes seen)` when it is longer than `max` (the rest read and dropped,
/// up to [`HttpGuard::DRAIN_BYTES`], so the client hears the refusal).
async fn read_limited(mut body: Body, max: usize) -> Result<Bytes, usize> {
    let mut kept: Vec<u8> = Vec::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { break };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        seen = seen.saturating_add(data.len());
        if seen <= max {
            kept.extend_from_slice(&data);
        } else {
            kept = Vec::new();
            if seen > HttpGuard::DRAIN_BYTES {
                break;
            }
        }
    }
    if seen > max {
        Err(seen)
    } else {
        Ok(Bytes::from(kept))
    }
}

/// The nesting depth of the JSON text `bytes` when it exceeds `max` (strings skipped).
fn too_deep(bytes: &[u8], max: usize) -> Option<usize> {
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
