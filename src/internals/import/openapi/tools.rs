//! One operation into one tool of the draft: its name, words, tier, parameters and where
//! each goes on the wire, output, paging, errors and scopes.

use super::document::{Document, Operation};
use super::errors::Catalog;
use super::examples;
use super::paging;
use super::prose;
use super::schema::{Schemas, clean, field_name_ok, is_todo, set_description, todo_description};
use crate::import::report::Report;
use crate::import::yaml::Node;
use crate::model::implied::{RESERVED_OUTPUTS, RESERVED_PARAMS};
use heck::ToSnakeCase;
use serde_json::{Map, Value, json};

/// Headers the forwarding server sets itself: a parameter for them would let an agent
/// break the request.
const OWN_HEADERS: [&str; 5] = [
    "accept",
    "content-type",
    "authorization",
    "content-length",
    "user-agent",
];

/// The idempotency headers APIs honour, lowercase.
const IDEMPOTENCY_HEADERS: [&str; 2] = ["idempotency-key", "x-idempotency-key"];

/// A tool made from an operation, or why none could be.
pub enum Made {
    /// The tool's node.
    Tool(Node),
    /// The operation was left out, for this reason.
    Skipped(String),
}

/// Builds the tool for `op`, named `name`.
pub fn tool(
    doc: &Document,
    op: &Operation,
    name: &str,
    schemas: &mut Schemas,
    catalog: &mut Catalog,
    report: &mut Report,
) -> Made {
    let at = op.label();
    let Some(method) = http_method(op.method) else {
        return Made::Skipped(format!(
            "{} has no tool form (reads are GET, writes POST, PUT, PATCH or DELETE)",
            op.method.to_ascii_uppercase()
        ));
    };
    let mut tool = Node::map();
    tool.set("name", Node::str(name));
    report.carried(1);
    words(&mut tool, op, &at, report);
    let read = op.method == "get";

    // Parameters, and where each goes.
    let mut params = Node::map();
    let mut query = Node::map();
    let mut headers = Node::map();
    let mut path = op.path.to_string();
    let mut idempotency_header = None;
    let paging = paging::recognise(doc, op, report);
    for p in &op.params {
        let Some(wire) = p.get("name").and_then(Value::as_str) else {
            continue;
        };
        let location = p.get("in").and_then(Value::as_str).unwrap_or("");
        let place = format!("{at} {location} parameter {wire}");
        if location == "header" && IDEMPOTENCY_HEADERS.contains(&wire.to_ascii_lowercase().as_str())
        {
            idempotency_header = Some(wire.to_string());
            report.carried(1);
            continue;
        }
        if paging.as_ref().is_some_and(|g| g.consumes(wire)) {
            continue;
        }
        match location {
            "cookie" => {
                report.drop(
                    &place,
                    "a cookie parameter: the forwarding server sends no cookies",
                );
                continue;
            }
            "header" if OWN_HEADERS.contains(&wire.to_ascii_lowercase().as_str()) => {
                report.drop(&place, "a header the forwarding server sets itself");
                continue;
            }
            "path" | "query" | "header" => {}
            _ => continue,
        }
        let pname = param_name(wire, &params);
        let field = parameter(p, schemas, &place, report);
        match location {
            "path" => {
                path = path.replace(&format!("{{{wire}}}"), &format!("{{{pname}}}"));
            }
            "query" => {
                query.set(&pname, Node::str(wire));
            }
            _ => {
                headers.set(&pname, Node::str(wire));
            }
        }
        params.set(pname, field);
        report.carried(1);
    }

    // The JSON body: its object's keys as parameters, or one parameter for the whole.
    let mut body = Node::map();
    let mut body_param = None;
    if let Some(rb) = op.op.get("requestBody").and_then(|b| doc.resolve(b).ok()) {
        let required = rb.get("required") == Some(&Value::Bool(true));
        match json_media(rb) {
            Some(schema) => {
                let flat = doc.resolve(schema).ok();
                let props = flat
                    .and_then(|s| s.get("properties"))
                    .and_then(Value::as_object);
                let all_of = flat.is_some_and(|s| s.get("allOf").is_some());
                if props.is_some() && !all_of {
                    let s = flat.unwrap_or(&Value::Null);
                    let req: Vec<&str> = s
                        .get("required")
                        .and_then(Value::as_array)
                        .map(|r| r.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    for (key, prop) in props.into_iter().flatten() {
                        if prop.get("readOnly") == Some(&Value::Bool(true)) {
                            // The API fills it; a caller sending it would be ignored at best.
                            continue;
                        }
                        let place = format!("{at} body {key}");
                        let pname = param_name(key, &params);
                        let mut field = schemas.field(prop, &place, report);
                        if !(required && req.contains(&key.as_str())) {
                            field.set("required", Node::Scalar(Value::Bool(false)));
                        }
                        body.set(&pname, Node::str(key));
                        params.set(pname, field);
                        report.carried(1);
                    }
                } else {
                    let place = format!("{at} body");
                    let pname = param_name("body", &params);
                    let mut field = schemas.field(schema, &place, report);
                    if let Some(d) = rb.get("description").and_then(Value::as_str) {
                        set_description(&mut field, clean(d));
                    }
                    if !required {
                        field.set("required", Node::Scalar(Value::Bool(false)));
                    }
                    params.set(&pname, field);
                    body_param = Some(pname);
                    report.carried(1);
                }
            }
            // A body only in another format (a file upload, a form): the call is that
            // body, which a tool's JSON arguments cannot carry. Optional or not, a tool
            // without it would do something else than the operation does.
            None => {
                return Made::Skipped(format!(
                    "its request body is {}{}, not JSON: tools take JSON arguments",
                    media_types(rb).join(", "),
                    if required {
                        ""
                    } else {
                        " (optional, but what the call is for)"
                    }
                ));
            }
        }
    }

    // Tier, and what a write promises.
    if read {
        tool.set("tier", Node::str("read_only"));
    } else {
        write_terms(&mut tool, op, name, idempotency_header.is_some(), report);
    }
    // A deprecated operation is the first candidate to leave out of a toolset an agent
    // must choose from: said where the person reads the tool, and in the report.
    if op.op.get("deprecated") == Some(&Value::Bool(true)) {
        // Set again with a comment: the entry keeps its place and earlier comments.
        let tier = tool
            .get("tier")
            .cloned()
            .unwrap_or_else(|| Node::str("read_only"));
        tool.set_commented(
            "tier",
            tier,
            vec!["The document marks this operation deprecated: a candidate to leave out.".into()],
        );
        report.guess(
            &at,
            format!("{name}: deprecated in the document; a candidate to leave out"),
        );
    }
    if let Some(scopes) = scopes(doc, op, report) {
        tool.set("scopes", scopes);
    }
    if !params.is_empty_map() {
        tool.set("params", params);
    }

    // The output: the success response's fields, or one field holding it whole.
    let (mut output, response_field) = output(doc, op, schemas, &at, report);
    if let Some(g) = &paging {
        g.settle_output(&mut output, &mut tool, report);
    }
    tool.set("output", output);
    let errors = catalog.errors_of(doc, op, report);
    if !errors.is_empty() {
        tool.set(
            "errors",
            Node::Seq(errors.into_iter().map(Node::str).collect()),
        );
    }

    let mut http = Node::map();
    http.set("method", Node::str(method));
    http.set("path", Node::str(path));
    for (key, map) in [("query", query), ("headers", headers), ("body", body)] {
        if !map.is_empty_map() {
            http.set(key, map);
        }
    }
    if let Some(p) = body_param {
        http.set("body_param", Node::str(p));
    }
    if let Some(r) = response_field {
        http.set("response", Node::str(r));
    }
    if let Some(g) = &paging {
        http.set("paging", g.wire());
    }
    if let Some(h) = idempotency_header {
        http.set("idempotency_header", Node::str(h));
    }
    tool.set("http", http);
    Made::Tool(tool)
}

fn http_method(m: &str) -> Option<&'static str> {
    Some(match m {
        "get" => "GET",
        "post" => "POST",
        "put" => "PUT",
        "patch" => "PATCH",
        "delete" => "DELETE",
        _ => return None,
    })
}

