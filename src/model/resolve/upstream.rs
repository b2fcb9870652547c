//! `upstream` and each tool's `http`, checked: a request is built from every parameter
//! and nothing else, so a forwarding server can never drop an argument the agent passed
//! or send one to the wrong place.

use crate::diagnostics::{Diagnostic, Diagnostics, FileId};
use crate::model::upstream::{HttpCall, PAGING_PARTS, PathPart, Upstream};
use crate::model::{Effect, ErrorCode, Kind, Origin, Text, Tool};
use crate::spec::format::{self as raw, AuthScheme, HttpMethod};
use crate::spec::spanned::{Sp, SpMap};

use super::at;

/// The toolset's `upstream`, checked; `catalog` is the toolset's error codes.
pub(super) fn upstream(
    file: FileId,
    spec: &raw::SpecFile,
    catalog: &[ErrorCode],
    diags: &mut Diagnostics,
) -> Option<Upstream> {
    let up = &spec.upstream.as_ref()?.value;
    let url = &up.base_url;
    let absolute = url.value.starts_with("http://") || url.value.starts_with("https://");
    if !absolute && !url.value.starts_with('/') || url.value.chars().any(char::is_whitespace) {
        diags.push(
            Diagnostic::error(
                "invalid-upstream",
                at(file, url.pos),
                format!("`{}` is not a base URL", url.value),
            )
            .label("not http(s)://... or a /path")
            .help("write the API's address (`https://api.example.com/v1`), or its path alone (`/v1`) when the host is given by <SERVICE>_BASE_URL at start-up"),
        );
    }
    let auth = up.auth.as_ref().map(|a| {
        let name = a.value.name.as_ref();
        let needs_name = matches!(a.value.scheme.value, AuthScheme::Header | AuthScheme::Query);
        match (needs_name, name) {
            (true, None) => diags.push(
                Diagnostic::error("invalid-upstream", at(file, a.pos), "this credential scheme needs `name`")
                    .label("in which header or query parameter?")
                    .help("add `name: X-Api-Key` (the header or query parameter the API reads the key from)"),
            ),
            (false, Some(n)) => diags.push(
                Diagnostic::error("invalid-upstream", at(file, n.pos), "`name` is only for the `header` and `query` schemes")
                    .label("bearer and basic use the Authorization header")
                    .help("remove `name`"),
            ),
            _ => {}
        }
        if let Some(n) = name.filter(|n| !is_token(&n.value)) {
            diags.push(
                Diagnostic::error("invalid-upstream", at(file, n.pos), format!("`{}` is not a header or parameter name", n.value))
                    .label("letters, digits and !#$%&'*+-.^_`|~ only")
                    .help("write the name as the API documents it (`X-Api-Key`)"),
            );
        }
        (a.value.scheme.value, name.map(|n| n.value.clone()))
    });
    let mut statuses = Vec::new();
    for (status, code) in up
        .statuses
        .as_ref()
        .map(|m| m.0.as_slice())
        .unwrap_or_default()
    {
        let number = status
            .value
            .parse::<u16>()
            .ok()
            .filter(|s| (400..600).contains(s));
        let Some(number) = number else {
            diags.push(
                Diagnostic::error(
                    "invalid-upstream",
                    at(file, status.pos),
                    format!("`{}` is not an HTTP error status", status.value),
                )
                .label("400 to 599")
                .help("write the status the API answers (`\"404\": not_found`)"),
            );
            continue;
        };
        match catalog.iter().find(|e| e.code == code.value) {
            Some(e) if !e.builtin => statuses.push((number, code.value.clone())),
            Some(_) => diags.push(
                Diagnostic::error(
                    "invalid-upstream",
                    at(file, code.pos),
                    format!(
                        "`{}` is a built-in code; an API's status maps to the toolset's own",
                        code.value
                    ),
                )
                .label("built-in")
                .help("add a code for it under `errors:` (`api_error`) and name that"),
            ),
            None => {
                let codes: Vec<&str> = catalog
                    .iter()
                    .filter(|e| !e.builtin)
                    .map(|e| e.code.as_str())
                    .collect();
                diags.push(
                    Diagnostic::error(
                        "unknown-error",
                        at(file, code.pos),
                        format!("`{}` is not in the error catalog", code.value),
                    )
                    .label("no such code")
                    .help(
                        match crate::diagnostics::did_you_mean(&code.value, codes.iter().copied()) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => "declare it under `errors:`".to_string(),
                        },
                    ),
                );
            }
        }
    }
    Some(Upstream {
        base_url: Text {
            text: url.value.clone(),
            span: at(file, url.pos),
        },
        auth,
        statuses,
    })
}

