//! What a tool definition costs in an agent's context, in tokens.
//!
//! Every tool definition a host loads is sent with every request, so its cost is paid on every
//! turn. The count is [`crate::stats`]'s, of the entries `generate` writes, by the real
//! `o200k_base` tokenizer: what the model reads is the dearest provider's entry (name,
//! description, input schema and what that provider adds), and the MCP definition's output
//! schema, which clients read, is counted apart. [`tool_cost`] is the one place lint asks.

use crate::model::Tool;

/// One tool definition's cost: what the model reads, and the MCP output schema beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// Tokens of the dearest provider entry ([`crate::stats::ToolCost::model_tokens`]).
    pub model: usize,
    /// Tokens of the output schema the MCP definition publishes.
    pub mcp_output: usize,
}

/// The token cost of one tool's definition.
pub fn tool_cost(tool: &Tool) -> Cost {
    let cost = crate::stats::tool_cost(tool);
    Cost {
        model: cost.model_tokens(),
        mcp_output: cost.mcp_output_tokens,
    }
}
