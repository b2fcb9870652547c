//! The full result of a successful call, as the server returns it.
//!
//! The tool's own fields come from their examples, echo the call where names match, and
//! take the spec example's partial `result` on top (laid over as `check` judged it:
//! [`lay_over`]); then come what the runtime adds: `total`
//! and a signed `next_cursor` for pages, `replayed` for keyed writes, `applied` and the
//! preview for irreversible tools, and the `undo` call of reversible ones.

use super::Examples;
use crate::model::values::{check_value, lay_over};
use crate::model::{Kind, Origin, Type};
use serde_json::{Map, Value, json};
use toolspec_runtime::engine::undo_key;
use toolspec_runtime::fingerprint::fingerprint;

impl Examples<'_> {
    /// An irreversible tool's answer to a call without `preview_id`.
    pub(super) fn preview_result(&self, args: &Value, preview_id: &str, expires_at: &str) -> Value {
        let mut preview = Map::new();
        preview.insert("preview_id".into(), preview_id.into());
        preview.insert("expires_at".into(), expires_at.into());
        if let Some(f) = self.tool.output_field("preview")
            && let Kind::Object { fields, .. } = &f.ty.kind
        {
            for field in fields {
                if preview.contains_key(&field.name) {
                    continue;
                }
                // The preview's own fields usually echo the call (`title`, `amount`).
                let value = args
                    .get(&field.name)
                    .filter(|v| check_value(v, &field.ty, &field.name).is_empty())
                    .cloned()
                    .unwrap_or_else(|| field.example.clone());
                preview.insert(field.name.clone(), value);
            }
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
        echo(&mut spec_part, &spec_type, prepared);
        if let Some(o) = overlay {
            spec_part = lay_over(&spec_part, o, &spec_type);
        }
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
        result
    }

    /// `next_cursor` when the page does not hold every match, signed as the runtime signs it.
    pub(super) fn add_next_cursor(&self, prepared: &Value, result: &mut Value) {
        let Some(paging) = &self.tool.paging else {
            return;
        };
        let shown = result
            .get(&paging.items.text)
            .and_then(Value::as_array)
            .map_or(0, Vec::len) as u64;
        let total = result.get("total").and_then(Value::as_u64).unwrap_or(0);
        if shown == 0 || shown >= total {
            return;
        }
        let cursor = self
            .cursors
            .encode(&self.tool.name.text, &fingerprint(prepared), shown);
        let mut entries: Vec<(String, Value)> = match std::mem::take(result) {
            Value::Object(m) => m.into_iter().collect(),
            _ => Vec::new(),
        };
        // Right after `total`, where the output table lists it.
        let at = entries
            .iter()
            .position(|(k, _)| k == "total")
            .map_or(entries.len(), |i| i + 1);
        entries.insert(at, ("next_cursor".into(), cursor.into()));
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

/// Sets every string field of `value` (at any depth) that has the name of an argument to
/// that argument's value, when it fits the field's type: a ticket set to `closed` comes back
/// `closed`, a search by status returns items of that status. Only strings: a number of the
/// same name is often another quantity (the revision restored is not the new revision).
pub(super) fn echo(value: &mut Value, ty: &Type, args: &Value) {
    match (&ty.kind, value) {
        (Kind::Object { fields, .. }, Value::Object(m)) => {
            for f in fields {
                let Some(slot) = m.get_mut(&f.name) else {
                    continue;
                };
                match (&f.ty.kind, args.get(&f.name)) {
                    (Kind::String(_), Some(arg)) if check_value(arg, &f.ty, &f.name).is_empty() => {
                        *slot = arg.clone();
                    }
                    _ => echo(slot, &f.ty, args),
                }
            }
        }
        (Kind::Array { items, .. }, Value::Array(a)) => {
            for v in a {
                echo(v, items, args);
            }
        }
        _ => {}
    }
}
