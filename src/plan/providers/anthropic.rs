//! Anthropic Messages API tool definitions: `{"name", "description", "input_schema"}`.
//!
//! These are non-strict tools. Anthropic's `strict: true` mode refuses numeric bounds and
//! string lengths and caps a request at 20 strict tools and 24 optional parameters; the spec
//! format has no switch for it, and dropping those rules would lose facts the standard schema
//! carries, so the standard profile is used as it is. The input schema is the same one MCP
//! clients receive.
//!
//! `input_examples` are the spec's example calls that succeed, exactly as an agent passes
//! them (Anthropic reports tool-use accuracy on complex parameters rising from 72% to 90%
//! with them); each is valid against `input_schema`, as `check` and the schema tests hold.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::{Tool, ToolSet};
use crate::plan::providers::Prepared;
use serde::Serialize;
use serde_json::Value;

/// Longest tool name Anthropic allows.
pub const MAX_NAME: usize = 64;

/// One entry of the Messages API `tools` array.
#[derive(Debug, Serialize)]
pub struct AnthropicTool<'a> {
    /// Tool name.
    pub name: &'a str,
    /// The description agents read.
    pub description: &'a str,
    /// Arguments schema (standard profile, as MCP).
    pub input_schema: &'a Value,
    /// The spec's successful example calls, left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub input_examples: Vec<&'a Value>,
}

impl<'a> From<&'a Prepared<'a>> for AnthropicTool<'a> {
    fn from(p: &'a Prepared<'a>) -> Self {
        AnthropicTool {
            name: &p.tool.name.text,
            description: &p.description,
            input_schema: &p.input,
            input_examples: p
                .tool
                .examples
                .iter()
                .filter(|e| e.error.is_none())
                .map(|e| &e.arguments)
                .collect(),
        }
    }
}

/// One tool's definition for the Messages API `tools` array, as a JSON value.
pub fn tool(t: &Tool) -> Value {
    let p = Prepared::new(t);
    serde_json::to_value(AnthropicTool::from(&p)).unwrap_or(Value::Null)
}

/// Names Anthropic refuses: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn check(ts: &ToolSet) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for t in &ts.tools {
        if !super::name_ok(&t.name.text, MAX_NAME, &['_', '-']) {
            diags.push(
                Diagnostic::error(
                    "anthropic-invalid-name",
                    t.name.span,
                    format!("Anthropic refuses the tool name `{}`", t.name.text),
                )
                .label("not 1-64 characters of letters, digits, `_`, `-`")
                .help("rename the tool, like `service_verb` in snake_case"),
            );
        }
    }
    diags
}
