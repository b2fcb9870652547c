//! OpenAPI schemas into spec fields: `$ref`s to component objects become named types,
//! `allOf` is merged, 3.0 `nullable` and 3.1 type lists become `nullable`, `oneOf`/`anyOf`
//! become unions where the spec's unions can tell the variants apart, and every constraint
//! the format holds is carried as written. What it cannot hold is reported, never silently
//! changed.

use super::document::Document;
use super::examples;
use crate::import::report::Report;
use crate::import::yaml::Node;
use heck::ToUpperCamelCase;
use indexmap::IndexMap;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};

/// Schemas nested deeper than this are carried as any JSON: no real API needs more, and a
/// generated Rust type that deep helps no one.
const MAX_DEPTH: usize = 10;

/// The spec's string formats, by their OpenAPI names.
const FORMATS: [(&str, &str); 6] = [
    ("date-time", "date-time"),
    ("date", "date"),
    ("email", "email"),
    ("uri", "uri"),
    ("url", "uri"),
    ("uuid", "uuid"),
];

/// Formats that say no more than the type does, or that only a byte count would check:
/// not worth a note each.
const SILENT_FORMATS: [&str; 5] = ["int32", "int64", "float", "double", "string"];

/// Converts schemas, collecting the named types they use.
pub struct Schemas<'d> {
    doc: &'d Document,
    /// Named types written so far, by name, in first-use order.
    pub types: IndexMap<String, Node>,
    /// The type name given to each component `$ref`.
    named: HashMap<String, String>,
    /// Component schemas being converted (a `$ref` back to one is a recursive type).
    in_progress: HashSet<String>,
}

/// A schema with `$ref`s, `allOf` and nullability worked out.
struct Flat {
    schema: Map<String, Value>,
    nullable: bool,
}

impl<'d> Schemas<'d> {
    /// A converter for one document.
    pub fn new(doc: &'d Document) -> Self {
        Schemas {
            doc,
            types: IndexMap::new(),
            named: HashMap::new(),
            in_progress: HashSet::new(),
        }
    }

    /// The field for `schema`, with its description (or a `TODO` and a note when the
    /// document has none) and an example for every scalar. `at` names the place for notes.
    pub fn field(&mut self, schema: &Value, at: &str, report: &mut Report) -> Node {
        self.field_at(schema, at, report, 0)
    }

    fn field_at(&mut self, schema: &Value, at: &str, report: &mut Report, depth: usize) -> Node {
        // What the schema says of itself, for a field carried as any JSON.
        let own = || {
            self.doc
                .resolve(schema)
                .ok()
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default()
        };
        if depth > MAX_DEPTH {
            report.drop(at, "nested deeper than 10 levels: carried as any JSON");
            let mut node = any_json();
            describe(&mut node, &own(), at, report);
            return node;
        }
        // A reference to a component object (or union) becomes a named type.
        if let Some(r) = schema.get("$ref").and_then(Value::as_str)
            && r.starts_with("#/components/schemas/")
            && let Some(mut node) = self.named_use(r, schema, at, report, depth)
        {
            if node.get("description").is_none()
                && node.get("type").is_some_and(|t| t.to_json() == "object")
            {
                describe(&mut node, &own(), at, report);
            }
            return node;
        }
        let flat = match self.flatten(schema, 0) {
            Ok(f) => f,
            Err(why) => {
                report.drop(at, why);
                let mut node = any_json();
                describe(&mut node, &own(), at, report);
                return node;
            }
        };
        let mut node = self.kind(&flat.schema, at, report, depth);
        if flat.nullable {
            node.set("nullable", Node::Scalar(Value::Bool(true)));
            report.carried(1);
        }
        describe(&mut node, &flat.schema, at, report);
        node
    }

