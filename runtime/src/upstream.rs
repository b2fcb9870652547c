//! Forwarding tool calls to an HTTP API the server does not own: what a generated
//! `<Service>Api` (a toolset with `upstream` in its spec) calls for every tool.
//!
//! Each tool has a [`Route`], generated from its `http`: where each argument goes (path,
//! query, headers, JSON body), how a page is asked for and read, and which error code each
//! documented status becomes. [`Api::send`] makes the request and turns the answer into
//! the tool's result or a [`ToolError`] that says what happened, never a success that was
//! not one:
//!
//! - a documented status is the spec's error (a 404 `not_found`, a 429 `rate_limited`
//!   with the API's `Retry-After`), with the API's own words as `reason`;
//! - an undocumented status, an answer that is not the documented result, or no answer at
//!   all is `internal_error`, and for a write it says whether the change may have been made;
//! - a write's idempotency key is sent in the header the spec names, so a retry of a
//!   `remote_keyed` write cannot repeat the change at the API.
//!
//! Configuration comes from the environment, named after the service (`PETSTORE_...`):
//! `_BASE_URL` (the spec's `upstream.base_url` when unset), `_API_KEY` (the credential,
//! sent as `upstream.auth` says; none when unset), `_HEADERS` (extra `Name: value` headers,
//! one per line, for an API version or a mock's `Prefer`) and `_TIMEOUT_SECS` (30).

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::ToolError;
use crate::engine::glue::Window;

/// How long a request may take by default.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The most of the API's words an error carries.
const MAX_REASON: usize = 500;
/// The most of a request a preview shows.
const MAX_DESCRIBED: usize = 2000;
/// The largest answer read: an API that sends more is refused rather than buffered.
const MAX_ANSWER: usize = 16 << 20;

/// One part of a route's path.
#[derive(Debug, Clone, Copy)]
pub enum Part {
    /// Written as is.
    Lit(&'static str),
    /// The named argument, percent-encoded.
    Param(&'static str),
}

/// A documented error status and the spec's error it becomes.
#[derive(Debug, Clone, Copy)]
pub struct Status {
    /// The HTTP status.
    pub status: u16,
    /// The spec's error code.
    pub code: &'static str,
    /// Whether the spec says a retry can help.
    pub retryable: bool,
    /// The message template; `{reason}` is the API's words.
    pub message: &'static str,
    /// Whether the error's details hold `reason`.
    pub reason: bool,
    /// Whether the error's details hold `retry_after_seconds`.
    pub retry_after: bool,
}

/// The request a tool's call becomes (the spec's `http`).
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// The tool's name, for messages.
    pub tool: &'static str,
    /// `GET`, `POST`, `PUT`, `PATCH` or `DELETE`.
    pub method: &'static str,
    /// The path after the base URL.
    pub path: &'static [Part],
    /// `(argument, query name)`.
    pub query: &'static [(&'static str, &'static str)],
    /// `(argument, header name)`.
    pub headers: &'static [(&'static str, &'static str)],
    /// `(argument, body key)` of a JSON object body.
    pub body: &'static [(&'static str, &'static str)],
    /// The argument that is the whole JSON body.
    pub body_param: Option<&'static str>,
    /// The output field the whole answer fills.
    pub response: Option<&'static str>,
    /// Paging's wire (`offset`, `limit`, `page`, `size`, `after`, `total`, `has_more`,
    /// `done`, each with the API's name).
    pub paging: &'static [(&'static str, &'static str)],
    /// The output field holding a page's items.
    pub items: Option<&'static str>,
    /// The header the idempotency key goes in.
    pub idempotency_header: Option<&'static str>,
    /// The tool's documented error statuses.
    pub statuses: &'static [Status],
    /// Whether the call changes something at the API (every method but GET).
    pub write: bool,
}

impl Route {
    fn paging(&self, part: &str) -> Option<&'static str> {
        self.paging
            .iter()
            .find(|(p, _)| *p == part)
            .map(|(_, w)| *w)
    }
}

/// How requests carry the credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// `Authorization: Basic <key>`.
    Basic,
    /// The key in the named header.
    Header(&'static str),
    /// The key in the named query parameter.
    Query(&'static str),
}

/// Why the forwarding server cannot start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// The API, its address and credential: one per server, shared by every call.
#[derive(Debug, Clone)]
pub struct Api {
    client: reqwest::Client,
    base: String,
    auth: Option<(Auth, String)>,
    headers: Vec<(String, String)>,
}

/// What else a call sends: its page, its idempotency key.
#[derive(Debug, Default, Clone, Copy)]
pub struct Extra<'a> {
    /// The page asked for.
    pub window: Option<&'a Window>,
    /// The call's idempotency key ([`crate::store::Remote::key`]).
    pub key: Option<&'a str>,
}

