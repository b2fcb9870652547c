//! Normalising a valid call: optional `null`s removed, defaults filled in, so generated code
//! can deserialize into typed structs whose fields are plain values.

use serde_json::{Map, Value};

use super::{ObjectShape, Shape, validate};
use crate::error::ToolError;

/// Validates `arguments` and, when valid, returns them ready to deserialize: `null` optional
/// fields removed and absent optional fields with a default filled in, at every depth.
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
    fill_defaults(shape, &mut arguments);
    Ok(arguments)
}

/// Removes `null` optional fields and fills absent optional fields from their `default`
/// JSON text, in `value` and in every nested object (also inside arrays).
///
/// Values that do not fit the shape are left as they are (run [`validate`] first). A default
/// whose text is not valid JSON is skipped; the generator writes defaults with `serde_json`,
/// so that cannot happen for generated tables.
pub fn fill_defaults(shape: &ObjectShape, value: &mut Value) {
    let Value::Object(map) = value else {
        return;
    };
    for field in shape.fields {
        if map.get(field.name).is_some_and(Value::is_null) {
            map.remove(field.name);
        }
        match map.get_mut(field.name) {
            Some(present) => fill_nested(&field.shape, present),
            None => {
                if let Some(text) = field.default
                    && let Some(mut default) = parse_default(text)
                {
                    fill_nested(&field.shape, &mut default);
                    map.insert(field.name.to_owned(), default);
                }
            }
        }
    }
}

fn fill_nested(shape: &Shape, value: &mut Value) {
    match (shape, value) {
        (Shape::Object(o), v @ Value::Object(_)) => fill_defaults(o, v),
        (Shape::Array(a), Value::Array(items)) => {
            for item in items {
                fill_nested(&a.items, item);
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
    use super::parse_default;
    use serde_json::Value;

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
