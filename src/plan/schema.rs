//! JSON Schemas of tool inputs and outputs, built from the model.
//!
//! A tool's schema is read by the model on every call, so it has two jobs: carry every fact
//! of the spec, and cost as few tokens as possible while every real client accepts it. The
//! rules that follow from the client pitfalls (see the MCP reference) hold for every schema
//! made here:
//!
//! - JSON Schema 2020-12 without `$schema`, `$ref` or `$defs`: named types are inlined;
//! - the root is `type: "object"`; every array has `items`;
//! - an optional input is one that is absent from `required` (never `type: [T, "null"]`,
//!   which several clients reject), except in the OpenAI strict profile, which demands
//!   exactly that form;
//! - input objects are closed (`additionalProperties: false`), so a misspelt argument is
//!   refused instead of ignored (a free-form object, written without `fields`, is the one
//!   exception: it takes any keys by definition);
//! - every input property's description carries its example and, where a keyword alone is
//!   easy to miss, its rule in words (`One of: open, pending, closed.`, `1-200 characters.`).
//!
//! [`Profile`] picks between the schema most clients take (MCP, Anthropic, the per-tool
//! files) and OpenAI's strict structured-outputs subset. The facts are the same in both; only
//! where they are written differs: a keyword the strict subset does not support (`default`,
//! `minLength`, `maxLength`, `format: uri`) is dropped and its fact moves into the words.
//!
//! Output schemas describe what comes back and are not closed: a client that validates
//! results (the Python SDK does) keeps working when a later server version adds a field, and
//! the keyword would cost tokens on every object for no benefit to the model.

use crate::model::describe::{
    Counted, bound_words, count_words, enum_words, json_number, map_words, null_words,
    requirement_sentence,
};
use crate::model::values::compose_example;
use crate::model::{Content, Field, Kind, Origin, StringRules, Tool, Type};
use crate::spec::format::Format;
use serde_json::{Map, Value, json};

/// Which dialect of JSON Schema to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// What MCP `tools/list`, Anthropic's `input_schema` and the per-tool files carry:
    /// optional means absent from `required`; every keyword the spec implies is present.
    Standard,
    /// OpenAI's `strict: true` subset: every property is listed in `required`, optional ones
    /// accept `null` (which the runtime reads as "omitted"), and unsupported keywords are
    /// replaced by words in the description.
    OpenAiStrict,
}

/// Formats OpenAI strict mode accepts in `format`; others (`uri`) move into the words.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The schema of a tool's arguments: the spec's parameters, then the implied ones.
///
/// A tool without parameters gets `{"type": "object", "additionalProperties": false}` (plus
/// empty `properties` and `required`, which OpenAI strict mode expects).
pub fn input_schema(tool: &Tool, profile: Profile) -> Value {
    Value::Object(input_object(&tool.params, false, profile))
}

/// The schema of a tool's successful structured result.
///
/// Required are the fields always present: not `detailed_only` ones (concise responses drop
/// them) and, for tools with a preview, none of the spec's own fields, because a preview
/// (`applied: false`) carries only the implied `applied`, `preview` and `truncated` keys, not
/// the `undo` of a reversible tool's applied result.
/// Implied fields keep the `required` the model gives them.
pub fn output_schema(tool: &Tool) -> Value {
    let previews = tool.preview.is_some();
    // A preview carries neither the spec's fields nor the undo call of the applied change.
    let required = |f: &Field| {
        f.required
            && !f.detailed_only
            && !(previews && matches!(f.origin, Origin::Spec | Origin::Undo))
    };
    Value::Object(output_object(&tool.output, &required))
}

