//! The request a call becomes: its URL, header arguments and JSON body, and the words of
//! its preview. Built from the model's arguments, so built defensively:
//!
//! - a path argument fills its segment and nothing else: a value that is empty, `.` or `..`
//!   (as is, or percent-encoded once or more) would let a URL parser move the request to
//!   another path, so it is refused with the argument's name; and the URL made is checked
//!   to stay under the base URL's path with every segment in its place;
//! - a header argument the HTTP client cannot send (a line break, a control character, more
//!   than [`MAX_HEADER_VALUE`] bytes) is the caller's error, never a transport failure;
//! - a preview shows every argument sent, headers included, with secrets (the credential,
//!   and arguments whose names say they are secret) shown as `...` however they are encoded.

use serde_json::{Map, Value, json};

use super::words::broken;
use super::{Auth, Part, Route};
use crate::ToolError;
use crate::engine::glue::Window;

/// The longest header value sent (common servers refuse a header line over 8 KiB).
pub(super) const MAX_HEADER_VALUE: usize = 4 << 10;
/// The most of a request a preview shows.
const MAX_DESCRIBED: usize = 2000;
/// How many times a path value is percent-decoded to look for a dot segment (an API or a
/// proxy may decode once more than the URL parser does).
const DECODINGS: usize = 4;

/// A value as it goes in a path, a query or a header.
pub(super) fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The call's arguments refused: one problem, at `/param`, not retryable.
fn refused(param: &str, message: String) -> ToolError {
    let path = format!("/{}", crate::problem::escape_pointer(param));
    let problem = json!({ "code": "invalid_arguments", "path": path, "message": message });
    ToolError::builtin(
        &crate::catalog::INVALID_ARGUMENTS,
        format!("{message} Nothing was sent."),
        json!({ "path": path, "problems": [problem] }),
    )
}

/// Whether `value` could be read as a dot segment or an empty one by whatever parses the
/// path, at any depth of percent-decoding up to [`DECODINGS`].
fn moves_the_path(value: &str) -> bool {
    let mut current = value.to_owned();
    for _ in 0..=DECODINGS {
        if matches!(current.as_str(), "" | "." | "..") {
            return true;
        }
        // `%XX` decoded; a `+` stays a `+`, as in a path.
        match percent_encoding::percent_decode_str(&current).decode_utf8() {
            Ok(decoded) if decoded != current => current = decoded.into_owned(),
            // Nothing left to decode, or bytes that are not text (never a dot segment).
            _ => return false,
        }
    }
    true
}

/// The request's URL: the base, the route's path with each argument percent-encoded into
/// its own segment, the query (with the page and a query credential).
pub(super) fn url(
    base: &str,
    route: &Route,
    args: &Map<String, Value>,
    window: Option<&Window>,
    auth: Option<&(Auth, String)>,
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
                let value = text(v);
                if moves_the_path(&value) {
                    let shown = crate::engine::for_person(&value, 20);
                    return Err(refused(
                        p,
                        format!(
                            "`{p}` is '{shown}', which as a part of the URL's path would be empty or step out of its place (`.` and `..` are path steps, also when percent-encoded); give the real {p}."
                        ),
                    ));
                }
                path.extend(
                    url::form_urlencoded::byte_serialize(value.as_bytes())
                        .map(|s| s.replace('+', "%20")),
                );
            }
        }
    }
    let mut url =
        url::Url::parse(&format!("{base}{path}")).map_err(|_| broken(route, "its path"))?;
    stays_in_place(base, &path, &url).map_err(|what| broken(route, what))?;
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
        if let Some((Auth::Query(name), key)) = auth {
            q.append_pair(name, key);
        }
    }
    if url.query() == Some("") {
        url.set_query(None);
    }
    Ok(url)
}

