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

/// A spec example's partial `result` laid over the value composed from the fields'
/// examples, as the docs show it and as `check` judges it: objects and maps merge key by key
/// (each key by its own field's type), so an example writes only the fields it is about. A
/// list is the partial's own, each item laid over the items' composed example (a search
/// example names each hit's title, not every field of it); anything else is replaced.
///
/// A tagged union's value is laid over the variant the tag selects: the partial's own tag,
/// else the base's. When that is another variant than the base's, the base is that variant's
/// composed example, not the base, whose fields belong to the other variant. An untagged
/// union's variant is the one of the partial's JSON type, as its validator picks it.
pub fn lay_over(base: &Value, over: &Value, ty: &Type) -> Value {
    if let (Kind::Array { items, .. }, Value::Array(list)) = (&ty.kind, over) {
        return Value::Array(
            list.iter()
                .map(|item| lay_over(&Value::Null, item, items))
                .collect(),
        );
    }
    let Value::Object(keys) = over else {
        return over.clone();
    };
    match &ty.kind {
        Kind::Object { fields, .. } => merge(base, keys, ty, |k| {
            fields.iter().find(|f| f.name == k).map(|f| &f.ty)
        }),
        Kind::Map { values, .. } => merge(base, keys, ty, |_| Some(values.as_ref())),
        Kind::Union {
            variants,
            tag: Some(tag),
        } => {
            let base_tag = base.get(tag).and_then(Value::as_str);
            let chosen = keys.get(tag).and_then(Value::as_str).or(base_tag);
            let Some(v) = variants.iter().find(|v| Some(v.name.as_str()) == chosen) else {
                // No variant to lay it over: the partial as written, for the validator to
                // name the missing or unknown tag.
                return over.clone();
            };
            let start = if base_tag == Some(v.name.as_str()) {
                base.clone()
            } else {
                tagged(tag, &v.name, &v.example)
            };
            lay_over(&start, over, &v.ty)
        }
        Kind::Union {
            variants,
            tag: None,
        } => {
            let json_type = match over {
                Value::Object(_) => "object",
                _ => return over.clone(),
            };
            match variants.iter().find(|v| v.ty.json_type() == json_type) {
                Some(v) => lay_over(base, over, &v.ty),
                None => over.clone(),
            }
        }
        _ => over.clone(),
    }
}

/// `keys` merged into `base` (or, where `base` is not an object, into the type's composed
/// example), each by the type `field_type` gives its key; keys of no field are added as they
/// are, for the validator to refuse.
fn merge<'t>(
    base: &Value,
    keys: &serde_json::Map<String, Value>,
    ty: &Type,
    field_type: impl Fn(&str) -> Option<&'t Type>,
) -> Value {
    let mut out = match base {
        Value::Object(m) => m.clone(),
        _ => match compose_example(ty) {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        },
    };
    for (k, v) in keys {
        let merged = match (out.get(k), field_type(k)) {
            (Some(old), Some(t)) => lay_over(old, v, t),
            (None, Some(t)) => lay_over(&Value::Null, v, t),
            _ => v.clone(),
        };
        out.insert(k.clone(), merged);
    }
    Value::Object(out)
}

