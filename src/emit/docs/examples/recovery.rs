//! Recovery after a refused call: the error body the agent gets, and the call it makes next.
//!
//! Validation errors are the runtime's own (see [`super::Examples::check`]); errors the tool
//! itself returns are built from the spec's catalog (message template, details) or, for the
//! built-in codes raised after validation, from the runtime's constructors. The corrected
//! call follows the error: the arguments it names fixed, or the value its message names.

use super::{Examples, NOW_MS};
use crate::model::Field;
use crate::model::values::check_value;
use serde_json::{Map, Value};
use toolspec_runtime::ToolError;
use toolspec_runtime::catalog::{self, BuiltinError};
use toolspec_runtime::clock::format_rfc3339;
// The runtime's own template filling, so the docs show the very message the server sends.
use toolspec_runtime::engine::glue::fill_template;
use toolspec_runtime::fingerprint::fingerprint;

impl Examples<'_> {
    /// The call fixed as the error says: every argument a problem names replaced by its
    /// parameter's example (unknown ones dropped, missing ones added). Falls back to the
    /// tool's first valid call if that is not enough.
    pub(super) fn repair(&self, args: &Value, error: &ToolError) -> Value {
        let mut fixed = args.as_object().cloned().unwrap_or_default();
        let problems = error
            .details
            .get("problems")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for p in &problems {
            let Some(path) = p.get("path").and_then(Value::as_str) else {
                continue;
            };
            let top = path.trim_start_matches('/').split('/').next().unwrap_or("");
            let top = top.replace("~1", "/").replace("~0", "~");
            match self.tool.param(&top) {
                Some(param) => {
                    fixed.insert(top, param.example.clone());
                }
                None => {
                    fixed.shift_remove(&top);
                }
            }
        }
        let fixed = Value::Object(fixed);
        if self.check(&fixed).is_ok() {
            self.in_param_order(fixed)
        } else {
            self.first_success_args()
        }
    }

    /// `args` with its keys in the order of the tool's parameters (others last), so an added
    /// argument sits where the agent would write it.
    pub(super) fn in_param_order(&self, args: Value) -> Value {
        let Value::Object(mut m) = args else {
            return args;
        };
        let mut out = Map::new();
        for p in &self.tool.params {
            if let Some(v) = m.shift_remove(&p.name) {
                out.insert(p.name.clone(), v);
            }
        }
        out.extend(m);
        Value::Object(out)
    }

    /// The call to make after an error the tool itself returned. When the message names the
    /// value to pass (`save with base_revision {current_revision}`), the refused call with that
    /// value; else the tool's first valid example. Either way with a fresh idempotency key: a
    /// non-retryable outcome is stored under the old one and would be replayed.
    pub(super) fn after_tool_error(&self, args: &Value, error: &ToolError) -> (Value, bool) {
        if error.retryable {
            // Retryable errors release the key: the same call, same key, is the fix.
            return (args.clone(), false);
        }
        let mut fix = self
            .told_fix(args, error)
            .unwrap_or_else(|| self.first_success_args());
        let Some(old) = args.get("idempotency_key").and_then(Value::as_str) else {
            return (fix, false);
        };
        let Some(m) = fix.as_object_mut() else {
            return (fix, false);
        };
        if m.get("idempotency_key").and_then(Value::as_str) == Some(old) {
            m.insert("idempotency_key".into(), format!("{old}-2").into());
        }
        (fix, true)
    }

    /// The refused call with every parameter its error message names followed by a
    /// placeholder (`base_revision {current_revision}`) set to that detail, if any is and the
    /// result is a valid call.
    pub(super) fn told_fix(&self, args: &Value, error: &ToolError) -> Option<Value> {
        let template = &self.toolset.error(&error.code)?.message;
        let mut fixed = args.as_object()?.clone();
        let mut changed = false;
        for p in self.tool.spec_params() {
            let needle = format!("{} {{", p.name);
            // The whole name: `revision {` inside `base_revision {` is not about `revision`.
            let Some((at, _)) = template.match_indices(&needle).find(|(i, _)| {
                template[..*i]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric() && c != '_')
            }) else {
                continue;
            };
            let rest = &template[at + p.name.len() + 2..];
            let detail = &rest[..rest.find('}')?];
            if let Some(v) = error.details.get(detail)
                && check_value(v, &p.ty, &p.name).is_empty()
            {
                fixed.insert(p.name.clone(), v.clone());
                changed = true;
            }
        }
        let fixed = Value::Object(fixed);
        (changed && self.check(&fixed).is_ok()).then_some(fixed)
    }

    /// The error a call that passed validation gets, for `code`: spec codes from their
    /// template and details, built-in codes from the runtime's constructors.
    pub(super) fn error_body(&self, code: &str, args: &Value) -> ToolError {
        let name = self.tool.name.text.as_str();
        let arg = |key: &str, fallback: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .unwrap_or(fallback)
                .to_string()
        };
        if let Some(spec) = self.toolset.error(code).filter(|e| !e.builtin) {
            let details = details_from(&spec.details, args);
            let message = fill_template(&spec.message, &details);
            return ToolError::new(spec.code.clone(), message, spec.retryable, details.into());
        }
        let key = arg("idempotency_key", "k-7f3a");
        let preview_id = arg("preview_id", "pv_3q9d0c2b7e1f4a6b8c5d");
        match code {
            "idempotency_key_reused" => ToolError::idempotency_key_reused(name, &key),
            "idempotency_in_progress" => ToolError::idempotency_in_progress(
                name,
                &key,
                i64::try_from(toolspec_runtime::engine::DEFAULT_LEASE.as_millis())
                    .unwrap_or(i64::MAX),
            ),
            "preview_not_found" => ToolError::preview_not_found(name, &preview_id),
            "preview_expired" => {
                ToolError::preview_expired(name, &preview_id, &format_rfc3339(NOW_MS))
            }
            "preview_used" => ToolError::preview_used(name, &preview_id),
            "preview_mismatch" => ToolError::preview_mismatch(name, &preview_id),
            "invalid_cursor" => {
                let cursor = arg("cursor", "not-a-cursor");
                match self.cursors.decode(name, &fingerprint(args), &cursor) {
                    Err(e) => e,
                    Ok(_) => generic(&catalog::INVALID_CURSOR),
                }
            }
            "unknown_tool" => {
                let names: Vec<&str> = self.toolset.tools.iter().map(|t| t.name.as_str()).collect();
                ToolError::unknown_tool(name, &names)
            }
            other => match catalog::find(other) {
                Some(entry) => generic(entry),
                None => ToolError::new(other.to_string(), other.to_string(), false, Value::Null),
            },
        }
    }
}

/// A built-in error with its catalog recovery as the message, for codes the runtime raises
/// from places the docs cannot replay (an internal failure).
pub(super) fn generic(entry: &BuiltinError) -> ToolError {
    ToolError::builtin(entry, entry.recovery, Value::Null)
}

/// An error's details: each from the call's argument of the same name when that fits the
/// detail's type, else the detail's example.
pub(super) fn details_from(details: &[Field], args: &Value) -> Map<String, Value> {
    details
        .iter()
        .map(|d| {
            let value = args
                .get(&d.name)
                .filter(|v| check_value(v, &d.ty, &d.name).is_empty())
                .cloned()
                .unwrap_or_else(|| d.example.clone());
            (d.name.clone(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_fill_as_the_runtime_does() {
        let d: Map<String, Value> =
            serde_json::from_value(json!({"id": "T-1", "n": 3})).unwrap_or_default();
        assert_eq!(fill_template("No {id} ({n}). See {x}.", &d), "No T-1 (3).");
        assert_eq!(fill_template("{", &d), "{");
    }
}
