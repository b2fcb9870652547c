//! Each tool as every provider reads it: the MCP `tools/list` entry, Anthropic's tool,
//! OpenAI's strict function (Chat Completions and Responses) and Gemini's function
//! declaration, built once from a tool's [`Prepared`] parts, and whether a toolset fits each
//! provider's limits. A toolset with groups defers the groups not loaded up front where the
//! provider can (Anthropic, OpenAI Responses, MCP hosts) and leaves them out where it cannot
//! (OpenAI Chat Completions, Gemini).
//!
//! `emit::providers` writes these as files; `stats` counts their tokens. Both read them here,
//! so what is written and what is counted cannot differ.

pub mod anthropic;
pub mod gemini;
pub mod mcp;
pub mod openai;
pub mod responses;

use crate::model::Tool;
use crate::model::describe::tool_description;
use crate::plan::schema::{self, Profile};
use serde_json::Value;

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
    /// Its output schema, whole.
    pub output: Value,
    /// What the MCP list publishes of it ([`schema::published_output_schema`]).
    pub listed_output: Option<Value>,
}

impl<'a> Prepared<'a> {
    /// Computes the description and schemas of `tool`.
    pub fn new(tool: &'a Tool) -> Self {
        let output = schema::output_schema(tool);
        Prepared {
            tool,
            description: tool_description(tool),
            input: schema::input_schema(tool, Profile::Standard),
            listed_output: schema::published_output_schema_of(tool, &output),
            output,
        }
    }
}

/// Whether `name` is 1 to `max` characters, each an ASCII letter, digit or one of `extra`.
fn name_ok(name: &str, max: usize, extra: &[char]) -> bool {
    !name.is_empty()
        && name.len() <= max
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
}
