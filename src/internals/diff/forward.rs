//! Comparing the request a forwarded tool's call becomes (`http`): what a re-import of an
//! API's changed OpenAPI document shows beside the edited draft. Callers pass the same
//! arguments either way, so no change here breaks them; the forwarding server sends them
//! as the API now reads them.

use super::{Changes, Side};
use crate::model::Tool;
use crate::model::upstream::{HttpCall, PathPart};

/// The request's method and path, and where each parameter goes.
pub(super) fn compare_http(o: &Tool, n: &Tool, out: &mut Changes) {
    let name = n.name.text.as_str();
    let (message, span) = match (&o.http, &n.http) {
        (None, None) => return,
        (Some(old), None) => (
            format!("`{name}` is no longer forwarded ({})", request(old)),
            (Side::Old, old.span),
        ),
        (None, Some(new)) => (
            format!("`{name}` is now forwarded as {}", request(new)),
            (Side::New, new.span),
        ),
        (Some(old), Some(new)) => {
            let mut what = Vec::new();
            if request(old) != request(new) {
                what.push(format!("{} is now {}", request(old), request(new)));
            }
            for (place, a, b) in [
                ("query", &old.query, &new.query),
                ("headers", &old.headers, &new.headers),
                ("body", &old.body, &new.body),
                ("paging", &old.paging, &new.paging),
            ] {
                if a != b {
                    what.push(format!("its {place} is now {}", pairs(b)));
                }
            }
            if old.body_param != new.body_param || old.response != new.response {
                what.push("the body or the response it fills changed".into());
            }
            if old.idempotency_header != new.idempotency_header {
                what.push(match &new.idempotency_header {
                    Some(h) => format!("its idempotency key now goes in `{h}`"),
                    None => "it no longer sends an idempotency key".into(),
                });
            }
            if what.is_empty() {
                return;
            }
            (
                format!("`{name}`'s request: {}", what.join("; ")),
                (Side::New, new.span),
            )
        }
    };
    out.push(
        "http-changed",
        None,
        Some(name),
        format!("{name}.http"),
        span,
        message,
        "calls take the same arguments; the forwarding server sends them as the API now reads them",
    );
}

fn request(h: &HttpCall) -> String {
    let path: String = h
        .path
        .iter()
        .map(|p| match p {
            PathPart::Literal(s) => s.clone(),
            PathPart::Param(s) => format!("{{{s}}}"),
        })
        .collect();
    format!("{} {path}", h.method.as_str())
}

fn pairs(v: &[(String, String)]) -> String {
    if v.is_empty() {
        return "empty".into();
    }
    let shown: Vec<String> = v.iter().map(|(p, w)| format!("{p} as `{w}`")).collect();
    shown.join(", ")
}
