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
//!   all is `internal_error`, whose `retryable` and words agree, and for a write it says
//!   whether the change may have been made;
//! - a write's idempotency key is sent in the header the spec names, so a retry of a
//!   `remote_keyed` write cannot repeat the change at the API.
//!
//! Neither the model's arguments nor the API can turn a call elsewhere or exhaust the
//! server:
//!
//! - a path argument stays in its segment (`..`, `.` and the empty string are refused,
//!   encoded or not), and the URL is checked to stay under the base URL's path;
//! - redirects are never followed (a 3xx is an answer like any other status, and no
//!   `Referer` is ever sent), so the credential and the call's headers and body go to the
//!   configured API only;
//! - an answer is bounded as it is read ([`DEFAULT_MAX_ANSWER`], or
//!   `<SERVICE>_MAX_ANSWER_BYTES`), large answers take one of a few places, and the bytes
//!   are parsed once, straight into the output type;
//! - every text taken from an answer is cut and stripped of control characters: the API's
//!   message at 500 characters, and a value that breaks the output type is never quoted.
//!
//! Configuration comes from the environment, named after the service (`PETSTORE_...`):
//! `_BASE_URL` (the spec's `upstream.base_url` when unset), `_API_KEY` (the credential,
//! sent as `upstream.auth` says; none when unset), `_HEADERS` (extra `Name: value` headers,
//! one per line, for an API version or a mock's `Prefer`), `_TIMEOUT_SECS` (30) and
//! `_MAX_ANSWER_BYTES` ([`DEFAULT_MAX_ANSWER`]).

mod answer;
mod request;
mod words;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::ToolError;
use crate::engine::glue::Window;
pub use answer::LARGE_ANSWER;

/// How long a request may take by default.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest answer read by default (`<SERVICE>_MAX_ANSWER_BYTES` sets another): an API
/// that sends more is refused, and reading stops there. A tool's result is cut to its
/// response budget anyway, so an answer this large is already far more than a model reads.
pub const DEFAULT_MAX_ANSWER: usize = 16 << 20;

/// One part of a route's path.
#[derive(Debug, Clone, Copy)]
pub enum Part {
    /// Written as is.
    Lit(&'static str),
    /// The named argument, percent-encoded into its own segment.
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
    max_answer: usize,
    /// The places for answers over [`LARGE_ANSWER`] bytes, shared by every clone.
    large: Arc<Semaphore>,
    /// The environment prefix (`PETSTORE`), when configured from it: named in messages
    /// about settings.
    env: Option<String>,
}

/// What else a call sends: its page, its idempotency key.
#[derive(Debug, Default, Clone, Copy)]
pub struct Extra<'a> {
    /// The page asked for.
    pub window: Option<&'a Window>,
    /// The call's idempotency key ([`crate::store::Remote::key`]).
    pub key: Option<&'a str>,
}

