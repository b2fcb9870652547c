//! `page-limit-too-high`: a page's hard maximum is small.

use super::prelude::*;

/// Largest `max_limit` that passes.
pub const MAX_PAGE: u32 = 100;

/// The rule.
pub static RULE: Rule = Rule {
    id: "page-limit-too-high",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Results,
    summary: "A paginated tool's `max_limit` is at most 100.",
    what: "Reports a paginated tool whose largest accepted `limit` (its own `max_limit`, or the \
           toolset's) is above 100.",
    why: "The model will ask for the maximum when it wants \"everything\". A page of 1,000 rows \
          costs tens of thousands of tokens that stay in the context for the rest of the \
          conversation; a smaller page plus the total count lets the model narrow the query \
          instead.",
    bad: "paging: { items: tickets, max_limit: 1000 }",
    good: "paging: { items: tickets, max_limit: 50 }",
    fix: "Lower `max_limit` to 100 or less (the runtime refuses larger limits with the allowed \
          range).",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        let Some(p) = &tool.paging else { continue };
        if p.max_limit > MAX_PAGE {
            out.push(
                Finding::on(
                    tool,
                    p.span,
                    format!(
                        "`{}` accepts pages of up to {} items (most {MAX_PAGE})",
                        tool.name.text, p.max_limit
                    ),
                )
                .label("a page can flood the context")
                .help(format!("set `max_limit` to {MAX_PAGE} or less")),
            );
        }
    }
}
