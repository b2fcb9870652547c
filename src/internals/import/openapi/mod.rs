//! OpenAPI 3.0 and 3.1 documents into draft specs.
//!
//! Each chosen operation becomes one tool; every fact of the document the spec format can
//! hold is carried into the spec's own constructs, and the rest is in the [`Report`]. The
//! draft passes `toolspec check` as written, so `generate` works at once; what a person
//! must still decide is marked in it (`TODO` texts, `guessed` comments) and listed by
//! `toolspec lint`.

mod document;
mod errors;
mod examples;
mod groups;
mod names;
mod paging;
mod prose;
mod schema;
mod tools;

pub use document::{Document, DocumentError};

use super::report::Report;
use super::yaml::{self, Node};
use document::Operation;
use schema::clean;
use serde_json::Value;
use std::collections::HashSet;

/// What to import, and as which service.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The service namespace of the draft (snake_case): every tool name starts with it.
    pub service: String,
    /// Which operations to import; all when empty. Each is `tag:NAME`, `path:PREFIX`
    /// (a `*` matches any run of characters), `operation:ID`, or a bare word matching any
    /// of the three. An operation is chosen when any selector matches it.
    pub include: Vec<String>,
    /// The document's file name, said in the draft's header comment.
    pub source_name: String,
}

/// A draft spec and the account of how it was made.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The spec's YAML text.
    pub yaml: String,
    /// The draft as JSON, to test what it holds.
    pub json: Value,
    /// What was carried, dropped, guessed and missing.
    pub report: Report,
}

/// Why an import could not be made.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError {
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

impl From<DocumentError> for ImportError {
    fn from(e: DocumentError) -> Self {
        ImportError {
            message: e.message,
            help: e.help,
        }
    }
}

/// Imports an OpenAPI document (JSON or YAML text) into a draft spec.
pub fn import(text: &str, options: &Options) -> Result<Draft, ImportError> {
    let doc = Document::parse(text)?;
    import_document(&doc, options)
}

