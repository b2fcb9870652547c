//! `groups-missing`: a catalog too big to send whole, with no groups to defer.

use super::prelude::*;

/// Most tools a toolset without groups may have: OpenAI advises fewer than 20 functions
/// at the start of a turn, Gemini 10 to 20.
pub const MAX_UNGROUPED: usize = 20;

/// The rule.
pub static RULE: Rule = Rule {
    id: "groups-missing",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Toolset,
    summary: "A toolset of more than 20 tools has groups.",
    what: "Reports a spec with more than 20 tools and no `groups`, and proposes groups by the \
           resource each tool's name starts with (the word after the service).",
    why: "Without groups every provider receives every definition on every turn: a catalog \
          of hundreds of tools costs tens of thousands of tokens before the task starts, and \
          models pick worse past 30 to 50 tools. With groups, the Anthropic and OpenAI \
          Responses lists defer all but the groups loaded up front, which a tool search \
          finds when the task needs them, and an operator can serve some groups alone.",
    bad: "tools: [ ... 40 tools of pulls, issues and repos ... ]",
    good: "groups:\n  pulls: { description: Pull requests., match: github_pulls_* }\n  issues: \
           { description: Issues., match: github_issues_*, up_front: true }",
    fix: "Add `groups`, one per resource the tools act on (the rule's help names them), each \
          with a description a model reads before any of its tools; mark the few groups most \
          tasks need `up_front: true`.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for ts in cx.toolsets() {
        let n = ts.tools.len();
        if n <= MAX_UNGROUPED || !ts.groups.is_empty() {
            continue;
        }
        let proposed = propose(ts);
        let shown: Vec<String> = proposed
            .iter()
            .take(8)
            .map(|(resource, count)| {
                format!(
                    "`{resource}` (match: {}_{resource}_*, {count} tools)",
                    ts.service.text
                )
            })
            .collect();
        let more = proposed.len().saturating_sub(shown.len());
        out.push(
            Finding::at(
                ts.service.span,
                format!(
                    "service `{}` has {n} tools and no groups: every provider receives all of them on every turn",
                    ts.service.text
                ),
            )
            .label("no groups")
            .help(format!(
                "add `groups`: {}{}; mark the groups most tasks need `up_front: true`",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )),
        );
    }
}

/// The groups the tools' names suggest: the word after the service, with how many tools
/// start with it, the largest first (ties in the order of the spec).
fn propose(ts: &ToolSet) -> Vec<(&str, usize)> {
    by_resource(ts, ts.tools.iter())
        .into_iter()
        .map(|(resource, names)| (resource, names.len()))
        .collect()
}

/// `tools` by the resource their names start with (the word after the service), the
/// largest first, ties in the order given; a tool without the service prefix is left out
/// (`tool-name-prefix` reports it).
pub(super) fn by_resource<'a>(
    ts: &ToolSet,
    tools: impl Iterator<Item = &'a Tool>,
) -> Vec<(&'a str, Vec<&'a str>)> {
    let prefix = format!("{}_", ts.service.text);
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for t in tools {
        let name = t.name.text.as_str();
        let Some(resource) = name.strip_prefix(&prefix).and_then(|r| r.split('_').next()) else {
            continue;
        };
        match groups.iter_mut().find(|(r, _)| *r == resource) {
            Some((_, names)) => names.push(name),
            None => groups.push((resource, vec![name])),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.1.len()));
    groups
}
