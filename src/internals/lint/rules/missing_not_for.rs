//! `missing-not-for`: a tool with a sibling on the same resource says when to use the other.

use super::prelude::*;
use std::collections::BTreeSet;

/// The rule.
pub static RULE: Rule = Rule {
    id: "missing-not-for",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Descriptions,
    summary: "A tool whose siblings act on the same resource says, in `not_for`, when to use them instead.",
    what: "Two tools of a toolset are siblings when they share a named object type (anywhere \
           in their parameters or outputs) or a resource word in their names (the non-verb \
           words after the prefix). A shared id, enum or other scalar type does not make \
           siblings: every tool of a repository server takes the repository's id. Reports a \
           tool that has siblings but no `not_for` entry.",
    why: "The most common misroute is between siblings: searching when the id is at hand, \
          reading when a search was wanted, editing a draft when the user asked to publish. \
          One sentence, \"Not for order status: call orders_get instead.\", prevents it, and \
          it is the sentence authors most often leave out.",
    bad: "  - name: tickets_search\n    summary: Search support tickets by free text.",
    good: "  - name: tickets_search\n    summary: Search support tickets by free text.\n    not_for:\n      - when: reading a ticket whose id you have\n        use: tickets_get",
    fix: "Add `not_for: [{when: <the requests that belong to the sibling>, use: <sibling>}]`.",
    check,
};

/// The resources a tool acts on: named object types it uses and the non-verb words of its
/// name.
fn resources(ts: &ToolSet, tool: &Tool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for fields in [&tool.params, &tool.output] {
        walk(fields, &mut |s: &Slot| {
            if let Some(n) = &s.ty.name
                && matches!(s.ty.kind, Kind::Object { .. })
            {
                out.insert(format!("type:{n}"));
            }
        });
    }
    let rest = tool
        .name
        .text
        .strip_prefix(ts.service.text.as_str())
        .unwrap_or(&tool.name.text);
    for w in words::ident_words(rest) {
        if !words::is_verb(&w) && w.len() > 1 {
            out.insert(format!("word:{}", words::stem(&w)));
        }
    }
    out
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for ts in cx.toolsets() {
        let res: Vec<BTreeSet<String>> = ts.tools.iter().map(|t| resources(ts, t)).collect();
        for (i, tool) in ts.tools.iter().enumerate() {
            if !tool.not_for.is_empty() {
                continue;
            }
            let siblings: Vec<&str> = ts
                .tools
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i && !res[i].is_disjoint(&res[*j]))
                .map(|(_, t)| t.name.text.as_str())
                .collect();
            let Some(first) = siblings.first() else {
                continue;
            };
            out.push(
                Finding::on(
                    tool,
                    tool.name.span,
                    format!(
                        "`{}` does not say when to use {} instead",
                        tool.name.text,
                        siblings
                            .iter()
                            .map(|s| format!("`{s}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .label("no `not_for`")
                .help(format!(
                    "add `not_for: [{{when: <requests that belong elsewhere>, use: {first}}}]`"
                )),
            );
        }
    }
}
