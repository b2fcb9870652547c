//! `enum-in-prose`: a closed set of values is an `enum`, not a sentence.

use super::prelude::*;
use regex::Regex;
use std::sync::OnceLock;

/// The rule.
pub static RULE: Rule = Rule {
    id: "enum-in-prose",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Schemas,
    summary: "A string parameter whose description lists its allowed values has an `enum`.",
    what: "Reports a string parameter without `enum` whose description reads like a closed set: \
           \"one of\", \"either\", \"any of\", \"allowed/valid/possible values\", or three or \
           more quoted values.",
    why: "Prose is a suggestion; an enum is a constraint. Providers with strict tool modes \
          decode only the enum's values, the generated server refuses anything else with \
          `invalid_enum` and the list of valid values, and the docs list them. A value list in \
          prose gets `\"opened\"` passed for `\"open\"`, and nothing catches it.",
    bad: "status:\n  type: string\n  description: \"Filter by status: one of open, pending, closed.\"\n  example: open",
    good: "status:\n  type: string\n  description: Only tickets with this status; omit for all.\n  enum: [open, pending, closed]\n  example: open",
    fix: "Move the values into `enum: [...]` (or a named enum type shared by every tool) and \
          keep the description about what the value means.",
    check,
};

fn closed_set() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"(?i)\bone of\b|\beither\b|\bany of\b|\b(allowed|valid|possible|accepted|supported) values\b",
            r#"|(['"`][\w-]+['"`]\s*(,|or|/)\s*){2,}['"`][\w-]+['"`]"#
        ))
        .expect("valid regex")
    })
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        walk(&tool.params, &mut |s: &Slot| {
            if s.is_items {
                return;
            }
            let Kind::String(rules) = &s.ty.kind else {
                return;
            };
            if rules.enum_values.is_some() {
                return;
            }
            let Some(m) = closed_set().find(&s.field.description) else {
                return;
            };
            out.push(
                Finding::on(tool, s.field.span, format!("parameter `{}` of `{}` lists its values in prose but has no `enum`", s.path, tool.name.text))
                    .label(format!("\"{}\"", m.as_str()))
                    .help("move the values into `enum: [...]`; the server then refuses anything else with the list of valid values"),
            );
        });
    }
}
