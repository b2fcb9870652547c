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

use crate::model::{Field, Kind, Tool, Type};
use crate::spec::format::Format;
use serde_json::Value;
use toolspec_runtime::validate::{
    self, ArrayShape, Field as RtField, Format as RtFormat, ObjectShape, Pattern, Shape,
    StringShape,
};

/// The runtime's input shape of `tool` (spec and implied parameters).
pub fn input_shape(tool: &Tool) -> &'static ObjectShape {
    object(&tool.params)
}

/// The runtime's shape of an argument object with these parameters.
pub fn params_shape(params: &[Field]) -> &'static ObjectShape {
    object(params)
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
    out
}

/// The runtime's shape of one value of `ty`.
pub fn shape(ty: &Type) -> Shape {
    match &ty.kind {
        Kind::String(rules) => {
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
            Shape::String(s)
        }
        Kind::Integer { minimum, maximum } => Shape::integer(*minimum, *maximum),
        Kind::Number { minimum, maximum } => Shape::number(*minimum, *maximum),
        Kind::Boolean => Shape::Boolean,
        Kind::Array {
            items,
            min_items,
            max_items,
        } => Shape::Array(leak(
            ArrayShape::new(shape(items)).bounds(*min_items, *max_items),
        )),
        Kind::Object { fields, open } => {
            if *open && fields.is_empty() {
                Shape::Any
            } else {
                Shape::Object(object(fields))
            }
        }
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
