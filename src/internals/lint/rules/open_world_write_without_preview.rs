//! `open-world-write-without-preview`: a write that reaches outside is previewed first.

use super::prelude::*;
use crate::spec::format::Tier;

/// The rule.
pub static RULE: Rule = Rule {
    id: "open-world-write-without-preview",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Safety,
    summary: "A write with `open_world: true` is `irreversible` with a preview, not `reversible`.",
    what: "Reports a `reversible` tool that has `open_world: true`. (Irreversible tools have a \
           preview, which `check` requires, unless they state why not with `low_risk`, which \
           `safeguard-waived` lists.)",
    why: "An undo call can restore the service's own data, but not what left it: an email \
          cannot be unsent, a webhook cannot be un-fired, a third party's copy stays. A \
          reversible tier tells the host it is safe to run without asking; for a tool that \
          reaches outside, that promise is false.",
    bad: "  - name: customers_notify\n    tier: reversible\n    open_world: true",
    good: "  - name: customers_notify\n    tier: irreversible\n    open_world: true\n    preview: { fields: { recipients: ... } }",
    fix: "Make the tool `irreversible` with a `preview`, or split the outside effect into its \
          own irreversible tool.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        if tool.tier == Tier::Reversible && tool.open_world && tool.preview.is_none() {
            out.push(
                Finding::on(
                    tool,
                    tool.tier_span,
                    format!(
                        "`{}` reaches outside the service but runs without a preview",
                        tool.name.text
                    ),
                )
                .label("an undo cannot recall what left the service")
                .help("make it `irreversible` with a `preview`, so a person sees the effect first"),
            );
        }
    }
}
