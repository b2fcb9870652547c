//! The full result of a successful call, as the server returns it.
//!
//! The tool's own fields come from their examples, echo the call where names match, and
//! take the spec example's partial `result` on top; then come what the runtime adds: `total`
//! and a signed `next_cursor` for pages, `replayed` for keyed writes, `applied` and the
//! preview for irreversible tools, and the `undo` call of reversible ones.

use super::Examples;
use crate::model::values::{check_value, lay_over};
use crate::model::{Kind, Origin, Type};
use serde_json::{Map, Value, json};
use toolspec_runtime::engine::undo_key;
use toolspec_runtime::fingerprint::fingerprint;

impl Examples<'_> {
    /// A previewed tool's answer to a call without `preview_id`: the preview of this very
    /// call. Each of the preview's fields is what the spec example's `preview` says, else the
    /// call's argument of that name, else the value of that name in `applied` (the result the
    /// apply returns, composed from the call and the example's `result`), and only failing
    /// those the field's own example. The summary is worded for the tool's verb.
    pub(super) fn preview_result(
        &self,
        args: &Value,
        applied: &Value,
        overlay: Option<&Value>,
        (preview_id, expires_at): (&str, &str),
    ) -> Value {
        let mut preview = Map::new();
        preview.insert("preview_id".into(), preview_id.into());
        preview.insert("expires_at".into(), expires_at.into());
        preview.insert(
            "summary".into(),
            preview_summary(&self.tool.title.text).into(),
        );
        if let Some(f) = self.tool.output_field("preview")
            && let Kind::Object { fields, .. } = &f.ty.kind
        {
            for field in fields {
                if preview.contains_key(&field.name) {
                    continue;
                }
                let fits = |v: &&Value| check_value(v, &field.ty, &field.name).is_empty();
                let value = args
                    .get(&field.name)
                    .filter(fits)
                    .or_else(|| find_named(applied, &field.name, &fits))
                    .cloned()
                    .unwrap_or_else(|| field.example.clone());
                preview.insert(field.name.clone(), value);
            }
        }
        let mut preview = Value::Object(preview);
        if let Some(o) = overlay {
            merge(&mut preview, o);
        }
        json!({ "applied": false, "preview": preview })
    }

    /// The full result of a successful call (for irreversible tools: of the apply).
    pub(super) fn result(&self, prepared: &Value, overlay: Option<&Value>) -> Value {
        let detailed = match self.tool.response_format {
            None => true,
            Some(_) => prepared.get("response_format").and_then(Value::as_str) == Some("detailed"),
        };
        let mut spec_part = Value::Object(Map::new());
        if let Value::Object(m) = &mut spec_part {
            for f in self.tool.spec_output() {
                if f.detailed_only && !detailed {
                    continue;
                }
                m.insert(f.name.clone(), strip(&f.example, &f.ty, detailed));
            }
        }
        let spec_type = Type::of(Kind::Object {
            fields: self.tool.spec_output().cloned().collect(),
            open: false,
            requires: Vec::new(),
        });
        let restored = self.restored_paths();
        echo(&mut spec_part, &spec_type, prepared, "", &restored);
        if let Some(o) = overlay {
            spec_part = lay_over(&spec_part, o, &spec_type);
        }
        self.keep_unchanged(&mut spec_part, prepared, overlay, &restored);
        let Value::Object(mut given) = spec_part else {
            return spec_part;
        };
        let mut out = Map::new();
        for f in &self.tool.output {
            if let Some(v) = given.shift_remove(&f.name) {
                out.insert(f.name.clone(), v);
                continue;
            }
            match (f.origin, f.name.as_str()) {
                (Origin::Paging, "total") => {
                    out.insert("total".into(), f.example.clone());
                }
                (Origin::Idempotency, "replayed") => {
                    out.insert("replayed".into(), false.into());
                }
                (Origin::Preview, "applied") => {
                    out.insert("applied".into(), true.into());
                }
                _ => {}
            }
        }
        out.extend(given);
        let mut result = Value::Object(out);
        self.add_next_cursor(prepared, &mut result);
        self.add_undo(prepared, &mut result);
        if let Some(p) = &self.tool.projection {
            p.apply(prepared, &mut result);
        }
        result
    }

    /// The result paths an undo restores from (`previous.location`): those filling an
    /// optional parameter of the undo tool. They hold values from before the call, so the
    /// call's arguments are not echoed into them. A required parameter names what to change
    /// (`event.id`), which the call does not change.
    fn restored_paths(&self) -> Vec<(String, String)> {
        let Some(undo) = &self.tool.undo else {
            return Vec::new();
        };
        let Some((_, target)) = self.model.tool(&undo.tool.text) else {
            return Vec::new();
        };
        undo.arguments
            .iter()
            .filter(|(param, _)| target.param(&param.text).is_some_and(|p| !p.required))
            .map(|(param, path)| (param.text.clone(), path.text.clone()))
            .collect()
    }

    /// A value the call leaves alone is the same before and after it: each restored path
    /// (see [`Self::restored_paths`]) whose parameter the call does not pass takes the value
    /// of the same name elsewhere in the result (`previous.summary` from `event.summary`),
    /// so the undo does not claim to change what the call never touched. The example's
    /// `result` wins where it gives the value.
    fn keep_unchanged(
        &self,
        result: &mut Value,
        args: &Value,
        overlay: Option<&Value>,
        restored: &[(String, String)],
    ) {
        for (param, path) in restored {
            let pointer = format!("/{}", path.replace('.', "/"));
            if args.get(param).is_some() || overlay.and_then(|o| o.pointer(&pointer)).is_some() {
                continue;
            }
            let Some(source) = self.tool.output_path(path) else {
                continue;
            };
            let fits = |v: &&Value| check_value(v, &source.ty, param).is_empty();
            let now = find_named_except(result, param, &pointer, "", &fits).cloned();
            if let (Some(now), Some(slot)) = (now, result.pointer_mut(&pointer)) {
                *slot = now;
            }
        }
    }

    /// `next_cursor` when the page does not hold every match, signed as the runtime signs it
    /// (`next_page` for page numbers).
    pub(super) fn add_next_cursor(&self, prepared: &Value, result: &mut Value) {
        let Some(paging) = &self.tool.paging else {
            return;
        };
        let shown = paging
            .path
            .iter()
            .try_fold(&*result, |v, key| v.get(key))
            .and_then(Value::as_array)
            .map_or(0, Vec::len) as u64;
        let total = result.get("total").and_then(Value::as_u64).unwrap_or(0);
        // Page numbers: the example's page, and `next_page` while matches lie past it.
        let number = paging.pages.as_ref().map(|n| {
            prepared
                .get(&n.page)
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1)
        });
        let before = number.map_or(0, |n| {
            let size = prepared
                .get(paging.size_param())
                .and_then(Value::as_u64)
                .unwrap_or(u64::from(paging.default_limit));
            (n - 1).saturating_mul(size)
        });
        if shown == 0 || before + shown >= total {
            return;
        }
        let (key, next): (&str, Value) = match number {
            Some(n) => ("next_page", (n + 1).into()),
            None => (
                "next_cursor",
                self.cursors
                    .encode(&self.tool.name.text, &fingerprint(prepared), shown)
                    .into(),
            ),
        };
        let mut entries: Vec<(String, Value)> = match std::mem::take(result) {
            Value::Object(m) => m.into_iter().collect(),
            _ => Vec::new(),
        };
        // Right after `total`, where the output table lists it.
        let at = entries
            .iter()
            .position(|(k, _)| k == "total")
            .map_or(entries.len(), |i| i + 1);
        entries.insert(at, (key.into(), next));
        *result = Value::Object(entries.into_iter().collect());
    }

    /// The `undo` call, its arguments read from the result as the runtime reads them.
    pub(super) fn add_undo(&self, prepared: &Value, result: &mut Value) {
        let Some(undo) = &self.tool.undo else {
            return;
        };
        let mut arguments = Map::new();
        for (param, path) in &undo.arguments {
            let pointer = format!("/{}", path.text.replace('.', "/"));
            if let Some(v) = result.pointer(&pointer) {
                arguments.insert(param.text.clone(), v.clone());
            }
        }
        let takes_key = self
            .model
            .tool(&undo.tool.text)
            .is_some_and(|(_, t)| t.idempotency.is_some());
        if takes_key && let Some(key) = prepared.get("idempotency_key").and_then(Value::as_str) {
            arguments.insert("idempotency_key".into(), undo_key(key).into());
        }
        if let Value::Object(m) = result {
            m.insert(
                "undo".into(),
                json!({ "tool": undo.tool.text, "arguments": arguments }),
            );
        }
    }
}

