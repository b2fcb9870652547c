//! `missing-requests`: every tool gives example requests for the misroute check.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "missing-requests",
    severity: Severity::Info,
    set: Set::Strict,
    category: Category::Toolset,
    summary: "Every tool lists `requests:` (what users say that should route to it).",
    what: "Reports a tool with no `requests`.",
    why: "`requests` are the test cases of a tool's description: the `misroute` rule routes \
          each one by the words of every tool and reports the ones that land elsewhere. A \
          tool without requests is never checked.",
    bad: "  - name: tickets_get\n    summary: Get one support ticket by its id.",
    good: "  - name: tickets_get\n    summary: Get one support ticket by its id.\n    requests:\n      - show me ticket T-1001",
    fix: "Add two or three requests in a user's words under `requests:`.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        if tool.requests.is_empty() {
            out.push(
                Finding::on(
                    tool,
                    tool.name.span,
                    format!("`{}` has no example `requests`", tool.name.text),
                )
                .label("never checked for misroutes")
                .help("add `requests:` with what users say when they need this tool"),
            );
        }
    }
}