    /// A use of a named type: `{type: Pet}`, the type itself converted once. `None` when
    /// the component is not an object or union (a string enum, say), which is inlined.
    fn named_use(
        &mut self,
        reference: &str,
        schema: &Value,
        at: &str,
        report: &mut Report,
        depth: usize,
    ) -> Option<Node> {
        let target = self.doc.resolve(schema).ok()?;
        let flat = self.flatten(target, 0).ok()?;
        let is_object = flat.schema.contains_key("properties");
        if !is_object {
            return None;
        }
        if self.in_progress.contains(reference) {
            report.drop(
                at,
                format!(
                    "{reference} refers back to itself: the recursive part is carried as any JSON"
                ),
            );
            return Some(any_json());
        }
        let name = match self.named.get(reference) {
            Some(n) => n.clone(),
            None => {
                let name = self.type_name(reference);
                self.named.insert(reference.to_string(), name.clone());
                self.in_progress.insert(reference.to_string());
                let mut body = self.kind(&flat.schema, reference, report, depth + 1);
                describe(&mut body, &flat.schema, reference, report);
                self.in_progress.remove(reference);
                self.types.insert(name.clone(), body);
                name
            }
        };
        let mut node = Node::map();
        node.set("type", Node::str(&name));
        // A component that may be null (3.0's `nullable` on it, or 3.1's `null` in its
        // type) makes every use of it nullable: the use says so, as the type cannot.
        if flat.nullable {
            node.set("nullable", Node::Scalar(Value::Bool(true)));
            report.carried(1);
        }
        // The type's own description speaks for it; a use adds its own only when the
        // document wrote one beside the `$ref` (3.1 allows it).
        if let Some(d) = schema.get("description").and_then(Value::as_str) {
            node.set("description", Node::str(clean(d)));
            report.carried(1);
        }
        Some(node)
    }

