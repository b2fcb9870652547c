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
    /// parameter's example (unknown ones dropped, missing ones added). If that is not
    /// enough, the arguments of the tool's first valid call that this one lacks are added;
    /// only failing that is the first valid call itself shown.
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
            return self.in_param_order(fixed);
        }
        // A rule over several arguments (`at_least_one_of`) names none to fix: add what the
        // tool's valid call passes and this one lacks, keeping this call's own values (and
        // key, which a refused call does not store).
        let mut added = args.as_object().cloned().unwrap_or_default();
        if let Value::Object(valid) = self.first_success_args() {
            for (k, v) in valid {
                if k != "idempotency_key" && !added.contains_key(&k) {
                    added.insert(k, v);
                }
            }
        }
        let added = Value::Object(added);
        if self.check(&added).is_ok() {
            self.in_param_order(added)
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

    /// The call to make after an error the tool itself returned: always the refused call,
    /// corrected, never another example's. A retryable error is answered by the same call,
    /// same key. Otherwise, in order: the value the message names (`save with base_revision
    /// {current_revision}`, see [`Self::told_fix`]); the arguments the error's details name
    /// (`event_id` of `event_not_found`) set to their parameter's example, the value the
    /// agent finds as the message says; for the runtime's own codes, what their recovery
    /// says (a fresh preview without `preview_id`, the first page without `cursor`, a new
    /// key). A keyed call gets a new key (`<old>-2`): the refused outcome is stored under the
    /// old one and would be replayed. `None` when nothing in the call can fix the error.
    pub(super) fn after_tool_error(
        &self,
        args: &Value,
        error: &ToolError,
    ) -> Option<(Value, bool)> {
        if error.retryable {
            // Retryable errors release the key: the same call, same key, is the fix.
            return Some((args.clone(), false));
        }
        let mut fix = self
            .told_fix(args, error)
            .or_else(|| self.named_fix(args, error))
            .or_else(|| self.builtin_fix(args, &error.code))?;
        let Some(old) = args.get("idempotency_key").and_then(Value::as_str) else {
            return Some((fix, false));
        };
        let m = fix.as_object_mut()?;
        m.insert("idempotency_key".into(), format!("{old}-2").into());
        let fix = self.in_param_order(fix);
        self.check(&fix).is_ok().then_some((fix, true))
    }

    /// The refused call with every spec parameter the error's details name (by its own name,
    /// or by holding its value) set to that parameter's example, when that changes the call
    /// and the result is valid.
    fn named_fix(&self, args: &Value, error: &ToolError) -> Option<Value> {
        let details = &error.details;
        let mut fixed = args.as_object()?.clone();
        let mut changed = false;
        for p in self.tool.spec_params() {
            let Some(value) = fixed.get(&p.name) else {
                continue;
            };
            // Named by its own name, or a detail holds its value (`project_id` for `id`).
            let named = details.contains_key(&p.name)
                || (value.is_string() && details.values().any(|d| d == value));
            if named && *value != p.example {
                fixed.insert(p.name.clone(), p.example.clone());
                changed = true;
            }
        }
        let fixed = Value::Object(fixed);
        (changed && self.check(&fixed).is_ok()).then_some(fixed)
    }

    /// The fix the runtime's recovery words give for its own codes, from the refused call.
    fn builtin_fix(&self, args: &Value, code: &str) -> Option<Value> {
        let mut fixed = args.as_object()?.clone();
        match code {
            "preview_not_found" | "preview_expired" | "preview_used" | "preview_mismatch" => {
                fixed.shift_remove("preview_id")?;
            }
            "invalid_cursor" => {
                fixed.shift_remove("cursor")?;
            }
            // The new key is all it takes (added by the caller).
            "idempotency_key_reused" => {}
            _ => return None,
        }
        Some(Value::Object(fixed))
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
            let details = details_from(&spec.details, args, &self.tool.params);
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
/// detail's type; else from the argument whose parameter has the detail's example (a
/// `project_id` detail about the `id` argument), so the message names the value the call
/// passed; else the detail's example.
pub(super) fn details_from(
    details: &[Field],
    args: &Value,
    params: &[Field],
) -> Map<String, Value> {
    details
        .iter()
        .map(|d| {
            let fits = |v: &&Value| check_value(v, &d.ty, &d.name).is_empty();
            let value = args
                .get(&d.name)
                .filter(fits)
                .or_else(|| {
                    params
                        .iter()
                        .filter(|p| p.example == d.example && !d.example.is_null())
                        .find_map(|p| args.get(&p.name).filter(fits))
                })
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