/// Title, summary and returns from the operation's `summary`, `description` and success
/// response; `TODO`s where the document says nothing usable.
fn words(tool: &mut Node, op: &Operation, at: &str, report: &mut Report) {
    let summary = op
        .op
        .get("summary")
        .and_then(Value::as_str)
        .map(clean)
        .filter(|s| !s.is_empty());
    let description = op
        .op
        .get("description")
        .and_then(Value::as_str)
        .map(clean)
        .filter(|s| !s.is_empty());
    let title = summary
        .clone()
        .or_else(|| description.as_deref().map(prose::first_sentence));
    match &title {
        Some(t) => {
            tool.set("title", Node::str(prose::trim_title(t)));
            report.carried(1);
        }
        None => {
            tool.set("title", Node::str(format!("TODO: a title for {at}")));
            report.missing(at, "a title (no summary or description)");
        }
    }
    let summary_text = description.clone().or(summary);
    match summary_text {
        Some(s) => {
            tool.set(
                "summary",
                Node::str(prose::sentence(&prose::first_sentences(&s))),
            );
            report.carried(1);
        }
        None => {
            tool.set(
                "summary",
                Node::str(format!("TODO: say in a sentence what {at} does.")),
            );
        }
    }
    let returns = success(op)
        .and_then(|(_, r)| r.get("description").and_then(Value::as_str))
        .map(clean)
        .filter(|r| telling(r));
    match returns {
        Some(r) => {
            tool.set("returns", Node::str(r));
            report.carried(1);
        }
        None => {
            tool.set(
                "returns",
                Node::str("TODO: say what the call returns; the API's document does not."),
            );
            report.missing(
                at,
                "what the call returns (its success response has no telling description)",
            );
        }
    }
}

