//! `token-budget`: a tool definition is cheap enough to send on every request.

use super::prelude::*;
use crate::lint::tokens;

/// Most tokens one tool definition may cost.
pub const MAX_TOOL_TOKENS: usize = 600;

/// The rule.
pub static RULE: Rule = Rule {
    id: "token-budget",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Toolset,
    summary: "A tool's definition costs at most 600 tokens.",
    what: "Counts the tokens of a tool's definition as each provider receives it (the \
           Anthropic, OpenAI and Gemini entries `generate` writes, and the MCP definition \
           without its output schema), with the `o200k_base` tokenizer, and reports a tool \
           whose dearest entry is over 600; the finding says apart what the MCP output schema \
           adds, which clients read and the model does not. `toolspec stats` shows the same \
           counts.",
    why: "Every loaded tool definition is sent with every request, in every turn. A 2,000-token \
          tool in a host with twenty servers is paid for thousands of times a day, and long \
          definitions crowd out the conversation the model needs to reason about.",
    bad: "a tool with 12 parameters, each with a paragraph of description",
    good: "a tool with a few parameters, each described in one sentence with an example",
    fix: "Shorten descriptions to what decides a value, move background to the docs, split a \
          tool that does several things.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        let cost = tokens::tool_cost(tool);
        if cost.model > MAX_TOOL_TOKENS {
            out.push(
                Finding::on(
                    tool,
                    tool.name.span,
                    format!(
                        "the definition of `{}` costs {} tokens of what the model reads (budget {MAX_TOOL_TOKENS}); its MCP output schema adds {}",
                        tool.name.text, cost.model, cost.mcp_output
                    ),
                )
                .label("paid on every request")
                .help("shorten descriptions to what decides a value, or split the tool"),
            );
        }
    }
}
