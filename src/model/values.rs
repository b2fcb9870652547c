//! Checking JSON values against resolved types, for defaults and examples.
//!
//! The loader uses this to refuse a default or example that breaks its own constraints, and
//! example calls that the tool itself would refuse: a spec's examples are shown to agents, so
//! an invalid one teaches a wrong call. The checking is the runtime's own validator, run on
//! the model's types turned into its shape tables ([`super::shapes`]): there is no second
//! set of rules here, so what `check` accepts is exactly what a generated server accepts.

use crate::model::shapes;
use crate::model::{Content, Field, Kind, Requirement, Type};
use crate::spec::format::Format;
use serde_json::Value;
use toolspec_runtime::problem::Problems;
use toolspec_runtime::validate;

/// Every way `value`, a value of the field `name`, breaks `ty`: each as (JSON Pointer below
/// the value, `""` for the value itself; what is wrong, in the runtime's words).
pub fn check_value(value: &Value, ty: &Type, name: &str) -> Vec<(String, String)> {
    let prefix = format!("/{name}");
    listed(validate::validate_value(name, &shapes::shape(ty), value))
        .into_iter()
        .map(|(path, message)| {
            let below = path.strip_prefix(&prefix).unwrap_or(&path).to_owned();
            (below, message)
        })
        .collect()
}

/// Every way an argument object breaks a parameter list and its rules over which
/// parameters go together: unknown and missing arguments, each value against its type, as
/// the tool's server would report them.
pub fn check_arguments(
    args: &Value,
    params: &[Field],
    requires: &[Requirement],
) -> Vec<(String, String)> {
    listed(validate::validate(
        shapes::params_shape(params, requires),
        args,
    ))
}

fn listed(problems: Problems) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = problems
        .iter()
        .map(|p| (p.path.clone(), p.message.clone()))
        .collect();
    if problems.more() > 0 {
        out.push((
            String::new(),
            format!("and {} more problems", problems.more()),
        ));
    }
    out
}

/// Whether `s` has the given format, by the runtime's own rules.
pub fn format_matches(format: Format, s: &str) -> bool {
    shapes::format(format).is_valid(s)
}

/// An example for a type that has none written: objects from their fields' examples, arrays
/// from one item's. Scalars without an example get a neutral value (the loader has already
/// reported the missing example).
pub fn compose_example(ty: &Type) -> Value {
    match &ty.kind {
        Kind::Object { fields, .. } => Value::Object(
            fields
                .iter()
                .map(|f| (f.name.clone(), f.example.clone()))
                .collect(),
        ),
        Kind::Array { items, .. } => Value::Array(vec![compose_example(items)]),
        Kind::Content(c) => match c {
            Content::Image => {
                serde_json::json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
            }
            Content::Audio => {
                serde_json::json!({"type": "audio", "data": "UklGRiQAAABXQVZF", "mimeType": "audio/wav"})
            }
            Content::Text => Value::String(String::new()),
            Content::ResourceLink => {
                serde_json::json!({"type": "resource_link", "uri": "https://example.com/a", "name": "a"})
            }
        },
        // The first variant's, with its tag when the union has one.
        Kind::Union { variants, tag } => {
            let Some(first) = variants.first() else {
                return Value::Null;
            };
            let mut example = first.example.clone();
            if let (Some(tag), Value::Object(map)) = (tag, &mut example) {
                let mut tagged = serde_json::Map::new();
                tagged.insert(tag.clone(), Value::String(first.name.clone()));
                tagged.extend(std::mem::take(map));
                *map = tagged;
            }
            example
        }
        // A key of its own invention could break the map's key rules; no entry does not.
        Kind::Map { .. } => Value::Object(serde_json::Map::new()),
        Kind::String(rules) => rules
            .enum_values
            .as_ref()
            .and_then(|v| v.first())
            .map(|v| Value::String(v.clone()))
            .unwrap_or_else(|| Value::String(String::new())),
        Kind::Integer { minimum, .. } => Value::from(minimum.unwrap_or(0)),
        Kind::Number { minimum, .. } => {
            serde_json::Number::from_f64(minimum.unwrap_or(0.0)).map_or(Value::Null, Value::Number)
        }
        Kind::Boolean => Value::Bool(false),
    }
}