/// Whether a response description says more than "it worked".
fn telling(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let generic = [
        "ok",
        "success",
        "successful",
        "successful operation",
        "successful response",
        "response",
        "default response",
        "no content",
        "created",
        "accepted",
        "the request has succeeded.",
    ];
    text.split_whitespace().count() >= 3
        && !generic.contains(&lower.trim_end_matches('.'))
        && !lower.starts_with("successful")
}

/// The spec name of a wire name: itself when it is a plain identifier, its snake_case
/// otherwise (`page[size]` is `page_size`), made unique among `taken`.
fn param_name(wire: &str, taken: &Node) -> String {
    let plain = wire.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && wire.starts_with(|c: char| c.is_ascii_alphabetic())
        && wire.len() <= 64;
    let mut name = if plain {
        wire.to_string()
    } else {
        wire.to_snake_case()
    };
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name = format!("p_{name}");
    }
    // Names the generated layer adds itself.
    if RESERVED_PARAMS.contains(&name.as_str()) || name == "page" {
        name = format!("{name}_param");
    }
    let base = name.clone();
    let mut n = 2;
    while taken.get(&name).is_some() {
        name = format!("{base}_{n}");
        n += 1;
    }
    name.truncate(64);
    name
}

/// A parameter's field: its schema's, with the parameter's description, example and
/// `required` (path parameters always are).
fn parameter(p: &Value, schemas: &mut Schemas, at: &str, report: &mut Report) -> Node {
    let schema = p
        .get("schema")
        .cloned()
        .unwrap_or_else(|| json!({ "type": "string" }));
    let mut field = schemas.field(&schema, at, report);
    // A parameter's own description says what it means here; the schema's is generic.
    if let Some(d) = p
        .get("description")
        .and_then(Value::as_str)
        .map(clean)
        .filter(|d| !d.is_empty())
    {
        set_description(&mut field, d);
        report.carried(1);
        // The schema's own was counted as missing if it had none: it is not.
        if let Some(last) = report.missing.last()
            && last.at == at
        {
            report.missing.pop();
        }
    }
    if let Some(e) = examples::of_parameter(p, &field, at, report)
        && field.get("example").is_some()
    {
        field.set("example", Node::Scalar(e));
    }
    let required =
        p.get("in") == Some(&json!("path")) || p.get("required") == Some(&Value::Bool(true));
    if !required {
        field.set("required", Node::Scalar(Value::Bool(false)));
    }
    if p.get("deprecated") == Some(&Value::Bool(true)) {
        report.drop(
            at,
            "deprecated: carried as an ordinary parameter; consider leaving it out",
        );
    }
    field
}