/// Why OpenAI strict mode cannot describe these parameters, one reason per field that
/// prevents it (empty when strict mode can): a free-form object or a map (strict mode
/// closes every object), and an optional nullable field (strict mode sends `null` for
/// every field left out, so "clear it" and "keep it" would read alike).
pub fn strict_blockers(fields: &[Field]) -> Vec<String> {
    fn ty_blocks(ty: &Type, path: &str, out: &mut Vec<String>) {
        match &ty.kind {
            Kind::Object { fields, open, .. } => {
                if *open && fields.is_empty() {
                    out.push(format!("`{path}` takes any keys"));
                }
                walk(fields, &format!("{path}."), out);
            }
            Kind::Map { values, .. } => {
                out.push(format!("`{path}` is a map, whose keys are data"));
                ty_blocks(values, path, out);
            }
            Kind::Array { items, .. } => ty_blocks(items, path, out),
            _ => {}
        }
    }
    fn walk(fields: &[Field], prefix: &str, out: &mut Vec<String>) {
        for f in fields {
            let path = format!("{prefix}{}", f.name);
            if f.nullable && !f.required {
                out.push(format!("`{path}` is cleared by null"));
            }
            ty_blocks(&f.ty, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(fields, "", &mut out);
    out
}

fn input_object(fields: &[Field], open: bool, profile: Profile) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    let strict = profile == Profile::OpenAiStrict;
    if !fields.is_empty() || (strict && !open) {
        let props: Map<String, Value> = fields
            .iter()
            .map(|f| (f.name.clone(), input_property(f, profile)))
            .collect();
        m.insert("properties".into(), Value::Object(props));
        let required: Vec<Value> = fields
            .iter()
            .filter(|f| strict || f.required)
            .map(|f| json!(f.name))
            .collect();
        if !required.is_empty() || strict {
            m.insert("required".into(), Value::Array(required));
        }
    }
    if !open || !fields.is_empty() {
        m.insert("additionalProperties".into(), json!(false));
    }
    m
}

fn output_object(fields: &[Field], required: &dyn Fn(&Field) -> bool) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    // Images, audio and text leave the structured result for their own content blocks.
    let in_structured = |f: &&Field| !matches!(f.ty.kind, Kind::Content(c) if c.moves());
    let fields: Vec<&Field> = fields.iter().filter(in_structured).collect();
    if fields.is_empty() {
        return m;
    }
    let props: Map<String, Value> = fields
        .iter()
        .map(|f| (f.name.clone(), output_property(f)))
        .collect();
    m.insert("properties".into(), Value::Object(props));
    let req: Vec<Value> = fields
        .iter()
        .filter(|f| required(f))
        .map(|f| json!(f.name))
        .collect();
    if !req.is_empty() {
        m.insert("required".into(), Value::Array(req));
    }
    m
}

/// Nested output objects: present fields are those marked required and not detailed-only.
fn nested_output_required(f: &Field) -> bool {
    f.required && !f.detailed_only
}

fn input_property(f: &Field, profile: Profile) -> Value {
    let mut body = type_body(&f.ty, Direction::Input(profile));
    if f.nullable {
        body = or_null(body, profile);
    } else if profile == Profile::OpenAiStrict && !f.required {
        // Strict mode lists every property as required; `null` stands for "left out".
        if let Some(t) = body.get_mut("type") {
            *t = json!([t.take(), "null"]);
        }
        if let Some(Value::Array(values)) = body.get_mut("enum") {
            values.push(Value::Null);
        }
    }
    let default = match profile {
        Profile::Standard => f.default.clone(),
        Profile::OpenAiStrict => None,
    };
    Value::Object(assemble(body, input_description(f, profile), default))
}

fn output_property(f: &Field) -> Value {
    let mut body = type_body(&f.ty, Direction::Output);
    if f.nullable {
        body = or_null(body, Profile::Standard);
    }
    // Keywords carry a named type's rules here; its words are for choosing inputs.
    let mut parts = vec![sentence(&f.description)];
    if f.detailed_only {
        parts.push("Detailed responses only.".into());
    }
    if f.nullable {
        parts.push(sentence(&capitalize(&null_words(f))));
    }
    Value::Object(assemble(body, join(&parts), None))
}

/// A type's keywords that also take `null`: in OpenAI strict mode the type list it
/// demands (`["string", "null"]`, with `null` among an enum's values), elsewhere `anyOf`
/// with `{"type": "null"}`, the form every client takes (several refuse type lists).
fn or_null(mut body: Map<String, Value>, profile: Profile) -> Map<String, Value> {
    // A union takes `null` as one more variant.
    if !body.contains_key("type")
        && let Some(Value::Array(variants)) = body.get_mut("anyOf")
    {
        variants.push(json!({"type": "null"}));
        return body;
    }
    if profile == Profile::OpenAiStrict {
        if let Some(t) = body.get_mut("type") {
            *t = json!([t.take(), "null"]);
        }
        if let Some(Value::Array(values)) = body.get_mut("enum") {
            values.push(Value::Null);
        }
        return body;
    }
    let value = assemble(body, String::new(), None);
    let mut m = Map::new();
    m.insert(
        "anyOf".into(),
        json!([Value::Object(value), {"type": "null"}]),
    );
    m
}

/// Keywords that hold other schemas or list their keys; they go last.
const NESTED: [&str; 6] = [
    "items",
    "propertyNames",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
];

/// A schema in reading order: `type`, `description`, the rules, `default`, then its items
/// or fields. An empty description is left out.
fn assemble(
    mut body: Map<String, Value>,
    description: String,
    default: Option<Value>,
) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(t) = body.get_mut("type") {
        m.insert("type".into(), t.take());
    }
    if !description.is_empty() {
        m.insert("description".into(), Value::String(description));
    }
    for (k, v) in body.iter_mut() {
        if k != "type" && !NESTED.contains(&k.as_str()) {
            m.insert(k.clone(), v.take());
        }
    }
    if let Some(d) = default {
        m.insert("default".into(), d);
    }
    for k in NESTED {
        if let Some(v) = body.get_mut(k) {
            m.insert(k.into(), v.take());
        }
    }
    m
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Input(Profile),
    Output,
}

