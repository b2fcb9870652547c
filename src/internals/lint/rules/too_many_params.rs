//! `too-many-params`: a tool takes few enough parameters to fill right.

use super::prelude::*;

/// Most parameters a tool may declare (implied ones like `limit` not counted).
pub const MAX_PARAMS: usize = 8;

/// The rule.
pub static RULE: Rule = Rule {
    id: "too-many-params",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Schemas,
    summary: "A tool declares at most 8 parameters.",
    what: "Counts the parameters the spec declares for a tool (not the ones toolspec adds for \
           paging, response format, idempotency and previews) and reports more than 8.",
    why: "Each parameter is a decision the model makes on every call, and the chance of one \
          wrong value grows with each. A long parameter list also usually means one tool \
          serving several tasks, which makes routing harder too.",
    bad: "params: { a: ..., b: ..., c: ..., d: ..., e: ..., f: ..., g: ..., h: ..., i: ... }",
    good: "params: { query: ..., status: ..., customer_email: ... }",
    fix: "Split the tool by task, drop parameters the backend can infer, or group related \
          optional filters into an object.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        let n = tool.spec_params().count();
        if n > MAX_PARAMS {
            out.push(
                Finding::on(
                    tool,
                    tool.name.span,
                    format!(
                        "`{}` takes {n} parameters (most {MAX_PARAMS})",
                        tool.name.text
                    ),
                )
                .label("too many decisions per call")
                .help("split the tool by task, or drop parameters the backend can infer"),
            );
        }
    }
}
