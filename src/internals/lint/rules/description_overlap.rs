//! `description-overlap`: two tools an agent cannot tell apart by their words.

use super::prelude::*;
use std::collections::BTreeSet;

/// Share of words (Jaccard: shared over all) at and above which two tools are confusable.
pub const MAX_OVERLAP: f64 = 0.5;

/// The rule.
pub static RULE: Rule = Rule {
    id: "description-overlap",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Toolset,
    summary: "No two tools are described with mostly the same words.",
    what: "Compares every pair of tools of the specs linted together by the stemmed content \
           words (stop words removed) of their summary, returns and use_when, and reports a \
           pair whose Jaccard similarity (shared words over all words) is 0.5 or more.",
    why: "The model chooses between tools by their descriptions. Two tools described in the \
          same words are a coin toss: the model calls one when the user meant the other, and \
          nothing in the descriptions helps it notice.",
    bad: "  - name: orders_search\n    summary: Find customer orders.\n  - name: orders_list\n    summary: List customer orders.",
    good: "  - name: orders_search\n    summary: Find a customer's orders by email, newest first.\n  - name: orders_get\n    summary: Get one order with its line items and shipment, given its id.",
    fix: "Say what sets each tool apart (its input, its result, when to use it) and add a \
          `not_for` to each naming the other; merge them if nothing does.",
    check,
};

fn word_set(tool: &Tool) -> BTreeSet<String> {
    let mut text = format!("{} {}", tool.summary.text, tool.returns.text);
    if let Some(u) = &tool.use_when {
        text.push(' ');
        text.push_str(&u.text);
    }
    words::content_words(&text).into_iter().collect()
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let tools: Vec<(&ToolSet, &Tool, BTreeSet<String>)> =
        cx.tools().map(|(ts, t)| (ts, t, word_set(t))).collect();
    for (j, (_, b, wb)) in tools.iter().enumerate() {
        for (ts_a, a, wa) in &tools[..j] {
            let score = words::jaccard(wa, wb);
            if score < MAX_OVERLAP {
                continue;
            }
            let shared: Vec<&str> = wa.intersection(wb).map(String::as_str).collect();
            let at = a.summary.span.pos;
            out.push(
                Finding::on(
                    b,
                    b.summary.span,
                    format!(
                        "`{}` and `{}` are described in mostly the same words ({:.0}% shared)",
                        b.name.text,
                        a.name.text,
                        score * 100.0
                    ),
                )
                .label("an agent may confuse these")
                .note(format!(
                    "`{}` is at {}:{}:{}; shared words: {}",
                    a.name.text,
                    ts_a.path,
                    at.line,
                    at.column,
                    shared.join(", ")
                ))
                .help(format!(
                    "say what sets `{}` apart, and add `not_for: [{{when: ..., use: {}}}]`",
                    b.name.text, a.name.text
                )),
            );
        }
    }
}
