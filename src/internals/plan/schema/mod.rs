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
//! - every input property's description carries its example, and each rule is said once: as
//!   a keyword where the profile keeps it, in words where it does not ([`Profile::keeps`]).
//!
//! [`Profile`] picks the dialect: the schema most clients take (MCP, Anthropic's non-strict
//! tools, the per-tool files), OpenAI's and Anthropic's strict subsets, or Gemini's function
//! declarations. The facts are the same in all of them; only where they are written differs.
//!
//! Output schemas describe what comes back and are not closed: a client that validates
//! results (the Python SDK does) keeps working when a later server version adds a field, and
//! the keyword would cost tokens on every object for no benefit to the model.

mod profile;
mod words;

pub use profile::{Profile, Rule};

use crate::model::describe::{json_number, null_words, selection_sentence};
use crate::model::values::compose_example;
use crate::model::{Content, Field, Kind, Origin, OutputSchema, Tool, Type};
use serde_json::{Map, Value, json};
use words::{capitalize, compact, default_words, join, rule_words, sentence};

/// The schema of a tool's arguments: the spec's parameters, then the implied ones.
///
/// A tool without parameters gets `{"type": "object", "properties": {},
/// "additionalProperties": false}` (plus an empty `required`, which OpenAI strict mode
/// expects): clients that read `properties` to build a call (or to show the tool's form)
/// find it. Gemini's subset refuses an object without properties; its list leaves such a
/// tool's `parameters` out instead.
pub fn input_schema(tool: &Tool, profile: Profile) -> Value {
    Value::Object(tool_input(tool, profile))
}

/// The top-level input object of `tool`, with `properties` even when empty (right after
/// `type`, where every other object has it).
fn tool_input(tool: &Tool, profile: Profile) -> Map<String, Value> {
    let m = input_object(&tool.params, false, profile);
    if profile == Profile::Gemini || m.contains_key("properties") {
        return m;
    }
    let mut out = Map::new();
    for (k, v) in m {
        let after_type = k == "type";
        out.insert(k, v);
        if after_type {
            out.insert("properties".into(), json!({}));
        }
    }
    out
}

/// [`input_schema`] for a list that shows whole example calls beside the schema
/// (Anthropic's `input_examples`): a top-level parameter that one of `calls` passes gets
/// no `Example:` words, since the calls show it. Not for [`Profile::Gemini`], whose unions
/// keep their words in their variants.
pub fn input_schema_beside_calls(tool: &Tool, profile: Profile, calls: &[&Value]) -> Value {
    let mut schema = tool_input(tool, profile);
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        for f in &tool.params {
            let shown = calls.iter().any(|c| c.get(&f.name).is_some());
            if let (true, Some(Value::Object(p))) = (shown, props.get_mut(&f.name)) {
                let words = description_words(f, profile, false);
                match words.is_empty() {
                    true => p.remove("description"),
                    false => p.insert("description".into(), Value::String(words)),
                };
            }
        }
    }
    Value::Object(schema)
}

/// The schema of a tool's successful structured result.
///
/// Required are the fields always present: not `detailed_only` ones on a tool with
/// `response_format` (concise responses drop them; a tool without it always sends them),
/// not the fields a `projection` lets a call leave out, and, for tools with a preview, none of the spec's own fields, because a preview
/// (`applied: false`) carries only the implied `applied`, `preview` and `truncated` keys, not
/// the `undo` of a reversible tool's applied result.
/// Implied fields keep the `required` the model gives them.
pub fn output_schema(tool: &Tool) -> Value {
    let previews = tool.preview.is_some();
    let concise = Concise(tool.response_format.is_some());
    // A preview carries neither the spec's fields nor the undo call of the applied change.
    let required = |f: &Field| {
        concise.always_sent(f) && !(previews && matches!(f.origin, Origin::Spec | Origin::Undo))
    };
    let mut m = output_object(&tool.output, &required, concise);
    // What no keyword can say (an output schema does not see the call): which variant the
    // call's parameter selects.
    for sel in &tool.selections {
        if let Some(Value::Object(p)) = m.get_mut("properties").and_then(|p| p.get_mut(&sel.field))
        {
            let own = p
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let text = join(&[own.to_string(), selection_sentence(sel)]);
            p.insert("description".into(), Value::String(text));
        }
    }
    Value::Object(m)
}

/// The output schema the MCP `tools/list` publishes for `tool`, at the tool's
/// [`OutputSchema`] level: all of [`output_schema`], its shape (no words, no rules), or none.
pub fn published_output_schema(tool: &Tool) -> Option<Value> {
    published_from(tool, || output_schema(tool))
}

