//! The tool lists providers take, and the per-tool schema files, for `--emit schemas`.
//!
//! For each toolset this writes:
//!
//! ```text
//! <service>/schemas/<tool>.input.json    input schema (standard profile)
//! <service>/schemas/<tool>.output.json   output schema
//! <service>/tools.mcp.json               the MCP tools/list result: {"tools": [...]}
//! <service>/tools.anthropic.json         the Messages API `tools` array
//! <service>/tools.openai.json            the Chat Completions `tools` array, strict
//! ```
//!
//! Every file is pretty-printed with two spaces and ends with a newline; keys keep a fixed
//! order and tools keep spec order, so the same spec gives the same bytes. A toolset that a
//! provider would refuse (too many tools, a description over OpenAI's limit) is reported as
//! a diagnostic at the spec location, and no file is produced: a broken tool list would only
//! fail later, at the provider, far from its cause.

pub mod anthropic;
pub mod mcp;
pub mod openai;

use crate::diagnostics::Diagnostics;
use crate::emit::GeneratedFile;
use crate::emit::schema::{self, Profile};
use crate::model::describe::tool_description;
use crate::model::{Model, Tool, ToolSet};
use serde::Serialize;
use serde_json::Value;

/// Every schema file and tool list of every toolset, or the problems that prevent them.
pub fn emit(model: &Model) -> Result<Vec<GeneratedFile>, Diagnostics> {
    let mut diags = Diagnostics::default();
    for ts in &model.toolsets {
        diags.extend(mcp::check(ts));
        diags.extend(anthropic::check(ts));
        diags.extend(openai::check(ts));
    }
    if diags.has_errors() {
        diags.sort();
        return Err(diags);
    }
    Ok(model.toolsets.iter().flat_map(toolset_files).collect())
}

/// What the outputs of one tool share, computed once: its description and the standard
/// profile of its input and output schemas (each written to three or two files).
#[derive(Debug, Clone)]
pub struct Prepared<'a> {
    /// The tool.
    pub tool: &'a Tool,
    /// [`tool_description`] of it.
    pub description: String,
    /// Its input schema, standard profile.
    pub input: Value,
    /// Its output schema.
    pub output: Value,
}

impl<'a> Prepared<'a> {
    /// Computes the description and schemas of `tool`.
    pub fn new(tool: &'a Tool) -> Self {
        Prepared {
            tool,
            description: tool_description(tool),
            input: schema::input_schema(tool, Profile::Standard),
            output: schema::output_schema(tool),
        }
    }
}

/// The files of one toolset, without checking provider limits (see [`emit`]).
pub fn toolset_files(ts: &ToolSet) -> Vec<GeneratedFile> {
    let service = &ts.service.text;
    let tools: Vec<Prepared> = ts.tools.iter().map(Prepared::new).collect();
    let mut files = Vec::with_capacity(tools.len() * 2 + 3);
    for p in &tools {
        let name = &p.tool.name.text;
        files.push(GeneratedFile::new(
            format!("{service}/schemas/{name}.input.json"),
            pretty(&p.input),
        ));
        files.push(GeneratedFile::new(
            format!("{service}/schemas/{name}.output.json"),
            pretty(&p.output),
        ));
    }
    files.push(GeneratedFile::new(
        format!("{service}/tools.mcp.json"),
        pretty(&mcp::ToolsList {
            tools: tools.iter().map(mcp::McpTool::from).collect(),
        }),
    ));
    files.push(GeneratedFile::new(
        format!("{service}/tools.anthropic.json"),
        pretty(
            &tools
                .iter()
                .map(anthropic::AnthropicTool::from)
                .collect::<Vec<_>>(),
        ),
    ));
    files.push(GeneratedFile::new(
        format!("{service}/tools.openai.json"),
        pretty(
            &tools
                .iter()
                .map(openai::OpenAiTool::from)
                .collect::<Vec<_>>(),
        ),
    ));
    files
}

/// JSON as every generated file holds it: two-space indentation and a final newline.
pub fn pretty<T: Serialize + ?Sized>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".to_string());
    s.push('\n');
    s
}

/// Whether `name` is 1 to `max` characters, each an ASCII letter, digit or one of `extra`.
fn name_ok(name: &str, max: usize, extra: &[char]) -> bool {
    !name.is_empty()
        && name.len() <= max
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
}