    fn type_name(&self, reference: &str) -> String {
        let last = reference.rsplit('/').next().unwrap_or("Type");
        let mut base = last.to_upper_camel_case();
        if !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
            base = format!("T{base}");
        }
        let taken: HashSet<&String> = self.named.values().collect();
        let mut name = base.clone();
        let mut n = 2;
        while taken.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        name
    }

    /// Resolves `$ref`s, merges `allOf`, folds `nullable`, `type: [x, "null"]` and a
    /// `null` variant of `oneOf`/`anyOf` into a flag.
    fn flatten(&self, schema: &Value, depth: usize) -> Result<Flat, String> {
        if depth > MAX_DEPTH {
            return Err("allOf nested deeper than 10 levels: carried as any JSON".into());
        }
        let resolved = self.doc.resolve(schema).map_err(|r| {
            format!("$ref {r} is outside the document or broken: carried as any JSON")
        })?;
        let Some(obj) = resolved.as_object() else {
            // `true` (any value) or `false`.
            return Ok(Flat {
                schema: Map::new(),
                nullable: false,
            });
        };
        let mut out = obj.clone();
        let mut nullable = out.remove("nullable").and_then(|v| v.as_bool()) == Some(true);
        if let Some(Value::Array(types)) = out.get("type").cloned() {
            let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            nullable |= non_null.len() < types.len();
            match non_null.as_slice() {
                [one] => {
                    out.insert("type".into(), one.clone());
                }
                [] => {
                    out.remove("type");
                }
                _ => {
                    out.remove("type");
                    // Several JSON types: the union of them, as anyOf would say it.
                    let variants = non_null.iter().map(|t| json!({ "type": t })).collect();
                    out.insert("anyOf".into(), Value::Array(variants));
                }
            }
        }
        if out.get("type") == Some(&json!("null")) {
            out.remove("type");
            nullable = true;
        }
        if let Some(Value::Array(parts)) = out.remove("allOf") {
            for part in &parts {
                let part = self.flatten(part, depth + 1)?;
                nullable |= part.nullable && parts.len() == 1;
                merge(&mut out, part.schema);
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(variants)) = out.get(key).cloned() {
                let (nulls, rest): (Vec<&Value>, Vec<&Value>) = variants
                    .iter()
                    .partition(|v| self.doc.resolve(v).is_ok_and(is_null_schema));
                if !nulls.is_empty() {
                    nullable = true;
                }
                if let [only] = rest.as_slice() {
                    out.remove(key);
                    let inner = self.flatten(only, depth + 1)?;
                    nullable |= inner.nullable;
                    merge(&mut out, inner.schema);
                } else {
                    out.insert(
                        key.into(),
                        Value::Array(rest.into_iter().cloned().collect()),
                    );
                }
            }
        }
        Ok(Flat {
            schema: out,
            nullable,
        })
    }

    /// The type and constraints of a flattened schema.
    fn kind(
        &mut self,
        s: &Map<String, Value>,
        at: &str,
        report: &mut Report,
        depth: usize,
    ) -> Node {
        if let Some(variants) = s.get("oneOf").or_else(|| s.get("anyOf")) {
            return self.union(s, variants, at, report, depth);
        }
        let ty = s.get("type").and_then(Value::as_str).unwrap_or_else(|| {
            if s.contains_key("properties") || s.contains_key("additionalProperties") {
                "object"
            } else if s.contains_key("items") {
                "array"
            } else if s
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.iter().all(Value::is_string))
            {
                "string"
            } else {
                ""
            }
        });
        let mut node = Node::map();
        match ty {
            "string" => {
                node.set("type", Node::str("string"));
                self.string(&mut node, s, at, report);
            }
            "integer" | "number" => {
                node.set("type", Node::str(ty));
                numeric(&mut node, s, ty == "integer", at, report);
            }
            "boolean" => {
                node.set("type", Node::str("boolean"));
            }
            "array" => {
                node.set("type", Node::str("array"));
                let items = match s.get("items") {
                    Some(items) => {
                        let place = format!("{at}[]");
                        let mut items = self.field_at(items, &place, report, depth + 1);
                        // The array's description speaks for its items: no TODO for them.
                        if is_todo(&items) {
                            items.remove("description");
                            if report.missing.last().is_some_and(|m| m.at == place) {
                                report.missing.pop();
                            }
                        }
                        items
                    }
                    None => {
                        report.drop(
                            at,
                            "an array without `items`: its items are carried as any JSON",
                        );
                        any_json()
                    }
                };
                node.set("items", items);
                count(&mut node, s, "minItems", "min_items", report);
                count(&mut node, s, "maxItems", "max_items", report);
                if s.get("uniqueItems") == Some(&Value::Bool(true)) {
                    report.drop(
                        at,
                        "uniqueItems: the spec has no unique-items constraint yet",
                    );
                }
            }
            "object" => self.object(&mut node, s, at, report, depth),
            _ => {
                // No type: any JSON value.
                node = any_json();
            }
        }
        carry_default(&mut node, s, at, report);
        if is_scalar(&node) {
            let example = examples::choose(s, &node, at, report);
            node.set("example", Node::Scalar(example));
        }
        node
    }

    fn string(&mut self, node: &mut Node, s: &Map<String, Value>, at: &str, report: &mut Report) {
        if let Some(values) = s.get("enum").and_then(Value::as_array) {
            let strings: Vec<Node> = values
                .iter()
                .filter_map(Value::as_str)
                .map(Node::str)
                .collect();
            if strings.len() < values.iter().filter(|v| !v.is_null()).count() {
                report.drop(at, "enum values that are not strings on a string");
            }
            if !strings.is_empty() {
                node.set("enum", Node::Seq(strings));
                report.carried(1);
            }
        }
        count(node, s, "minLength", "min_length", report);
        count(node, s, "maxLength", "max_length", report);
        if let Some(p) = s.get("pattern").and_then(Value::as_str) {
            // The spec checks patterns with Rust's regex; an ECMA pattern it cannot read
            // (lookaround, backreferences) is reported rather than carried broken.
            if regex::Regex::new(p).is_ok() {
                node.set("pattern", Node::str(p));
                report.carried(1);
            } else {
                report.drop(at, format!("pattern {p:?} uses regex features Rust's regex lacks (lookaround, backreferences)"));
            }
        }
        if let Some(f) = s.get("format").and_then(Value::as_str) {
            match FORMATS.iter().find(|(open, _)| *open == f) {
                Some((_, ours)) => {
                    node.set("format", Node::str(*ours));
                    report.carried(1);
                }
                None if SILENT_FORMATS.contains(&f) => {}
                None => report.drop(
                    at,
                    format!("format `{f}` has no equivalent in the spec format"),
                ),
            }
        }
    }

    fn object(
        &mut self,
        node: &mut Node,
        s: &Map<String, Value>,
        at: &str,
        report: &mut Report,
        depth: usize,
    ) {
        node.set("type", Node::str("object"));
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let props = s.get("properties").and_then(Value::as_object);
        let extra = s.get("additionalProperties");
        match props {
            Some(props) if !props.is_empty() => {
                let mut fields = Node::map();
                for (name, prop) in props {
                    if !field_name_ok(name) {
                        report.drop(format!("{at}.{name}"), "not a usable field name (a `.`, `/`, backtick or control character): left out");
                        continue;
                    }
                    let place = format!("{at}.{name}");
                    let mut field = self.field_at(prop, &place, report, depth + 1);
                    if !required.contains(&name.as_str()) {
                        field.set("required", Node::Scalar(Value::Bool(false)));
                    }
                    fields.set(name, field);
                    report.carried(1);
                }
                node.set("fields", fields);
                if matches!(extra, Some(Value::Object(_))) {
                    report.drop(
                        at,
                        "additionalProperties beside properties: the extra keys are not carried",
                    );
                }
            }
            _ => match extra {
                Some(values @ Value::Object(_))
                    if !values.as_object().is_some_and(Map::is_empty) =>
                {
                    node.set("type", Node::str("map"));
                    let values = self.field_at(values, &format!("{at}{{}}"), report, depth + 1);
                    node.set("values", values);
                }
                // Properties unknown: any JSON object, which `type: object` without
                // `fields` means.
                _ => {}
            },
        }
    }

    /// `oneOf`/`anyOf` of two or more non-null variants.
    fn union(
        &mut self,
        s: &Map<String, Value>,
        variants: &Value,
        at: &str,
        report: &mut Report,
        depth: usize,
    ) -> Node {
        let variants: Vec<&Value> = variants
            .as_array()
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        let flats: Vec<Flat> = variants
            .iter()
            .filter_map(|v| self.flatten(v, 0).ok())
            .collect();
        // Variants that are all strings (enums of strings, or a string and a string enum):
        // one string, their enums joined when every variant has one.
        if flats.iter().all(|f| json_type(&f.schema) == Some("string")) {
            let mut merged = Map::new();
            merged.insert("type".into(), json!("string"));
            let enums: Option<Vec<Value>> = flats
                .iter()
                .map(|f| f.schema.get("enum").and_then(Value::as_array).cloned())
                .collect::<Option<Vec<_>>>()
                .map(|e| e.into_iter().flatten().collect());
            if let Some(e) = enums {
                merged.insert("enum".into(), Value::Array(e));
            } else {
                report.drop(
                    at,
                    "a union of strings, some without an enum: carried as any string",
                );
            }
            if let Some(d) = s.get("description") {
                merged.insert("description".into(), d.clone());
            }
            return self.kind(&merged, at, report, depth);
        }
        if let Some(node) = self.tagged_union(s, &variants, &flats, at, report, depth) {
            return node;
        }
        if let Some(node) = self.untagged_union(&variants, &flats, at, report, depth) {
            return node;
        }
        report.drop(
            at,
            format!("a oneOf/anyOf of {} variants that no tag or JSON type tells apart: carried as any JSON", variants.len()),
        );
        any_json()
    }

    /// Objects told apart by a property holding one constant each (the discriminator's,
    /// or one found in every variant).
    fn tagged_union(
        &mut self,
        s: &Map<String, Value>,
        variants: &[&Value],
        flats: &[Flat],
        at: &str,
        report: &mut Report,
        depth: usize,
    ) -> Option<Node> {
        if flats.len() != variants.len()
            || flats.iter().any(|f| !f.schema.contains_key("properties"))
        {
            return None;
        }
        let candidates: Vec<String> = match s
            .get("discriminator")
            .and_then(|d| d.get("propertyName"))
            .and_then(Value::as_str)
        {
            Some(p) => vec![p.to_string()],
            None => flats[0]
                .schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default(),
        };
        let tag = candidates
            .into_iter()
            .find(|c| field_name_ok(c) && flats.iter().all(|f| self.constant(f, c).is_some()))?;
        let values: Vec<String> = flats
            .iter()
            .filter_map(|f| self.constant(f, &tag))
            .collect();
        let unique: HashSet<&String> = values.iter().collect();
        if unique.len() != values.len() || values.iter().any(|v| !field_name_ok(v)) {
            return None;
        }
        let mut out = Node::map();
        out.set("type", Node::str("union"));
        out.set("tag", Node::str(&tag));
        let mut vs = Node::map();
        for (flat, value) in flats.iter().zip(&values) {
            let mut without_tag = flat.schema.clone();
            if let Some(Value::Object(props)) = without_tag.get_mut("properties") {
                props.remove(&tag);
            }
            if let Some(Value::Array(req)) = without_tag.get_mut("required") {
                req.retain(|r| r != &Value::String(tag.clone()));
            }
            let place = format!("{at}({value})");
            let mut v = Node::map();
            self.object(&mut v, &without_tag, &place, report, depth + 1);
            if v.get("fields").is_none() {
                // A variant that is nothing but its tag: an object with no other field.
                v.set("fields", Node::map());
            }
            describe(&mut v, &without_tag, &place, report);
            vs.set(value, v);
        }
        out.set("variants", vs);
        report.carried(1);
        Some(out)
    }

    /// The one value a variant's property can hold: a `const` or a one-value `enum`.
    fn constant(&self, flat: &Flat, prop: &str) -> Option<String> {
        let p = flat.schema.get("properties")?.get(prop)?;
        let p = self.doc.resolve(p).ok()?;
        if let Some(c) = p.get("const").and_then(Value::as_str) {
            return Some(c.to_string());
        }
        match p.get("enum").and_then(Value::as_array).map(Vec::as_slice) {
            Some([Value::String(one)]) => Some(one.clone()),
            _ => None,
        }
    }

    /// Variants of different JSON types: a union told apart by type.
    fn untagged_union(
        &mut self,
        variants: &[&Value],
        flats: &[Flat],
        at: &str,
        report: &mut Report,
        depth: usize,
    ) -> Option<Node> {
        if flats.len() != variants.len() {
            return None;
        }
        let types: Vec<&str> = flats
            .iter()
            .map(|f| json_type(&f.schema))
            .collect::<Option<_>>()?;
        let families: HashSet<&str> = types
            .iter()
            .map(|t| if *t == "integer" { "number" } else { t })
            .collect();
        if families.len() != types.len() {
            return None;
        }
        let mut out = Node::map();
        out.set("type", Node::str("union"));
        let mut vs = Node::map();
        for ((variant, ty), _) in variants.iter().zip(&types).zip(flats) {
            let name = match *ty {
                "string" => "text",
                "array" => "list",
                other => other,
            };
            let node = self.field_at(variant, &format!("{at}({name})"), report, depth + 1);
            vs.set(name, node);
        }
        out.set("variants", vs);
        report.carried(1);
        Some(out)
    }
}