/// The tool's `http`, checked against its parameters, output, paging and effect.
pub(super) fn http(
    file: FileId,
    t: &raw::Tool,
    tool: &Tool,
    upstream: bool,
    diags: &mut Diagnostics,
) -> Option<HttpCall> {
    let Some(h) = &t.http else {
        if upstream {
            diags.push(
                Diagnostic::error(
                    "missing-http",
                    tool.name.span,
                    format!("tool `{}` has no `http`, and the toolset forwards to `upstream`", tool.name.text),
                )
                .label("what request does a call become?")
                .help("add `http: {method: GET, path: /things/{id}}` with where each parameter goes, or remove `upstream` and implement the tools yourself"),
            );
        }
        return None;
    };
    let span = at(file, h.pos);
    let h = &h.value;
    if !upstream {
        diags.push(
            Diagnostic::error(
                "http-without-upstream",
                span,
                "`http` says which request a call becomes, but the toolset has no `upstream`",
            )
            .label("sent to which API?")
            .help("add `upstream: {base_url: https://api.example.com}` at the top of the spec"),
        );
    }
    let mut placed: Vec<(String, &'static str)> = Vec::new();
    let mut place = |name: &str, pos, place_name: &'static str, diags: &mut Diagnostics| {
        if let Some((_, first)) = placed.iter().find(|(n, _)| n == name) {
            diags.push(
                Diagnostic::error(
                    "http-param-twice",
                    at(file, pos),
                    format!("parameter `{name}` is sent twice, in {first} and in {place_name}"),
                )
                .label("one parameter, one place")
                .help("keep it in the one place the API reads it from"),
            );
        } else {
            placed.push((name.to_string(), place_name));
        }
    };
    let param = |name: &str| {
        tool.params
            .iter()
            .find(|p| p.name == name && p.origin == Origin::Spec)
    };
    let unknown = |name: &str, pos, what: &str, diags: &mut Diagnostics| {
        let names: Vec<&str> = tool
            .params
            .iter()
            .filter(|p| p.origin == Origin::Spec)
            .map(|p| p.name.as_str())
            .collect();
        diags.push(
            Diagnostic::error(
                "http-unknown-param",
                at(file, pos),
                format!(
                    "`{name}` in {what} is not a parameter of `{}`",
                    tool.name.text
                ),
            )
            .label("no such parameter")
            .help(
                match crate::diagnostics::did_you_mean(name, names.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("use one of: {}", names.join(", ")),
                },
            ),
        );
    };

    // The path: literal text and `{param}`s.
    let mut path = Vec::new();
    if !h.path.value.starts_with('/') {
        diags.push(
            Diagnostic::error(
                "invalid-http",
                at(file, h.path.pos),
                format!("path `{}` does not start with `/`", h.path.value),
            )
            .label("appended to the base URL")
            .help("write the path from the base URL on, starting with `/` (`/pet/{petId}`)"),
        );
    }
    let mut rest = h.path.value.as_str();
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        if open > 0 {
            path.push(PathPart::Literal(rest[..open].to_string()));
        }
        let name = &rest[open + 1..open + close];
        match param(name) {
            Some(p) if !p.required || !is_scalar(&p.ty.kind) => diags.push(
                Diagnostic::error(
                    "invalid-http",
                    at(file, h.path.pos),
                    format!("path parameter `{name}` must be a required string, number or boolean"),
                )
                .label("a path has no place for a missing or structured value")
                .help(format!(
                    "make `{name}` required and a scalar, or send it in `query`"
                )),
            ),
            Some(_) => place(name, h.path.pos, "the path", diags),
            None => unknown(name, h.path.pos, "the path", diags),
        }
        path.push(PathPart::Param(name.to_string()));
        rest = &rest[open + close + 1..];
    }
    if !rest.is_empty() {
        path.push(PathPart::Literal(rest.to_string()));
    }

    let mut pairs =
        |map: Option<&SpMap<Sp<String>>>, what: &'static str, diags: &mut Diagnostics| {
            let mut out = Vec::new();
            for (k, v) in map.map(|m| m.0.as_slice()).unwrap_or_default() {
                if param(&k.value).is_none() {
                    unknown(&k.value, k.pos, what, diags);
                } else {
                    place(&k.value, k.pos, what, diags);
                }
                if v.value.is_empty() || (what == "headers" && !is_token(&v.value)) {
                    diags.push(
                        Diagnostic::error(
                            "invalid-http",
                            at(file, v.pos),
                            format!("`{}` is not a name the API can read in {what}", v.value),
                        )
                        .label("empty, or not an HTTP token")
                        .help("write the name as the API documents it"),
                    );
                }
                out.push((k.value.clone(), v.value.clone()));
            }
            out
        };
    let query = pairs(h.query.as_ref(), "query", diags);
    let headers = pairs(h.headers.as_ref(), "headers", diags);
    let body = pairs(h.body.as_ref(), "body", diags);
    let body_param = h.body_param.as_ref().map(|b| {
        if param(&b.value).is_none() {
            unknown(&b.value, b.pos, "body_param", diags);
        } else {
            place(&b.value, b.pos, "body_param", diags);
        }
        if !body.is_empty() {
            diags.push(
                Diagnostic::error("invalid-http", at(file, b.pos), "`body_param` and `body` both say what the body is")
                    .label("the whole body, or its keys?")
                    .help("keep `body` for an object body of keys, or `body_param` for a body that is one parameter's value"),
            );
        }
        b.value.clone()
    });
    if h.method.value == HttpMethod::Get && (!body.is_empty() || body_param.is_some()) {
        diags.push(
            Diagnostic::error(
                "invalid-http",
                at(file, h.method.pos),
                "a GET request has no body",
            )
            .label("GET")
            .help("send these parameters in `query`"),
        );
    }
    for p in tool.params.iter().filter(|p| p.origin == Origin::Spec) {
        if !placed.iter().any(|(n, _)| *n == p.name) {
            diags.push(
                Diagnostic::error("http-param-unsent", p.span, format!("parameter `{}` is not sent to the API", p.name))
                    .label("the agent would pass it for nothing")
                    .help(format!("add `{0}: {0}` under `http.query`, `http.headers` or `http.body`, or put `{{{0}}}` in the path", p.name)),
            );
        }
    }

    let response = h.response.as_ref().map(|r| {
        if !tool
            .output
            .iter()
            .any(|o| o.name == r.value && o.origin == Origin::Spec)
        {
            diags.push(
                Diagnostic::error(
                    "invalid-http",
                    at(file, r.pos),
                    format!("`response` names `{}`, not an output field", r.value),
                )
                .label("no such output field")
                .help("name the output field the whole response body fills"),
            );
        }
        r.value.clone()
    });

    let mut paging = Vec::new();
    for (k, v) in h
        .paging
        .as_ref()
        .map(|m| m.0.as_slice())
        .unwrap_or_default()
    {
        let fits_style = match (&tool.paging, k.value.as_str()) {
            (None, _) => false,
            (Some(p), "page" | "size") => p.pages.is_some(),
            (Some(p), "after") => !p.keyset.is_empty(),
            (Some(p), "offset") => p.keyset.is_empty() && p.pages.is_none(),
            (Some(p), "limit") => p.pages.is_none(),
            (Some(_), part) => PAGING_PARTS.contains(&part),
        };
        if !PAGING_PARTS.contains(&k.value.as_str()) || !fits_style {
            diags.push(
                Diagnostic::error("invalid-http", at(file, k.pos), format!("`{}` in `http.paging` does not fit this tool's paging", k.value))
                    .label("not a part its paging has")
                    .help("map `offset` and `limit` for cursor paging, `page` and `size` for `style: pages`, `after` and `limit` for `keyset`; `total`, `has_more` or `done` name the response's keys"),
            );
        }
        paging.push((k.value.clone(), v.value.clone()));
    }

    if tool.tier != crate::model::Tier::ReadOnly && !tool.effect.is_remote() {
        diags.push(
            Diagnostic::error("invalid-http", tool.effect_span, format!("`{}` is forwarded to an API, but its effect says the change is made in the store", tool.name.text))
                .label("the change is made at the API")
                .help("write `effect: remote_keyed` (the API honours an idempotency key, sent in `idempotency_header`), `remote_lookup` or `remote_unprotected`"),
        );
    }
    let idempotency_header = h.idempotency_header.as_ref().map(|i| {
        if tool.effect != Effect::RemoteKeyed || !is_token(&i.value) {
            diags.push(
                Diagnostic::error("invalid-http", at(file, i.pos), "`idempotency_header` forwards the call's key, which only a `remote_keyed` write has")
                    .label("no key to forward")
                    .help("write `effect: remote_keyed` and `idempotency: {}` on the tool, or remove `idempotency_header`"),
            );
        }
        i.value.clone()
    });
    Some(HttpCall {
        method: h.method.value,
        path,
        query,
        headers,
        body,
        body_param,
        response,
        paging,
        idempotency_header,
        span,
    })
}

/// An HTTP token (RFC 9110 §5.6.2): what a header name may hold.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// A value a path segment can hold: a scalar, or an untagged union of scalars (GitHub's
/// `workflow_id`, an id or a file name).
fn is_scalar(kind: &Kind) -> bool {
    match kind {
        Kind::String(_) | Kind::Integer { .. } | Kind::Number { .. } | Kind::Boolean => true,
        Kind::Union {
            variants,
            tag: None,
        } => variants.iter().all(|v| is_scalar(&v.ty.kind)),
        _ => false,
    }
}