/// `value` without the fields only detailed responses carry, at every depth.
pub(super) fn strip(value: &Value, ty: &Type, detailed: bool) -> Value {
    if detailed {
        return value.clone();
    }
    match (&ty.kind, value) {
        (Kind::Object { fields, .. }, Value::Object(m)) => Value::Object(
            m.iter()
                .filter_map(|(k, v)| match fields.iter().find(|f| f.name == *k) {
                    Some(f) if f.detailed_only => None,
                    Some(f) => Some((k.clone(), strip(v, &f.ty, detailed))),
                    None => Some((k.clone(), v.clone())),
                })
                .collect(),
        ),
        (Kind::Array { items, .. }, Value::Array(a)) => {
            Value::Array(a.iter().map(|v| strip(v, items, detailed)).collect())
        }
        _ => value.clone(),
    }
}

/// Sets every field of `value` (at any depth) that has the name of an argument to that
/// argument's value, when it fits the field's type: a ticket set to `closed` comes back
/// `closed`, a product priced at 1499 comes back at 1499, a search by status returns items
/// of that status. Strings match anywhere; numbers and booleans only inside a returned
/// object (`product.price_cents`), since a top-level number of the same name is often
/// another quantity (the revision restored is not the new revision). The paths in
/// `restored` hold values from before the call and are left alone.
pub(super) fn echo(
    value: &mut Value,
    ty: &Type,
    args: &Value,
    at: &str,
    restored: &[(String, String)],
) {
    match (&ty.kind, value) {
        (Kind::Object { fields, .. }, Value::Object(m)) => {
            for f in fields {
                let Some(slot) = m.get_mut(&f.name) else {
                    continue;
                };
                let path = if at.is_empty() {
                    f.name.clone()
                } else {
                    format!("{at}.{}", f.name)
                };
                if restored.iter().any(|(_, p)| *p == path) {
                    continue;
                }
                let scalar = match &f.ty.kind {
                    Kind::String(_) => true,
                    Kind::Integer { .. } | Kind::Number { .. } | Kind::Boolean => !at.is_empty(),
                    _ => false,
                };
                match args.get(&f.name) {
                    Some(arg) if scalar && check_value(arg, &f.ty, &f.name).is_empty() => {
                        *slot = arg.clone();
                    }
                    _ => echo(slot, &f.ty, args, &path, restored),
                }
            }
        }
        (Kind::Array { items, .. }, Value::Array(a)) => {
            for v in a {
                echo(v, items, args, at, restored);
            }
        }
        _ => {}
    }
}

