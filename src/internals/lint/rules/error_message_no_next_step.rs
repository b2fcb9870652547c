//! `error-message-no-next-step`: an error message tells the agent what to do next.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "error-message-no-next-step",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Errors,
    summary: "Error messages say what to do next: an imperative, a tool to call, or when to retry.",
    what: "Reports a code of the spec's error catalog whose message has no sentence starting \
           with an imperative verb (Use, Call, Find, Pass, Retry, Wait, ...), names no tool of \
           the specs being linted, and does not mention retrying.",
    why: "An error is a prompt for the model's next call. \"Not found.\" gets a guess or a \
          give-up; \"No ticket T-9. Find the id with tickets_search, then retry with it.\" \
          gets the right next call on the next turn.",
    bad: "not_found:\n  message: \"Ticket {ticket_id} not found.\"\n  retryable: false",
    good: "not_found:\n  message: \"No ticket {ticket_id}. Find the id with tickets_search, then retry with it.\"\n  retryable: false",
    fix: "Add a sentence that starts with what to do: `Find the id with <tool>.`, `Retry after \
          {retry_after_seconds} seconds.`, `Use one of ...`.",
    check,
};

fn has_next_step(message: &str, tools: &[&str]) -> bool {
    let starts_imperative = message
        .split(['.', '!', '?', ';', ':'])
        .filter_map(|s| words::words(s).into_iter().next())
        .any(|w| words::is_imperative(&w));
    let ws = words::words(message);
    let retry = ws.iter().any(|w| w.starts_with("retry") || w == "try");
    let names_tool = tools.iter().any(|t| message.contains(t));
    starts_imperative || retry || names_tool
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let tools: Vec<&str> = cx.tools().map(|(_, t)| t.name.text.as_str()).collect();
    for ts in cx.toolsets() {
        for e in ts.errors.iter().filter(|e| !e.builtin) {
            if has_next_step(&e.message, &tools) {
                continue;
            }
            out.push(
                Finding::at(e.span, format!("the message of `{}` does not say what to do next", e.code))
                    .label(format!("\"{}\"", e.message))
                    .help("add what to do: `Find the id with <tool>.`, `Retry after {retry_after_seconds} seconds.`, `Use one of ...`"),
            );
        }
    }
}
