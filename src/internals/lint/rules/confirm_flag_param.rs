//! `confirm-flag-param`: confirmation is a preview, not an argument the model sets.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "confirm-flag-param",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Safety,
    summary: "No `confirm`, `force` or `dry_run` parameter: use the tier and `preview` instead.",
    what: "Reports a parameter named `confirm`, `confirmed`, `confirmation`, `force`, `yes`, \
           `approve`, `approved`, `dry_run`, `dryrun`, `skip_confirmation` or `no_confirm`.",
    why: "The model sets its own arguments: a prompt-injected or over-eager model passes \
          `confirm: true` on the first call, so the flag confirms nothing. toolspec's \
          `irreversible` tier with a `preview` returns what would change with a preview id, \
          and the host can put a person between the preview and the apply.",
    bad: "params:\n  confirm: { type: boolean, description: Set to true to really send., default: false, example: true }",
    good: "tier: irreversible\npreview:\n  fields:\n    recipients: { type: array, ... }",
    fix: "Remove the flag; make the tool `irreversible` with a `preview` (a dry run is the \
          preview call).",
    check,
};

const FLAGS: &[&str] = &[
    "approve",
    "approved",
    "confirm",
    "confirmation",
    "confirmed",
    "dry_run",
    "dryrun",
    "force",
    "no_confirm",
    "skip_confirmation",
    "yes",
];

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        for p in tool.spec_params() {
            if FLAGS.contains(&p.name.as_str()) {
                out.push(
                    Finding::on(
                        tool,
                        p.span,
                        format!(
                            "`{}` of `{}` is a confirmation flag the model sets itself",
                            p.name, tool.name.text
                        ),
                    )
                    .label("not a confirmation")
                    .help("remove it; make the tool `irreversible` with a `preview`"),
                );
            }
        }
    }
}
