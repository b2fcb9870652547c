//! `page-numbers`: cursors are the better wire for paging.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "page-numbers",
    severity: Severity::Info,
    set: Set::Recommended,
    category: Category::Results,
    summary: "A paginated tool pages by cursor rather than by page number.",
    what: "Reports a tool with `paging: {style: pages}`: the caller passes a page number and a \
           page size instead of an opaque cursor.",
    why: "A page number is an offset: when items are added or removed between two calls, the \
          next page repeats or skips some, and a model that guesses page 7 gets whatever is \
          there. A cursor (`next_cursor`) is bound to the query that made it, keyset cursors \
          neither skip nor repeat, and items cut to the token budget come on the next page. \
          Page numbers are right for a port that must keep its wire (GitHub's `page` and \
          `perPage`) or for \"jump to page N\": allow the rule for that tool with the reason.",
    bad: "paging: { items: comments, style: pages, page_param: page, size_param: perPage }",
    good: "paging: { items: comments, keyset: [id] }",
    fix: "Remove `style: pages` (and the parameter names) to page by cursor, or allow the rule \
          for this tool saying whose wire it keeps.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        let Some(pages) = tool
            .paging
            .as_ref()
            .and_then(|p| p.pages.as_ref().map(|n| (p, n)))
        else {
            continue;
        };
        let (p, n) = pages;
        out.push(
            Finding::on(
                tool,
                p.span,
                format!(
                    "`{}` pages by number (`{}`, `{}`), not by cursor",
                    tool.name.text, n.page, n.size
                ),
            )
            .label("page numbers can skip or repeat items")
            .help(
                "page by cursor unless this wire must be kept; then allow the rule with the reason",
            ),
        );
    }
}
