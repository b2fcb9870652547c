//! `free-form-object`: objects declare their fields.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "free-form-object",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Schemas,
    summary: "Objects declare their `fields`; free-form objects leave the model guessing keys.",
    what: "Reports an `object`, in the parameters or the output, written without `fields`, \
           which accepts or returns any keys.",
    why: "A free-form parameter is an invitation to invent keys (`{\"filter\": {\"state\": \
          \"open\"}}` where the backend wanted `status`); nothing validates it, and strict \
          provider modes cannot constrain it. A free-form output gives the model no schema to \
          read results by, and MCP clients cannot check them.",
    bad: "filters: { type: object, description: Filters to apply. }",
    good: "filters:\n  type: object\n  description: Filters to apply.\n  fields:\n    status: { type: TicketStatus, description: Only this status., required: false }",
    fix: "List the keys under `fields:`, each with its type and description; for keys that \
          are data (metadata, labels), write `type: map` with `values:` and `keys:` rules.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools() {
        for (fields, what) in [(&tool.params, "parameter"), (&tool.output, "output")] {
            walk(fields, &mut |s: &Slot| {
                let Kind::Object {
                    fields, open: true, ..
                } = &s.ty.kind
                else {
                    return;
                };
                if !fields.is_empty() {
                    return;
                }
                let f = constraint_finding(
                    ts,
                    tool,
                    s,
                    |n| format!("object type `{n}` (used by `{}`) has no `fields`", s.path),
                    || {
                        format!(
                            "{what} `{}` of `{}` is a free-form object",
                            s.path, tool.name.text
                        )
                    },
                );
                out.push(f.label("any keys").help(
                    "declare its keys under `fields:`, or, when the keys are data, make it `type: map` with `values:`",
                ));
            });
        }
    }
}
