//! A toolset that forwards to an HTTP API, resolved: the API's address and credential
//! scheme, and the request each tool's call becomes.

use super::Text;
use crate::diagnostics::Span;
pub use crate::spec::format::{AuthScheme, HttpMethod};

/// The HTTP API a toolset forwards to (`upstream`).
#[derive(Debug, Clone, PartialEq)]
pub struct Upstream {
    /// The base URL the paths are appended to: absolute, or a path to be prefixed by
    /// `<SERVICE>_BASE_URL`'s host at start-up.
    pub base_url: Text,
    /// How a request carries the credential, and the header or query name it uses.
    pub auth: Option<(AuthScheme, Option<String>)>,
    /// `(HTTP status, error code)`: which catalog error each status the API answers is.
    pub statuses: Vec<(u16, String)>,
}

/// One part of an `http.path` template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathPart {
    /// Written as is.
    Literal(String),
    /// A parameter's value, percent-encoded.
    Param(String),
}

/// The request a tool's call becomes (`http`).
#[derive(Debug, Clone, PartialEq)]
pub struct HttpCall {
    /// The method.
    pub method: HttpMethod,
    /// The path template, split into literal text and parameters.
    pub path: Vec<PathPart>,
    /// `(parameter, query name)` pairs.
    pub query: Vec<(String, String)>,
    /// `(parameter, header name)` pairs.
    pub headers: Vec<(String, String)>,
    /// `(parameter, body key)` pairs of a JSON object body.
    pub body: Vec<(String, String)>,
    /// The parameter that is the whole JSON body.
    pub body_param: Option<String>,
    /// The output field the whole response body fills.
    pub response: Option<String>,
    /// Paging's wire: `(part, API name)` with part one of [`PAGING_PARTS`].
    pub paging: Vec<(String, String)>,
    /// The header the idempotency key is forwarded in.
    pub idempotency_header: Option<String>,
    /// Where `http` was written.
    pub span: Span,
}

/// What `http.paging` may map: where the window goes (`offset`, `limit`, `page`, `size`,
/// `after`) and where the response says how many match or whether more follow (`total`,
/// `has_more`, `done`).
pub const PAGING_PARTS: [&str; 8] = [
    "offset", "limit", "page", "size", "after", "total", "has_more", "done",
];

impl HttpCall {
    /// The API name of paging's `part`, if mapped.
    pub fn paging_part(&self, part: &str) -> Option<&str> {
        self.paging
            .iter()
            .find(|(p, _)| p == part)
            .map(|(_, w)| w.as_str())
    }
}