/// Imports a parsed document; see [`import`].
pub fn import_document(doc: &Document, options: &Options) -> Result<Draft, ImportError> {
    let service = options.service.as_str();
    if !valid_service(service) {
        return Err(ImportError {
            message: format!("`{service}` is not a service name"),
            help: "pass --service with lowercase letters, digits and `_`, starting with a letter, at most 40 characters (`petstore`)".into(),
        });
    }
    let selectors: Vec<Selector> = options
        .include
        .iter()
        .map(|s| Selector::parse(s))
        .collect::<Result<_, _>>()?;
    let all = doc.operations();
    let mut report = Report {
        operations_in_document: all.len(),
        ..Report::default()
    };
    let chosen: Vec<&Operation> = all
        .iter()
        .filter(|op| selectors.is_empty() || selectors.iter().any(|s| s.matches(op)))
        .collect();
    if chosen.is_empty() {
        return Err(ImportError {
            message: format!(
                "no operation matches {} (the document has {} operations)",
                options.include.join(", "),
                all.len()
            ),
            help: format!(
                "choose by tag (tags here: {}), by path prefix or by operationId",
                tag_list(&all)
            ),
        });
    }
    report.operations_chosen = chosen.len();

    let mut schemas = schema::Schemas::new(doc);
    let mut catalog = errors::Catalog::default();
    let mut taken = HashSet::new();
    let mut tool_nodes = Vec::new();
    let mut made = Vec::new();
    for op in chosen {
        let name = names::unique(names::tool_name(service, op), op, &taken);
        match tools::tool(doc, op, &name, &mut schemas, &mut catalog, &mut report) {
            tools::Made::Tool(t) => {
                taken.insert(name.clone());
                made.push((name, op));
                tool_nodes.push(t);
            }
            tools::Made::Skipped(why) => report.skip(op.label(), why),
        }
    }
    report.tools_written = tool_nodes.len();
    if tool_nodes.is_empty() {
        return Err(ImportError {
            message: "every chosen operation was left out".into(),
            help: format!(
                "choose other operations; the reasons: {}",
                report
                    .skipped
                    .iter()
                    .map(|n| format!("{}: {}", n.at, n.what))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        });
    }

    let mut top = Node::map();
    let info = |k: &str| {
        doc.root
            .pointer(&format!("/info/{k}"))
            .and_then(Value::as_str)
    };
    top.set_commented(
        "toolspec",
        Node::Scalar(1.into()),
        vec![
            format!(
                "Drafted by `toolspec import openapi` from {} ({} {}).",
                if options.source_name.is_empty() {
                    "an OpenAPI document"
                } else {
                    &options.source_name
                },
                info("title").unwrap_or("untitled"),
                info("version").unwrap_or("")
            ),
            "Texts starting with TODO are what the document does not say, and comments marked"
                .into(),
            "`guessed` are decisions to confirm: `toolspec lint` lists both.".into(),
        ],
    );
    top.set("service", Node::str(service));
    top.set("title", Node::str(clean(info("title").unwrap_or(service))));
    let description = info("description")
        .map(clean)
        .filter(|d| !d.is_empty())
        .map(|d| first_paragraph(&d));
    top.set(
        "description",
        Node::str(
            description.unwrap_or_else(|| format!("TODO: say what the {service} tools are for.")),
        ),
    );
    let mut up = upstream(doc, &mut report);
    if let Some(statuses) = catalog.statuses() {
        up.set("statuses", statuses);
    }
    top.set("upstream", up);
    if !schemas.types.is_empty() {
        let mut types = Node::map();
        for (name, t) in std::mem::take(&mut schemas.types) {
            types.set(name, t);
        }
        top.set("types", types);
    }
    if let Some(errors) = catalog.node() {
        top.set("errors", errors);
    }
    top.set("tools", Node::Seq(tool_nodes));
    // The tags the user chose, in their order: the first one chosen loads up front.
    let chosen_tags: Vec<&str> = selectors
        .iter()
        .filter_map(|s| match s {
            Selector::Tag(t) | Selector::Any(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    if let Some(groups) = groups::groups(doc, service, &made, &chosen_tags) {
        top.set("groups", groups);
    }
    Ok(Draft {
        yaml: yaml::write(&top),
        json: top.to_json(),
        report,
    })
}

fn valid_service(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && s.len() <= 40
}

fn first_paragraph(d: &str) -> String {
    // `clean` made it one line; keep the first three sentences at most.
    let mut out = String::new();
    for (i, sentence) in d.split_inclusive(". ").enumerate() {
        if i == 3 || out.len() + sentence.len() > 600 {
            break;
        }
        out.push_str(sentence);
    }
    out.trim().to_string()
}

/// `upstream`: the first server's URL (its variables at their defaults) and the first
/// security scheme the document uses.
fn upstream(doc: &Document, report: &mut Report) -> Node {
    let mut up = Node::map();
    let server = doc.root.pointer("/servers/0");
    let mut url = server
        .and_then(|s| s.get("url"))
        .and_then(Value::as_str)
        .unwrap_or("/")
        .to_string();
    if let Some(vars) = server
        .and_then(|s| s.get("variables"))
        .and_then(Value::as_object)
    {
        for (k, v) in vars {
            if let Some(d) = v.get("default").and_then(Value::as_str) {
                url = url.replace(&format!("{{{k}}}"), d);
            }
        }
    }
    let url = url.trim_end_matches('/').to_string();
    let comments = if url.starts_with("http://") || url.starts_with("https://") {
        Vec::new()
    } else {
        report.missing(
            "servers",
            "no absolute server URL: set <SERVICE>_BASE_URL when serving",
        );
        vec!["The document gives no absolute server URL: set <SERVICE>_BASE_URL to the API's address.".into()]
    };
    up.set_commented(
        "base_url",
        Node::str(if url.is_empty() { "/".into() } else { url }),
        comments,
    );
    if let Some(auth) = auth(doc) {
        up.set("auth", auth);
    }
    up
}

fn auth(doc: &Document) -> Option<Node> {
    let schemes = doc
        .root
        .pointer("/components/securitySchemes")?
        .as_object()?;
    let used = doc
        .root
        .get("security")
        .and_then(Value::as_array)
        .and_then(|s| s.first())
        .and_then(Value::as_object)
        .and_then(|r| r.keys().next().cloned())
        .or_else(|| schemes.keys().next().cloned())?;
    let scheme = doc.resolve(schemes.get(&used)?).ok()?;
    let mut n = Node::map();
    match scheme.get("type").and_then(Value::as_str)? {
        "http"
            if scheme
                .get("scheme")
                .and_then(Value::as_str)
                .is_some_and(|s| s.eq_ignore_ascii_case("basic")) =>
        {
            n.set("scheme", Node::str("basic"));
        }
        "http" | "oauth2" | "openIdConnect" => {
            n.set("scheme", Node::str("bearer"));
        }
        "apiKey" => {
            let location = scheme.get("in").and_then(Value::as_str)?;
            let name = scheme.get("name").and_then(Value::as_str)?;
            match location {
                "header" => n.set("scheme", Node::str("header")),
                "query" => n.set("scheme", Node::str("query")),
                _ => return None,
            };
            n.set("name", Node::str(name));
        }
        _ => return None,
    }
    Some(n)
}

fn tag_list(ops: &[Operation]) -> String {
    let mut tags: Vec<&str> = ops.iter().flat_map(|o| o.tags()).collect();
    tags.sort_unstable();
    tags.dedup();
    let shown: Vec<&str> = tags.iter().take(15).copied().collect();
    let more = tags.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else if shown.is_empty() {
        "none".into()
    } else {
        shown.join(", ")
    }
}

/// One `--include` selector.
#[derive(Debug, Clone)]
enum Selector {
    Tag(String),
    Path(String),
    Operation(String),
    Any(String),
}

impl Selector {
    fn parse(s: &str) -> Result<Self, ImportError> {
        let (kind, value) = match s.split_once(':') {
            Some((k @ ("tag" | "path" | "operation" | "op"), v)) => (Some(k), v),
            _ => (None, s),
        };
        if value.is_empty() {
            return Err(ImportError {
                message: format!("--include {s:?} names nothing"),
                help: "write tag:NAME, path:/PREFIX, operation:ID or a bare name".into(),
            });
        }
        Ok(match kind {
            Some("tag") => Selector::Tag(value.into()),
            Some("path") => Selector::Path(value.into()),
            Some(_) => Selector::Operation(value.into()),
            None => Selector::Any(value.into()),
        })
    }

    fn matches(&self, op: &Operation) -> bool {
        match self {
            Selector::Tag(t) => op.tags().iter().any(|x| x.eq_ignore_ascii_case(t)),
            Selector::Path(p) => path_matches(p, op.path),
            Selector::Operation(id) => op.id() == Some(id.as_str()),
            Selector::Any(v) => {
                Selector::Tag(v.clone()).matches(op)
                    || Selector::Operation(v.clone()).matches(op)
                    || (v.starts_with('/') && path_matches(v, op.path))
            }
        }
    }
}

/// A path prefix, or a pattern where `*` matches any run of characters.
fn path_matches(pattern: &str, path: &str) -> bool {
    if !pattern.contains('*') {
        return path == pattern || path.starts_with(&format!("{}/", pattern.trim_end_matches('/')));
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut rest = path;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        } else if i == parts.len() - 1 && !part.is_empty() {
            return rest.ends_with(part);
        } else if let Some(at) = rest.find(part) {
            rest = &rest[at + part.len()..];
        } else {
            return false;
        }
    }
    true
}
