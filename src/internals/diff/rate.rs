//! Comparing rate limits: a limit added or lowered refuses calls a caller could make
//! before; one raised or removed refuses none of them.

use super::{Changes, Party, Side};
use crate::model::{RateLimit, Tool};

/// The limit a tool is held to, old against new (its own or the toolset's shared one, so
/// a changed shared limit shows on every tool it reaches).
pub(super) fn compare_rate_limit(o: &Tool, n: &Tool, out: &mut Changes) {
    let name = n.name.text.as_str();
    let path = format!("{name}.rate_limit");
    let (kind, breaks, side, span, message, reason) = match (&o.rate_limit, &n.rate_limit) {
        (None, None) => return,
        (None, Some(new)) => (
            "rate-limit-added",
            Some(Party::Callers),
            Side::New,
            new.span,
            format!("`{name}` now has a rate limit: {}", words(new)),
            "a caller who made more calls than that is now refused with rate_limited",
        ),
        (Some(old), None) => (
            "rate-limit-removed",
            None,
            Side::Old,
            old.span,
            format!("`{name}` no longer has a rate limit (was {})", words(old)),
            "no call is refused for its rate any more",
        ),
        (Some(old), Some(new)) => {
            let (rate, at_once) = (compare_rate(old, new), at_once(new).cmp(&at_once(old)));
            let newly_shared = old.shared_by.is_none() && new.shared_by.is_some();
            use std::cmp::Ordering::{Equal, Greater, Less};
            if rate == Less || at_once == Less || newly_shared {
                (
                    "rate-limit-lowered",
                    Some(Party::Callers),
                    Side::New,
                    new.span,
                    format!(
                        "`{name}`'s rate limit was lowered: {} (was {})",
                        words(new),
                        words(old)
                    ),
                    if newly_shared && rate == Equal && at_once == Equal {
                        "its budget is now shared with other tools: their calls use it up too"
                    } else {
                        "calls a caller could make before are now refused with rate_limited"
                    },
                )
            } else if rate == Greater || at_once == Greater || old.shared_by != new.shared_by {
                (
                    "rate-limit-raised",
                    None,
                    Side::New,
                    new.span,
                    format!(
                        "`{name}`'s rate limit was raised: {} (was {})",
                        words(new),
                        words(old)
                    ),
                    "every call that went through before still does",
                )
            } else {
                return;
            }
        }
    };
    out.push(
        kind,
        breaks,
        Some(name),
        path,
        (side, span),
        message,
        reason,
    );
}

/// The sustained rate, new against old: calls per second, compared without rounding
/// (`a/p < b/q` as `a*q < b*p`).
fn compare_rate(old: &RateLimit, new: &RateLimit) -> std::cmp::Ordering {
    let new_rate = u128::from(new.calls) * u128::from(old.per.as_secs());
    let old_rate = u128::from(old.calls) * u128::from(new.per.as_secs());
    new_rate.cmp(&old_rate)
}

/// How many calls may come at once: the burst, else the whole window.
fn at_once(l: &RateLimit) -> u32 {
    l.burst.unwrap_or(l.calls)
}

/// The limit in the description's words, inside a sentence: "at most 10 calls per minute
/// per caller".
fn words(l: &RateLimit) -> String {
    let sentence = l.sentence();
    let clause = sentence.trim_end_matches('.');
    let mut chars = clause.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}