/// The first value under the key `name` at any depth of `value` that `fits`.
fn find_named<'v>(
    value: &'v Value,
    name: &str,
    fits: &dyn Fn(&&Value) -> bool,
) -> Option<&'v Value> {
    find_named_except(value, name, "", "", fits)
}

/// [`find_named`], skipping the value at the JSON Pointer `except`; `at` is `value`'s own.
fn find_named_except<'v>(
    value: &'v Value,
    name: &str,
    except: &str,
    at: &str,
    fits: &dyn Fn(&&Value) -> bool,
) -> Option<&'v Value> {
    match value {
        Value::Object(m) => {
            let here = m
                .get(name)
                .filter(|_| format!("{at}/{name}") != except)
                .filter(fits);
            here.or_else(|| {
                m.iter().find_map(|(k, v)| {
                    find_named_except(v, name, except, &format!("{at}/{k}"), fits)
                })
            })
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_named_except(v, name, except, &format!("{at}/{i}"), fits)),
        _ => None,
    }
}

/// What a preview says it would do, for a tool titled `title` (`Delete an event`): `Would
/// delete an event.` Tool titles name the action, so the words fit the verb: an update is
/// not said to create anything. A title that starts with an acronym (`SQL`) keeps it.
pub fn preview_summary(title: &str) -> String {
    let mut chars = title.trim().chars();
    let Some(first) = chars.next() else {
        return "Would make the change shown.".into();
    };
    let rest = chars.as_str();
    let acronym = rest.chars().next().is_some_and(char::is_uppercase);
    let first: String = if acronym {
        first.to_string()
    } else {
        first.to_lowercase().collect()
    };
    let rest = rest.trim_end_matches('.');
    format!("Would {first}{rest}.")
}

/// Lays `over` onto `base`: objects merge key by key; a list of objects replaces a list
/// item by item, each laid over the base's item at its place (or its first), so an example
/// that gives only the items' ids still shows whole items; anything else replaces.
pub(super) fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Array(b), Value::Array(o)) => {
            let items = o
                .iter()
                .enumerate()
                .map(|(i, v)| match b.get(i).or_else(|| b.first()) {
                    Some(item @ Value::Object(_)) if v.is_object() => {
                        let mut item = item.clone();
                        merge(&mut item, v);
                        item
                    }
                    _ => v.clone(),
                })
                .collect();
            *b = items;
        }
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_base_order_and_replaces_leaves() {
        let mut base = json!({"a": {"x": 1, "y": 2}, "b": [1]});
        merge(&mut base, &json!({"a": {"y": 3}, "b": [], "c": true}));
        assert_eq!(
            serde_json::to_string(&base).unwrap_or_default(),
            r#"{"a":{"x":1,"y":3},"b":[],"c":true}"#
        );
    }

    #[test]
    fn list_items_are_laid_over_the_base_item() {
        let mut base = json!({"items": [{"id": "a", "name": "Mug"}]});
        merge(&mut base, &json!({"items": [{"id": "b"}, {"id": "c"}]}));
        assert_eq!(
            base,
            json!({"items": [{"id": "b", "name": "Mug"}, {"id": "c", "name": "Mug"}]})
        );
    }

    #[test]
    fn preview_summaries_take_the_tool_verb() {
        assert_eq!(
            preview_summary("Delete a product"),
            "Would delete a product."
        );
        assert_eq!(preview_summary("Set a price."), "Would set a price.");
        assert_eq!(preview_summary("SQL migration"), "Would SQL migration.");
        assert_eq!(preview_summary("Run SQL"), "Would run SQL.");
    }
}
