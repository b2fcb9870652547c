//! `rate-limit-not-retryable`: rate limits and timeouts are retryable.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "rate-limit-not-retryable",
    severity: Severity::Error,
    set: Set::Recommended,
    category: Category::Errors,
    summary: "Rate limits, quotas, throttling and timeouts are `retryable: true`.",
    what: "Reports a catalog code with `retryable: false` whose name says it clears with time: \
           a word rate, throttled, throttle, quota, busy, unavailable, timeout, overloaded or \
           later.",
    why: "A non-retryable rate limit tells the model the call can never work, so it gives up \
          or tries a different (wrong) tool. Marked retryable, with the wait in its details, \
          it gets the same call again at the right time.",
    bad: "rate_limited:\n  message: \"Too many requests.\"\n  retryable: false",
    good: "rate_limited:\n  message: \"Too many requests. Retry after {retry_after_seconds} seconds.\"\n  retryable: true",
    fix: "Set `retryable: true` and give the wait in a detail (`retry_after_seconds`) that the \
          message names.",
    check,
};

const TRANSIENT: &[&str] = &[
    "busy",
    "later",
    "overloaded",
    "quota",
    "rate",
    "throttle",
    "throttled",
    "timeout",
    "unavailable",
];

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for ts in cx.toolsets() {
        for e in ts.errors.iter().filter(|e| !e.builtin && !e.retryable) {
            if words::ident_words(&e.code)
                .iter()
                .any(|w| TRANSIENT.contains(&w.as_str()))
            {
                out.push(
                    Finding::at(
                        e.span,
                        format!("`{}` clears with time but is marked not retryable", e.code),
                    )
                    .label("the agent will give up")
                    .help("set `retryable: true` and say how long to wait in the message"),
                );
            }
        }
    }
}