/// The keywords of a type without its description: `type` first, then its rules, then the
/// schemas of its items or fields.
fn type_body(ty: &Type, dir: Direction) -> Map<String, Value> {
    let strict = dir == Direction::Input(Profile::OpenAiStrict);
    let mut m = Map::new();
    if let Kind::Union { variants, tag } = &ty.kind {
        let schemas: Vec<Value> = variants
            .iter()
            .map(|v| Value::Object(variant_schema(v, tag.as_deref(), dir)))
            .collect();
        m.insert("anyOf".into(), Value::Array(schemas));
        return m;
    }
    m.insert("type".into(), json!(ty.json_type()));
    match &ty.kind {
        Kind::Union { .. } => {}
        Kind::Content(Content::ResourceLink) => {
            let link = json!({
                "type": {"type": "string", "enum": ["resource_link"]},
                "uri": {"type": "string", "format": "uri"},
                "name": {"type": "string"},
                "mimeType": {"type": "string"},
                "description": {"type": "string"}
            });
            m.insert("properties".into(), link);
            m.insert("required".into(), json!(["type", "uri", "name"]));
        }
        Kind::Content(_) => {}
        Kind::String(rules) => {
            if let Some(values) = &rules.enum_values {
                m.insert("enum".into(), json!(values));
            }
            if let Some(f) = rules.format
                && (!strict || OPENAI_FORMATS.contains(&f.as_str()))
            {
                m.insert("format".into(), json!(f.as_str()));
            }
            if let Some(p) = &rules.pattern {
                m.insert("pattern".into(), json!(p));
            }
            if !strict {
                if let Some(n) = rules.min_length {
                    m.insert("minLength".into(), json!(n));
                }
                if let Some(n) = rules.max_length {
                    m.insert("maxLength".into(), json!(n));
                }
            }
        }
        Kind::Integer { minimum, maximum } => {
            if let Some(n) = minimum {
                m.insert("minimum".into(), json!(n));
            }
            if let Some(n) = maximum {
                m.insert("maximum".into(), json!(n));
            }
        }
        Kind::Number { minimum, maximum } => {
            if let Some(n) = minimum {
                m.insert("minimum".into(), number(*n));
            }
            if let Some(n) = maximum {
                m.insert("maximum".into(), number(*n));
            }
        }
        Kind::Boolean => {}
        Kind::Array {
            items,
            min_items,
            max_items,
        } => {
            if let Some(n) = min_items {
                m.insert("minItems".into(), json!(n));
            }
            if let Some(n) = max_items {
                m.insert("maxItems".into(), json!(n));
            }
            // A named item type's description has no property to live in: the items schema
            // carries it.
            let description = items
                .description
                .as_deref()
                .map(sentence)
                .unwrap_or_default();
            let item = assemble(type_body(items, dir), description, None);
            m.insert("items".into(), Value::Object(item));
        }
        Kind::Map {
            values,
            keys,
            max_entries,
        } => {
            if let Some(n) = max_entries {
                m.insert("maxProperties".into(), json!(n));
            }
            let key_rules = type_body(&Type::of(Kind::String(keys.clone())), dir);
            if key_rules.len() > 1 {
                let mut names: Map<String, Value> = key_rules;
                names.remove("type");
                m.insert("propertyNames".into(), Value::Object(names));
            }
            let description = values
                .description
                .as_deref()
                .map(sentence)
                .unwrap_or_default();
            let value = assemble(type_body(values, dir), description, None);
            m.insert("additionalProperties".into(), Value::Object(value));
        }
        Kind::Object { fields, open, .. } => {
            let obj = match dir {
                Direction::Input(p) => input_object(fields, *open, p),
                Direction::Output => output_object(fields, &nested_output_required),
            };
            for (k, v) in obj {
                if k != "type" {
                    m.insert(k, v);
                }
            }
        }
    }
    m
}

