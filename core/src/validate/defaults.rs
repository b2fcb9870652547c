//! Normalising a valid call: optional `null`s removed, defaults filled in, whole numbers in
//! integer fields written as integers, so generated code can deserialize into typed structs
//! whose fields are plain values, and equal calls fingerprint alike.

use serde_json::{Map, Value};

use super::{Field, ObjectShape, Shape, accepts, validate};
use crate::error::ToolError;
use crate::fingerprint::CONTROL_PARAMS;

/// Validates `arguments` and, when valid, returns them [normalized](normalize), with the
/// nullable fields sent as `null` [recorded](super::record_cleared): ready to deserialize
/// into the tool's typed input and to fingerprint.
///
/// On any problem returns one [`ToolError`] listing all of them, whose message ends with
/// `example_call` (the tool's valid example call as JSON text, from the spec).
/// This is the first thing generated code does with a call; nothing has run yet, so a
/// failure here never reaches the idempotency store.
pub fn prepare(
    shape: &ObjectShape,
    example_call: &str,
    arguments: Value,
) -> Result<Value, ToolError> {
    let problems = validate(shape, &arguments);
    if !problems.is_empty() {
        return Err(ToolError::from_problems(problems, example_call));
    }
    let mut arguments = match arguments {
        Value::Null => Value::Object(Map::new()),
        other => other,
    };
    normalize(shape, &mut arguments);
    super::record_cleared(shape, &mut arguments);
    Ok(arguments)
}

/// The fast path of [`prepare`]: when [`accepts`] finds the call valid, fills the defaults
/// of the top-level fields it leaves out (or sends as `null`), as [`normalize`] would, and
/// returns `true`; otherwise changes nothing and returns `false`, and [`prepare`] answers.
///
/// Deeper normalization is not done: nested `null`s for optional fields are left (a
/// fingerprint ignores them, and serde reads them as `None`), while a nested default or a
/// `3.0` for an integer makes typed deserialization fail, which sends the call to
/// [`prepare`]. So a call that deserializes after this fingerprints as after [`prepare`].
pub fn prepare_fast(shape: &ObjectShape, map: &mut Map<String, Value>) -> bool {
    let Some(absent) = accepts(shape, map) else {
        return false;
    };
    let mut rest = absent;
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        // A `null` without a default stays: serde reads it as `None`, and fingerprints
        // drop `null` members, so removing it would cost a lookup for nothing.
        fill_top_level_default(&shape.fields[i], map);
    }
    true
}

/// Normalizes a valid object in place, at every depth (nested objects, items of lists):
/// - an optional field sent as `null` is absent (see the [module docs](super));
/// - an absent field with a `default` gets it, parsed from its JSON text, except the
///   top-level [control parameters](crate::fingerprint::CONTROL_PARAMS): the engine reads
///   those with the tool's own default when absent, and they take no part in a fingerprint,
///   so writing them in would cost every call two allocations for nothing;
/// - a whole number sent as `3.0` for an integer field becomes `3`: the validator accepts it,
///   serde's integer types would not, and the fingerprint of `3.0` must equal that of `3`.
///
/// Values that do not fit the shape are left as they are (run [`validate`] first). A default
/// whose text is not valid JSON is skipped; the generator writes defaults with `serde_json`,
/// so that cannot happen for generated tables.
pub fn normalize(shape: &ObjectShape, value: &mut Value) {
    normalize_object(shape, value, true);
}

fn normalize_object(shape: &ObjectShape, value: &mut Value, top_level: bool) {
    let Value::Object(map) = value else {
        return;
    };
    for field in shape.fields {
        // One lookup per field: this runs on every call.
        match map.get_mut(field.name) {
            // A nullable field's null is a value (it clears), not an absence.
            Some(Value::Null) if field.nullable => {}
            Some(slot @ Value::Null) => match field.default.and_then(parse_default) {
                Some(default) => *slot = with_nested(&field.shape, default),
                None => {
                    map.remove(field.name);
                }
            },
            Some(present) => normalize_value(&field.shape, present),
            None if top_level => fill_top_level_default(field, map),
            None => {
                if let Some(default) = field.default.and_then(parse_default) {
                    map.insert(field.name.to_owned(), with_nested(&field.shape, default));
                }
            }
        }
    }
}

