//! Paging recognised from a list operation's query parameters and response: an offset and
//! a limit, page numbers and a page size, or "after this id" and a limit; the response's
//! total or has-more flag. The draft then pages with toolspec's own cursor (or page
//! numbers) and the forwarding server translates each page into the API's parameters.

use super::document::{Document, Operation};
use super::tools::{json_media, success};
use crate::import::report::Report;
use crate::import::yaml::Node;
use serde_json::{Value, json};

const LIMITS: [&str; 9] = [
    "limit",
    "per_page",
    "perPage",
    "page_size",
    "pageSize",
    "size",
    "max_results",
    "maxResults",
    "count",
];
const OFFSETS: [&str; 3] = ["offset", "skip", "start"];
const PAGES: [&str; 3] = ["page", "page_number", "pageNumber"];
/// Parameters that continue after an item's id (Stripe's `starting_after`, OpenAI's `after`).
const AFTERS: [&str; 2] = ["after", "starting_after"];
/// Parameters that take an opaque token from the previous response.
const TOKENS: [&str; 7] = [
    "cursor",
    "iterator",
    "page_token",
    "pageToken",
    "next_token",
    "marker",
    "continuation_token",
];
const ITEMS: [&str; 7] = [
    "data", "items", "results", "records", "entries", "values", "list",
];
const TOTALS: [&str; 4] = ["total", "total_count", "totalCount", "count"];

/// How the API pages.
#[derive(Debug, Clone, PartialEq)]
enum Style {
    Offset { offset: String },
    Pages { page: String },
    After { after: String },
}

/// A list operation's paging, recognised.
#[derive(Debug, Clone)]
pub struct Recognised {
    style: Style,
    limit: String,
    /// The output field holding the items (`items` when the response is a bare array).
    items: String,
    default_limit: Option<u64>,
    max_limit: Option<u64>,
    /// The response key with the count of all matches.
    total: Option<String>,
    /// The response key that says whether more follow (`has_more`), or that none do (`done`).
    more: Option<(String, bool)>,
}

/// The paging of `op`, when its query parameters and response show one of the styles.
pub fn recognise(doc: &Document, op: &Operation, report: &mut Report) -> Option<Recognised> {
    if op.method != "get" {
        return None;
    }
    let query: Vec<(&str, &Value)> = op
        .params
        .iter()
        .filter(|p| p.get("in") == Some(&json!("query")))
        .filter_map(|p| Some((p.get("name")?.as_str()?, *p)))
        .collect();
    let find = |names: &[&str]| query.iter().find(|(n, _)| names.contains(n)).copied();
    let (items, props) = items_field(doc, op)?;
    let token = find(&TOKENS);
    let limit = find(&LIMITS);
    let style = if let (Some((o, _)), Some(_)) = (find(&OFFSETS), limit) {
        Style::Offset { offset: o.into() }
    } else if let (Some((p, _)), Some((l, _))) = (find(&PAGES), limit) {
        if !plain(p) || !plain(l) {
            return None;
        }
        Style::Pages { page: p.into() }
    } else if let (Some((a, _)), Some(_)) = (find(&AFTERS), limit) {
        if !items_have_id(doc, op, &items) {
            return None;
        }
        report.guess(
            op.label(),
            format!("pages by `{a}` taking the last item's id (keyset on id); confirm the API reads it so"),
        );
        Style::After { after: a.into() }
    } else {
        if let Some((t, _)) = token {
            report.drop(
                op.label(),
                format!("pages with an opaque token `{t}`: kept as a parameter, not toolspec paging; the next token is in the result"),
            );
        }
        return None;
    };
    let (limit, limit_param) = limit?;
    let schema = limit_param.get("schema").and_then(|s| doc.resolve(s).ok());
    let bound = |k: &str| schema.and_then(|s| s.get(k)).and_then(Value::as_u64);
    let total = TOTALS
        .iter()
        .find(|t| props.iter().any(|p| p == *t))
        .map(|t| t.to_string());
    let more = if props.iter().any(|p| p == "has_more") {
        Some(("has_more".to_string(), true))
    } else if props.iter().any(|p| p == "hasMore") {
        Some(("hasMore".to_string(), true))
    } else if props.iter().any(|p| p == "done") {
        Some(("done".to_string(), false))
    } else {
        None
    };
    report.carried(2);
    Some(Recognised {
        style,
        limit: limit.into(),
        items,
        default_limit: bound("default"),
        max_limit: bound("maximum"),
        total,
        more,
    })
}