/// The parsed URL's path is the base's path followed by the route's, segment for segment:
/// nothing the parser resolved or normalised moved a segment.
fn stays_in_place(base: &str, path: &str, url: &url::Url) -> Result<(), &'static str> {
    let base_path = url::Url::parse(base)
        .map(|b| b.path().trim_end_matches('/').to_owned())
        .map_err(|_| "its base URL")?;
    let got = url.path();
    let under = got
        .strip_prefix(&base_path)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    // A URL's path is at least `/`, which an empty base path and route path make.
    let expected = format!("{base_path}{path}").matches('/').count().max(1);
    if !under || got.matches('/').count() != expected {
        return Err("a path that leaves the base URL's path");
    }
    Ok(())
}

/// The header arguments of a call, each checked to be sendable.
pub(super) fn headers(
    route: &Route,
    args: &Map<String, Value>,
) -> Result<Vec<(&'static str, reqwest::header::HeaderValue)>, ToolError> {
    let mut out = Vec::new();
    for (param, header) in route.headers {
        let Some(v) = args.get(*param).filter(|v| !v.is_null()) else {
            continue;
        };
        let value = text(v);
        if value.len() > MAX_HEADER_VALUE {
            return Err(refused(
                param,
                format!(
                    "`{param}` is {} bytes, more than the {MAX_HEADER_VALUE} an HTTP header `{header}` can carry; give a shorter value.",
                    value.len()
                ),
            ));
        }
        let Ok(value) = reqwest::header::HeaderValue::from_str(&value) else {
            return Err(refused(
                param,
                format!(
                    "`{param}` cannot be sent in the HTTP header `{header}`: it holds a line break or another control character; give the value without them."
                ),
            ));
        };
        out.push((*header, value));
    }
    Ok(out)
}

/// The JSON body of a call, if its route has one.
pub(super) fn body(route: &Route, args: &Map<String, Value>) -> Option<Value> {
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

/// Whether a query parameter or header of this name carries a secret, by its name.
fn secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "auth",
        "cookie",
        "session",
        "signature",
        "credential",
    ]
    .iter()
    .any(|s| name.contains(s))
}

