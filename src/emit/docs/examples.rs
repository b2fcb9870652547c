//! Worked examples: the spec's example calls played through as an agent meets them.
//!
//! A success example becomes the call and the full result the server returns (the spec's
//! partial `result` laid over a result composed from the output fields' examples, plus what
//! the runtime adds: `total` and a real signed `next_cursor`, `replayed`, the preview and its
//! apply for irreversible tools, and the `undo` call). An error example becomes the refused
//! call, the error body, and the corrected call. Validation errors come from the runtime's
//! own validator ([`super::shapes`]); the other built-in codes from the runtime's own
//! constructors; spec codes from their message template and details.
//!
//! Every JSON block is tagged (see [`Step::tag`]) so tests can check each one against the
//! tool's schemas.

use super::shapes::{check_call, input_shape, problem_codes};
use crate::diagnostics::Diagnostic;
use crate::model::values::check_value;
use crate::model::{Example, Field, Kind, Model, Origin, Tool, ToolSet, Type};
use serde::Serialize;
use serde_json::{Map, Value, json};
use toolspec_runtime::ToolError;
use toolspec_runtime::catalog::{self, BuiltinError};
use toolspec_runtime::clock::format_rfc3339;
use toolspec_runtime::cursor::CursorKey;
use toolspec_runtime::engine::undo_key;
use toolspec_runtime::fingerprint::fingerprint;
use toolspec_runtime::validate::ObjectShape;

/// The moment examples happen (2026-11-30T10:00:00Z), so expiry times are stable.
const NOW_MS: i64 = 1_796_032_800_000;

/// The key that signs example cursors: fixed, so pages are byte-stable. Real servers use a
/// secret key; the cursor's shape and length are the same.
const CURSOR_SECRET: &[u8] = b"toolspec docs example cursors";

/// The built-in codes the validator returns.
pub const VALIDATION_CODES: &[&BuiltinError] = &[
    &catalog::INVALID_ARGUMENTS,
    &catalog::MISSING_ARGUMENT,
    &catalog::UNKNOWN_ARGUMENT,
    &catalog::INVALID_TYPE,
    &catalog::INVALID_ENUM,
    &catalog::OUT_OF_RANGE,
    &catalog::INVALID_LENGTH,
    &catalog::PATTERN_MISMATCH,
    &catalog::INVALID_FORMAT,
];

fn is_validation(code: &str) -> bool {
    VALIDATION_CODES.iter().any(|e| e.code == code)
}

/// One worked example of a tool page.
#[derive(Debug, Clone, Serialize)]
pub struct ExampleCtx {
    /// The spec's title of the example.
    pub title: String,
    /// `success` or `error`.
    pub outcome: &'static str,
    /// The error code shown, for error examples.
    pub code: Option<String>,
    /// True when the spec has no example of this outcome and the docs made one up from
    /// the fields' examples (the page says so).
    pub generated: bool,
    /// The calls and answers, in order.
    pub steps: Vec<Step>,
}

/// One JSON block of a worked example and what it is.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// What the block is: `call` (a valid call), `refused_call` (a call the server refuses),
    /// `preview` (an irreversible tool's preview result), `apply` (the call that applies a
    /// preview), `result`, `error` (an error body), `fix` (the corrected call), `undo`
    /// (the call in the result's `undo`), `retry` (the same call again, after a retryable
    /// error).
    pub kind: &'static str,
    /// The tool called or answering.
    pub tool: String,
    /// The HTML comment before the block, which tests read: `call: TOOL`,
    /// `call: TOOL refused: CODE`, `result: TOOL`, `error: TOOL`.
    pub tag: String,
    /// The JSON, pretty-printed.
    pub json: String,
    /// The code fence: three backticks, or more if the JSON holds a run of them.
    pub fence: String,
    /// For `fix` after a spec (non-validation) error on a tool with idempotency keys: the
    /// corrected call uses a new key, since the failed outcome is stored under the old one.
    pub new_key: bool,
}

/// Builds the worked examples of one tool.
pub struct Examples<'a> {
    model: &'a Model,
    toolset: &'a ToolSet,
    tool: &'a Tool,
    shape: &'static ObjectShape,
    example_call: String,
    cursors: CursorKey,
}