/// A field name the spec accepts for a JSON key (see `invalid-name`).
pub fn field_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name != "*"
        && name.trim() == name
        && !name
            .chars()
            .any(|c| c.is_control() || matches!(c, '.' | '/' | '`'))
}

fn json_type(s: &Map<String, Value>) -> Option<&'static str> {
    match s.get("type").and_then(Value::as_str) {
        Some("string") => Some("string"),
        Some("integer") => Some("integer"),
        Some("number") => Some("number"),
        Some("boolean") => Some("boolean"),
        Some("array") => Some("array"),
        Some("object") => Some("object"),
        None if s.contains_key("properties") => Some("object"),
        _ => None,
    }
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type") == Some(&json!("null")) || v.get("enum") == Some(&json!([null]))
}

/// Merges one `allOf` part into the schema: properties and required lists join, other
/// keys keep the first value written.
fn merge(into: &mut Map<String, Value>, part: Map<String, Value>) {
    for (k, v) in part {
        match (k.as_str(), into.get_mut(&k), v) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (pk, pv) in theirs {
                    mine.entry(pk).or_insert(pv);
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for r in theirs {
                    if !mine.contains(&r) {
                        mine.push(r);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// Any JSON value: `type: object` without `fields`.
fn any_json() -> Node {
    let mut n = Node::map();
    n.set("type", Node::str("object"));
    n
}

fn is_scalar(node: &Node) -> bool {
    matches!(
        node.get("type")
            .map(Node::to_json)
            .as_ref()
            .and_then(Value::as_str),
        Some("string" | "integer" | "number" | "boolean")
    )
}

/// Sets the description from the schema's `description` or `title`, or a `TODO` the
/// person must replace (and `lint` flags) with a note.
pub fn describe(node: &mut Node, s: &Map<String, Value>, at: &str, report: &mut Report) {
    let text = s
        .get("description")
        .or_else(|| s.get("title"))
        .and_then(Value::as_str)
        .map(clean)
        .filter(|t| !t.is_empty());
    match text {
        Some(t) => {
            set_description(node, t);
            report.carried(1);
        }
        None => {
            set_description(node, todo_description(at));
            report.missing(at, "no description");
        }
    }
}

/// Whether the field's description is a placeholder.
pub fn is_todo(node: &Node) -> bool {
    node.get("description")
        .map(Node::to_json)
        .and_then(|d| d.as_str().map(|s| s.starts_with("TODO")))
        .unwrap_or(false)
}

/// The placeholder for a description the document does not give.
pub fn todo_description(at: &str) -> String {
    let what = at.rsplit(['.', ' ', '/']).next().unwrap_or(at);
    format!("TODO: say what `{what}` is; the API's document does not.")
}

/// Puts `description` right after `type`, where people look for it.
pub fn set_description(node: &mut Node, text: String) {
    if let Node::Map(entries) = node {
        entries.retain(|e| e.key != "description");
        let at = entries
            .iter()
            .position(|e| e.key == "type")
            .map_or(0, |i| i + 1);
        entries.insert(
            at,
            crate::import::yaml::Entry {
                key: "description".into(),
                value: Node::str(text),
                comments: Vec::new(),
            },
        );
    }
}

/// A description on one line, as the spec's descriptions are: markdown line breaks and
/// indentation become single spaces.
pub fn clean(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn count(node: &mut Node, s: &Map<String, Value>, from: &str, to: &str, report: &mut Report) {
    if let Some(n) = s.get(from).and_then(Value::as_u64) {
        node.set(to, Node::Scalar(json!(n)));
        report.carried(1);
    }
}

fn numeric(node: &mut Node, s: &Map<String, Value>, integer: bool, at: &str, report: &mut Report) {
    let bound = |key: &str| s.get(key).and_then(Value::as_f64);
    // 3.0: `exclusiveMinimum: true` beside `minimum`; 3.1: `exclusiveMinimum: 5` alone.
    let exclusive = |flag: &str, bound_key: &str| match s.get(flag) {
        Some(Value::Bool(true)) => s.get(bound_key).and_then(Value::as_f64),
        Some(v) => v.as_f64(),
        None => None,
    };
    let mut bounds: Vec<(&str, f64)> = Vec::new();
    match (exclusive("exclusiveMinimum", "minimum"), bound("minimum")) {
        // On an integer, `> 0` is exactly `>= 1`.
        (Some(x), _) if integer && x.fract() == 0.0 => bounds.push(("minimum", x + 1.0)),
        (Some(x), _) => {
            bounds.push(("minimum", x));
            report.drop(at, format!("exclusiveMinimum {x}: carried as minimum {x}; the spec has no exclusive bound on numbers"));
        }
        (None, Some(m)) => bounds.push(("minimum", m)),
        (None, None) => {}
    }
    match (exclusive("exclusiveMaximum", "maximum"), bound("maximum")) {
        (Some(x), _) if integer && x.fract() == 0.0 => bounds.push(("maximum", x - 1.0)),
        (Some(x), _) => {
            bounds.push(("maximum", x));
            report.drop(at, format!("exclusiveMaximum {x}: carried as maximum {x}; the spec has no exclusive bound on numbers"));
        }
        (None, Some(m)) => bounds.push(("maximum", m)),
        (None, None) => {}
    }
    for (key, v) in bounds {
        // A bound past 2^53 (int64's own limits, mostly) cannot be held exactly by the
        // spec's numbers: it is the type's range, which says nothing more.
        if v.abs() >= 9.0e15 {
            report.drop(
                at,
                format!("{key} {v}: beyond 2^53, which the spec's bounds cannot hold exactly"),
            );
            continue;
        }
        let value = if integer && v.fract() == 0.0 {
            json!(v as i64)
        } else {
            json!(v)
        };
        node.set(key, Node::Scalar(value));
        report.carried(1);
    }
    if s.contains_key("multipleOf") {
        report.drop(at, "multipleOf: the spec has no multiple-of constraint yet");
    }
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        let whole: Vec<Node> = values
            .iter()
            .filter(|v| v.is_i64())
            .cloned()
            .map(Node::Scalar)
            .collect();
        if !integer {
            report.drop(
                at,
                "an enum of numbers that are not whole: the spec's enums are strings or integers",
            );
        } else if !whole.is_empty() {
            node.set("enum", Node::Seq(whole));
            report.carried(1);
        }
    }
}

fn carry_default(node: &mut Node, s: &Map<String, Value>, at: &str, report: &mut Report) {
    let Some(d) = s.get("default").filter(|d| !d.is_null()) else {
        return;
    };
    let fits = if is_scalar(node) {
        examples::fits(d, node)
    } else if let (Some(items), Some(values)) = (node.get("items"), d.as_array()) {
        // A list of scalars: each must be a value of the items.
        let n = values.len() as u64;
        let count = |k: &str| node.get(k).and_then(|v| v.to_json().as_u64());
        is_scalar(items)
            && values.iter().all(|v| examples::fits(v, items))
            && count("min_items").is_none_or(|m| n >= m)
            && count("max_items").is_none_or(|m| n <= m)
    } else {
        false
    };
    if fits {
        node.set("default", Node::Scalar(d.clone()));
        report.carried(1);
    } else {
        report.drop(
            at,
            format!("default {d}: not a value the field takes, or on a structured field"),
        );
    }
}
