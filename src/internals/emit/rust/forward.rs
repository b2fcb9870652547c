//! The forwarding implementation of a toolset with `upstream`: a `<Service>Api` struct that
//! implements the toolset's trait by sending each call to the API, through
//! `toolspec_runtime::upstream`. Each tool's `http` becomes a static `Route`, written here
//! as a Rust expression whose every text passes through [`lit`].

use serde::Serialize;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::emit::code::escape::lit;
use crate::model::upstream::{AuthScheme, PathPart};
use crate::model::{Kind, Tier, ToolSet};

/// What the forwarding template needs.
#[derive(Debug, Serialize)]
pub struct ForwardCtx {
    /// The struct's name (`PetstoreApi`).
    #[serde(serialize_with = "crate::emit::code::safe")]
    pub name: String,
    /// The environment prefix (`PETSTORE`): the service name, which is `[a-z0-9_]` only,
    /// in capitals.
    #[serde(serialize_with = "crate::emit::code::safe")]
    pub env: String,
    /// The spec's base URL.
    pub base_url: String,
    /// The `Option<Auth>` expression.
    #[serde(serialize_with = "crate::emit::code::safe")]
    pub auth: String,
    /// One `Route` expression per tool, in the tools' order.
    #[serde(serialize_with = "crate::emit::code::safe_vec")]
    pub routes: Vec<String>,
}

/// The forwarding context of `ts`, or `None` when it has no `upstream`, or when a
/// tool's preview asks for more than the request (which a forwarder cannot know; a
/// warning says so, and the trait is left to implement by hand).
pub fn context(ts: &ToolSet, name: String, diags: &mut Diagnostics) -> Option<ForwardCtx> {
    let upstream = ts.upstream.as_ref()?;
    let mut routes = Vec::new();
    for t in &ts.tools {
        let http = t.http.as_ref()?;
        if let Some(p) = &t.preview {
            let only_request = matches!(p.fields.as_slice(), [f] if f.name == "request" && matches!(f.ty.kind, Kind::String(_)));
            if !only_request {
                diags.push(
                    Diagnostic::warning(
                        "forward-preview",
                        p.span,
                        format!("no forwarding implementation for `{}`: the preview of `{}` has fields a forwarder cannot fill", ts.service.text, t.name.text),
                    )
                    .label("only `request` can be filled from the request")
                    .help("keep `preview: {fields: {request: {type: string, ...}}}` to have the `Api` generated, or implement the trait yourself"),
                );
                return None;
            }
        }
        let pairs = |v: &[(String, String)]| {
            let inner: Vec<String> = v
                .iter()
                .map(|(a, b)| format!("({}, {})", lit(a), lit(b)))
                .collect();
            format!("&[{}]", inner.join(", "))
        };
        let opt = |v: &Option<String>| match v {
            Some(s) => format!("::core::option::Option::Some({})", lit(s)),
            None => "::core::option::Option::None".into(),
        };
        let path: Vec<String> = http
            .path
            .iter()
            .map(|p| match p {
                PathPart::Literal(s) => {
                    format!("::toolspec_runtime::upstream::Part::Lit({})", lit(s))
                }
                PathPart::Param(s) => {
                    format!("::toolspec_runtime::upstream::Part::Param({})", lit(s))
                }
            })
            .collect();
        let statuses: Vec<String> = upstream
            .statuses
            .iter()
            .filter(|(_, code)| t.errors.iter().any(|e| &e.text == code))
            .filter_map(|(status, code)| {
                let e = ts.error(code)?;
                let has = |d: &str| e.details.iter().any(|f| f.name == d);
                Some(format!(
                    "::toolspec_runtime::upstream::Status {{ status: {status}, code: {}, retryable: {}, message: {}, reason: {}, retry_after: {} }}",
                    lit(code),
                    e.retryable,
                    lit(&e.message),
                    has("reason"),
                    has("retry_after_seconds"),
                ))
            })
            .collect();
        routes.push(format!(
            "::toolspec_runtime::upstream::Route {{ tool: {}, method: {}, path: &[{}], query: {}, headers: {}, body: {}, body_param: {}, response: {}, paging: {}, items: {}, idempotency_header: {}, statuses: &[{}], write: {} }}",
            lit(&t.name.text),
            lit(http.method.as_str()),
            path.join(", "),
            pairs(&http.query),
            pairs(&http.headers),
            pairs(&http.body),
            opt(&http.body_param),
            opt(&http.response),
            pairs(&http.paging),
            opt(&t.paging.as_ref().map(|p| p.items.text.clone())),
            opt(&http.idempotency_header),
            statuses.join(", "),
            t.tier != Tier::ReadOnly,
        ));
    }
    let auth = match &upstream.auth {
        None => "::core::option::Option::None".to_string(),
        Some((scheme, name)) => {
            let name = lit(name.as_deref().unwrap_or(""));
            let variant = match scheme {
                AuthScheme::Bearer => "Bearer".to_string(),
                AuthScheme::Basic => "Basic".to_string(),
                AuthScheme::Header => format!("Header({name})"),
                AuthScheme::Query => format!("Query({name})"),
            };
            format!("::core::option::Option::Some(::toolspec_runtime::upstream::Auth::{variant})")
        }
    };
    Some(ForwardCtx {
        name,
        env: ts.service.text.to_ascii_uppercase(),
        base_url: upstream.base_url.text.clone(),
        auth,
        routes,
    })
}
