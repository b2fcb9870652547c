//! Anthropic Messages API tool definitions: `{"name", "description", "input_schema"}`.
//!
//! These are non-strict tools. Anthropic's `strict: true` mode refuses numeric bounds and
//! string lengths and caps a request at 20 strict tools and 24 optional parameters; the spec
//! format has no switch for it, and dropping those rules would lose facts the standard schema
//! carries, so the standard profile is used as it is. The input schema is the same one MCP
//! clients receive.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::emit::schema::{self, Profile};
use crate::model::describe::tool_description;
use crate::model::{Tool, ToolSet};
use serde_json::{Value, json};

/// Longest tool name Anthropic allows.
pub const MAX_NAME: usize = 64;

/// One tool's definition for the Messages API `tools` array.
pub fn tool(t: &Tool) -> Value {
    json!({
        "name": t.name.text,
        "description": tool_description(t),
        "input_schema": schema::input_schema(t, Profile::Standard),
    })
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
