//! `destructive-name-tier`: a tool named like a destructive action is tiered irreversible.

use super::prelude::*;
use crate::spec::format::Tier;

/// The rule.
pub static RULE: Rule = Rule {
    id: "destructive-name-tier",
    severity: Severity::Error,
    set: Set::Recommended,
    category: Category::Safety,
    summary: "A tool whose name says delete, send, charge, publish, refund, remove or cancel is `irreversible`.",
    what: "Reports a tool whose name contains a destructive verb (cancel, charge, delete, \
           destroy, erase, kill, pay, publish, purge, refund, remove, send, terminate, \
           transfer, void, wipe) but whose tier is `read_only` or `reversible`.",
    why: "Hosts auto-approve read-only tools and often reversible ones; the tier is what \
          decides whether a person sees the change before it happens. A `read_only` \
          `orders_refund` or a `reversible` `emails_send` moves money or reaches people \
          without a preview. Either the name or the tier is wrong, and both mislead.",
    bad: "  - name: emails_send\n    tier: reversible",
    good: "  - name: emails_send\n    tier: irreversible\n    preview: { fields: { to: ..., subject: ... } }",
    fix: "Make the tool `irreversible` with a `preview`; if it really can be undone (a soft \
          delete with a restore), keep the tier and allow the rule on the tool with the reason.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        if tool.tier == Tier::Irreversible {
            continue;
        }
        let Some(verb) = words::ident_words(&tool.name.text)
            .into_iter()
            .find(|w| words::DESTRUCTIVE_VERBS.contains(&w.as_str()))
        else {
            continue;
        };
        out.push(
            Finding::on(tool, tool.tier_span, format!("`{}` sounds destructive (`{verb}`) but its tier is `{}`", tool.name.text, tool.tier.as_str()))
                .label("hosts may run this without asking")
                .help("make it `irreversible` with a `preview`, or rename it if it does not really do that"),
        );
    }
}