/// The first JSON media type's schema of a request body or response.
pub fn json_media(body: &Value) -> Option<&Value> {
    let content = body.get("content")?.as_object()?;
    content
        .iter()
        .find(|(media, _)| is_json(media))
        .and_then(|(_, m)| m.get("schema"))
}

fn is_json(media: &str) -> bool {
    let m = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    m == "application/json" || m.ends_with("+json") || m == "*/*"
}

fn media_types(body: &Value) -> Vec<String> {
    body.get("content")
        .and_then(Value::as_object)
        .map(|c| c.keys().cloned().collect())
        .unwrap_or_default()
}

/// The success response: the lowest 2xx the operation documents (`2XX` counts).
pub fn success<'d>(op: &Operation<'d>) -> Option<(String, &'d Value)> {
    let responses = op.op.get("responses")?.as_object()?;
    let mut codes: Vec<(&String, &Value)> = responses
        .iter()
        .filter(|(code, _)| code.starts_with('2'))
        .collect();
    codes.sort_by(|a, b| a.0.cmp(b.0));
    codes.first().map(|(c, r)| ((*c).clone(), *r))
}

/// The output fields, and the field that holds the whole body when the body is not an
/// object of fields.
fn output(
    doc: &Document,
    op: &Operation,
    schemas: &mut Schemas,
    at: &str,
    report: &mut Report,
) -> (Node, Option<String>) {
    let mut output = Node::map();
    let response = success(op).and_then(|(_, r)| doc.resolve(r).ok());
    let schema = response.and_then(json_media);
    let Some(schema) = schema else {
        // No JSON body (204, or text): the call's outcome is that it succeeded.
        let mut done = Node::map();
        done.set("type", Node::str("boolean"));
        done.set(
            "description",
            Node::str("Always true: the API accepted the call. It answers with no JSON body."),
        );
        done.set("example", Node::Scalar(Value::Bool(true)));
        output.set("done", done);
        return (output, None);
    };
    let resolved = doc.resolve(schema).ok();
    let has_props = resolved
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if has_props && resolved.is_some_and(|s| s.get("oneOf").is_none() && s.get("anyOf").is_none()) {
        // The body's keys are the output's fields: the object's own fields, inlined.
        let s = resolved.unwrap_or(&Value::Null);
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let all: Map<String, Value> = merged_properties(doc, s);
        for (key, prop) in &all {
            if !field_name_ok(key) {
                report.drop(
                    format!("{at} response {key}"),
                    "not a usable field name: left out",
                );
                continue;
            }
            if RESERVED_OUTPUTS.contains(&key.as_str()) {
                report.drop(
                    format!("{at} response {key}"),
                    format!(
                        "`{key}` is a field the generated layer adds itself: the API's is left out"
                    ),
                );
                continue;
            }
            let mut field = schemas.field(prop, &format!("{at} response {key}"), report);
            if !required.contains(&key.as_str()) {
                field.set("required", Node::Scalar(Value::Bool(false)));
            }
            output.set(key, field);
            report.carried(1);
        }
        return (output, None);
    }
    // An array or a value: one field holds it.
    let is_array = resolved
        .is_some_and(|s| s.get("type") == Some(&json!("array")) || s.get("items").is_some());
    let name = if is_array { "items" } else { "result" };
    let mut field = schemas.field(schema, &format!("{at} response"), report);
    if is_todo(&field) {
        let text = response
            .and_then(|r| r.get("description"))
            .and_then(Value::as_str)
            .map(clean)
            .filter(|t| telling(t))
            .unwrap_or_else(|| todo_description(name));
        set_description(&mut field, text);
    }
    output.set(name, field);
    (output, Some(name.to_string()))
}

