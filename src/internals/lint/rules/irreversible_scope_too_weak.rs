//! `irreversible-scope-too-weak`: a change that cannot be undone needs a scope of its own.

use super::prelude::*;
use crate::spec::format::Tier;

/// The rule.
pub static RULE: Rule = Rule {
    id: "irreversible-scope-too-weak",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Safety,
    summary: "An `irreversible` tool needs more scopes than the toolset's `reversible` tools.",
    what: "Reports an `irreversible` tool every one of whose scopes a `reversible` tool of the \
           same toolset also needs (with the defaults, both need `<service>:write`). Tools \
           that need no scope at all count too.",
    why: "Scopes are how an operator grants an agent less than everything. When the scopes \
          of an undoable edit also cover a refund, a publish or a delete, no token can allow \
          the first without the second: the only choice left is all writes or none.",
    bad: "  - name: docs_page_update\n    tier: reversible        # needs docs:write\n  \
          - name: docs_publish\n    tier: irreversible      # needs docs:write too",
    good: "  - name: docs_publish\n    tier: irreversible\n    scopes: [docs:write, docs:publish]",
    fix: "Give the irreversible tool a scope of its own beside the write scope (`scopes: \
          [docs:write, docs:publish]`), or allow the rule on that tool with the reason any \
          writer may make the change.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools().filter(|(_, t)| t.tier == Tier::Irreversible) {
        let covered_by = ts.tools.iter().find(|r| {
            r.tier == Tier::Reversible
                && tool
                    .scopes
                    .iter()
                    .all(|s| r.scopes.iter().any(|o| o.text == s.text))
        });
        let Some(reversible) = covered_by else {
            continue;
        };
        let needs = if tool.scopes.is_empty() {
            "no scope".to_owned()
        } else {
            let names: Vec<String> = tool
                .scopes
                .iter()
                .map(|s| format!("`{}`", s.text))
                .collect();
            names.join(" and ")
        };
        let mut suggested: Vec<String> = tool.scopes.iter().map(|s| s.text.clone()).collect();
        suggested.push(format!(
            "{}:{}",
            ts.service.text,
            last_word(&tool.name.text)
        ));
        out.push(
            Finding::on(
                tool,
                tool.scopes_span.unwrap_or(tool.tier_span),
                format!(
                    "`{}` cannot be undone but needs {needs}, no more than reversible `{}`",
                    tool.name.text, reversible.name.text
                ),
            )
            .label("any token for undoable edits may also make this change")
            .help(format!(
                "give it a scope of its own: `scopes: [{}]`",
                suggested.join(", ")
            )),
        );
    }
}

/// The tool name's last word (`docs_publish` -> `publish`): a natural name for its scope.
fn last_word(name: &str) -> &str {
    name.rsplit(['_', '-']).next().unwrap_or(name)
}