/// [`published_output_schema`] from `full`, the tool's [`output_schema`] when it is already
/// made (building it is a good part of generating a tool's files).
pub fn published_output_schema_of(tool: &Tool, full: &Value) -> Option<Value> {
    published_from(tool, || full.clone())
}

fn published_from(tool: &Tool, full: impl FnOnce() -> Value) -> Option<Value> {
    match tool.output_schema {
        OutputSchema::Full => Some(full()),
        OutputSchema::Shape => Some(shape(tool, full())),
        OutputSchema::None => None,
    }
}

/// Keywords that describe a value's words and rules rather than its structure: a client
/// that checks a result's shape needs none of them (the server's results keep them all).
const RULE_KEYWORDS: [&str; 12] = [
    "description",
    "pattern",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "maxProperties",
    "propertyNames",
    "default",
];

/// `full` (the tool's [`output_schema`]) reduced to its structure: types, properties,
/// `required`, enums, items and variants, at every depth. The blocks the runtime adds
/// (`truncated`, `preview`, `undo`) are the same in every tool and say nothing about this
/// one: each is a plain object.
fn shape(tool: &Tool, mut full: Value) -> Value {
    strip_rules(&mut full);
    let runtime_blocks = tool
        .output
        .iter()
        .filter(|f| matches!(f.origin, Origin::Budget | Origin::Undo | Origin::Preview))
        .filter(|f| matches!(f.ty.kind, Kind::Object { .. }));
    if let Some(Value::Object(props)) = full.get_mut("properties") {
        for f in runtime_blocks {
            if let Some(p) = props.get_mut(&f.name) {
                *p = json!({"type": "object"});
            }
        }
    }
    full
}

/// Removes [`RULE_KEYWORDS`] from `schema` at every depth.
fn strip_rules(schema: &mut Value) {
    remove_keywords(schema, &RULE_KEYWORDS);
}

/// Keywords whose values are data, not schemas: a walk that removes keywords leaves what
/// is inside them as written (an enum value, or a default object, may hold a
/// `description` key of its own).
const VALUE_KEYWORDS: [&str; 5] = ["enum", "const", "default", "examples", "required"];

/// Removes `keywords` from `schema` (or the schemas inside `properties`, `items`, a list of
/// variants) at every depth; property names are left as they are, even `description`.
fn remove_keywords(schema: &mut Value, keywords: &[&str]) {
    match schema {
        Value::Object(m) => {
            m.retain(|k, _| !keywords.contains(&k.as_str()));
            for (k, v) in m.iter_mut() {
                match k.as_str() {
                    "properties" => v
                        .as_object_mut()
                        .into_iter()
                        .flat_map(|p| p.values_mut())
                        .for_each(|p| remove_keywords(p, keywords)),
                    k if VALUE_KEYWORDS.contains(&k) => {}
                    _ => remove_keywords(v, keywords),
                }
            }
        }
        Value::Array(list) => list.iter_mut().for_each(|v| remove_keywords(v, keywords)),
        _ => {}
    }
}

/// Whether a tool's results come concise (it has `response_format`): only then are
/// `detailed_only` fields left out of some results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Concise(bool);

impl Concise {
    /// Whether `f` is in every result: required, not dropped by a concise response, and
    /// not a projected field a call may leave out.
    fn always_sent(self, f: &Field) -> bool {
        f.required && !(self.0 && f.detailed_only) && !f.projected
    }
}

/// Why OpenAI strict mode cannot describe these parameters, one reason per field that
/// prevents it (empty when strict mode can): a free-form object or a map (strict mode
/// closes every object: [`open_objects`]), and an optional nullable field (strict mode sends
/// `null` for every field left out, so "clear it" and "keep it" would read alike).
pub fn strict_blockers(fields: &[Field]) -> Vec<String> {
    let mut out = open_objects(fields);
    walk_fields(fields, "", &mut |f, path| {
        if f.nullable && !f.required {
            out.push(format!("`{path}` is cleared by null"));
        }
    });
    out
}

/// The parameters whose keys are data, one reason each: a free-form object (it takes any
/// keys) or a map. A schema dialect whose objects list every property they take (OpenAI and
/// Anthropic strict, Gemini's declarations) cannot describe them.
pub fn open_objects(fields: &[Field]) -> Vec<String> {
    let mut out = Vec::new();
    walk_fields(fields, "", &mut |f, path| {
        let mut ty = &f.ty;
        while let Kind::Array { items, .. } = &ty.kind {
            ty = items;
        }
        match &ty.kind {
            Kind::Object { fields, open, .. } if *open && fields.is_empty() => {
                out.push(format!("`{path}` takes any keys"));
            }
            Kind::Map { .. } => out.push(format!("`{path}` is a map, whose keys are data")),
            _ => {}
        }
    });
    out
}

