//! `array-unbounded`: lists have a maximum size.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "array-unbounded",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Schemas,
    summary: "Array parameters and output lists have a `max_items` (a paginated list is bounded by `limit`).",
    what: "Reports an array, in the parameters or in the output, without `max_items`. The \
           output list that `paging.items` names is bounded by the page size and is not \
           reported.",
    why: "An unbounded input list lets the model batch a thousand ids into one call that \
          times out halfway; an unbounded output list lets one call flood the context, which \
          every later turn re-reads. `max_items` is enforced and stated in the description.",
    bad: "recipients:\n  type: array\n  description: Email addresses to send the invoice to.\n  items: { type: string, format: email, example: a@example.com }",
    good: "recipients:\n  type: array\n  description: Email addresses to send the invoice to.\n  max_items: 5\n  items: { type: string, format: email, example: a@example.com }",
    fix: "Add `max_items`; for outputs that can grow without limit, page them with `paging` instead.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools() {
        let paging = tool.paging.as_ref();
        for (fields, what) in [(&tool.params, "parameter"), (&tool.output, "output")] {
            walk(fields, &mut |s: &Slot| {
                let Kind::Array {
                    max_items: None, ..
                } = &s.ty.kind
                else {
                    return;
                };
                // A paged list, top-level or at its dotted path inside an object or variants.
                if what == "output" && !s.is_items && paging.is_some_and(|p| p.names(s.path)) {
                    return;
                }
                let f = constraint_finding(
                    ts,
                    tool,
                    s,
                    |n| format!("list type `{n}` (used by `{}`) has no `max_items`", s.path),
                    || {
                        format!(
                            "{what} list `{}` of `{}` has no `max_items`",
                            s.path, tool.name.text
                        )
                    },
                );
                out.push(f.label("unbounded list").help(if what == "output" {
                    "add `max_items`, or page the list with `paging: {items: ...}`"
                } else {
                    "add `max_items` with the largest batch the backend handles in one call"
                }));
            });
        }
    }
}
