//! `provider-limits`: nothing a provider's API would reject.

use super::prelude::*;
use crate::model::describe::tool_description;

/// Longest tool description OpenAI accepts.
pub const MAX_DESCRIPTION: usize = 1024;
/// Longest tool name OpenAI, Anthropic and Gemini accept.
pub const MAX_NAME: usize = 64;
/// Most tools in one OpenAI request.
pub const MAX_TOOLS: usize = 128;

/// The rule.
pub static RULE: Rule = Rule {
    id: "provider-limits",
    severity: Severity::Error,
    set: Set::Minimal,
    category: Category::Toolset,
    summary: "Names, descriptions and tool counts fit every provider's limits (64-char names, 1,024-char descriptions, 128 tools).",
    what: "Reports a tool whose full description (as composed for every output, with the \
           sentences toolspec adds) is over 1,024 characters, a tool name or deprecated alias \
           over 64 characters, and more than 128 tools in the specs linted together.",
    why: "OpenAI's API rejects the whole request when one tool breaks these limits, so one long \
          description takes every tool of the host down with it. The error appears at run \
          time, in someone else's agent.",
    bad: "summary: <a 900-character paragraph>",
    good: "summary: Search support tickets by free text, optionally filtered by status.",
    fix: "Shorten the summary, returns, use_when and not_for texts; shorten the name; split \
          the specs so a host loads fewer tools at once.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (i, (_, tool)) in cx.tools().enumerate() {
        let len = tool_description(tool).chars().count();
        if len > MAX_DESCRIPTION {
            out.push(
                Finding::on(tool, tool.summary.span, format!("the description of `{}` is {len} characters; OpenAI accepts at most {MAX_DESCRIPTION}", tool.name.text))
                    .label("the provider rejects the tool list")
                    .help("shorten summary, returns, use_when and not_for (toolspec adds its own sentences on paging, tiers and idempotency)"),
            );
        }
        for name in std::iter::once(&tool.name).chain(&tool.aliases) {
            let n = name.text.chars().count();
            if n > MAX_NAME {
                out.push(
                    Finding::on(
                        tool,
                        name.span,
                        format!(
                            "`{}` is {n} characters; providers accept at most {MAX_NAME}",
                            name.text
                        ),
                    )
                    .label("name too long")
                    .help("shorten the name"),
                );
            }
        }
        if i == MAX_TOOLS {
            out.push(
                Finding::on(tool, tool.name.span, format!("more than {MAX_TOOLS} tools are loaded together; OpenAI accepts at most {MAX_TOOLS} per request"))
                    .label(format!("tool number {}", i + 1))
                    .help("split the specs so a host loads fewer tools at once"),
            );
        }
    }
}
