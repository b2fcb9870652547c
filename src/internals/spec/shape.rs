//! The shape check: every key, type and value of a spec against the format's JSON Schema.
//!
//! The schema is the one derived from [`crate::spec::format`] (the same that `toolspec
//! schema` prints), so what this accepts is exactly what the typed loader can read. Walking
//! the whole tree, rather than stopping at serde's first error, lets one run report every
//! misspelled key, wrong type and missing key with its position and a fix.

use crate::diagnostics::{Diagnostic, Diagnostics, FileId, Span, did_you_mean, synonym_of};
use crate::spec::node::{Node, PNode};
use serde_json::{Map, Value};

/// Checks a parsed document against the format schema, reporting into `out`.
pub fn check(doc: &PNode, schema: &Value, file: FileId, out: &mut Diagnostics) {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let checker = Checker { defs, file };
    checker.check(doc, schema, "", out);
}

struct Checker<'a> {
    defs: Option<&'a Map<String, Value>>,
    file: FileId,
}

impl<'a> Checker<'a> {
    /// Follows `$ref`s and `Option<T>`'s `anyOf [T, null]` to the schema that describes a value.
    fn resolve(&self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..16 {
            if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
                let name = r.rsplit('/').next().unwrap_or(r);
                match self.defs.and_then(|d| d.get(name)) {
                    Some(s) => schema = s,
                    None => return schema,
                }
            } else if let Some(alts) = schema.get("anyOf").and_then(Value::as_array) {
                let non_null: Vec<_> = alts
                    .iter()
                    .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                    .collect();
                if non_null.len() == 1 {
                    schema = non_null[0];
                } else {
                    return schema;
                }
            } else {
                return schema;
            }
        }
        schema
    }

    fn span(&self, node: &PNode) -> Span {
        Span {
            file: self.file,
            pos: node.pos,
        }
    }

    fn check(&self, node: &PNode, schema: &'a Value, path: &str, out: &mut Diagnostics) {
        let schema = self.resolve(schema);
        if schema.as_bool() == Some(true) || schema.as_object().is_some_and(|o| o.is_empty()) {
            return;
        }
        if let Some(values) = allowed_values(schema) {
            self.check_enum(node, &values, path, out);
            return;
        }
        let types = schema_types(schema);
        if types.is_empty() {
            return;
        }
        if matches!(node.node, Node::Null) && types.contains(&"null") {
            return;
        }
        let fits = types.iter().any(|t| matches_type(&node.node, t));
        if !fits {
            let expected = types
                .iter()
                .filter(|t| **t != "null")
                .map(|t| type_words(t))
                .collect::<Vec<_>>()
                .join(" or ");
            let mut d = Diagnostic::error(
                "wrong-type",
                self.span(node),
                format!(
                    "`{}` must be {expected}, found {}",
                    display_path(path),
                    node.node.kind()
                ),
            )
            .label(format!("expected {expected}"));
            // JSON Schema's way to say "or null": a list of type names.
            let type_list = path.ends_with(".type")
                && matches!(&node.node, Node::Seq(items)
                    if items.iter().any(|i| matches!(&i.node, Node::Str(s) if s == "null")));
            d = if type_list {
                d.help(
                    "write one type (`type: string`) and `required: false`: an optional value may \
                     be left out or sent as null, which means the same",
                )
            } else {
                d.help(type_help(&node.node, &types, schema))
            };
            out.push(d);
            return;
        }
        match &node.node {
            Node::Map(entries) => self.check_map(node, entries, schema, path, out),
            Node::Seq(items) => {
                if let Some(item_schema) = schema.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        self.check(item, item_schema, &format!("{path}[{i}]"), out);
                    }
                }
            }
            Node::Int(i) if types.contains(&"integer") => {
                // The typed loader reads these into u32/u64: a larger number must be refused
                // here, with its position, rather than by the typed loader.
                // Any other whole number is read into an i64.
                let max = match schema.get("format").and_then(Value::as_str) {
                    Some("uint32") => Some(i128::from(u32::MAX)),
                    Some("uint64") => Some(i128::from(u64::MAX)),
                    _ => Some(i128::from(i64::MAX)),
                };
                if *i < i128::from(i64::MIN) {
                    out.push(
                        Diagnostic::error(
                            "invalid-value",
                            self.span(node),
                            format!(
                                "`{}` must be at least {}, found {i}",
                                display_path(path),
                                i64::MIN
                            ),
                        )
                        .label("too small")
                        .help(format!("use a number of at least {}", i64::MIN)),
                    );
                }
                if let Some(max) = max
                    && *i > max
                {
                    out.push(
                        Diagnostic::error(
                            "invalid-value",
                            self.span(node),
                            format!("`{}` must be at most {max}, found {i}", display_path(path)),
                        )
                        .label("too large")
                        .help(format!("use a number of at most {max}")),
                    );
                }
                if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                    && (*i as f64) < min
                {
                    out.push(
                        Diagnostic::error(
                            "invalid-value",
                            self.span(node),
                            format!("`{}` must be at least {min}, found {i}", display_path(path)),
                        )
                        .label("too small")
                        .help(format!("use a number of at least {min}")),
                    );
                }
            }
            _ => {}
        }
    }

    fn check_map(
        &self,
        node: &PNode,
        entries: &[(String, crate::spec::spanned::Pos, PNode)],
        schema: &'a Value,
        path: &str,
        out: &mut Diagnostics,
    ) {
        let props = schema.get("properties").and_then(Value::as_object);
        let extra = schema.get("additionalProperties");
        // In a map of named fields (`params`, `output`, `fields`), the keys of one field
        // (`type`, `description`) written at the level of the names are an indentation slip.
        let value_keys = extra
            .filter(|v| v.is_object())
            .map(|v| self.resolve(v))
            .and_then(|v| v.get("properties"))
            .and_then(Value::as_object);
        let misplaced = |key: &str, value: &PNode| {
            value_keys.is_some_and(|k| k.contains_key(key)) && !matches!(value.node, Node::Map(_))
        };
        let mut suggested: Vec<&str> = Vec::new();
        for (i, (key, key_pos, value)) in entries.iter().enumerate() {
            let child_path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            if value_keys.is_some() {
                let below: Vec<&str> = entries[i + 1..]
                    .iter()
                    .take_while(|(k, _, v)| misplaced(k, v))
                    .map(|(k, _, _)| k.as_str())
                    .collect();
                if matches!(value.node, Node::Null) && !below.is_empty() {
                    out.push(
                        Diagnostic::error(
                            "wrong-type",
                            self.span(value),
                            format!("`{child_path}` has no keys of its own"),
                        )
                        .label("the keys below are not indented under it")
                        .help(format!(
                            "indent {} two more spaces, so they belong to `{key}`",
                            below
                                .iter()
                                .map(|k| format!("`{k}:`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                    );
                    continue;
                }
                if misplaced(key, value) {
                    let owner = entries[..i]
                        .iter()
                        .rev()
                        .find(|(k, _, v)| !misplaced(k, v))
                        .map(|(k, _, _)| k.as_str());
                    let help = match owner {
                        Some(owner) => format!(
                            "indent `{key}:` under `{owner}`, two spaces deeper than `{owner}:`"
                        ),
                        None => format!("indent `{key}:` under the name of the field it describes"),
                    };
                    out.push(
                        Diagnostic::error(
                            "misplaced-key",
                            Span {
                                file: self.file,
                                pos: *key_pos,
                            },
                            format!(
                                "`{key}` is a key of a field, but sits among the names in {}",
                                describe_place(path)
                            ),
                        )
                        .label("indented too little")
                        .help(help),
                    );
                    continue;
                }
            }
            match props.and_then(|p| p.get(key)) {
                Some(prop) => self.check(value, prop, &child_path, out),
                None => match extra {
                    Some(Value::Bool(false)) => {
                        let known: Vec<&str> = props
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        let span = Span {
                            file: self.file,
                            pos: *key_pos,
                        };
                        let mut d = Diagnostic::error(
                            "unknown-key",
                            span,
                            format!("unknown key `{key}` in {}", describe_place(path)),
                        )
                        .label("not a key of the format");
                        let suggestion = synonym_of(key, known.iter().copied())
                            .or_else(|| did_you_mean(key, known.iter().copied()));
                        d = match suggestion {
                            Some(s) => {
                                suggested.push(s);
                                d.help(format!("did you mean `{s}`?"))
                            }
                            // A key without a value in `{ ... }` is most often the rest of the
                            // value before it, cut off by a comma.
                            None if matches!(value.node, Node::Null) => d.help(format!(
                                "if `{key}` is the end of the value before it, quote that \
                                 value: in `{{ ... }}` a comma ends a value. Allowed keys \
                                 here: {}",
                                known.join(", ")
                            )),
                            None => d.help(format!("allowed keys here: {}", known.join(", "))),
                        };
                        out.push(d);
                    }
                    Some(values) if values.is_object() => {
                        self.check(value, values, &child_path, out)
                    }
                    _ => {}
                },
            }
        }
        if let Some(required) = schema.get("required").and_then(Value::as_array) {
            for name in required.iter().filter_map(Value::as_str) {
                // A misspelled key already reported with "did you mean `name`" says it all.
                if !entries.iter().any(|(k, _, _)| k == name) && !suggested.contains(&name) {
                    let prop = props.and_then(|p| p.get(name));
                    let mut what = prop
                        .and_then(|p| p.get("description"))
                        .or_else(|| {
                            prop.map(|p| self.resolve(p))
                                .and_then(|p| p.get("description"))
                        })
                        .and_then(Value::as_str)
                        .map(first_sentence)
                        .unwrap_or_default();
                    if let Some(values) = prop.map(|p| self.resolve(p)).and_then(allowed_values)
                        && !values.iter().all(|v| what.contains(v.as_str()))
                    {
                        what = format!("{what} One of: {}.", values.join(", "));
                    }
                    out.push(
                        Diagnostic::error(
                            "missing-key",
                            self.span(node),
                            format!("{} is missing required key `{name}`", describe_place(path)),
                        )
                        .label(format!("`{name}` missing here"))
                        .help(format!("add `{name}:` here. {what}").trim_end().to_string()),
                    );
                }
            }
        }
    }

    fn check_enum(&self, node: &PNode, values: &[String], path: &str, out: &mut Diagnostics) {
        let found = match &node.node {
            Node::Str(s) => s.clone(),
            Node::Int(i) => i.to_string(),
            Node::Float(f) => f.to_string(),
            Node::Bool(b) => b.to_string(),
            other => other.kind().to_string(),
        };
        if values.contains(&found) {
            return;
        }
        let mut d = Diagnostic::error(
            "invalid-value",
            self.span(node),
            format!(
                "`{}` must be one of {}, found `{found}`",
                display_path(path),
                values.join(", ")
            ),
        )
        .label("not an allowed value");
        d = match did_you_mean(&found, values.iter().map(String::as_str)) {
            Some(s) => d.help(format!("did you mean `{s}`?")),
            None => d.help(format!("use one of: {}", values.join(", "))),
        };
        out.push(d);
    }
}

/// The allowed values of an enum schema, as schemars writes unit enums (`enum`, or `oneOf`
/// of `const`s so each value keeps its doc comment).
fn allowed_values(schema: &Value) -> Option<Vec<String>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(
            values
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
        );
    }
    let alts = schema.get("oneOf").and_then(Value::as_array)?;
    alts.iter()
        .map(|a| a.get("const").and_then(Value::as_str).map(String::from))
        .collect()
}

fn schema_types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn matches_type(node: &Node, ty: &str) -> bool {
    match ty {
        "object" => matches!(node, Node::Map(_)),
        "array" => matches!(node, Node::Seq(_)),
        "string" => matches!(node, Node::Str(_)),
        "integer" => matches!(node, Node::Int(_)),
        "number" => matches!(node, Node::Int(_) | Node::Float(_)),
        "boolean" => matches!(node, Node::Bool(_)),
        "null" => matches!(node, Node::Null),
        _ => true,
    }
}

fn type_words(ty: &str) -> &'static str {
    match ty {
        "object" => "a mapping",
        "array" => "a list",
        "string" => "a string",
        "integer" => "a whole number",
        "number" => "a number",
        "boolean" => "true or false",
        _ => "a value",
    }
}

/// A hint tailored to the common slips: a list where a mapping belongs and the reverse, a
/// quoted number, an empty value.
fn type_help(found: &Node, expected: &[&str], schema: &Value) -> String {
    let keys = || -> String {
        let props = schema.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        match props {
            Some(p) if !p.is_empty() => {
                let mut keys: Vec<&str> = required.clone();
                keys.extend(
                    p.keys()
                        .map(String::as_str)
                        .filter(|k| !required.contains(k)),
                );
                format!(" with the keys {}", keys.join(", "))
            }
            _ => String::new(),
        }
    };
    match (found, expected.first().copied().unwrap_or("")) {
        (Node::Seq(_), "object") => {
            "write `key: value` lines here instead of `- item` entries".to_string()
        }
        (Node::Map(_), "array") => {
            "write each entry on its own line starting with `- `".to_string()
        }
        (Node::Null, _) => "give it a value after the colon, or remove the key".to_string(),
        (_, "object") => format!("write a mapping here{}", keys()),
        (Node::Str(s), "integer" | "number") if s.trim().parse::<f64>().is_ok() => {
            format!("write the number without quotes (found \"{s}\")")
        }
        (Node::Str(s), "boolean") => match s.to_lowercase().as_str() {
            "true" | "false" => "write true or false without quotes".to_string(),
            "yes" | "no" | "on" | "off" | "y" | "n" => {
                format!("write `true` or `false`; toolspec reads YAML 1.2, where `{s}` is a string")
            }
            _ => "write `true` or `false`".to_string(),
        },
        // An enum's values: strings, or whole numbers.
        (Node::Int(_) | Node::Float(_) | Node::Bool(_), "string")
            if expected.contains(&"integer") =>
        {
            "write a whole number, or put the value in quotes to make it a string".to_string()
        }
        (Node::Int(_) | Node::Float(_) | Node::Bool(_), "string") => {
            "put the value in quotes to make it a string".to_string()
        }
        (_, ty) => format!("write {} here", type_words(ty)),
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "the spec" } else { path }
}

fn describe_place(path: &str) -> String {
    if path.is_empty() {
        "the spec's top level".to_string()
    } else {
        format!("`{path}`")
    }
}

fn first_sentence(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ") {
        Some(i) => flat[..=i].to_string(),
        None => flat,
    }
}
