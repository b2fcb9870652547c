//! What a tool definition costs in an agent's context, in tokens.
//!
//! Every tool definition a host loads is sent with every request, so its cost is paid on every
//! turn. The count is [`crate::stats`]'s: OpenAI's published estimate for a function
//! definition (per tool 7 tokens plus `name:description`; if it has parameters 3, plus per
//! parameter 3 and `name:type:description`; enums -3 once, then 3 plus each value), with text
//! counted by the real `o200k_base` tokenizer. [`tool_cost`] is the one place lint asks.

use crate::model::Tool;

/// Estimated tokens of one tool's definition as OpenAI counts it.
pub fn tool_cost(tool: &Tool) -> usize {
    crate::stats::tool_cost(tool).openai_estimate
}