/// Calls `visit` with every field and its dotted path, nested fields (of objects, list
/// items, map values and union variants) after their parent.
fn walk_fields(fields: &[Field], prefix: &str, visit: &mut dyn FnMut(&Field, &str)) {
    fn nested<'a>(ty: &'a Type, out: &mut Vec<&'a [Field]>) {
        match &ty.kind {
            Kind::Object { fields, .. } => out.push(fields),
            Kind::Array { items: inner, .. } | Kind::Map { values: inner, .. } => {
                nested(inner, out)
            }
            Kind::Union { variants, .. } => variants.iter().for_each(|v| nested(&v.ty, out)),
            _ => {}
        }
    }
    for f in fields {
        let path = format!("{prefix}{}", f.name);
        visit(f, &path);
        let mut inner = Vec::new();
        nested(&f.ty, &mut inner);
        for fields in inner {
            walk_fields(fields, &format!("{path}."), visit);
        }
    }
}

fn input_object(fields: &[Field], open: bool, profile: Profile) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    let strict = profile.requires_every_property();
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
    if profile.closes_objects() && (!open || !fields.is_empty()) {
        m.insert("additionalProperties".into(), json!(false));
    }
    m
}

fn output_object(
    fields: &[Field],
    required: &dyn Fn(&Field) -> bool,
    concise: Concise,
) -> Map<String, Value> {
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
        .map(|f| (f.name.clone(), output_property(f, concise)))
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

fn input_property(f: &Field, profile: Profile) -> Value {
    let mut body = type_body(&f.ty, Direction::Input(profile));
    if f.nullable {
        body = or_null(body, profile);
    } else if profile == Profile::OpenAiStrict && !f.required {
        // Strict mode lists every property as required; `null` stands for "left out"
        // (a union takes it as one more variant).
        body = or_null(body, profile);
    }
    let description = input_description(f, profile);
    // Gemini takes `anyOf` only alone in its schema: a union's own description goes into
    // each variant's, and its default into the words.
    if profile == Profile::Gemini && !body.contains_key("type") {
        if let Some(Value::Array(variants)) = body.get_mut("anyOf") {
            let default = f
                .default
                .as_ref()
                .map(|d| format!("Default: {}.", compact(d)));
            let lead = join(&[description, default.unwrap_or_default()]);
            for v in variants.iter_mut().filter_map(Value::as_object_mut) {
                let own = v.remove("description");
                let own = own.as_ref().and_then(Value::as_str).unwrap_or_default();
                let text = join(&[lead.clone(), own.to_string()]);
                *v = assemble(std::mem::take(v), text, None);
            }
        }
        return Value::Object(body);
    }
    let default = f.default.clone().filter(|_| profile.keeps(Rule::Default));
    Value::Object(assemble(body, description, default))
}

fn output_property(f: &Field, concise: Concise) -> Value {
    let mut body = type_body(&f.ty, Direction::Output(concise));
    if f.nullable {
        body = or_null(body, Profile::Standard);
    }
    // An undo call's arguments are the undo tool's own parameters, described in its input
    // schema, and the `truncated` note is said in its own one sentence: below them, types
    // and rules are enough to check the result.
    if matches!(f.origin, Origin::Undo | Origin::Budget) {
        // The body has no words of its own yet (they are assembled below).
        let mut whole = Value::Object(std::mem::take(&mut body));
        drop_descriptions(&mut whole);
        if let Value::Object(m) = whole {
            body = m;
        }
    }
    // Keywords carry a named type's rules here; its words are for choosing inputs.
    let mut parts = vec![sentence(&f.description)];
    if concise.0 && f.detailed_only {
        parts.push("Detailed responses only.".into());
    }
    if f.nullable {
        parts.push(sentence(&capitalize(&null_words(f))));
    }
    Value::Object(assemble(body, join(&parts), None))
}

/// `schema` without descriptions, at every depth (see [`remove_keywords`]).
fn drop_descriptions(schema: &mut Value) {
    remove_keywords(schema, &["description"]);
}

/// A type's keywords that also take `null`: in OpenAI strict mode the type list it
/// demands (`["string", "null"]`, with `null` among an enum's values), elsewhere `anyOf`
/// with `{"type": "null"}`, the form every client takes (several refuse type lists).
fn or_null(mut body: Map<String, Value>, profile: Profile) -> Map<String, Value> {
    if profile == Profile::Gemini {
        // One `type` per schema, and `anyOf` alone: each variant says it takes null.
        let union = !body.contains_key("type");
        match body.get_mut("anyOf") {
            Some(Value::Array(variants)) if union => {
                for v in variants.iter_mut().filter_map(Value::as_object_mut) {
                    v.insert("nullable".into(), json!(true));
                }
            }
            _ => {
                body.insert("nullable".into(), json!(true));
            }
        }
        return body;
    }
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
    Output(Concise),
}

impl Direction {
    /// The profile whose keywords this direction writes: outputs are read by clients that
    /// validate results, in the standard dialect.
    fn profile(self) -> Profile {
        match self {
            Direction::Input(p) => p,
            Direction::Output(_) => Profile::Standard,
        }
    }
}

/// The keywords of a type without its description: `type` first, then its rules, then the
/// schemas of its items or fields.
fn type_body(ty: &Type, dir: Direction) -> Map<String, Value> {
    let keeps = |rule| dir.profile().keeps(rule);
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
            if let Some(f) = rules.format.filter(|f| keeps(Rule::Format(*f))) {
                m.insert("format".into(), json!(f.as_str()));
            }
            if let Some(p) = rules.pattern.as_ref().filter(|_| keeps(Rule::Pattern)) {
                m.insert("pattern".into(), json!(p));
            }
            if keeps(Rule::Length) {
                if let Some(n) = rules.min_length {
                    m.insert("minLength".into(), json!(n));
                }
                if let Some(n) = rules.max_length {
                    m.insert("maxLength".into(), json!(n));
                }
            }
        }
        Kind::Integer {
            minimum,
            maximum,
            enum_values,
            ..
        } => {
            if let Some(values) = enum_values.as_ref().filter(|_| keeps(Rule::IntegerEnum)) {
                m.insert("enum".into(), json!(values));
            }
            if keeps(Rule::Bounds) {
                if let Some(n) = minimum {
                    m.insert("minimum".into(), json!(n));
                }
                if let Some(n) = maximum {
                    m.insert("maximum".into(), json!(n));
                }
            }
        }
        Kind::Number { minimum, maximum } if keeps(Rule::Bounds) => {
            if let Some(n) = minimum {
                m.insert("minimum".into(), number(*n));
            }
            if let Some(n) = maximum {
                m.insert("maximum".into(), number(*n));
            }
        }
        Kind::Number { .. } | Kind::Boolean => {}
        Kind::Array {
            items,
            min_items,
            max_items,
        } => {
            if let Some(n) = min_items.filter(|n| keeps(Rule::MinItems(*n))) {
                m.insert("minItems".into(), json!(n));
            }
            if let Some(n) = max_items.filter(|_| keeps(Rule::MaxItems)) {
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
            if let Some(n) = max_entries.filter(|_| keeps(Rule::MapKeys)) {
                m.insert("maxProperties".into(), json!(n));
            }
            let key_rules = type_body(&Type::of(Kind::String(keys.clone())), dir);
            if key_rules.len() > 1 && keeps(Rule::MapKeys) {
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
                Direction::Output(c) => output_object(fields, &|f| c.always_sent(f), c),
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
        if matches!(dir, Direction::Input(p) if p.closes_objects()) {
            body.insert("additionalProperties".into(), json!(false));
        }
    }
    let mut parts = vec![sentence(&v.description)];
    if let Direction::Input(p) = dir {
        parts.extend(rule_words(&v.ty, p));
    }
    assemble(body, join(&parts), None)
}

/// A number keyword, written as an integer when it is one (`0`, not `0.0`).
fn number(n: f64) -> Value {
    json_number(n).map_or(Value::Null, Value::Number)
}

/// The description of an input property: what it means, then the words for its rules the
/// profile does not state as keywords, then its example, each said once.
///
/// Implied parameters (`limit`, `cursor`, ...) get no example: `cursor` and `preview_id` are
/// server-issued tokens, and an example would invite the model to invent one.
fn input_description(f: &Field, profile: Profile) -> String {
    description_words(f, profile, true)
}

/// [`input_description`], with or without the example.
fn description_words(f: &Field, profile: Profile, with_example: bool) -> String {
    // A field of a named type says what it means in its own words (it has the type's only
    // when it has none of its own): the type's words, said again after them in every
    // parameter of that type, would repeat what the type's rules already state.
    let mut parts = vec![sentence(&f.description)];
    parts.extend(rule_words(&f.ty, profile));
    if f.nullable {
        parts.push(sentence(&capitalize(&null_words(f))));
    }
    parts.extend(default_words(f.default.as_ref(), profile));
    if with_example && f.origin == Origin::Spec && shows_example(f) {
        parts.push(format!("Example: {}.", compact(&f.example)));
    }
    join(&parts)
}

/// Whether the property's description shows an example. Objects (and lists of objects) are
/// left out: each of their fields shows its own. An example equal to the default would say
/// the default twice, and an empty one (`{}`, `[]`) shows nothing.
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
    // An empty object or list shows no value to copy.
    let empty = match &f.example {
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    };
    !of_fields && !composed_list && !empty && f.default.as_ref() != Some(&f.example)
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
