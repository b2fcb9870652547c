//! `errors-not-listed`: a tool that looks something up lists how that can fail.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "errors-not-listed",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Errors,
    summary: "A tool that takes an id lists its errors (at least what happens when nothing has that id).",
    what: "Reports a tool with an id parameter (named `id` or `<x>_id`, or of a named type \
           ending in `Id`) whose `errors` list is empty. Built-in codes (validation, cursors, \
           idempotency, previews) never need listing.",
    why: "An id can always be wrong. When a tool's errors are listed, the schema, the docs and \
          the generated error enum tell the model what failure looks like and what to do \
          next (\"No ticket T-9. Find the id with tickets_search.\"); when they are not, the \
          implementation has no declared way to say \"not found\" and tends to return an empty \
          success or an internal error.",
    bad: "  - name: tickets_get\n    params: { ticket_id: ... }",
    good: "  - name: tickets_get\n    params: { ticket_id: ... }\n    errors: [not_found]",
    fix: "Declare the codes in the toolset's `errors:` (with a message that says what to do \
          next) and list them on the tool.",
    check,
};

fn is_id_param(f: &Field) -> bool {
    f.name == "id"
        || f.name.ends_with("_id")
        || f.ty.name.as_deref().is_some_and(|n| n.ends_with("Id"))
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        if !tool.errors.is_empty() {
            continue;
        }
        let Some(p) = tool.spec_params().find(|p| is_id_param(p)) else {
            continue;
        };
        out.push(
            Finding::on(tool, tool.name.span, format!("`{}` takes `{}` but lists no errors", tool.name.text, p.name))
                .label("what if nothing has that id?")
                .help("declare `not_found` (with a message naming the tool that finds valid ids) and add `errors: [not_found]`"),
        );
    }
}
