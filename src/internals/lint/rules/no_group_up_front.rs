//! `no-group-up-front`: a model that starts with nothing but a search.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "no-group-up-front",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Toolset,
    summary: "A toolset with groups loads one of them up front.",
    what: "Reports a spec whose groups are all deferred (none `up_front: true`).",
    why: "With every group deferred, the model starts each task with only the tool search: \
          the OpenAI Chat Completions and Gemini lists are empty, and every task pays a \
          search before its first call. Anthropic advises keeping the 3 to 5 most used \
          tools loaded.",
    bad: "groups:\n  pulls: { description: Pull requests., match: github_pulls_* }",
    good: "groups:\n  pulls: { description: Pull requests., match: github_pulls_*, up_front: true }",
    fix: "Mark the group most tasks start with `up_front: true` (a small one: its tools are \
          paid for on every turn).",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for ts in cx.toolsets() {
        let Some(first) = ts.groups.first() else {
            continue;
        };
        if ts.groups.iter().all(|g| !g.up_front) {
            out.push(
                Finding::at(
                    first.name.span,
                    format!(
                        "no group of service `{}` is loaded up front",
                        ts.service.text
                    ),
                )
                .label("every group waits for a search")
                .help(format!(
                    "mark the group most tasks start with `up_front: true` (say `{}`)",
                    first.name.text
                )),
            );
        }
    }
}
