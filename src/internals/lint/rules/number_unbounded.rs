//! `number-unbounded`: numeric parameters have bounds.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "number-unbounded",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Schemas,
    summary: "Integer and number parameters have a `minimum` or `maximum`; counts and sizes have a `maximum`.",
    what: "Reports an integer or number parameter (or array item) with neither `minimum` nor \
           `maximum`, and one whose name says it is a quantity (limit, count, size, amount, \
           quantity, days, hours, top, max...) without a `maximum`. An integer with an `enum` \
           is bounded by its values. Bounds written on a named type are reported once, at the \
           type.",
    why: "The model will pass 0, -1 or 1000000 when nothing says not to: a `days` of 10000 or a \
          `count` of a million is a valid integer. Bounds in the schema are enforced by strict \
          provider modes and by the generated validation, which answers with the allowed \
          range so the next call is right.",
    bad: "days: { type: integer, description: How many days back to look., example: 7 }",
    good: "days: { type: integer, description: How many days back to look., minimum: 1, maximum: 90, example: 7 }",
    fix: "Add `minimum` and `maximum` with the values the backend really accepts.",
    check,
};

const QUANTITIES: &[&str] = &[
    "amount", "count", "days", "depth", "hours", "items", "length", "limit", "max", "minutes",
    "months", "n", "quantity", "results", "retries", "seconds", "size", "top", "weeks", "years",
];

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools() {
        walk(&tool.params, &mut |s: &Slot| {
            let (has_min, has_max) = match &s.ty.kind {
                // An enum bounds it on both sides.
                Kind::Integer {
                    enum_values: Some(_),
                    ..
                } => return,
                Kind::Integer {
                    minimum, maximum, ..
                } => (minimum.is_some(), maximum.is_some()),
                Kind::Number { minimum, maximum } => (minimum.is_some(), maximum.is_some()),
                _ => return,
            };
            let quantity = words::ident_words(&s.field.name)
                .last()
                .is_some_and(|w| QUANTITIES.contains(&w.as_str()));
            let missing = match (has_min, has_max) {
                (false, false) => "no `minimum` or `maximum`",
                (true, false) if quantity => "no `maximum`",
                _ => return,
            };
            let f = constraint_finding(
                ts,
                tool,
                s,
                |n| format!("numeric type `{n}` (used by `{}`) has {missing}", s.path),
                || {
                    format!(
                        "parameter `{}` of `{}` has {missing}",
                        s.path, tool.name.text
                    )
                },
            );
            out.push(
                f.label("unbounded number")
                    .help("add `minimum` and `maximum` with the values the backend accepts"),
            );
        });
    }
}