fn plain(name: &str) -> bool {
    name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The list in the success response: the body itself (`items`), or its array property
/// with a list's name (or its only array property). Also the body's property names.
fn items_field(doc: &Document, op: &Operation) -> Option<(String, Vec<String>)> {
    let (_, response) = success(op)?;
    let schema = doc.resolve(json_media(doc.resolve(response).ok()?)?).ok()?;
    if schema.get("type") == Some(&json!("array")) {
        return Some(("items".into(), Vec::new()));
    }
    let props = schema.get("properties")?.as_object()?;
    let names: Vec<String> = props.keys().cloned().collect();
    let arrays: Vec<&String> = props
        .iter()
        .filter(|(_, p)| {
            doc.resolve(p)
                .is_ok_and(|p| p.get("type") == Some(&json!("array")))
        })
        .map(|(k, _)| k)
        .collect();
    let items = arrays
        .iter()
        .find(|a| ITEMS.contains(&a.as_str()))
        .or_else(|| {
            if arrays.len() == 1 {
                arrays.first()
            } else {
                None
            }
        })?;
    Some(((*items).clone(), names))
}

fn items_have_id(doc: &Document, op: &Operation, items: &str) -> bool {
    let item_schema = (|| {
        let (_, response) = success(op)?;
        let schema = doc.resolve(json_media(doc.resolve(response).ok()?)?).ok()?;
        let list = if items == "items" && schema.get("type") == Some(&json!("array")) {
            schema
        } else {
            doc.resolve(schema.get("properties")?.get(items)?).ok()?
        };
        doc.resolve(list.get("items")?).ok().cloned()
    })();
    // A keyset key must be in every item: a required, non-null `id`.
    item_schema.is_some_and(|s| {
        s.get("properties").and_then(|p| p.get("id")).is_some()
            && s.get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.contains(&json!("id")))
    })
}

impl Recognised {
    /// Whether the API's query parameter `name` is one paging sends (so not a parameter).
    pub fn consumes(&self, name: &str) -> bool {
        let own = match &self.style {
            Style::Offset { offset } => offset,
            Style::Pages { page } => page,
            Style::After { after } => after,
        };
        name == own || name == self.limit
    }

    /// The tool's `paging`, and the output without what paging adds itself.
    pub fn settle_output(&self, output: &mut Node, tool: &mut Node, report: &mut Report) {
        let mut paging = Node::map();
        paging.set("items", Node::str(&self.items));
        if let Some(d) = self.default_limit {
            paging.set("default_limit", Node::Scalar(json!(d)));
        }
        let max = match (self.max_limit, self.default_limit) {
            (Some(m), _) => Some(m),
            // No documented maximum, and a default above toolspec's own maximum: the
            // default is the largest page the document promises to serve.
            (None, Some(d)) if d > u64::from(crate::model::Defaults::BUILT_IN.max_limit) => {
                report.guess("paging", format!("max_limit {d}: the documented default page size, as no maximum is documented"));
                Some(d)
            }
            _ => None,
        };
        if let Some(m) = max {
            paging.set("max_limit", Node::Scalar(json!(m)));
        }
        paging.set("total", Node::Scalar(Value::Bool(self.total.is_some())));
        match &self.style {
            Style::Offset { .. } => {}
            Style::Pages { page } => {
                paging.set("style", Node::str("pages"));
                paging.set("page_param", Node::str(page));
                paging.set("size_param", Node::str(&self.limit));
            }
            Style::After { .. } => {
                paging.set("keyset", Node::Seq(vec![Node::str("id")]));
            }
        }
        // The generated layer adds `total` and the next page's cursor or number.
        for implied in ["total", "next_cursor", "next_page"] {
            if output.remove(implied).is_some() {
                report.drop(
                    format!("response {implied}"),
                    "a paging field the generated layer adds itself: filled from the API's",
                );
            }
        }
        tool.set("paging", paging);
    }

    /// The `http.paging` map: where the window goes, and where the API says the total or
    /// whether more follow.
    pub fn wire(&self) -> Node {
        let mut n = Node::map();
        match &self.style {
            Style::Offset { offset } => {
                n.set("offset", Node::str(offset));
            }
            Style::Pages { page } => {
                n.set("page", Node::str(page));
            }
            Style::After { after } => {
                n.set("after", Node::str(after));
            }
        }
        let size_key = if matches!(self.style, Style::Pages { .. }) {
            "size"
        } else {
            "limit"
        };
        n.set(size_key, Node::str(&self.limit));
        if let Some(t) = &self.total {
            n.set("total", Node::str(t));
        }
        if let Some((key, more)) = &self.more {
            n.set(if *more { "has_more" } else { "done" }, Node::str(key));
        }
        n
    }
}
