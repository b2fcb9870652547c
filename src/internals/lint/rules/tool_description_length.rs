//! `tool-description-length`: a summary long enough to choose by, short enough to read.

use super::prelude::*;

/// Fewest words a summary needs to say what a tool does to what.
pub const MIN_SUMMARY_WORDS: usize = 4;
/// Most characters of the one-line summary.
pub const MAX_SUMMARY_CHARS: usize = 160;
/// Most characters of the author's own text: summary, returns and use_when together.
pub const MAX_AUTHOR_CHARS: usize = 600;

/// The rule.
pub static RULE: Rule = Rule {
    id: "tool-description-length",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Descriptions,
    summary: "A tool's summary has at least 4 words and at most 160 characters; its own text at most 600.",
    what: "Reports a `summary` of fewer than 4 words or more than 160 characters, and a tool \
           whose `summary`, `returns` and `use_when` together exceed 600 characters. (The \
           sentences toolspec adds about paging, tiers and idempotency are not counted.)",
    why: "Too short, and the model cannot tell the tool from its siblings: \"Get ticket.\" \
          does not say by what, or what comes back. Too long, and the deciding sentence is \
          buried; every character is also paid for in tokens on every turn of every \
          conversation that loads the tool.",
    bad: "summary: Get ticket.",
    good: "summary: Get one support ticket by its id.",
    fix: "Say in one line what the tool does to what (and by what); move details to `returns`, \
          `use_when` and the parameter descriptions.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        let summary = &tool.summary;
        let n = summary.text.split_whitespace().count();
        if n < MIN_SUMMARY_WORDS {
            out.push(
                Finding::on(tool, summary.span, format!("the summary of `{}` is {n} word{}", tool.name.text, if n == 1 { "" } else { "s" }))
                    .label("too short to choose by")
                    .help("say what the tool does to what, and by what: `Get one support ticket by its id.`"),
            );
        }
        let chars = summary.text.chars().count();
        if chars > MAX_SUMMARY_CHARS {
            out.push(
                Finding::on(
                    tool,
                    summary.span,
                    format!(
                        "the summary of `{}` is {chars} characters (most {MAX_SUMMARY_CHARS})",
                        tool.name.text
                    ),
                )
                .label("not one line")
                .help("keep the summary to one line; move details to `returns` and `use_when`"),
            );
        }
        let total = chars
            + tool.returns.text.chars().count()
            + tool.use_when.as_ref().map_or(0, |u| u.text.chars().count());
        if total > MAX_AUTHOR_CHARS {
            out.push(
                Finding::on(tool, tool.name.span, format!("`{}` is described in {total} characters (most {MAX_AUTHOR_CHARS})", tool.name.text))
                    .label("long description")
                    .help("cut `summary`, `returns` and `use_when` to what decides when and how to call it"),
            );
        }
    }
}