impl<'a> Examples<'a> {
    /// Prepares the examples of `tool` of `toolset`.
    pub fn new(model: &'a Model, toolset: &'a ToolSet, tool: &'a Tool) -> Self {
        Examples {
            model,
            toolset,
            tool,
            shape: input_shape(tool),
            example_call: example_call(tool).to_string(),
            cursors: CursorKey::from_bytes(CURSOR_SECRET),
        }
    }

    /// Every worked example: the spec's, in order, plus a generated success or error example
    /// when the spec has none of that outcome. Spec examples the runtime would not answer as
    /// the spec says are reported instead of shown.
    pub fn build(&self) -> (Vec<ExampleCtx>, Vec<Diagnostic>) {
        let mut out = Vec::new();
        let mut diags = Vec::new();
        for ex in &self.tool.examples {
            let built = match &ex.error {
                None => self.success(&ex.title.text, &ex.arguments, ex.result.as_ref(), false),
                Some(code) => self.failure(&ex.title.text, &ex.arguments, &code.text, false),
            };
            match built {
                Ok(e) => out.push(e),
                Err(msg) => diags.push(example_diagnostic(ex, msg)),
            }
        }
        if !self.tool.examples.iter().any(|e| e.error.is_none()) {
            let args = composed_call(self.tool);
            if let Ok(e) = self.success("A call with the parameters' examples", &args, None, true) {
                out.insert(0, e);
            }
        }
        if !self.tool.examples.iter().any(|e| e.error.is_some())
            && let Some(e) = self.generated_failure()
        {
            out.push(e);
        }
        (out, diags)
    }

    /// A successful call and everything the server answers.
    fn success(
        &self,
        title: &str,
        args: &Value,
        overlay: Option<&Value>,
        generated: bool,
    ) -> Result<ExampleCtx, String> {
        let prepared = check_call(self.shape, &self.example_call, args).map_err(|e| {
            format!(
                "the server refuses this call with `{}`: {}",
                e.code, e.message
            )
        })?;
        let name = &self.tool.name.text;
        let mut steps = vec![step("call", name, format!("call: {name}"), args)];
        let result = if let Some(preview) = &self.tool.preview {
            let fp = fingerprint(&prepared);
            let preview_id = format!("pv_{}", &fp[..32.min(fp.len())]);
            let expires = NOW_MS.saturating_add(
                i64::try_from(preview.ttl.as_secs().saturating_mul(1000)).unwrap_or(i64::MAX),
            );
            let shown = self.preview_result(&prepared, &preview_id, &format_rfc3339(expires));
            steps.push(step("preview", name, format!("result: {name}"), &shown));
            let mut apply = args.clone();
            if let Value::Object(m) = &mut apply {
                m.insert("preview_id".into(), preview_id.into());
            }
            steps.push(step("apply", name, format!("call: {name}"), &apply));
            self.result(&prepared, overlay)
        } else {
            self.result(&prepared, overlay)
        };
        steps.push(step("result", name, format!("result: {name}"), &result));
        if let Some(Value::Object(undo)) = result.get("undo")
            && let (Some(Value::String(tool)), Some(arguments)) =
                (undo.get("tool"), undo.get("arguments"))
        {
            steps.push(step("undo", tool, format!("call: {tool}"), arguments));
        }
        Ok(ExampleCtx {
            title: title.to_string(),
            outcome: "success",
            code: None,
            generated,
            steps,
        })
    }

    /// A refused call, its error body and the corrected call.
    fn failure(
        &self,
        title: &str,
        args: &Value,
        expected: &str,
        generated: bool,
    ) -> Result<ExampleCtx, String> {
        let name = &self.tool.name.text;
        let (error, fix, new_key) = match check_call(self.shape, &self.example_call, args) {
            Err(error) => {
                let codes = problem_codes(self.shape, args);
                if error.code != expected && !codes.contains(&expected) {
                    return Err(format!(
                        "the example expects `{expected}`, but the server answers `{}`: {}",
                        error.code, error.message
                    ));
                }
                let fix = self.repair(args, &error);
                (error, fix, false)
            }
            Ok(prepared) => {
                if is_validation(expected) {
                    return Err(format!(
                        "the example expects `{expected}`, but the server accepts these arguments"
                    ));
                }
                let error = self.error_body(expected, &prepared);
                let (fix, new_key) = self.after_tool_error(args, &error);
                (error, fix, new_key)
            }
        };
        let code = error.code.to_string();
        // A retryable error is answered by the same call, later; anything else by a fix.
        let kind = if error.retryable { "retry" } else { "fix" };
        let mut fix_step = step(kind, name, format!("call: {name}"), &fix);
        fix_step.new_key = new_key;
        Ok(ExampleCtx {
            title: title.to_string(),
            outcome: "error",
            code: Some(code.clone()),
            generated,
            steps: vec![
                step(
                    "refused_call",
                    name,
                    format!("call: {name} refused: {code}"),
                    args,
                ),
                step("error", name, format!("error: {name}"), &error.to_value()),
                fix_step,
            ],
        })
    }

