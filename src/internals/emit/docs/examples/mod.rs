//! Worked examples: the spec's example calls played through as an agent meets them.
//!
//! A success example becomes the call and the full result the server returns (the spec's
//! partial `result` laid over a result composed from the call and the output fields'
//! examples, plus what the runtime adds: `total` and a real signed `next_cursor`,
//! `replayed`, the preview of this very call and its apply for previewed tools, and the
//! `undo` call, applied through its own preview when the undo tool is previewed). An error
//! example becomes the refused call, the error body, and that call corrected (or, when
//! nothing in the call can fix it, no other call). Validation errors come from the runtime's
//! own validator ([`crate::model::shapes`]); the other built-in codes from the runtime's own
//! constructors; spec codes from their message template and details.
//!
//! Every JSON block is tagged (see [`Step::tag`]) so tests can check each one against the
//! tool's schemas.

mod recovery;
mod results;

pub use results::preview_summary;

use crate::diagnostics::Diagnostic;
use crate::model::shapes::{input_shape, problem_codes};
use crate::model::{Content, Example, Kind, Model, Tool, ToolSet};
use serde::Serialize;
use serde_json::Value;
use toolspec_runtime::ToolError;
use toolspec_runtime::catalog::{self, BuiltinError};
use toolspec_runtime::clock::format_rfc3339;
use toolspec_runtime::content::{self, ContentKind};
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
    /// (the call in the result's `undo`), `undo_apply` (when the undo tool is previewed:
    /// the undo call plus the `preview_id` of the preview it answered with),
    /// `retry` (the same call again, after a retryable error), `content` (the content
    /// blocks beside a result).
    pub kind: &'static str,
    /// The tool called or answering.
    pub tool: String,
    /// The HTML comment before the block, which tests read: `call: TOOL`,
    /// `call: TOOL refused: CODE`, `result: TOOL`, `error: TOOL`, `content: TOOL`.
    pub tag: String,
    /// The JSON, pretty-printed.
    pub json: String,
    /// The code fence: three backticks, or more if the JSON holds a run of them.
    pub fence: String,
    /// For `fix` after a spec (non-validation) error on a tool with idempotency keys: the
    /// corrected call uses a new key, since the failed outcome is stored under the old one.
    pub new_key: bool,
    /// For `fix`: the arguments it sets otherwise than the refused call (the key aside), so
    /// the page says what was corrected.
    pub corrected: Vec<String>,
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
                None => self.success(
                    &ex.title.text,
                    &ex.arguments,
                    (ex.result.as_ref(), ex.preview.as_ref()),
                    false,
                ),
                Some(code) => self.failure(&ex.title.text, &ex.arguments, &code.text, false),
            };
            match built {
                Ok(e) => out.push(e),
                Err(msg) => diags.push(example_diagnostic(ex, msg)),
            }
        }
        if !self.tool.examples.iter().any(|e| e.error.is_none()) {
            let args = self.tool.example_call(); // no success example: composed from the params
            let title = "A call with the parameters' examples";
            if let Ok(e) = self.success(title, &args, (None, None), true) {
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

    /// A successful call and everything the server answers: for a previewed tool the
    /// preview of this call (the spec example's `preview` over what the call and its result
    /// show) and the apply; then the result (the example's `result` over one composed from
    /// the call); then the call in its `undo`, and when the undo tool is previewed too, the
    /// preview that call answers with, since it reverts nothing until applied.
    fn success(
        &self,
        title: &str,
        args: &Value,
        (overlay, preview_overlay): (Option<&Value>, Option<&Value>),
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
        let result = self.result(&prepared, overlay);
        if let Some((preview, apply)) =
            self.preview_steps(args, &prepared, &result, preview_overlay)
        {
            steps.push(step("preview", name, format!("result: {name}"), &preview));
            steps.push(step("apply", name, format!("call: {name}"), &apply));
        }
        let (structured, blocks) = self.split_content(result.clone());
        steps.push(step("result", name, format!("result: {name}"), &structured));
        if let Some(blocks) = blocks {
            steps.push(step("content", name, format!("content: {name}"), &blocks));
        }
        if let Some(Value::Object(undo)) = result.get("undo")
            && let (Some(Value::String(tool)), Some(arguments)) =
                (undo.get("tool"), undo.get("arguments"))
        {
            steps.push(step("undo", tool, format!("call: {tool}"), arguments));
            if let Some((owner, undo_tool)) = self.model.tool(tool)
                && undo_tool.preview.is_some()
                && undo_tool.low_risk.is_none()
            {
                // The revert's preview itself is not shown: what it holds (the price now, the
                // guests it would email) depends on state the example does not give, and a
                // page must not make it up. The apply call is only the undo plus its id.
                let other = Examples::new(self.model, owner, undo_tool);
                if let Ok(undo_prepared) = other.check(arguments)
                    && let Some((_, apply)) = other.preview_steps(
                        arguments,
                        &undo_prepared,
                        &Value::Object(serde_json::Map::new()),
                        None,
                    )
                {
                    steps.push(step("undo_apply", tool, format!("call: {tool}"), &apply));
                }
            }
        }
        Ok(ExampleCtx {
            title: title.to_string(),
            outcome: "success",
            code: None,
            generated,
            steps,
        })
    }

    /// `result` as the client gets it: the structured result without the outputs that move
    /// to content blocks (images, audio, text; a resource link is copied), and those
    /// blocks, taken out by the runtime's own [`content::extract`].
    fn split_content(&self, mut result: Value) -> (Value, Option<Value>) {
        let fields: Vec<(&str, ContentKind)> = self
            .tool
            .spec_output()
            .filter_map(|f| match f.ty.kind {
                Kind::Content(Content::Image | Content::Audio) => {
                    Some((f.name.as_str(), ContentKind::Media))
                }
                Kind::Content(Content::Text) => Some((f.name.as_str(), ContentKind::Text)),
                Kind::Content(Content::ResourceLink) => Some((f.name.as_str(), ContentKind::Link)),
                _ => None,
            })
            .collect();
        content::extract(&mut result, &fields);
        let blocks = result
            .as_object_mut()
            .and_then(|m| m.shift_remove(content::CONTENT_KEY));
        (result, blocks)
    }

    /// For a previewed tool: the preview a call with `args` gets and the call that applies
    /// it (`args` plus its `preview_id`); `applied` is the result the apply returns.
    fn preview_steps(
        &self,
        args: &Value,
        prepared: &Value,
        applied: &Value,
        overlay: Option<&Value>,
    ) -> Option<(Value, Value)> {
        let preview = self.tool.preview.as_ref()?;
        if self.tool.low_risk.is_some() {
            return None;
        }
        let fp = fingerprint(prepared);
        let preview_id = format!("pv_{}", &fp[..32.min(fp.len())]);
        let expires = NOW_MS.saturating_add(
            i64::try_from(preview.ttl.as_secs().saturating_mul(1000)).unwrap_or(i64::MAX),
        );
        let shown = self.preview_result(
            prepared,
            applied,
            overlay,
            (&preview_id, &format_rfc3339(expires)),
        );
        let mut apply = args.clone();
        if let Value::Object(m) = &mut apply {
            m.insert("preview_id".into(), preview_id.into());
        }
        Some((shown, apply))
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
                (error, Some(fix), false)
            }
            Ok(prepared) => {
                if is_validation(expected) {
                    return Err(format!(
                        "the example expects `{expected}`, but the server accepts these arguments"
                    ));
                }
                let error = self.error_body(expected, &prepared);
                match self.after_tool_error(args, &error) {
                    Some((fix, new_key)) => (error, Some(fix), new_key),
                    None => (error, None, false),
                }
            }
        };
        let code = error.code.to_string();
        // A retryable error is answered by the same call, later; anything else by a fix.
        let kind = if error.retryable { "retry" } else { "fix" };
        let mut steps = vec![
            step(
                "refused_call",
                name,
                format!("call: {name} refused: {code}"),
                args,
            ),
            step("error", name, format!("error: {name}"), &error.to_value()),
        ];
        // Without a fix the page says the call cannot be mended, and shows no other call.
        if let Some(fix) = fix {
            let mut fix_step = step(kind, name, format!("call: {name}"), &fix);
            fix_step.new_key = new_key;
            fix_step.corrected = fix
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, v)| *k != "idempotency_key" && args.get(k.as_str()) != Some(v))
                .map(|(k, _)| k.clone())
                .collect();
            steps.push(fix_step);
        }
        Ok(ExampleCtx {
            title: title.to_string(),
            outcome: "error",
            code: Some(code.clone()),
            generated,
            steps,
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
        corrected: Vec::new(),
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
