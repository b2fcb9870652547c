//! Telling a `null` that clears a value from a value left out, in fingerprints.
//!
//! A fingerprint drops `null` members, because for an ordinary optional field `null` means
//! absent (see [`crate::fingerprint`]). For a [nullable](super::Field::nullable) field the
//! two differ: `{"milestone": null}` clears the milestone, `{}` leaves it. So that a key or
//! a preview made for one is never taken for the other, [`record_cleared`] lists the JSON
//! Pointers of every nullable field sent as `null` under [`CLEARED_KEY`], a member of the
//! validated arguments no caller can send (validation refuses unknown keys, and no field
//! name may hold a NUL), which the fingerprint then includes.

use serde_json::{Map, Value};

use super::{ObjectShape, Shape};
use crate::problem::escape_pointer;

/// The member [`record_cleared`] adds to validated arguments: the pointers of the nullable
/// fields sent as `null`.
pub const CLEARED_KEY: &str = "\u{0}cleared";

/// Adds [`CLEARED_KEY`] to validated `arguments` when a nullable field was sent as `null`;
/// does nothing (and walks nothing) for a shape without nullable fields. Call it after the
/// typed input is read from the arguments and before they are fingerprinted.
pub fn record_cleared(shape: &ObjectShape, arguments: &mut Value) {
    if !shape.nullable_inside {
        return;
    }
    let mut cleared = Vec::new();
    if let Value::Object(map) = &*arguments {
        walk_object(shape, map, String::new(), &mut cleared);
    }
    if !cleared.is_empty()
        && let Value::Object(map) = arguments
    {
        map.insert(CLEARED_KEY.to_owned(), Value::from(cleared));
    }
}

fn walk_object(shape: &ObjectShape, map: &Map<String, Value>, path: String, out: &mut Vec<String>) {
    for field in shape.fields {
        let Some(value) = map.get(field.name) else {
            continue;
        };
        let here = format!("{path}/{}", escape_pointer(field.name));
        if value.is_null() {
            if field.nullable {
                out.push(here);
            }
            continue;
        }
        walk_value(&field.shape, value, here, out);
    }
}

fn walk_value(shape: &Shape, value: &Value, path: String, out: &mut Vec<String>) {
    match (shape, value) {
        (Shape::Object(o), Value::Object(map)) => walk_object(o, map, path, out),
        (Shape::Array(a), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                walk_value(&a.items, item, format!("{path}/{i}"), out);
            }
        }
        (Shape::Map(m), Value::Object(map)) => {
            for (k, v) in map {
                walk_value(&m.values, v, format!("{path}/{}", escape_pointer(k)), out);
            }
        }
        (Shape::Union(u), v) => {
            if let Some((_, shape)) = u.variant_of(v) {
                walk_value(shape, v, path, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::fingerprint;
    use crate::validate::{Field, StringShape};
    use serde_json::json;

    static NESTED: ObjectShape =
        ObjectShape::new(&[Field::optional("due", Shape::String(StringShape::new())).nullable()]);
    static INPUT: ObjectShape = ObjectShape::new(&[
        Field::required("id", Shape::String(StringShape::new())),
        Field::optional("milestone", Shape::String(StringShape::new())).nullable(),
        Field::optional("title", Shape::String(StringShape::new())),
        Field::optional("plan", Shape::Object(&NESTED)),
    ])
    .with_nullable();

    fn fp(mut v: Value) -> String {
        record_cleared(&INPUT, &mut v);
        fingerprint(&v)
    }

    #[test]
    fn a_cleared_field_fingerprints_apart_from_a_field_left_out() {
        let keep = fp(json!({"id": "1"}));
        assert_ne!(keep, fp(json!({"id": "1", "milestone": null})));
        assert_ne!(keep, fp(json!({"id": "1", "plan": {"due": null}})));
        assert_ne!(
            fp(json!({"id": "1", "milestone": null})),
            fp(json!({"id": "1", "plan": {"due": null}}))
        );
        // An ordinary optional field's null still means absent.
        assert_eq!(keep, fp(json!({"id": "1", "title": null})));
        assert_ne!(
            fp(json!({"id": "1", "plan": {}})),
            fp(json!({"id": "1", "plan": {"due": null}}))
        );
    }
}
