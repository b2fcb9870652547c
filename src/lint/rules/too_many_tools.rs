//! `too-many-tools`: one domain, a handful of tools.

use super::prelude::*;

/// Most tools one toolset may have.
pub const MAX_TOOLS: usize = 8;

/// The rule.
pub static RULE: Rule = Rule {
    id: "too-many-tools",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Toolset,
    summary: "A toolset has at most 8 tools.",
    what: "Reports a spec (one service) with more than 8 tools.",
    why: "Every tool is a routing choice the model makes on every turn, and its definition is \
          paid for in tokens on every request. More tools mean more misroutes, not more \
          power; 4 to 5 per domain is a good target. A long list usually mirrors backend \
          endpoints rather than the agent's tasks.",
    bad: "tools: [ ... 12 tools ... ]",
    good: "tools: [tickets_search, tickets_get, tickets_create, tickets_update_status]",
    fix: "Merge operations that are always called together, drop the ones only humans use, \
          or split the service into two toolsets a host can load separately.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for ts in cx.toolsets() {
        let n = ts.tools.len();
        if n > MAX_TOOLS {
            out.push(
                Finding::at(
                    ts.service.span,
                    format!(
                        "service `{}` has {n} tools (most {MAX_TOOLS})",
                        ts.service.text
                    ),
                )
                .label("many routing choices")
                .help("merge tools that are always called together, or split the service in two"),
            );
        }
    }
}
