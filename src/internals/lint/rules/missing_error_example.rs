//! `missing-error-example`: a tool's examples show one of its errors.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "missing-error-example",
    severity: Severity::Info,
    set: Set::Strict,
    category: Category::Errors,
    summary: "A tool that lists errors has an example showing one of them.",
    what: "Reports a tool with a non-empty `errors` list none of whose `examples` expects one of \
           those codes. Only codes that arguments can cause are asked for: a retryable code \
           (`rate_limited`) comes from the moment, not from the call, so no example can show it.",
    why: "Examples are shown to agents, documented, and run by the gauntlet. An error example \
          shows the model what a failure looks like and proves the implementation really \
          returns the code instead of an empty success.",
    bad: "errors: [not_found]\nexamples:\n  - title: Read one ticket\n    arguments: { ticket_id: T-1001 }",
    good: "errors: [not_found]\nexamples:\n  - title: An unknown id\n    arguments: { ticket_id: T-9999 }\n    error: not_found",
    fix: "Add an example whose arguments trigger one of the listed codes, with `error: <code>`.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools() {
        // The listed codes a call's arguments can cause: not the retryable ones.
        let codes: Vec<&str> = tool
            .errors
            .iter()
            .map(|e| e.text.as_str())
            .filter(|c| !ts.errors.iter().any(|e| e.code == *c && e.retryable))
            .collect();
        if codes.is_empty() {
            continue;
        }
        let shown = tool.examples.iter().any(|e| {
            e.error
                .as_ref()
                .is_some_and(|c| tool.errors.iter().any(|l| l.text == c.text))
        });
        if !shown {
            out.push(
                Finding::on(
                    tool,
                    tool.name.span,
                    format!(
                        "no example of `{}` shows {}",
                        tool.name.text,
                        codes.join(" or ")
                    ),
                )
                .label("errors never demonstrated")
                .help(format!("add an example with `error: {}`", codes[0])),
            );
        }
    }
}
