//! MCP tool definitions: the `tools/list` result.
//!
//! Each tool carries `name`, `title`, `description` (from
//! [`crate::model::describe::tool_description`]), `inputSchema`, the `outputSchema` its
//! spec publishes (`output_schema`: its shape by default, all of it, or none) and the
//! `annotations` that say something: MCP's defaults for the hints are the cautious ones
//! (destructive, open world), so a hint that equals its default is left out, except a
//! write's `destructiveHint`, which is always stated
//! ([`toolspec_runtime::engine::Annotations::stated`]).

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::{Tool, ToolSet};
use crate::plan::Annotations;
use crate::plan::providers::Prepared;
use serde::Serialize;
use serde_json::Value;

/// Longest tool name MCP allows.
pub const MAX_NAME: usize = 128;

/// The `tools/list` result: `{"tools": [...]}`.
#[derive(Debug, Serialize)]
pub struct ToolsList<'a> {
    /// The tools, in spec order.
    pub tools: Vec<McpTool<'a>>,
}

/// One tool's MCP definition, borrowing what [`Prepared`] computed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpTool<'a> {
    /// Tool name.
    pub name: &'a str,
    /// Human title.
    pub title: &'a str,
    /// The description agents read.
    pub description: &'a str,
    /// Arguments schema.
    pub input_schema: &'a Value,
    /// Structured result schema, as much as the spec publishes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<&'a Value>,
    /// Behaviour hints.
    pub annotations: Annotations,
    /// `{"anthropic/alwaysLoad": true}` for a tool of an `up_front` group, so hosts that
    /// defer MCP tools until a search finds them keep it loaded; left out otherwise.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<AlwaysLoad>,
}

/// The `_meta` of a tool a host should not defer.
#[derive(Debug, Serialize)]
pub struct AlwaysLoad {
    /// Always true.
    #[serde(rename = "anthropic/alwaysLoad")]
    pub always_load: bool,
}

impl<'a> McpTool<'a> {
    /// The entry of `p`, a tool of `ts`.
    pub fn of(ts: &ToolSet, p: &'a Prepared<'a>) -> Self {
        let mut tool = McpTool::from(p);
        if ts.group_of(p.tool).is_some_and(|g| g.up_front) {
            tool.meta = Some(AlwaysLoad { always_load: true });
        }
        tool
    }
}

impl<'a> From<&'a Prepared<'a>> for McpTool<'a> {
    fn from(p: &'a Prepared<'a>) -> Self {
        McpTool {
            name: &p.tool.name.text,
            title: &p.tool.title.text,
            description: &p.description,
            input_schema: &p.input,
            output_schema: p.listed_output.as_ref(),
            annotations: Annotations::of(p.tool),
            meta: None,
        }
    }
}

/// The `tools/list` result for a toolset as a JSON value: `{"tools": [...]}` in spec order.
pub fn tools_list(ts: &ToolSet) -> Value {
    let prepared: Vec<Prepared> = ts.tools.iter().map(Prepared::new).collect();
    let list = ToolsList {
        tools: prepared.iter().map(|p| McpTool::of(ts, p)).collect(),
    };
    serde_json::to_value(&list).unwrap_or(Value::Null)
}

/// One tool's MCP definition as a JSON value.
pub fn tool(t: &Tool) -> Value {
    let p = Prepared::new(t);
    serde_json::to_value(McpTool::from(&p)).unwrap_or(Value::Null)
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
