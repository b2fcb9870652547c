//! `param-description-vague`: a parameter's description says more than its name.

use super::prelude::*;
use std::collections::BTreeSet;

/// The rule.
pub static RULE: Rule = Rule {
    id: "param-description-vague",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Descriptions,
    summary: "Every parameter's description adds to its name (two or more meaningful words).",
    what: "Reports a parameter (or a field nested in one) whose description has fewer than two \
           meaningful words, or only repeats the words of its name (`query`: \"The query.\"). \
           `check` already requires a description and, on scalars, an example; this rule asks \
           that the description be worth reading.",
    why: "The description is where the model learns what a valid value looks like and what \
          happens with it: which field a query matches, the unit of an amount, what leaving \
          it out means. A description that restates the name teaches nothing, and the model \
          fills the value by guesswork.",
    bad: "params:\n  article_id: { type: ArticleId, description: The article. }",
    good: "params:\n  article_id: { type: ArticleId, description: The article whose draft to restore. }",
    fix: "Say what the value is used for, its unit or shape, and what leaving it out does; the \
          example value is shown beside it.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        walk(&tool.params, &mut |s: &Slot| {
            if s.is_items {
                return;
            }
            let name: BTreeSet<String> = words::ident_words(&s.field.name)
                .iter()
                .map(|w| words::stem(w))
                .chain(["id".to_string()])
                .collect();
            let content: BTreeSet<String> = words::content_words(&s.field.description)
                .into_iter()
                .collect();
            if content.len() >= 2 && !content.is_subset(&name) {
                return;
            }
            let why = if content.is_subset(&name) {
                "only restates its name"
            } else {
                "is too short to say how to fill it"
            };
            out.push(
                Finding::on(tool, s.field.span, format!("the description of parameter `{}` of `{}` {why}", s.path, tool.name.text))
                    .label(format!("\"{}\"", s.field.description.trim()))
                    .help("say what the value is used for, its unit or shape, and what leaving it out does"),
            );
        });
    }
}
