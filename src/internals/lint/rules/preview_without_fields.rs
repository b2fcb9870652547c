//! `preview-without-fields`: a preview shows what would change.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "preview-without-fields",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Safety,
    summary: "A `preview` declares `fields`: the concrete values a person approves.",
    what: "Reports an irreversible tool whose `preview` has no `fields`, so a preview carries \
           only its free-text summary.",
    why: "The preview is what a person approves before money moves or a message goes out. A \
          summary alone is written by the implementation and can be vague; declared fields \
          (amount, recipients, changed lines) are typed, shown the same way every time, and \
          checked by the gauntlet to match what the apply step does.",
    bad: "preview: {}",
    good: "preview:\n  fields:\n    amount: { type: Money, description: Amount that would be refunded. }",
    fix: "List under `preview.fields` the values a person needs to approve the change.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        if let Some(p) = &tool.preview
            && p.fields.is_empty()
        {
            out.push(
                Finding::on(tool, p.span, format!("the preview of `{}` shows no fields", tool.name.text))
                    .label("a summary only")
                    .help("add `fields:` with the values a person approves (amount, recipients, what changes)"),
            );
        }
    }
}