/// Writes the default of the absent top-level `field` into `map`, nested defaults filled,
/// unless it has none or is a control parameter (see [`normalize`]).
fn fill_top_level_default(field: &Field, map: &mut Map<String, Value>) {
    if CONTROL_PARAMS.contains(&field.name) {
        return;
    }
    if let Some(default) = field.default.and_then(parse_default) {
        map.insert(field.name.to_owned(), with_nested(&field.shape, default));
    }
}

fn with_nested(shape: &Shape, mut value: Value) -> Value {
    normalize_value(shape, &mut value);
    value
}

fn normalize_value(shape: &Shape, value: &mut Value) {
    match (shape, value) {
        (Shape::Object(o), v @ Value::Object(_)) => normalize_object(o, v, false),
        (Shape::Array(a), Value::Array(items)) => {
            for item in items {
                normalize_value(&a.items, item);
            }
        }
        (Shape::Map(m), Value::Object(map)) => {
            for value in map.values_mut() {
                normalize_value(&m.values, value);
            }
        }
        (Shape::Union(u), v) => {
            if let Some((_, shape)) = u.variant_of(v) {
                normalize_value(shape, v);
            }
        }
        (Shape::Integer { .. }, v @ Value::Number(_)) => {
            if let Some(f) = v.as_f64().filter(|_| v.is_f64())
                && f.fract() == 0.0
            {
                // In range by validation (|f| < 9.2e18), so the cast is exact.
                *v = if f < 0.0 {
                    Value::from(f as i64)
                } else {
                    Value::from(f as u64)
                };
            }
        }
        _ => {}
    }
}

/// A default's JSON text as a value. Defaults are filled on every call that omits them, so
/// the common ones (a plain string, an integer, a boolean) skip the JSON parser.
fn parse_default(text: &str) -> Option<Value> {
    if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'))
        && !inner.contains(['"', '\\'])
    {
        return Some(Value::String(inner.to_owned()));
    }
    match text {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        _ => {}
    }
    if let Ok(n) = text.parse::<i64>() {
        return Some(Value::from(n));
    }
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::{normalize, parse_default};
    use crate::validate::{ArrayShape, Field, ObjectShape, Shape};
    use serde_json::{Value, json};

    #[test]
    fn integral_floats_become_integers_where_the_shape_says_integer() {
        static ITEMS: ArrayShape = ArrayShape::new(Shape::integer(None, None));
        static SHAPE: ObjectShape = ObjectShape::new(&[
            Field::optional("n", Shape::integer(None, None)),
            Field::optional("x", Shape::number(None, None)),
            Field::optional("list", Shape::Array(&ITEMS)),
        ]);
        let mut v = json!({"n": 3.0, "x": 2.0, "list": [1.0, -2.0, 3]});
        normalize(&SHAPE, &mut v);
        assert!(v["n"].is_u64() && v["x"].is_f64());
        assert_eq!(v["list"].to_string(), "[1,-2,3]");
    }

    #[test]
    fn null_optionals_take_their_default_or_go() {
        static SHAPE: ObjectShape = ObjectShape::new(&[
            Field::optional("a", Shape::integer(None, None)).default_json("2.0"),
            Field::optional("b", Shape::integer(None, None)),
        ]);
        let mut v = json!({"a": null, "b": null});
        normalize(&SHAPE, &mut v);
        assert_eq!(v.to_string(), r#"{"a":2}"#);
    }

    #[test]
    fn fast_paths_agree_with_the_json_parser() {
        for text in [
            "\"concise\"",
            "\"\"",
            "\"a\\\"b\"",
            "\"\\u00e9\"",
            "20",
            "-3",
            "true",
            "false",
            "2.5",
            "[1,2]",
            "{\"a\":null}",
            "99999999999999999999",
        ] {
            let parsed: Option<Value> = serde_json::from_str(text).ok();
            assert_eq!(parse_default(text), parsed, "{text}");
        }
    }
}
