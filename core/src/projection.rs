//! Field projection: a call names the output fields it wants (`fields: [summary, start]`)
//! and the generated layer drops the others from the method's result.
//!
//! The method always returns every field (its Rust type has them all), so a projection
//! can never leave out a field the spec promises: it only removes. The projected objects
//! are the result itself or each item of one list ([`Projection::objects`]); each keeps
//! the `always` fields, then those the call names, or the `default` ones when it names
//! none. Keys that are not the projected object's own fields (the runtime's `total`,
//! `next_cursor`, `truncated`) are never touched.
//!
//! ```
//! use serde_json::json;
//! use toolspec_runtime::projection::Projection;
//!
//! const EVENTS: Projection<'static> = Projection {
//!     param: "fields",
//!     objects: "events/*",
//!     fields: &["id", "summary", "location"],
//!     always: &["id"],
//!     default: None,
//! };
//! let mut result = json!({"events": [{"id": "e1", "summary": "Standup", "location": "Room 4"}], "total": 1});
//! EVENTS.apply(&json!({"fields": ["summary"]}), &mut result);
//! assert_eq!(result, json!({"events": [{"id": "e1", "summary": "Standup"}], "total": 1}));
//! ```

use serde_json::Value;

/// A tool's projection: static data in generated code (`Projection<'static>`), borrowed
/// from the spec where the generator shows what a call returns.
#[derive(Debug, Clone, Copy)]
pub struct Projection<'a> {
    /// The parameter listing the fields asked for (`fields`).
    pub param: &'a str,
    /// Where the projected objects are: object keys joined by `/`, `*` for every item of a
    /// list (`events/*`); empty for the result itself.
    pub objects: &'a str,
    /// Every field of the projected objects, as the wire names them.
    pub fields: &'a [&'a str],
    /// The fields every result keeps.
    pub always: &'a [&'a str],
    /// The fields a call that names none gets besides `always`; `None` for every field.
    pub default: Option<&'a [&'a str]>,
}

impl Projection<'_> {
    /// Removes from `result` the projected fields the call (`arguments`, validated) did
    /// not ask for.
    pub fn apply(&self, arguments: &Value, result: &mut Value) {
        let asked: Option<Vec<&str>> = arguments
            .get(self.param)
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect());
        let chosen: &[&str] = match (&asked, self.default) {
            (Some(names), _) => names,
            (None, Some(default)) => default,
            // Nothing asked and every field by default: nothing to drop.
            (None, None) => return,
        };
        let dropped: Vec<&str> = self
            .fields
            .iter()
            .copied()
            .filter(|f| !self.always.contains(f) && !chosen.contains(f))
            .collect();
        if !dropped.is_empty() {
            each_object(result, self.objects, &mut |object| {
                for f in &dropped {
                    object.remove(*f);
                }
            });
        }
    }
}

/// Calls `visit` on every object `path` names below `value` (see [`Projection::objects`]).
fn each_object(
    value: &mut Value,
    path: &str,
    visit: &mut dyn FnMut(&mut serde_json::Map<String, Value>),
) {
    let path = path.trim_start_matches('/');
    if path.is_empty() {
        if let Value::Object(map) = value {
            visit(map);
        }
        return;
    }
    let (head, rest) = path.split_once('/').unwrap_or((path, ""));
    match value {
        Value::Array(items) if head == "*" => {
            for item in items {
                each_object(item, rest, visit);
            }
        }
        Value::Object(map) => {
            if let Some(child) = map.get_mut(head) {
                each_object(child, rest, visit);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const GET: Projection<'static> = Projection {
        param: "fields",
        objects: "",
        fields: &["id", "title", "body", "labels"],
        always: &["id"],
        default: Some(&["title"]),
    };

    #[test]
    fn a_call_naming_none_gets_always_and_the_default() {
        let mut r = json!({"id": 1, "title": "t", "body": "b", "labels": [], "replayed": false});
        GET.apply(&json!({}), &mut r);
        assert_eq!(r, json!({"id": 1, "title": "t", "replayed": false}));
    }

    #[test]
    fn a_call_naming_fields_gets_those_and_always() {
        let mut r = json!({"id": 1, "title": "t", "body": "b", "labels": []});
        GET.apply(&json!({"fields": ["labels", "id"]}), &mut r);
        assert_eq!(r, json!({"id": 1, "labels": []}));
        let mut r = json!({"id": 1, "title": "t", "body": "b", "labels": []});
        GET.apply(&json!({"fields": []}), &mut r);
        assert_eq!(r, json!({"id": 1}));
    }

    #[test]
    fn every_item_of_a_nested_list_is_projected_and_nothing_else() {
        let p = Projection {
            param: "only",
            objects: "page/events/*",
            fields: &["id", "summary"],
            always: &[],
            default: None,
        };
        let mut r = json!({"page": {"events": [{"id": 1, "summary": "a"}, {"id": 2, "summary": "b"}], "id": "kept"}});
        p.apply(&json!({"only": ["summary"]}), &mut r);
        assert_eq!(
            r,
            json!({"page": {"events": [{"summary": "a"}, {"summary": "b"}], "id": "kept"}})
        );
        // Every field by default: a call naming none keeps everything.
        let before = r.clone();
        p.apply(&json!({}), &mut r);
        assert_eq!(r, before);
    }
}
