//! `string-unbounded`: string parameters have a maximum length.

use super::prelude::*;
use crate::model::Format;

/// The rule.
pub static RULE: Rule = Rule {
    id: "string-unbounded",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Schemas,
    summary: "String parameters have a `max_length` (or an `enum`, or a bounded `format`).",
    what: "Reports a string parameter (or array item) with no `max_length`, no `enum`, and no \
           format that bounds it (`email`, `date`, `date-time`, `uuid`). Bounds written on a \
           named type are reported once, at the type.",
    why: "An unbounded string invites the model to paste a whole conversation or document \
          into a field meant for a few words, which the backend then truncates, rejects \
          with an opaque error, or stores. A `max_length` is enforced before the call and \
          tells the model what size of value is expected.",
    bad: "query: { type: string, description: Words to match in ticket titles., example: login loop }",
    good: "query: { type: string, description: Words to match in ticket titles., max_length: 200, example: login loop }",
    fix: "Add `max_length` with what the backend really accepts (and `min_length: 1` when empty is meaningless).",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools() {
        walk(&tool.params, &mut |s: &Slot| {
            let Kind::String(rules) = &s.ty.kind else {
                return;
            };
            let bounded_format = matches!(
                rules.format,
                Some(Format::Email | Format::Date | Format::DateTime | Format::Uuid)
            );
            if rules.max_length.is_some() || rules.enum_values.is_some() || bounded_format {
                return;
            }
            let f = constraint_finding(
                ts,
                tool,
                s,
                |n| {
                    format!(
                        "string type `{n}` (used by `{}`) has no `max_length`",
                        s.path
                    )
                },
                || {
                    format!(
                        "string parameter `{}` of `{}` has no `max_length`",
                        s.path, tool.name.text
                    )
                },
            );
            out.push(
                f.label("unbounded string")
                    .help("add `max_length` with what the backend accepts"),
            );
        });
    }
}