    /// The mistake agents make most, for a tool whose spec shows no error: a required
    /// argument left out of an otherwise valid call.
    fn generated_failure(&self) -> Option<ExampleCtx> {
        let missing = self.tool.spec_params().find(|f| f.required)?;
        let mut args = self.first_success_args();
        args.as_object_mut()?.remove(&missing.name);
        let title = format!("A call without the required `{}`", missing.name);
        self.failure(&title, &args, catalog::MISSING_ARGUMENT.code, true)
            .ok()
    }

    fn first_success_args(&self) -> Value {
        self.tool
            .examples
            .iter()
            .find(|e| e.error.is_none())
            .map(|e| e.arguments.clone())
            .unwrap_or_else(|| composed_call(self.tool))
    }

    /// The call fixed as the error says: every argument a problem names replaced by its
    /// parameter's example (unknown ones dropped, missing ones added). Falls back to the
    /// tool's first valid call if that is not enough.
    fn repair(&self, args: &Value, error: &ToolError) -> Value {
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
                    fixed.remove(&top);
                }
            }
        }
        let fixed = Value::Object(fixed);
        if check_call(self.shape, &self.example_call, &fixed).is_ok() {
            fixed
        } else {
            self.first_success_args()
        }
    }

    /// The call to make after an error the tool itself returned: the first valid example,
    /// with a fresh idempotency key if it would reuse the refused call's (a non-retryable
    /// outcome is stored under that key and would be replayed).
    fn after_tool_error(&self, args: &Value, error: &ToolError) -> (Value, bool) {
        if error.retryable {
            // Retryable errors release the key: the same call, same key, is the fix.
            return (args.clone(), false);
        }
        let mut fix = self.first_success_args();
        let old = args.get("idempotency_key").and_then(Value::as_str);
        let Some(old) = old else {
            return (fix, false);
        };
        if let Some(m) = fix.as_object_mut() {
            if m.get("idempotency_key").and_then(Value::as_str) == Some(old) {
                m.insert("idempotency_key".into(), format!("{old}-2").into());
            }
            return (fix, true);
        }
        (fix, false)
    }

    /// The error a call that passed validation gets, for `code`: spec codes from their
    /// template and details, built-in codes from the runtime's constructors.
    fn error_body(&self, code: &str, args: &Value) -> ToolError {
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
            "idempotency_in_progress" => ToolError::idempotency_in_progress(name, &key),
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

    /// An irreversible tool's answer to a call without `preview_id`.
    fn preview_result(&self, args: &Value, preview_id: &str, expires_at: &str) -> Value {
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
                    .filter(|v| check_value(v, &field.ty, "").is_empty())
                    .cloned()
                    .unwrap_or_else(|| field.example.clone());
                preview.insert(field.name.clone(), value);
            }
        }
        json!({ "applied": false, "preview": preview })
    }

    /// The full result of a successful call (for irreversible tools: of the apply).
    fn result(&self, prepared: &Value, overlay: Option<&Value>) -> Value {
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
        });
        echo(&mut spec_part, &spec_type, prepared);
        if let Some(o) = overlay {
            merge(&mut spec_part, o);
        }
        let Value::Object(mut given) = spec_part else {
            return spec_part;
        };
        let mut out = Map::new();
        for f in &self.tool.output {
            if let Some(v) = given.remove(&f.name) {
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
    fn add_next_cursor(&self, prepared: &Value, result: &mut Value) {
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
    fn add_undo(&self, prepared: &Value, result: &mut Value) {
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

/// The valid call that ends every validation message of `tool`, as its generated server
/// passes it: the first success example's arguments, else one composed from the examples
/// of its required parameters.
pub fn example_call(tool: &Tool) -> Value {
    tool.examples
        .iter()
        .find(|e| e.error.is_none())
        .map(|e| e.arguments.clone())
        .unwrap_or_else(|| composed_call(tool))
}

/// A call with every required parameter set to its example.
fn composed_call(tool: &Tool) -> Value {
    Value::Object(
        tool.params
            .iter()
            .filter(|f| f.required)
            .map(|f| (f.name.clone(), f.example.clone()))
            .collect(),
    )
}

fn step(kind: &'static str, tool: &str, tag: String, value: &Value) -> Step {
    let json = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".into());
    Step {
        kind,
        tool: tool.to_string(),
        tag,
        fence: fence_for(&json),
        json,
        new_key: false,
    }
}

/// A code fence longer than any run of backticks inside `text`.
pub fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat(longest.max(2) + 1)
}

/// A built-in error with its catalog recovery as the message, for codes the runtime raises
/// from places the docs cannot replay (an internal failure).
fn generic(entry: &BuiltinError) -> ToolError {
    ToolError::builtin(entry, entry.recovery, Value::Null)
}

/// An error's details: each from the call's argument of the same name when that fits the
/// detail's type, else the detail's example.
fn details_from(details: &[Field], args: &Value) -> Map<String, Value> {
    details
        .iter()
        .map(|d| {
            let value = args
                .get(&d.name)
                .filter(|v| check_value(v, &d.ty, "").is_empty())
                .cloned()
                .unwrap_or_else(|| d.example.clone());
            (d.name.clone(), value)
        })
        .collect()
}

/// A message template with its `{placeholders}` filled from `details` (strings bare,
/// anything else as JSON), as generated code formats it.
fn fill_template(template: &str, details: &Map<String, Value>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if details.contains_key(&after[..close]) => {
                match &details[&after[..close]] {
                    Value::String(s) => out.push_str(s),
                    other => out.push_str(&other.to_string()),
                }
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `value` without the fields only detailed responses carry, at every depth.
fn strip(value: &Value, ty: &Type, detailed: bool) -> Value {
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
fn echo(value: &mut Value, ty: &Type, args: &Value) {
    match (&ty.kind, value) {
        (Kind::Object { fields, .. }, Value::Object(m)) => {
            for f in fields {
                let Some(slot) = m.get_mut(&f.name) else {
                    continue;
                };
                match (&f.ty.kind, args.get(&f.name)) {
                    (Kind::String(_), Some(arg)) if check_value(arg, &f.ty, "").is_empty() => {
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

/// Lays `over` onto `base`: objects merge key by key, anything else replaces.
fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
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

fn example_diagnostic(ex: &Example, msg: String) -> Diagnostic {
    Diagnostic::error(
        "docs-example",
        ex.span,
        format!("example `{}` cannot be documented: {msg}", ex.title.text),
    )
    .label("the docs show what the server does with this example")
    .help("change the example's arguments or its expected `error:` so they match what the server does")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_time_is_the_documented_moment() {
        assert_eq!(format_rfc3339(NOW_MS), "2026-11-30T10:00:00Z");
    }

    #[test]
    fn templates_fill_known_placeholders_only() {
        let d: Map<String, Value> =
            serde_json::from_value(json!({"id": "T-1", "n": 3})).unwrap_or_default();
        assert_eq!(fill_template("No {id} ({n}) {x}", &d), "No T-1 (3) {x}");
        assert_eq!(fill_template("{", &d), "{");
    }

    #[test]
    fn fences_outgrow_backtick_runs() {
        assert_eq!(fence_for("{}"), "```");
        assert_eq!(fence_for("\"````\""), "`````");
    }

    #[test]
    fn merge_keeps_base_order_and_replaces_leaves() {
        let mut base = json!({"a": {"x": 1, "y": 2}, "b": [1]});
        merge(&mut base, &json!({"a": {"y": 3}, "b": [], "c": true}));
        assert_eq!(
            serde_json::to_string(&base).unwrap_or_default(),
            r#"{"a":{"x":1,"y":3},"b":[],"c":true}"#
        );
    }
}