/// One variant of a union: its own schema and description; a tagged union's variant gets
/// the tag as its first, required property, holding the variant's name.
fn variant_schema(v: &Field, tag: Option<&str>, dir: Direction) -> Map<String, Value> {
    let mut body = type_body(&v.ty, dir);
    if let Some(tag) = tag {
        let mut props = Map::new();
        props.insert(tag.into(), json!({"type": "string", "enum": [v.name]}));
        if let Some(Value::Object(rest)) = body.remove("properties") {
            props.extend(rest);
        }
        body.insert("properties".into(), Value::Object(props));
        let mut required = vec![json!(tag)];
        if let Some(Value::Array(rest)) = body.remove("required") {
            required.extend(rest);
        }
        body.insert("required".into(), Value::Array(required));
        if matches!(dir, Direction::Input(_)) {
            body.insert("additionalProperties".into(), json!(false));
        }
    }
    let mut parts = vec![sentence(&v.description)];
    if matches!(dir, Direction::Input(_)) {
        parts.extend(rule_words(
            &v.ty,
            match dir {
                Direction::Input(p) => p,
                Direction::Output => Profile::Standard,
            },
        ));
    }
    assemble(body, join(&parts), None)
}

/// A number keyword, written as an integer when it is one (`0`, not `0.0`).
fn number(n: f64) -> Value {
    json_number(n).map_or(Value::Null, Value::Number)
}

/// The description of an input property: what it means, then its rules in words, then its
/// example, each said once.
///
/// Implied parameters (`limit`, `cursor`, ...) keep the description the model composed for
/// them, which already states their rules and defaults; they get words only for a keyword
/// the OpenAI profile drops, and no example: `cursor` and `preview_id` are server-issued
/// tokens, and an example would invite the model to invent one.
fn input_description(f: &Field, profile: Profile) -> String {
    let mut parts = vec![sentence(&f.description)];
    push_type_description(&mut parts, f);
    let strict = profile == Profile::OpenAiStrict;
    if f.origin == Origin::Spec {
        parts.extend(rule_words(&f.ty, profile));
        if f.nullable {
            parts.push(sentence(&capitalize(&null_words(f))));
        }
        if strict && let Some(d) = &f.default {
            parts.push(format!("Default: {}.", compact(d)));
        }
        if shows_example(f) {
            parts.push(format!("Example: {}.", compact(&f.example)));
        }
    } else if strict {
        parts.extend(dropped_words(&f.ty));
    }
    join(&parts)
}

/// A scalar named type's description (`A ticket id, T- and digits.`) carries facts the
/// field's own description does not; an object type's one-liner only names what the field
/// already names, and its fields carry the facts.
fn push_type_description(parts: &mut Vec<String>, f: &Field) {
    if let Some(td) = f.ty.description.as_deref().map(str::trim)
        && !td.is_empty()
        && !matches!(f.ty.kind, Kind::Object { .. })
        && !f.description.contains(td.trim_end_matches('.'))
    {
        parts.push(sentence(td));
    }
}