/// The request as a person reads it in a preview: `METHOD /path?query`, a line per header
/// argument, then the JSON body; secrets as `...`; cut at [`MAX_DESCRIBED`] characters.
pub(super) fn describe(
    route: &Route,
    url: &url::Url,
    headers: &[(&'static str, reqwest::header::HeaderValue)],
    body: Option<&Value>,
    auth: Option<&(Auth, String)>,
) -> String {
    let credential = match auth {
        Some((Auth::Query(name), _)) => Some(*name),
        _ => None,
    };
    let mut out = format!("{} {}", route.method, url.path());
    if url.query().is_some() {
        let shown: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(url.query_pairs().map(|(k, v)| {
                let hidden = credential == Some(k.as_ref()) || secret(&k);
                let v = if hidden { "...".into() } else { v };
                (k, v)
            }))
            .finish();
        out.push('?');
        out.push_str(&shown);
    }
    for (name, value) in headers {
        let shown = if secret(name) {
            "...".to_string()
        } else {
            crate::engine::for_person(&String::from_utf8_lossy(value.as_bytes()), 200)
        };
        out.push_str(&format!("\n{name}: {shown}"));
    }
    if let Some(b) = body {
        out.push_str("\n\n");
        out.push_str(&b.to_string());
    }
    if out.chars().count() <= MAX_DESCRIBED {
        return out;
    }
    let mut cut: String = out.chars().take(MAX_DESCRIBED - 3).collect();
    cut.push_str("...");
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    static PULLS: Route = Route {
        tool: "demo_pulls_list",
        method: "GET",
        path: &[
            Part::Lit("/repos/"),
            Part::Param("owner"),
            Part::Lit("/"),
            Part::Param("repo"),
            Part::Lit("/pulls"),
        ],
        query: &[("state", "state")],
        headers: &[("api_key", "api_key"), ("trace", "X-Trace")],
        body: &[],
        body_param: None,
        response: None,
        paging: &[],
        items: None,
        idempotency_header: None,
        statuses: &[],
        write: false,
    };

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("an object")
    }

    #[test]
    fn a_path_argument_cannot_leave_its_segment() {
        let base = "http://host/api/v3";
        for bad in [
            "..",
            ".",
            "",
            "%2e%2e",
            "%2E%2e",
            ".%2e",
            "%2e",
            "%252e%252e",
            "%25252e.",
        ] {
            for (owner, repo) in [(bad, "x"), ("x", bad)] {
                let a = args(json!({"owner": owner, "repo": repo}));
                let e = url(base, &PULLS, &a, None, None).expect_err(bad);
                assert_eq!(e.code, "invalid_arguments", "{bad}");
                assert!(!e.retryable);
                let named = if owner == bad { "owner" } else { "repo" };
                assert_eq!(e.details.get("path"), Some(&json!(format!("/{named}"))));
                assert!(e.message.contains(&format!("`{named}`")), "{}", e.message);
            }
        }
        // Dots inside a value, slashes and percent signs stay in the segment, encoded.
        let a = args(json!({"owner": "a..b", "repo": "../x/%2e%2e"}));
        let u = url(base, &PULLS, &a, None, None).expect("builds");
        assert_eq!(u.path(), "/api/v3/repos/a..b/..%2Fx%2F%252e%252e/pulls");
    }

    #[test]
    fn a_url_that_leaves_the_base_path_is_refused() {
        let url = url::Url::parse("http://host/api/pulls").expect("url");
        assert!(stays_in_place("http://host/api/v3", "/../pulls", &url).is_err());
        let url = url::Url::parse("http://host/api/v3/a/b").expect("url");
        assert!(stays_in_place("http://host/api/v3", "/a/b", &url).is_ok());
        assert!(stays_in_place("http://host/api/v3/", "/a/b", &url).is_ok());
        let url = url::Url::parse("http://host").expect("url");
        assert!(stays_in_place("http://host", "", &url).is_ok());
        let url = url::Url::parse("http://host/api/v3x/a").expect("url");
        assert!(stays_in_place("http://host/api/v3", "x/a", &url).is_err());
    }

    #[test]
    fn a_header_argument_that_cannot_be_sent_is_the_callers_error() {
        for bad in ["a\r\nX-Evil: 1", "a\nb", "nul\u{0}"] {
            let e = headers(&PULLS, &args(json!({"trace": bad}))).expect_err(bad);
            assert_eq!(e.code, "invalid_arguments");
            assert!(!e.retryable);
            assert_eq!(e.details.get("path"), Some(&json!("/trace")));
        }
        let long = "x".repeat(MAX_HEADER_VALUE + 1);
        assert!(headers(&PULLS, &args(json!({"trace": long}))).is_err());
        let sent = headers(&PULLS, &args(json!({"trace": "t-1", "api_key": null}))).expect("ok");
        assert_eq!(sent.len(), 1);
    }

    #[test]
    fn a_preview_shows_every_argument_and_no_secret_however_encoded() {
        let a = args(
            json!({"owner": "o", "repo": "r", "state": "open", "api_key": "pk_1", "trace": "t-1"}),
        );
        let auth = (Auth::Query("access key"), "s3cret/+=&".to_string());
        let u = url("http://host/v3", &PULLS, &a, None, Some(&auth)).expect("builds");
        assert!(u.as_str().contains("access+key=s3cret%2F%2B%3D%26"), "{u}");
        let h = headers(&PULLS, &a).expect("ok");
        let shown = describe(&PULLS, &u, &h, Some(&json!({"n": 1})), Some(&auth));
        assert_eq!(
            shown,
            "GET /v3/repos/o/r/pulls?state=open&access+key=...\napi_key: ...\nX-Trace: t-1\n\n{\"n\":1}"
        );
        assert!(
            !shown.contains("s3cret") && !shown.contains("pk_1"),
            "{shown}"
        );
    }
}