/// A variant's example with its tag first.
fn tagged(tag: &str, name: &str, example: &Value) -> Value {
    let mut m = serde_json::Map::new();
    m.insert(tag.to_string(), Value::String(name.to_string()));
    if let Value::Object(fields) = example {
        m.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    Value::Object(m)
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
            match (tag, &first.example) {
                (Some(tag), Value::Object(_)) => tagged(tag, &first.name, &first.example),
                _ => first.example.clone(),
            }
        }
        // A key of its own invention could break the map's key rules; no entry does not.
        Kind::Map { .. } => Value::Object(serde_json::Map::new()),
        Kind::String(rules) => rules
            .enum_values
            .as_ref()
            .and_then(|v| v.first())
            .map(|v| Value::String(v.clone()))
            .unwrap_or_else(|| Value::String(String::new())),
        Kind::Integer {
            minimum,
            enum_values,
            ..
        } => match enum_values.as_ref().and_then(|v| v.first()) {
            Some(first) => Value::from(*first),
            None => Value::from(minimum.unwrap_or(0)),
        },
        Kind::Number { minimum, .. } => {
            serde_json::Number::from_f64(minimum.unwrap_or(0.0)).map_or(Value::Null, Value::Number)
        }
        Kind::Boolean => Value::Bool(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Span;
    use crate::model::{Origin, StringRules};
    use serde_json::json;

    fn field(name: &str, ty: Type, example: Value) -> Field {
        Field {
            name: name.into(),
            span: Span::default(),
            description: String::new(),
            ty,
            required: true,
            default: None,
            example,
            detailed_only: false,
            projected: false,
            nullable: false,
            origin: Origin::Spec,
        }
    }

    fn object(fields: Vec<Field>) -> Type {
        Type::of(Kind::Object {
            fields,
            open: false,
            requires: Vec::new(),
        })
    }

    fn text(example: &str) -> (Type, Value) {
        (
            Type::of(Kind::String(StringRules::default())),
            json!(example),
        )
    }

    /// `{status: {kind: open, since} | {kind: closed, reason}}`.
    fn tagged_status() -> Type {
        let variant = |name: &str, key: &str, example: &str| {
            let (ty, ex) = text(example);
            let inner = object(vec![field(key, ty, ex)]);
            let ex = compose_example(&inner);
            field(name, inner, ex)
        };
        let status = Type::of(Kind::Union {
            variants: vec![
                variant("open", "since", "2026-01-01"),
                variant("closed", "reason", "fixed"),
            ],
            tag: Some("kind".into()),
        });
        let ex = compose_example(&status);
        object(vec![field("status", status, ex)])
    }

    #[test]
    fn objects_merge_key_by_key_and_lists_item_by_item() {
        let (s, sx) = text("a");
        let inner = object(vec![field("x", s.clone(), sx.clone()), field("y", s, sx)]);
        let list = Type::of(Kind::Array {
            items: Box::new(Type::string()),
            min_items: None,
            max_items: None,
        });
        let ty = object(vec![
            field("a", inner.clone(), compose_example(&inner)),
            field("b", list, json!(["p", "q"])),
        ]);
        let base = compose_example(&ty);
        let laid = lay_over(&base, &json!({"a": {"y": "z"}, "b": [], "c": true}), &ty);
        assert_eq!(laid, json!({"a": {"x": "a", "y": "z"}, "b": [], "c": true}));
        assert_eq!(
            serde_json::to_string(&laid).unwrap_or_default(),
            r#"{"a":{"x":"a","y":"z"},"b":[],"c":true}"#,
            "the base's key order is kept"
        );
        // Each item of a list is laid over the items' example.
        let list = Type::of(Kind::Array {
            items: Box::new(inner.clone()),
            min_items: None,
            max_items: None,
        });
        let ty = object(vec![field("l", list.clone(), compose_example(&list))]);
        assert_eq!(
            lay_over(
                &compose_example(&ty),
                &json!({"l": [{"y": "1"}, {"x": "2"}]}),
                &ty
            ),
            json!({"l": [{"x": "a", "y": "1"}, {"x": "2", "y": "a"}]})
        );
    }

    #[test]
    fn a_tagged_partial_goes_over_the_variant_its_tag_selects() {
        let ty = tagged_status();
        let base = compose_example(&ty);
        assert_eq!(
            base,
            json!({"status": {"kind": "open", "since": "2026-01-01"}})
        );
        // Another variant: its own example under the partial, not the first variant's.
        assert_eq!(
            lay_over(&base, &json!({"status": {"kind": "closed"}}), &ty),
            json!({"status": {"kind": "closed", "reason": "fixed"}})
        );
        assert_eq!(
            lay_over(
                &base,
                &json!({"status": {"kind": "closed", "reason": "dup"}}),
                &ty
            ),
            json!({"status": {"kind": "closed", "reason": "dup"}})
        );
        // No tag: the base's variant, which then holds a field it does not have.
        assert_eq!(
            lay_over(&base, &json!({"status": {"reason": "dup"}}), &ty),
            json!({"status": {"kind": "open", "since": "2026-01-01", "reason": "dup"}})
        );
    }
}
