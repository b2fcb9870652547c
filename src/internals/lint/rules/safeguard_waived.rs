//! `safeguard-waived`: every write that skips a safeguard says why, and the reason is shown.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "safeguard-waived",
    severity: Severity::Info,
    set: Set::Strict,
    category: Category::Safety,
    summary: "A write served without a preview (`low_risk`) or whose key may be left out \
              (`key_optional`) is listed with its reason, for review.",
    what: "Reports each irreversible tool with `low_risk` and each write with \
           `idempotency: {key_optional: ...}`, quoting the reason the spec gives.",
    why: "A preview lets a person see an irreversible change before it is made, and a \
          required key makes a retried write run once. Both can be waived for a write whose \
          risk is low, but a waiver is a decision someone should be able to review: the \
          reason is shown here, on the tool's docs page and by `toolspec check`.",
    bad: "  - name: chat_post\n    tier: irreversible\n    low_risk: it is fine",
    good: "  - name: chat_post\n    tier: irreversible\n    low_risk: Posting adds one message the channel sees at once; nothing existing changes.",
    fix: "Nothing to fix when the reason holds; otherwise remove the waiver (add `preview`, or \
          drop `key_optional`).",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        if let Some(why) = &tool.low_risk {
            out.push(
                Finding::on(
                    tool,
                    why.span,
                    format!(
                        "`{}` makes an irreversible change without a preview: {}",
                        tool.name.text, why.text
                    ),
                )
                .label("low_risk")
                .help("keep it if the reason holds; otherwise add `preview: {}` and remove `low_risk`"),
            );
        }
        if let Some(why) = tool
            .idempotency
            .as_ref()
            .and_then(|i| i.key_optional.as_ref())
        {
            out.push(
                Finding::on(
                    tool,
                    why.span,
                    format!(
                        "`{}` runs again when retried without a key: {}",
                        tool.name.text, why.text
                    ),
                )
                .label("key_optional")
                .help("keep it if the reason holds; otherwise remove `key_optional` so every call sends a key"),
            );
        }
    }
}
