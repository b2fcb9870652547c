//! `string-unbounded`: string parameters have a maximum length.

use super::prelude::*;
use crate::model::Format;

/// The rule.
pub static RULE: Rule = Rule {
    id: "string-unbounded",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Schemas,
    summary: "String parameters have a `max_length` (or an `enum`, a bounded `format` or a bounded pattern).",
    what: "Reports a string parameter (or array item) with no `max_length`, no `enum`, no \
           format that bounds it (`email`, `date`, `date-time`, `uuid`) and no pattern that \
           bounds it (anchored with `^...$`, no unbounded repeat: `^[a-z]{20}$`). Bounds \
           written on a named type are reported once, at the type.",
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
            let bounded_pattern = rules.pattern.as_deref().is_some_and(pattern_bounds_length);
            if rules.max_length.is_some()
                || rules.enum_values.is_some()
                || bounded_format
                || bounded_pattern
            {
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

/// Whether every string `pattern` matches has a bounded length: the pattern is anchored at
/// both ends (`^...$`, so it matches the whole value) and repeats nothing without bound. A
/// `max_length` beside it would say the same again.
fn pattern_bounds_length(pattern: &str) -> bool {
    use regex_syntax::hir::Look;
    let Ok(hir) = regex_syntax::Parser::new().parse(pattern) else {
        return false;
    };
    let p = hir.properties();
    p.look_set_prefix().contains(Look::Start)
        && p.look_set_suffix().contains(Look::End)
        && p.maximum_len().is_some()
}

#[cfg(test)]
mod tests {
    use super::pattern_bounds_length;

    #[test]
    fn only_anchored_patterns_without_unbounded_repeats_bound_a_string() {
        for bounded in ["^[a-z]{20}$", "^[a-z0-9-]{3,40}$", "^(ab|cd)?x$"] {
            assert!(pattern_bounds_length(bounded), "{bounded}");
        }
        for open in [
            "[a-z]{20}",
            "^[a-z]{20}",
            "[a-z]{3}$",
            "^[a-z]+$",
            "^a{3,}$",
            "^(a|b*)$",
            "(",
        ] {
            assert!(!pattern_bounds_length(open), "{open}");
        }
    }
}
