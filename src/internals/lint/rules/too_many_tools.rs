//! `too-many-tools`: one domain, a handful of tools.

use super::prelude::*;
use crate::model::Tier;

/// Most tools one toolset may have.
pub const MAX_TOOLS: usize = 8;

/// The rule.
pub static RULE: Rule = Rule {
    id: "too-many-tools",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Toolset,
    summary: "A toolset has at most 8 tools, or loads at most 8 up front.",
    what: "Reports a spec (one service) with more than 8 tools, or, for a spec with \
           `groups`, more than 8 tools in the groups loaded up front.",
    why: "Every tool is a routing choice the model makes on every turn, and its definition is \
          paid for in tokens on every request. More tools mean more misroutes, not more \
          power; 4 to 5 per domain is a good target. A long list usually mirrors backend \
          endpoints rather than the agent's tasks.",
    bad: "tools: [ ... 12 tools ... ]",
    good: "tools: [tickets_search, tickets_get, tickets_create, tickets_update_status]",
    fix: "Merge operations that are always called together, drop the ones only humans use, \
          split the service into two toolsets a host can load separately, or group the \
          tools (`groups`) and load only a few groups up front.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for ts in cx.toolsets() {
        // A catalog of groups is judged by what a model receives on every turn (and by
        // `groups-missing` and `group-too-big`); a catalog without, by all of it.
        if !ts.groups.is_empty() {
            let n = ts.tools.iter().filter(|t| ts.up_front(t)).count();
            if n > MAX_TOOLS {
                out.push(
                    Finding::at(
                        ts.service.span,
                        format!(
                            "service `{}` loads {n} tools up front (most {MAX_TOOLS})",
                            ts.service.text
                        ),
                    )
                    .label("many routing choices on every turn")
                    .help("mark fewer groups `up_front`: the others are found by a search when a task needs them"),
                );
            }
            continue;
        }
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
                .help(help(ts)),
            );
        }
    }
}

/// The advice, with the tools that look like candidates to merge: reads of the same
/// resource (the word after the service in their names), the largest groups first, as
/// one read with a `method` parameter serves them all.
fn help(ts: &ToolSet) -> String {
    let reads = ts.tools.iter().filter(|t| t.tier == Tier::ReadOnly);
    let mut groups = super::groups_missing::by_resource(ts, reads);
    groups.retain(|(_, names)| names.len() > 1);
    let mut help = String::from(
        "merge tools that are always called together, drop the ones only people use, or split the service in two",
    );
    for (resource, names) in groups.iter().take(3) {
        let shown: Vec<&str> = names.iter().take(4).copied().collect();
        let more = names.len() - shown.len();
        help.push_str(&format!(
            "; candidates to merge, reads of `{resource}`: {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    help
}