/// The API's successful answer.
#[derive(Debug, Clone)]
pub struct Reply {
    body: Value,
    route: &'static Route,
}

impl Api {
    /// The API as the environment configures it for `service` (its prefix, `PETSTORE`),
    /// with the spec's base URL and credential scheme as defaults.
    pub fn from_env(
        service: &str,
        base_url: &str,
        auth: Option<Auth>,
    ) -> Result<Self, ConfigError> {
        let var = |suffix: &str| {
            std::env::var(format!("{service}_{suffix}"))
                .ok()
                .filter(|v| !v.is_empty())
        };
        let base = var("BASE_URL").unwrap_or_else(|| base_url.to_string());
        let key = var("API_KEY");
        let timeout = match var("TIMEOUT_SECS") {
            Some(t) => Duration::from_secs(t.parse().map_err(|_| {
                ConfigError(format!(
                    "{service}_TIMEOUT_SECS is {t:?}, not a whole number of seconds"
                ))
            })?),
            None => DEFAULT_TIMEOUT,
        };
        let mut headers = Vec::new();
        for line in var("HEADERS")
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
        {
            let Some((name, value)) = line.split_once(':') else {
                return Err(ConfigError(format!(
                    "{service}_HEADERS: {line:?} is not `Name: value`"
                )));
            };
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
        Self::new(&base, auth.zip(key), headers, timeout)
            .map_err(|e| ConfigError(format!("{service}_BASE_URL: {}", e.0)))
    }

    /// The API at `base` (an absolute http or https URL).
    pub fn new(
        base: &str,
        auth: Option<(Auth, String)>,
        headers: Vec<(String, String)>,
        timeout: Duration,
    ) -> Result<Self, ConfigError> {
        let parsed = url::Url::parse(base).map_err(|e| {
            ConfigError(format!(
                "{base:?} is not an absolute URL ({e}); set it to the API's address"
            ))
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ConfigError(format!("{base:?} is not an http or https URL")));
        }
        for (name, value) in &headers {
            if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err()
                || reqwest::header::HeaderValue::from_str(value).is_err()
            {
                return Err(ConfigError(format!("the header {name:?} cannot be sent")));
            }
        }
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .user_agent(concat!("toolspec-runtime/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ConfigError(format!("cannot make an HTTP client: {e}")))?;
        Ok(Api {
            client,
            base: base.trim_end_matches('/').to_string(),
            auth,
            headers,
        })
    }

    /// Sends the call: `input` is the tool's validated input.
    pub async fn send<I: Serialize>(
        &self,
        route: &'static Route,
        input: &I,
        extra: Extra<'_>,
    ) -> Result<Reply, ToolError> {
        let args = arguments(input)?;
        let url = self.url(route, &args, extra.window)?;
        let method = reqwest::Method::from_bytes(route.method.as_bytes())
            .map_err(|_| broken(route, "its method"))?;
        let mut request = self
            .client
            .request(method, url)
            .header("accept", "application/json");
        for (name, value) in &self.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        match &self.auth {
            Some((Auth::Bearer, key)) => {
                request = request.header("authorization", format!("Bearer {key}"))
            }
            Some((Auth::Basic, key)) => {
                request = request.header("authorization", format!("Basic {key}"))
            }
            Some((Auth::Header(name), key)) => request = request.header(*name, key.as_str()),
            Some((Auth::Query(_), _)) | None => {}
        }
        for (param, header) in route.headers {
            if let Some(v) = args.get(*param).filter(|v| !v.is_null()) {
                request = request.header(*header, text(v));
            }
        }
        if let (Some(header), Some(key)) = (route.idempotency_header, extra.key) {
            request = request.header(header, key);
        }
        if let Some(body) = body(route, &args) {
            request = request.json(&body);
        }
        let keyed = route.idempotency_header.is_some() && extra.key.is_some();
        let response = match request.send().await {
            Ok(r) => r,
            Err(e) => return Err(unreached(route, &e, keyed)),
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let bytes = match response.bytes().await {
            Ok(b) if b.len() <= MAX_ANSWER => b,
            Ok(_) => return Err(unexpected(route, "an answer larger than 16 MB")),
            Err(e) => return Err(unreached(route, &e, keyed)),
        };
        if !status.is_success() {
            return Err(failure(route, status.as_u16(), &bytes, retry_after));
        }
        let body = if bytes.iter().all(u8::is_ascii_whitespace) {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .map_err(|e| unexpected(route, &format!("an answer that is not JSON ({e})")))?
        };
        Ok(Reply { body, route })
    }

    /// The request a call would send, for its preview: method, path and JSON body.
    pub fn describe<I: Serialize>(
        &self,
        route: &'static Route,
        input: &I,
    ) -> Result<String, ToolError> {
        let args = arguments(input)?;
        let url = self.url(route, &args, None)?;
        let mut out = format!("{} {}", route.method, redact(&url, self.auth.as_ref()));
        if let Some(b) = body(route, &args) {
            out.push(' ');
            out.push_str(&b.to_string());
        }
        Ok(cut(&out, MAX_DESCRIBED))
    }

    fn url(
        &self,
        route: &Route,
        args: &Map<String, Value>,
        window: Option<&Window>,
    ) -> Result<url::Url, ToolError> {
        let mut path = String::new();
        for part in route.path {
            match part {
                Part::Lit(s) => path.push_str(s),
                Part::Param(p) => {
                    let v = args
                        .get(*p)
                        .filter(|v| !v.is_null())
                        .ok_or_else(|| broken(route, "a path parameter without a value"))?;
                    path.extend(
                        url::form_urlencoded::byte_serialize(text(v).as_bytes())
                            .map(|s| s.replace('+', "%20")),
                    );
                }
            }
        }
        let mut url = url::Url::parse(&format!("{}{path}", self.base))
            .map_err(|_| broken(route, "its path"))?;
        {
            let mut q = url.query_pairs_mut();
            for (param, name) in route.query {
                match args.get(*param) {
                    None | Some(Value::Null) => {}
                    Some(Value::Array(items)) => {
                        for item in items {
                            q.append_pair(name, &text(item));
                        }
                    }
                    Some(v) => {
                        q.append_pair(name, &text(v));
                    }
                }
            }
            if let Some(w) = window {
                let pairs = [
                    ("offset", Some(w.offset.to_string())),
                    ("limit", Some(w.limit.to_string())),
                    ("page", Some(w.page().to_string())),
                    ("size", Some(w.limit.to_string())),
                    ("after", w.after().and_then(|a| a.first()).map(text)),
                ];
                for (part, value) in pairs {
                    if let (Some(name), Some(value)) = (route.paging(part), value) {
                        q.append_pair(name, &value);
                    }
                }
            }
            if let Some((Auth::Query(name), key)) = &self.auth {
                q.append_pair(name, key);
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        Ok(url)
    }
}

impl Reply {
    /// The tool's result: the answer's keys, or the answer in the route's `response` field.
    pub fn output<O: DeserializeOwned>(&self) -> Result<O, ToolError> {
        let value = match (self.route.response, &self.body) {
            (Some(field), body) => json!({ field: body }),
            (None, Value::Null) => json!({}),
            (None, body) => body.clone(),
        };
        serde_json::from_value(value).map_err(|e| {
            unexpected(
                self.route,
                &format!("an answer its spec does not describe ({e})"),
            )
        })
    }

    /// The tool's page: the result, with the total or whether more follow as the API says
    /// (a full page counts as "more may follow" when it says neither).
    pub fn page<O: DeserializeOwned>(
        &self,
        window: &Window,
    ) -> Result<crate::engine::glue::Page<O>, ToolError> {
        let result = self.output()?;
        let route = self.route;
        let key = |part: &str| route.paging(part).and_then(|k| self.body.get(k));
        if let Some(total) = key("total").and_then(Value::as_u64) {
            return Ok(crate::engine::glue::Page::new(result, total));
        }
        let more = match (key("has_more"), key("done")) {
            (Some(Value::Bool(more)), _) => *more,
            (_, Some(Value::Bool(done))) => !*done,
            _ => {
                let items = match route.response {
                    Some(_) => self.body.as_array().map(Vec::len),
                    None => route
                        .items
                        .and_then(|i| self.body.get(i))
                        .and_then(Value::as_array)
                        .map(Vec::len),
                };
                items.is_some_and(|n| n as u64 >= window.limit)
            }
        };
        Ok(crate::engine::glue::Page::more(result, more))
    }
}

/// A preview whose only field is the request it would send.
pub fn preview<P: DeserializeOwned>(request: String) -> Result<P, ToolError> {
    serde_json::from_value(json!({ "request": request })).map_err(|e| {
        ToolError::new(
            "internal_error",
            format!("The preview could not be made ({e})."),
            false,
            Value::Null,
        )
    })
}

fn arguments<I: Serialize>(input: &I) -> Result<Map<String, Value>, ToolError> {
    match serde_json::to_value(input) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(ToolError::new(
            "internal_error",
            "The call's arguments could not be read.",
            false,
            Value::Null,
        )),
    }
}

fn body(route: &Route, args: &Map<String, Value>) -> Option<Value> {
    if let Some(p) = route.body_param {
        return args.get(p).filter(|v| !v.is_null()).cloned();
    }
    if route.body.is_empty() {
        return None;
    }
    let mut out = Map::new();
    for (param, key) in route.body {
        if let Some(v) = args.get(*param).filter(|v| !v.is_null()) {
            out.insert((*key).to_string(), v.clone());
        }
    }
    Some(Value::Object(out))
}

/// A value as it goes in a path, a query or a header.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn redact(url: &url::Url, auth: Option<&(Auth, String)>) -> String {
    let shown = &url[url::Position::BeforePath..];
    match auth {
        Some((Auth::Query(name), key)) => shown
            .replace(&format!("{name}={key}"), &format!("{name}=..."))
            .to_string(),
        _ => shown.to_string(),
    }
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(3)).collect();
    out.push_str("...");
    out
}

/// The API's words about a failure: its JSON `message`, `detail` or `error`, or its text.
fn reason(bytes: &[u8], status: u16) -> String {
    let words = serde_json::from_slice::<Value>(bytes).ok().and_then(|v| {
        let pick = |v: &Value| -> Option<String> {
            for key in [
                "message",
                "detail",
                "error_description",
                "title",
                "error",
                "code",
            ] {
                match v.get(key) {
                    Some(Value::String(s)) if !s.trim().is_empty() => return Some(s.clone()),
                    Some(inner @ Value::Object(_)) => {
                        if let Some(Value::String(s)) = inner.get("message") {
                            return Some(s.clone());
                        }
                    }
                    _ => {}
                }
            }
            None
        };
        pick(&v)
    });
    let words = words.unwrap_or_else(|| String::from_utf8_lossy(bytes).trim().to_string());
    let words = if words.is_empty() {
        reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("no reason given")
            .to_string()
    } else {
        words
    };
    // One line, bounded: the API's text is echoed to the agent.
    cut(
        &words.split_whitespace().collect::<Vec<_>>().join(" "),
        MAX_REASON,
    )
}

fn failure(route: &Route, status: u16, bytes: &[u8], retry_after: Option<u64>) -> ToolError {
    let reason = reason(bytes, status);
    if let Some(s) = route.statuses.iter().find(|s| s.status == status) {
        let mut details = Map::new();
        if s.reason {
            details.insert("reason".into(), Value::String(reason.clone()));
        }
        if let (true, Some(secs)) = (s.retry_after, retry_after) {
            details.insert("retry_after_seconds".into(), json!(secs));
        }
        return ToolError::new(
            s.code,
            s.message.replace("{reason}", &reason),
            s.retryable,
            Value::Object(details),
        );
    }
    let retryable = matches!(status, 429 | 502 | 503 | 504) && !route.write;
    let effect = if route.write {
        " The API refused the change, so it was not made."
    } else {
        ""
    };
    ToolError::new(
        "internal_error",
        format!(
            "{} got HTTP {status} from the API, a status its spec does not list: {reason}.{effect}{}",
            route.tool,
            if retryable {
                " Retry in a moment."
            } else {
                " Retrying the same call will not help."
            }
        ),
        retryable,
        Value::Null,
    )
}

/// No answer: for a write, the change may have been made if the request went out; a retry
/// is safe only when the API got the call's idempotency key (`keyed`).
fn unreached(route: &Route, e: &reqwest::Error, keyed: bool) -> ToolError {
    let sent = !e.is_connect() && !e.is_builder();
    let what = if e.is_timeout() {
        "did not answer in time"
    } else {
        "could not be reached"
    };
    let (effect, retryable) = match (route.write, sent, keyed) {
        (false, _, _) => ("", true),
        (true, false, _) => (" Nothing was sent, so nothing changed.", true),
        (true, true, true) => (
            " The change may have been made; a retry with the same idempotency key cannot make it twice.",
            true,
        ),
        (true, true, false) => (
            " The change may have been made: read the current state before calling again.",
            false,
        ),
    };
    ToolError::new(
        "internal_error",
        format!(
            "The API {what} on {}.{effect}{}",
            route.tool,
            if retryable { " Retry in a moment." } else { "" }
        ),
        retryable,
        Value::Null,
    )
}

/// A successful status with an answer the spec does not describe: the API and its spec
/// disagree; for a write the change was made.
fn unexpected(route: &Route, what: &str) -> ToolError {
    let effect = if route.write {
        " The API reported success, so the change was made."
    } else {
        ""
    };
    ToolError::new(
        "internal_error",
        format!(
            "{} got {what} from the API.{effect} The spec and the API disagree; retrying will not help.",
            route.tool
        ),
        false,
        Value::Null,
    )
}

fn broken(route: &Route, what: &str) -> ToolError {
    ToolError::new(
        "internal_error",
        format!(
            "{} cannot build its request: {what}. The generated route is wrong; retrying will not help.",
            route.tool
        ),
        false,
        Value::Null,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    const NOT_FOUND: Status = Status {
        status: 404,
        code: "not_found",
        retryable: false,
        message: "The API found nothing for these arguments: {reason}. Check the ids.",
        reason: true,
        retry_after: false,
    };
    const RATE_LIMITED: Status = Status {
        status: 429,
        code: "rate_limited",
        retryable: true,
        message: "The API is limiting the rate of calls: {reason}. Wait, then retry.",
        reason: true,
        retry_after: true,
    };

    static LIST: Route = Route {
        tool: "demo_items_list",
        method: "GET",
        path: &[Part::Lit("/orgs/"), Part::Param("org"), Part::Lit("/items")],
        query: &[("state", "state"), ("labels", "label[]")],
        headers: &[("trace", "X-Trace")],
        body: &[],
        body_param: None,
        response: Some("items"),
        paging: &[("page", "page"), ("size", "per_page")],
        items: Some("items"),
        idempotency_header: None,
        statuses: &[NOT_FOUND, RATE_LIMITED],
        write: false,
    };

    static CREATE: Route = Route {
        tool: "demo_item_create",
        method: "POST",
        path: &[Part::Lit("/items")],
        query: &[],
        headers: &[],
        body: &[("item_name", "name"), ("tags", "tags")],
        body_param: None,
        response: None,
        paging: &[],
        items: None,
        idempotency_header: Some("Idempotency-Key"),
        statuses: &[],
        write: true,
    };

    fn api(base: &str, auth: Option<(Auth, String)>) -> Api {
        Api::new(
            base,
            auth,
            vec![("X-Api-Version".into(), "2026-01-01".into())],
            Duration::from_secs(5),
        )
        .expect("a valid base")
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("an object")
    }

    #[test]
    fn arguments_go_where_the_route_says_and_pages_in_the_apis_own_names() {
        let api = api(
            "https://api.example.com/v3/",
            Some((Auth::Query("key"), "s3cret".into())),
        );
        let window = Window {
            offset: 20,
            limit: 10,
            after: None,
        };
        let a = args(json!({"org": "a b/c", "state": "open", "labels": ["x", "y"], "trace": null}));
        let url = api.url(&LIST, &a, Some(&window)).expect("builds");
        assert_eq!(
            url.as_str(),
            "https://api.example.com/v3/orgs/a%20b%2Fc/items?state=open&label%5B%5D=x&label%5B%5D=y&page=3&per_page=10&key=s3cret"
        );
        // A preview shows the request without the credential.
        let described = api.describe(&LIST, &a).expect("describes");
        assert!(
            described.starts_with("GET /v3/orgs/a%20b%2Fc/items?state=open"),
            "{described}"
        );
        assert!(!described.contains("s3cret"), "{described}");
        assert!(described.contains("key=..."), "{described}");
    }

    #[test]
    fn a_base_that_is_not_http_is_refused_at_start() {
        for bad in ["ftp://example.com", "/api/v3", "not a url"] {
            let e = Api::new(bad, None, Vec::new(), DEFAULT_TIMEOUT).expect_err(bad);
            assert!(e.0.contains(bad), "{e}");
        }
    }

    #[test]
    fn a_documented_status_is_its_error_and_any_other_says_what_happened() {
        let body = br#"{"message": "No such org", "documentation_url": "https://x"}"#;
        let e = failure(&LIST, 404, body, None);
        assert_eq!(e.code, "not_found");
        assert!(!e.retryable);
        assert_eq!(
            e.message,
            "The API found nothing for these arguments: No such org. Check the ids."
        );
        assert_eq!(e.details.get("reason"), Some(&json!("No such org")));
        let e = failure(&LIST, 429, b"", Some(30));
        assert_eq!((e.code.as_ref(), e.retryable), ("rate_limited", true));
        assert_eq!(e.details.get("retry_after_seconds"), Some(&json!(30)));
        assert_eq!(e.details.get("reason"), Some(&json!("Too Many Requests")));
        // Undocumented: a write's refusal says nothing was made, and no retry is promised.
        let e = failure(&CREATE, 409, &[b'x'; 5000], None);
        assert_eq!((e.code.as_ref(), e.retryable), ("internal_error", false));
        assert!(e.message.contains("HTTP 409"), "{}", e.message);
        assert!(e.message.contains("was not made"), "{}", e.message);
        assert!(
            e.message.len() < 800,
            "the API's text is bounded: {}",
            e.message.len()
        );
    }

    #[test]
    fn an_answer_that_is_not_the_documented_result_is_never_a_success() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Out {
            id: String,
        }
        let reply = Reply {
            body: json!({"name": "no id here"}),
            route: &CREATE,
        };
        let e = reply.output::<Out>().expect_err("missing id");
        assert_eq!(e.code, "internal_error");
        assert!(e.message.contains("the change was made"), "{}", e.message);
    }

    #[test]
    fn a_page_says_whether_more_follow() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Out {
            items: Vec<Value>,
        }
        let window = Window {
            offset: 0,
            limit: 2,
            after: None,
        };
        let full = Reply {
            body: json!([1, 2]),
            route: &LIST,
        };
        assert_eq!(
            full.page::<Out>(&window).expect("a page").has_more,
            Some(true)
        );
        let short = Reply {
            body: json!([1]),
            route: &LIST,
        };
        assert_eq!(
            short.page::<Out>(&window).expect("a page").has_more,
            Some(false)
        );
    }

    /// One request answered by a real socket: what the forwarder sends, and what it makes
    /// of the answer.
    fn serve_once(answer: &'static str) -> (String, std::thread::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let handle = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().expect("accepts");
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            // Headers, then the body its Content-Length announces.
            loop {
                let n = socket.read(&mut buf).expect("reads");
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if got.len() >= end + 4 + length {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            socket.write_all(answer.as_bytes()).expect("answers");
            String::from_utf8_lossy(&got).to_string()
        });
        (base, handle)
    }

    #[tokio::test]
    async fn a_keyed_write_sends_its_body_key_and_credential() {
        let (base, server) = serve_once(
            "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{\"id\": \"it_1\"}\n",
        );
        let api = api(&base, Some((Auth::Bearer, "tok".into())));
        let input = json!({"item_name": "Mug", "tags": ["red"], "unused": null});
        let extra = Extra {
            window: None,
            key: Some("tsk_0123"),
        };
        let reply = api.send(&CREATE, &input, extra).await.expect("sent");
        let out: Value = reply.output().expect("the answer");
        assert_eq!(out, json!({"id": "it_1"}));
        let request = server.join().expect("served").to_ascii_lowercase();
        assert!(request.starts_with("post /items http/1.1"), "{request}");
        assert!(request.contains("idempotency-key: tsk_0123"), "{request}");
        assert!(request.contains("authorization: bearer tok"), "{request}");
        assert!(request.contains("x-api-version: 2026-01-01"), "{request}");
        assert!(
            request.ends_with(r#"{"name":"mug","tags":["red"]}"#),
            "{request}"
        );
    }

    #[tokio::test]
    async fn no_answer_to_a_write_says_the_change_may_have_been_made() {
        // Accepts the request, then closes without an answer.
        let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let server = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().expect("accepts");
            let mut buf = [0u8; 4096];
            let _ = socket.read(&mut buf);
        });
        let api = api(&base, None);
        let input = json!({"item_name": "Mug"});
        let e = api
            .send(&CREATE, &input, Extra::default())
            .await
            .expect_err("no answer");
        server.join().expect("served");
        assert_eq!(e.code, "internal_error");
        // No key reached the API, so a retry could make it twice: no retry is promised.
        assert!(!e.retryable);
        assert!(
            e.message
                .contains("may have been made: read the current state"),
            "{}",
            e.message
        );
    }
}
