//! MCP tool definitions: the `tools/list` result.
//!
//! Each tool carries `name`, `title`, `description` (from
//! [`crate::model::describe::tool_description`]), `inputSchema`, `outputSchema` and
//! `annotations` with every hint set explicitly. The hints matter because their defaults are
//! the pessimistic ones (destructive, open world): a tool that leaves one out is shown to the
//! user as more dangerous than it is, or worse, a destructive one could pass as safe if a
//! client's defaults differ.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::emit::schema::{self, Profile};
use crate::model::describe::tool_description;
use crate::model::{Tier, Tool, ToolSet};
use serde_json::{Value, json};

/// Longest tool name MCP allows.
pub const MAX_NAME: usize = 128;

/// The `tools/list` result for a toolset: `{"tools": [...]}` in spec order.
pub fn tools_list(ts: &ToolSet) -> Value {
    json!({ "tools": ts.tools.iter().map(tool).collect::<Vec<_>>() })
}

/// One tool's MCP definition.
pub fn tool(t: &Tool) -> Value {
    json!({
        "name": t.name.text,
        "title": t.title.text,
        "description": tool_description(t),
        "inputSchema": schema::input_schema(t, Profile::Standard),
        "outputSchema": schema::output_schema(t),
        "annotations": annotations(t),
    })
}

/// The four behaviour hints, from the tool's tier:
///
/// | hint | read_only | reversible | irreversible |
/// |---|---|---|---|
/// | `readOnlyHint` | true | false | false |
/// | `destructiveHint` | false | false | true |
/// | `idempotentHint` | true | with an idempotency key | with an idempotency key |
/// | `openWorldHint` | the spec's `open_world` | ← | ← |
pub fn annotations(t: &Tool) -> Value {
    json!({
        "readOnlyHint": t.tier == Tier::ReadOnly,
        "destructiveHint": t.tier == Tier::Irreversible,
        "idempotentHint": t.tier == Tier::ReadOnly || t.idempotency.is_some(),
        "openWorldHint": t.open_world,
    })
}

/// Names MCP refuses: 1-128 characters of `A-Z a-z 0-9 _ - .`.
pub fn check(ts: &ToolSet) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for t in &ts.tools {
        if !super::name_ok(&t.name.text, MAX_NAME, &['_', '-', '.']) {
            diags.push(
                Diagnostic::error(
                    "mcp-invalid-name",
                    t.name.span,
                    format!("MCP refuses the tool name `{}`", t.name.text),
                )
                .label("not 1-128 characters of letters, digits, `_`, `-`, `.`")
                .help("rename the tool, like `service_verb` in snake_case"),
            );
        }
    }
    diags
}