/// Whether the property's description shows an example. Objects (and lists of objects) are
/// left out: each of their fields shows its own. An example equal to the default would say
/// the default twice.
fn shows_example(f: &Field) -> bool {
    let mut ty = &f.ty;
    while let Kind::Array { items, .. } = &ty.kind {
        ty = items;
    }
    let of_fields = matches!(&ty.kind, Kind::Object { fields, .. } if !fields.is_empty());
    // A list without a written example gets one composed from its item type, which knows no
    // example of its own (`[""]`): that would teach nothing.
    let composed_list =
        matches!(f.ty.kind, Kind::Array { .. }) && f.example == compose_example(&f.ty);
    !of_fields && !composed_list && f.default.as_ref() != Some(&f.example)
}

/// Rules in words for the facts a keyword alone makes easy to miss: allowed values, lengths,
/// bounds and item counts, in both profiles; for the OpenAI profile also formats it does not
/// support.
fn rule_words(ty: &Type, profile: Profile) -> Vec<String> {
    let strict = profile == Profile::OpenAiStrict;
    match &ty.kind {
        Kind::Array {
            items,
            min_items,
            max_items,
        } => {
            let mut out = Vec::new();
            if let Some(c) = count_words(*min_items, *max_items, Counted::Items) {
                out.push(sentence(&capitalize(&c)));
            }
            if !matches!(items.kind, Kind::Object { .. } | Kind::Array { .. }) {
                let each = scalar_phrases(items, strict);
                if !each.is_empty() {
                    out.push(format!("Each item: {}.", each.join(", ")));
                }
            }
            out
        }
        Kind::Map {
            values,
            keys,
            max_entries,
        } => {
            let mut out: Vec<String> = map_words(keys, *max_entries)
                .into_iter()
                .map(|w| sentence(&capitalize(&w)))
                .collect();
            if !matches!(values.kind, Kind::Object { .. } | Kind::Array { .. }) {
                let each = scalar_phrases(values, strict);
                if !each.is_empty() {
                    out.push(format!("Each value: {}.", each.join(", ")));
                }
            }
            out
        }
        Kind::Object { requires, .. } => requires.iter().map(requirement_sentence).collect(),
        Kind::Union { .. } => Vec::new(),
        _ => scalar_phrases(ty, strict)
            .into_iter()
            .map(|p| sentence(&capitalize(&p)))
            .collect(),
    }
}

/// The words for a scalar's rules, lower-case phrases (`one of: open, closed`,
/// `1-200 characters`, `0 to 100`, `URI format`).
fn scalar_phrases(ty: &Type, strict: bool) -> Vec<String> {
    let mut out = Vec::new();
    match &ty.kind {
        Kind::String(
            rules @ StringRules {
                enum_values,
                min_length,
                max_length,
                format,
                ..
            },
        ) => {
            if enum_values.is_some() {
                out.push(format!("one of: {}", enum_words(rules, str::to_owned)));
            }
            if let Some(c) = count_words(*min_length, *max_length, Counted::Characters) {
                out.push(c);
            }
            if strict && let Some(f) = format.filter(|f| !OPENAI_FORMATS.contains(&f.as_str())) {
                out.push(format_words(f));
            }
        }
        Kind::Integer { minimum, maximum } => {
            out.extend(bound_words(*minimum, *maximum));
        }
        Kind::Number { minimum, maximum } => out.extend(bound_words(
            minimum.and_then(json_number),
            maximum.and_then(json_number),
        )),
        _ => {}
    }
    out
}

/// Words for the keywords the OpenAI profile drops from an implied parameter.
fn dropped_words(ty: &Type) -> Vec<String> {
    match &ty.kind {
        Kind::String(r) => count_words(r.min_length, r.max_length, Counted::Characters)
            .map(|c| vec![sentence(&capitalize(&c))])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn format_words(f: Format) -> String {
    match f {
        Format::Uri => "an absolute URI".into(),
        other => format!("{} format", other.as_str()),
    }
}

/// Compact JSON of a value, as an example or default is shown in words.
fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn sentence(s: &str) -> String {
    let s = s.trim();
    if s.is_empty() || s.ends_with(['.', '!', '?']) {
        s.to_string()
    } else {
        format!("{s}.")
    }
}

fn join(parts: &[String]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_are_written_as_integers() {
        assert_eq!(number(0.0), json!(0));
        assert_eq!(number(42.5), json!(42.5));
    }
}
