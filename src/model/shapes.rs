//! The model's types as the runtime validator's shape tables: the one form a constraint is
//! checked in.
//!
//! Generated servers validate calls with [`toolspec_runtime::validate::prepare`] over `static`
//! shape tables. `check` runs that same validator on the spec's examples and defaults
//! ([`super::values`]), and the docs on their example calls, so what the loader accepts is
//! what the server accepts, and an error body on a page is the runtime's own output (code,
//! message, `details.problems`), not an imitation that could drift from it.
//!
//! The validator takes `&'static` tables. Here they are built from the model and leaked: a
//! few hundred bytes per checked value, once per load or `generate` run, which is the price of
//! reusing the server's validator verbatim instead of writing a second one. A process that
//! loads specs over and over (an editor integration) pays it on every load.

use crate::model::{Content, Field, Kind, Requirement, Text, Tool, Type};
use crate::spec::format::Format;
use serde_json::Value;
use toolspec_runtime::validate::{
    self, ArrayShape, Condition, Field as RtField, Format as RtFormat, MapShape, ObjectShape,
    Pattern, Shape, StringShape, UnionShape,
};

/// The runtime's input shape of `tool` (spec and implied parameters, and its rules over
/// which go together).
pub fn input_shape(tool: &Tool) -> &'static ObjectShape {
    params_shape(&tool.params, &tool.requires)
}

/// The runtime's shape of an argument object with these parameters and rules.
pub fn params_shape(params: &[Field], requires: &[Requirement]) -> &'static ObjectShape {
    let mut shape = *object(params);
    if !requires.is_empty() {
        let rules: Vec<Condition> = requires.iter().map(condition).collect();
        shape = shape.conditions(Box::leak(rules.into_boxed_slice()));
    }
    if params.iter().any(has_nullable) {
        shape = shape.with_nullable();
    }
    leak(shape)
}

/// Whether `f`, or a field anywhere inside it, is nullable.
pub fn has_nullable(f: &Field) -> bool {
    f.nullable
        || f.ty.any(&|t| match &t.kind {
            Kind::Object { fields, .. } => fields.iter().any(|x| x.nullable),
            Kind::Union { variants, .. } => variants.iter().any(|v| v.nullable),
            _ => false,
        })
}

/// The runtime's condition of a rule.
fn condition(r: &Requirement) -> Condition {
    let names = |list: &[Text]| -> &'static [&'static str] {
        let v: Vec<&'static str> = list.iter().map(|t| leak_str(&t.text)).collect();
        Box::leak(v.into_boxed_slice())
    };
    match r {
        Requirement::ExactlyOne(n) => Condition::ExactlyOne(names(n)),
        Requirement::AtLeastOne(n) => Condition::AtLeastOne(names(n)),
        Requirement::AllOrNone(n) => Condition::AllOrNone(names(n)),
        Requirement::Requires { field, needs } => Condition::Requires {
            field: leak_str(&field.text),
            needs: names(needs),
        },
        Requirement::When {
            field,
            values,
            by_default,
            needs,
            allows,
        } => Condition::When {
            field: leak_str(&field.text),
            values: names(values),
            by_default: *by_default,
            needs: names(needs),
            allows: names(allows),
        },
    }
}

/// The codes of the problems the validator finds (empty when the call is valid).
pub fn problem_codes(shape: &'static ObjectShape, arguments: &Value) -> Vec<&'static str> {
    validate::validate(shape, arguments)
        .iter()
        .map(|p| p.code)
        .collect()
}

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

fn object(fields: &[Field]) -> &'static ObjectShape {
    let fields: Vec<RtField> = fields.iter().map(field).collect();
    leak(ObjectShape::new(Box::leak(fields.into_boxed_slice())))
}

fn field(f: &Field) -> RtField {
    let name = leak_str(&f.name);
    let shape = shape(&f.ty);
    let mut out = if f.required {
        RtField::required(name, shape)
    } else {
        RtField::optional(name, shape)
    };
    if let Some(default) = &f.default {
        out = out.default_json(leak_str(&default.to_string()));
    }
    if f.nullable {
        out = out.nullable();
    }
    out
}

/// The runtime's shape of one value of `ty`.
pub fn shape(ty: &Type) -> Shape {
    match &ty.kind {
        Kind::String(rules) => Shape::String(string(rules)),
        Kind::Integer {
            minimum,
            maximum,
            enum_values: Some(values),
            ..
        } => Shape::integer_one_of(*minimum, *maximum, Box::leak(values.clone().into())),
        Kind::Integer {
            minimum, maximum, ..
        } => Shape::integer(*minimum, *maximum),
        Kind::Number { minimum, maximum } => Shape::number(*minimum, *maximum),
        Kind::Boolean => Shape::Boolean,
        Kind::Array {
            items,
            min_items,
            max_items,
        } => Shape::Array(leak(
            ArrayShape::new(shape(items)).bounds(*min_items, *max_items),
        )),
        Kind::Map {
            values,
            keys,
            max_entries,
        } => Shape::Map(leak(
            MapShape::new(shape(values))
                .keys(string(keys))
                .max_entries(*max_entries),
        )),
        Kind::Union { variants, tag } => {
            let list: Vec<(&'static str, Shape)> = variants
                .iter()
                .map(|v| (leak_str(&v.name), shape(&v.ty)))
                .collect();
            let mut u = UnionShape::new(
                Box::leak(list.into_boxed_slice()),
                leak_str(&ty.json_type_words()),
            );
            if let Some(tag) = tag {
                u = u.tagged(leak_str(tag));
            }
            Shape::Union(leak(u))
        }
        Kind::Content(Content::Text) => Shape::String(StringShape::new()),
        Kind::Content(_) => Shape::Any,
        // A free-form object takes any keys, but it is still an object.
        Kind::Object {
            fields,
            open,
            requires,
        } => {
            if *open && fields.is_empty() {
                Shape::Map(leak(MapShape::new(Shape::Any)))
            } else {
                Shape::Object(params_shape(fields, requires))
            }
        }
    }
}

/// The runtime's string rules.
fn string(rules: &crate::model::StringRules) -> StringShape {
    {
        let mut s = StringShape::new().length(rules.min_length, rules.max_length);
        if let Some(values) = &rules.enum_values {
            let values: Vec<&'static str> = values.iter().map(|v| leak_str(v)).collect();
            s = s.one_of(Box::leak(values.into_boxed_slice()));
        }
        if let Some(p) = &rules.pattern {
            s = s.pattern(leak(Pattern::new(leak_str(p))));
        }
        if let Some(f) = rules.format {
            s = s.format(format(f));
        }
        s
    }
}

/// The runtime's format of a spec format.
pub fn format(f: Format) -> RtFormat {
    match f {
        Format::Email => RtFormat::Email,
        Format::DateTime => RtFormat::DateTime,
        Format::Date => RtFormat::Date,
        Format::Uri => RtFormat::Uri,
        Format::Uuid => RtFormat::Uuid,
    }
}