/// The properties of an object schema with its `allOf` parts merged in.
fn merged_properties(doc: &Document, s: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        out.extend(props.clone());
    }
    if let Some(parts) = s.get("allOf").and_then(Value::as_array) {
        for part in parts {
            if let Ok(p) = doc.resolve(part) {
                for (k, v) in merged_properties(doc, p) {
                    out.entry(k).or_insert(v);
                }
            }
        }
    }
    out
}

/// A write's tier and safeguards: irreversible with a preview, which a person confirms or
/// changes (to reversible with an undo call, or `low_risk`), and the retry promise its
/// API allows.
fn write_terms(tool: &mut Node, op: &Operation, name: &str, keyed: bool, report: &mut Report) {
    let at = op.label();
    tool.set_commented(
        "tier",
        Node::str("irreversible"),
        vec![
            "guessed by toolspec import: a write to an API the server does not own. If the API has a".into(),
            "call that reverts this one, make it `reversible` with an `undo`; if a person need not".into(),
            "approve it first, replace `preview` with `low_risk: <why>`.".into(),
        ],
    );
    report.guess(
        &at,
        format!("{name}: tier irreversible with a preview (a write); confirm or change"),
    );
    let mut preview = Node::map();
    let mut fields = Node::map();
    let mut request = Node::map();
    request.set("type", Node::str("string"));
    request.set(
        "description",
        Node::str("The request the call will send: method, path and JSON body."),
    );
    request.set("max_length", Node::Scalar(json!(2000)));
    request.set(
        "example",
        Node::str(format!("{} {}", op.method.to_ascii_uppercase(), op.path)),
    );
    fields.set("request", request);
    preview.set("fields", fields);
    tool.set("preview", preview);
    if keyed {
        tool.set_commented(
            "effect",
            Node::str("remote_keyed"),
            vec!["The API honours an idempotency key: the call's key is forwarded, so a retry cannot repeat the change.".into()],
        );
        tool.set("idempotency", Node::map());
    } else {
        tool.set_commented(
            "effect",
            Node::str("remote_unprotected"),
            vec!["The API takes no idempotency key: a retry after a lost answer may repeat the change.".into()],
        );
        let mut idem = Node::map();
        idem.set(
            "key_optional",
            Node::str("The API takes no idempotency key; a key still answers the retry of a call that finished with its first result."),
        );
        tool.set("idempotency", idem);
    }
}

/// The scopes of the operation's first security requirement (or the document's).
fn scopes(doc: &Document, op: &Operation, report: &mut Report) -> Option<Node> {
    let security = op
        .op
        .get("security")
        .or_else(|| doc.root.get("security"))?
        .as_array()?;
    let first = security.first()?.as_object()?;
    if security.len() > 1 {
        report.drop(
            op.label(),
            format!(
                "{} alternative security requirements: the first one's scopes are carried",
                security.len()
            ),
        );
    }
    let scopes: Vec<Node> = first
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(Value::as_str)
        .map(Node::str)
        .collect();
    if scopes.is_empty() {
        return None;
    }
    report.carried(scopes.len());
    Some(Node::Seq(scopes))
}
