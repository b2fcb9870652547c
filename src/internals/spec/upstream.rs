//! The format's keys for a toolset that forwards its tools to an HTTP API it does not own:
//! the API's address and credentials (`upstream`) and, per tool, the request a call becomes
//! (`http`). `toolspec import openapi` writes both; a person may write them too.

use crate::spec::spanned::{Sp, SpMap};
use schemars::JsonSchema;
use serde::Deserialize;

/// The HTTP API the toolset's tools forward to. The generated forwarding implementation
/// reads the base URL and the credential from the environment at start-up, with this
/// base URL as the default; the credential is never written in a spec.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Upstream {
    /// The API's base URL, which each tool's `http.path` is appended to
    /// (`https://petstore3.swagger.io/api/v3`); the environment variable
    /// `<SERVICE>_BASE_URL` overrides it.
    pub base_url: Sp<String>,
    /// How a request carries the credential from `<SERVICE>_API_KEY`; none when left out.
    #[serde(default)]
    pub auth: Option<Sp<UpstreamAuth>>,
    /// Which error of the catalog each HTTP status the API answers is (`"404": not_found`,
    /// `"429": rate_limited`). A tool returns it when it lists the code in its `errors`;
    /// any other failure is `internal_error`, saying the status and whether a write may
    /// have been made.
    #[serde(default)]
    pub statuses: Option<SpMap<Sp<String>>>,
}

/// Where a request carries the API's credential.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpstreamAuth {
    /// `bearer` (`Authorization: Bearer <key>`), `basic` (`Authorization: Basic <key>`,
    /// the key being `user:password` in base64), `header` or `query` (the key in the
    /// header or query parameter named by `name`).
    pub scheme: Sp<AuthScheme>,
    /// The header or query parameter name, for `header` and `query`.
    #[serde(default)]
    pub name: Option<Sp<String>>,
}

/// How a request carries the credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuthScheme {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// `Authorization: Basic <key>`.
    Basic,
    /// The key in the header named by `name`.
    Header,
    /// The key in the query parameter named by `name`.
    Query,
}

/// The HTTP request a call of the tool becomes, for a toolset with `upstream`: its method
/// and path, and where each parameter goes. Every parameter goes to exactly one place:
/// a `{name}` in the path, `query`, `headers` or the JSON body.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Http {
    /// The method: `GET`, `POST`, `PUT`, `PATCH` or `DELETE`.
    pub method: Sp<HttpMethod>,
    /// The path after the base URL, with parameters in braces (`/pet/{petId}`); each is
    /// percent-encoded into its place.
    pub path: Sp<String>,
    /// Parameters sent in the query string: the parameter's name, then the name the API
    /// reads (`page_size: "page[size]"`). Arrays repeat the key.
    #[serde(default)]
    pub query: Option<SpMap<Sp<String>>>,
    /// Parameters sent as headers: the parameter's name, then the header's.
    #[serde(default)]
    pub headers: Option<SpMap<Sp<String>>>,
    /// Parameters sent as keys of a JSON object body: the parameter's name, then the key.
    #[serde(default)]
    pub body: Option<SpMap<Sp<String>>>,
    /// The parameter that is the whole JSON body, for an API whose body is an array or a
    /// value rather than an object of keys. Not with `body`.
    #[serde(default)]
    pub body_param: Option<Sp<String>>,
    /// The output field the whole response body fills, for a response that is an array
    /// or a value (`pets`); without it, the body's keys are the output's fields.
    #[serde(default)]
    pub response: Option<Sp<String>>,
    /// For a paged tool: the query parameters the API reads the page from. `offset` and
    /// `limit` for an API that skips; `page` and `size` for page numbers (`style: pages`);
    /// `after` and `limit` for one that continues after an item's id (`keyset`).
    #[serde(default)]
    pub paging: Option<SpMap<Sp<String>>>,
    /// The header that carries the call's idempotency key, for an API that honours one
    /// (`Idempotency-Key`); the tool's `effect` is then `remote_keyed`.
    #[serde(default)]
    pub idempotency_header: Option<Sp<String>>,
}

/// An HTTP method a tool may forward with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum HttpMethod {
    /// A read.
    #[serde(rename = "GET")]
    Get,
    /// A creation or an action.
    #[serde(rename = "POST")]
    Post,
    /// A replacement.
    #[serde(rename = "PUT")]
    Put,
    /// A partial change.
    #[serde(rename = "PATCH")]
    Patch,
    /// A deletion.
    #[serde(rename = "DELETE")]
    Delete,
}

impl HttpMethod {
    /// The method as HTTP spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
        }
    }
}
