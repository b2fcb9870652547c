//! `retryable-permanent-error`: errors that cannot pass on retry are not retryable.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "retryable-permanent-error",
    severity: Severity::Error,
    set: Set::Recommended,
    category: Category::Errors,
    summary: "`retryable: true` is not set on codes the same call cannot pass (not_found, invalid_*, conflict).",
    what: "Reports a catalog code with `retryable: true` whose name says the same call will \
           fail again: `not_found`, `bad_request`, `already_exists`, `permission_denied`, or one containing \
           the word invalid, conflict, duplicate, forbidden, unauthorized or unsupported.",
    why: "Agents decide whether to retry from this flag alone. A retryable `not_found` makes \
          the model repeat the identical call (burning turns and rate limits) instead of \
          fixing the argument the message points at.",
    bad: "not_found:\n  message: \"No ticket {ticket_id}. Find it with tickets_search.\"\n  retryable: true",
    good: "not_found:\n  message: \"No ticket {ticket_id}. Find it with tickets_search.\"\n  retryable: false",
    fix: "Set `retryable: false`; if the condition really can clear by itself (a record still \
          replicating), rename the code to say so (`not_yet_available`).",
    check,
};

/// Whether a code's name says the same call fails again.
pub fn is_permanent(code: &str) -> bool {
    let ws = words::ident_words(code);
    let has = |w: &str| ws.iter().any(|x| x == w);
    code.contains("not_found")
        || code.contains("bad_request")
        || code.contains("already_exists")
        || code.contains("permission_denied")
        || [
            "invalid",
            "conflict",
            "duplicate",
            "forbidden",
            "unauthorized",
            "unsupported",
        ]
        .iter()
        .any(|w| has(w))
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for ts in cx.toolsets() {
        for e in ts.errors.iter().filter(|e| !e.builtin && e.retryable) {
            if is_permanent(&e.code) {
                out.push(
                    Finding::at(
                        e.span,
                        format!(
                            "`{}` is marked retryable, but the same call will fail again",
                            e.code
                        ),
                    )
                    .label("retrying cannot help")
                    .help("set `retryable: false`; the message should say what to change instead"),
                );
            }
        }
    }
}
