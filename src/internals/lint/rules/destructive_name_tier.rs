//! `destructive-name-tier`: a tool named like a destructive action is tiered irreversible.

use super::prelude::*;
use crate::spec::format::Tier;

/// The rule.
pub static RULE: Rule = Rule {
    id: "destructive-name-tier",
    severity: Severity::Error,
    set: Set::Recommended,
    category: Category::Safety,
    summary: "A tool whose name says delete, send, charge, publish, refund, remove or cancel is `irreversible` (a delete may be `reversible` with its undo).",
    what: "Reports a tool whose name contains a destructive verb (cancel, charge, delete, \
           destroy, erase, kill, pay, publish, purge, refund, remove, send, terminate, \
           transfer, void, wipe) but whose tier is `read_only` or `reversible`. A `reversible` tool whose verb takes \
           away data the service keeps (cancel, delete, destroy, erase, purge, remove, void, \
           wipe) is left alone when it has its own `undo`, which `check` has verified (the \
           undo tool exists and takes what the result hands it): a `memory_delete` that the \
           returned handle restores is reversible, as its tier says. Verbs that reach people \
           or money (send, publish, charge, pay, refund, transfer) or end something running \
           (kill, terminate) are reported even with an undo: the undo cannot call back what \
           already left.",
    why: "Hosts auto-approve read-only tools and often reversible ones; the tier is what \
          decides whether a person sees the change before it happens. A `read_only` \
          `orders_refund` or a `reversible` `emails_send` moves money or reaches people \
          without a preview. Either the name or the tier is wrong, and both mislead.",
    bad: "  - name: emails_send\n    tier: reversible",
    good: "  - name: emails_send\n    tier: irreversible\n    preview: { fields: { to: ..., subject: ... } }",
    fix: "Make the tool `irreversible` with a `preview`; if it really can be undone (a soft \
          delete with a restore), keep it `reversible` and give it its `undo`.",
    check,
};

/// Destructive verbs whose effect stays in the service's own data, so that an undo can
/// really restore it (a deleted row comes back; a sent email does not).
const UNDOABLE_VERBS: &[&str] = &[
    "cancel", "delete", "destroy", "erase", "purge", "remove", "void", "wipe",
];

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
        // A reversible tool with the undo `check` verified is what its tier says when its
        // verb's effect is one an undo restores: the host may run it, the agent can take it
        // back.
        if tool.tier == Tier::Reversible
            && tool.undo.is_some()
            && UNDOABLE_VERBS.contains(&verb.as_str())
        {
            continue;
        }
        let help = if tool.undo.is_some() {
            format!(
                "an undo cannot call back what a `{verb}` did outside the service: make it `irreversible` with a `preview`, or rename it if it does not really do that"
            )
        } else {
            "make it `irreversible` with a `preview`; if it can be taken back, make it `reversible` with its `undo`; or rename it if it does not really do that".to_string()
        };
        out.push(
            Finding::on(
                tool,
                tool.tier_span,
                format!(
                    "`{}` sounds destructive (`{verb}`) but its tier is `{}`",
                    tool.name.text,
                    tool.tier.as_str()
                ),
            )
            .label("hosts may run this without asking")
            .help(help),
        );
    }
}
