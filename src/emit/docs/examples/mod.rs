//! Worked examples: the spec's example calls played through as an agent meets them.
//!
//! A success example becomes the call and the full result the server returns (the spec's
//! partial `result` laid over a result composed from the output fields' examples, plus what
//! the runtime adds: `total` and a real signed `next_cursor`, `replayed`, the preview and its
//! apply for irreversible tools, and the `undo` call). An error example becomes the refused
//! call, the error body, and the corrected call. Validation errors come from the runtime's
//! own validator ([`crate::model::shapes`]); the other built-in codes from the runtime's own
//! constructors; spec codes from their message template and details.
//!
//! Every JSON block is tagged (see [`Step::tag`]) so tests can check each one against the
//! tool's schemas.

mod recovery;
mod results;

use crate::diagnostics::Diagnostic;
use crate::model::shapes::{input_shape, problem_codes};
use crate::model::{Example, Model, Tool, ToolSet};
use serde::Serialize;
use serde_json::Value;
use toolspec_runtime::ToolError;
use toolspec_runtime::catalog::{self, BuiltinError};
use toolspec_runtime::clock::format_rfc3339;
use toolspec_runtime::cursor::CursorKey;
use toolspec_runtime::fingerprint::fingerprint;
use toolspec_runtime::validate::{ObjectShape, prepare};

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
            example_call: tool.example_call().to_string(),
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
            let args = self.tool.example_call(); // no success example: composed from the params
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

    /// Validates `args` exactly as the generated server does ([`prepare`] over the same
    /// shapes): the arguments with defaults filled in, or the error the agent gets, whose
    /// message ends with the tool's example call.
    fn check(&self, args: &Value) -> Result<Value, ToolError> {
        prepare(self.shape, &self.example_call, args.clone())
    }

    /// A successful call and everything the server answers.
    fn success(
        &self,
        title: &str,
        args: &Value,
        overlay: Option<&Value>,
        generated: bool,
    ) -> Result<ExampleCtx, String> {
        let prepared = self.check(args).map_err(|e| {
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
        let (error, fix, new_key) = match self.check(args) {
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
        args.as_object_mut()?.shift_remove(&missing.name);
        let title = format!("A call without the required `{}`", missing.name);
        self.failure(&title, &args, catalog::MISSING_ARGUMENT.code, true)
            .ok()
    }

    fn first_success_args(&self) -> Value {
        self.tool.example_call()
    }
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
    fn fences_outgrow_backtick_runs() {
        assert_eq!(fence_for("{}"), "```");
        assert_eq!(fence_for("\"````\""), "`````");
    }
}
