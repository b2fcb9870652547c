//! `nesting-too-deep`: parameters stay flat enough to fill correctly.

use super::prelude::*;

/// Most levels of objects and arrays a parameter may nest.
pub const MAX_DEPTH: usize = 3;

/// The rule.
pub static RULE: Rule = Rule {
    id: "nesting-too-deep",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Schemas,
    summary: "Parameters nest at most 3 levels of objects and arrays.",
    what: "Counts the objects and arrays nested in each parameter (`tags: [string]` is 1, a \
           list of objects with a list inside is 3) and reports a parameter deeper than 3.",
    why: "Models fill flat arguments reliably and deep ones poorly: keys land at the wrong \
          level and required inner fields go missing. Deep input usually means the tool does \
          several things at once, or mirrors a backend payload rather than the agent's task.",
    bad: "order:\n  type: object\n  fields:\n    lines:\n      type: array\n      items:\n        type: object\n        fields:\n          options: { type: array, items: { type: object, fields: {...} } }",
    good: "sku: { type: string, ... }\nquantity: { type: integer, ... }",
    fix: "Flatten the parameter into top-level ones, or split the tool into smaller steps.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        for p in tool.spec_params() {
            let depth = p.ty.depth();
            if depth > MAX_DEPTH {
                out.push(
                    Finding::on(
                        tool,
                        p.span,
                        format!(
                            "parameter `{}` of `{}` nests {depth} levels deep (most {MAX_DEPTH})",
                            p.name, tool.name.text
                        ),
                    )
                    .label("deeply nested")
                    .help("flatten it into top-level parameters, or split the tool into steps"),
                );
            }
        }
    }
}