/// The API's successful answer, as read: parsed by [`Reply::output`] or [`Reply::page`].
#[derive(Debug)]
pub struct Reply {
    bytes: Vec<u8>,
    route: &'static Route,
    /// A large answer's place, held until the answer has been parsed and dropped.
    _place: Option<OwnedSemaphorePermit>,
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
        let max_answer = match var("MAX_ANSWER_BYTES") {
            Some(n) => n.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                ConfigError(format!(
                    "{service}_MAX_ANSWER_BYTES is {n:?}, not a positive whole number of bytes"
                ))
            })?,
            None => DEFAULT_MAX_ANSWER,
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
        let mut api = Self::new(&base, auth.zip(key), headers, timeout)
            .map_err(|e| ConfigError(format!("{service}: {}", e.0)))?
            .with_max_answer_bytes(max_answer);
        api.env = Some(service.to_string());
        Ok(api)
    }

    /// The API at `base` (an absolute http or https URL). Redirects are never followed and
    /// no `Referer` is sent.
    pub fn new(
        base: &str,
        auth: Option<(Auth, String)>,
        headers: Vec<(String, String)>,
        timeout: Duration,
    ) -> Result<Self, ConfigError> {
        let parsed = url::Url::parse(base).map_err(|e| {
            ConfigError(format!(
                "the base URL {base:?} is not an absolute URL ({e}); set <SERVICE>_BASE_URL to the API's address"
            ))
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ConfigError(format!(
                "the base URL {base:?} is not an http or https URL; set <SERVICE>_BASE_URL to the API's address"
            )));
        }
        for (name, value) in &headers {
            if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err()
                || reqwest::header::HeaderValue::from_str(value).is_err()
            {
                return Err(ConfigError(format!(
                    "the extra header {name:?} (<SERVICE>_HEADERS) cannot be sent: a name or value with a character headers cannot carry"
                )));
            }
        }
        if let Some((auth, key)) = &auth {
            let value = match auth {
                Auth::Bearer => format!("Bearer {key}"),
                Auth::Basic => format!("Basic {key}"),
                Auth::Header(_) | Auth::Query(_) => key.clone(),
            };
            if reqwest::header::HeaderValue::from_str(&value).is_err() {
                return Err(ConfigError(
                    "the API key (<SERVICE>_API_KEY) holds a line break or another character a header cannot carry"
                        .into(),
                ));
            }
        }
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .user_agent(concat!("toolspec-runtime/", env!("CARGO_PKG_VERSION")))
            // A redirect would re-send the credential, the extra headers, the idempotency
            // key and the body to wherever the API points: it is an answer, not an order.
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .build()
            .map_err(|e| ConfigError(format!("cannot make an HTTP client: {e}")))?;
        Ok(Api {
            client,
            base: base.trim_end_matches('/').to_string(),
            auth,
            headers,
            max_answer: DEFAULT_MAX_ANSWER,
            large: Arc::new(Semaphore::new(Self::large_answers_default())),
            env: None,
        })
    }

    /// Reads answers of at most `bytes` (default [`DEFAULT_MAX_ANSWER`]); a larger one is
    /// refused as it arrives.
    pub fn with_max_answer_bytes(mut self, bytes: usize) -> Self {
        self.max_answer = bytes.max(1);
        self
    }

    /// Reads and parses at most `places` answers over [`LARGE_ANSWER`] bytes at once
    /// (default [`Api::large_answers_default`]); other large answers wait, small ones never
    /// do. What bounds the memory of a burst of large answers: about `places` times what
    /// one costs.
    pub fn with_large_answers_at_once(mut self, places: usize) -> Self {
        self.large = Arc::new(Semaphore::new(places.max(1)));
        self
    }

    /// Half the machine's cores, at least one.
    pub fn large_answers_default() -> usize {
        std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
    }

    /// The most bytes of an answer this API reads.
    pub fn max_answer_bytes(&self) -> usize {
        self.max_answer
    }

    /// Sends the call: `input` is the tool's validated input.
    pub async fn send<I: Serialize>(
        &self,
        route: &'static Route,
        input: &I,
        extra: Extra<'_>,
    ) -> Result<Reply, ToolError> {
        let args = arguments(input)?;
        let url = request::url(&self.base, route, &args, extra.window, self.auth.as_ref())?;
        let arg_headers = request::headers(route, &args)?;
        let method = reqwest::Method::from_bytes(route.method.as_bytes())
            .map_err(|_| words::broken(route, "its method"))?;
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
        for (header, value) in arg_headers {
            request = request.header(header, value);
        }
        if let (Some(header), Some(key)) = (route.idempotency_header, extra.key) {
            request = request.header(header, key);
        }
        if let Some(body) = request::body(route, &args) {
            request = request.json(&body);
        }
        let request = request
            .build()
            .map_err(|_| words::broken(route, "a header or body that cannot be sent"))?;
        let keyed = route.idempotency_header.is_some() && extra.key.is_some();
        let response = match self.client.execute(request).await {
            Ok(r) => r,
            Err(e) => {
                let sent = !e.is_connect() && !e.is_builder();
                return Err(words::unreached(route, e.is_timeout(), sent, keyed));
            }
        };
        let status = response.status();
        if !status.is_success() {
            let retry_after = header(&response, "retry-after").and_then(|v| v.trim().parse().ok());
            let location = header(&response, "location");
            let bytes = answer::read_prefix(response, self.max_answer).await;
            return Err(words::failure(
                route,
                status.as_u16(),
                &bytes,
                retry_after,
                location.as_deref(),
                keyed,
            ));
        }
        match answer::read(response, self.max_answer, &self.large).await {
            Ok((bytes, place)) => Ok(Reply {
                bytes,
                route,
                _place: place,
            }),
            Err(answer::Unread::TooLarge) => Err(words::too_large(
                route,
                self.max_answer,
                self.env.as_deref(),
            )),
            Err(answer::Unread::Transport(e)) => {
                Err(words::unreached(route, e.is_timeout(), true, keyed))
            }
        }
    }

    /// The request a call would send, for its preview: method, path and query, a line per
    /// header argument, then the JSON body; secrets shown as `...`.
    pub fn describe<I: Serialize>(
        &self,
        route: &'static Route,
        input: &I,
    ) -> Result<String, ToolError> {
        let args = arguments(input)?;
        let url = request::url(&self.base, route, &args, None, self.auth.as_ref())?;
        let headers = request::headers(route, &args)?;
        let body = request::body(route, &args);
        Ok(request::describe(
            route,
            &url,
            &headers,
            body.as_ref(),
            self.auth.as_ref(),
        ))
    }
}

/// A response header as text, cut short.
fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    let v = response.headers().get(name)?.to_str().ok()?;
    Some(v.chars().take(500).collect())
}

impl Reply {
    /// The tool's result: the answer's keys, or the answer in the route's `response` field.
    pub fn output<O: DeserializeOwned>(&self) -> Result<O, ToolError> {
        answer::parse(self.route, &self.bytes).map_err(|(path, why)| {
            words::unexpected(
                self.route,
                &format!(
                    "an answer its spec does not describe ({})",
                    words::mismatch(&path, &why)
                ),
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
        let facts = answer::page_facts(self.route, &self.bytes);
        if let Some(total) = facts.total {
            return Ok(crate::engine::glue::Page::new(result, total));
        }
        let more = match (facts.has_more, facts.done) {
            (Some(more), _) => more,
            (_, Some(done)) => !done,
            _ => facts.items.is_some_and(|n| n as u64 >= window.limit),
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

#[cfg(test)]
mod tests;
