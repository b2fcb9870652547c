//! `returns-vague`: `returns` says what comes back.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "returns-vague",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Descriptions,
    summary: "`returns` names what a call gives back, not \"the result\" or \"data\".",
    what: "Reports a `returns` with fewer than two meaningful words, or made only of vague ones \
           (result, data, response, output, object, JSON, information, details, success, \
           everything).",
    why: "Knowing what comes back is how the model decides whether this tool answers the \
          question, or whether it needs a second call. \"Returns the result\" forces a call \
          just to find out; \"matching tickets (id, title, status), best match first\" lets \
          the model plan.",
    bad: "returns: the result.",
    good: "returns: matching tickets (id, title, status), best match first, with the total count.",
    fix: "Name the things returned and their key fields, their order, and what an empty result means.",
    check,
};

const VAGUE: &[&str] = &[
    "data",
    "detail",
    "details",
    "everything",
    "info",
    "information",
    "json",
    "object",
    "ok",
    "output",
    "response",
    "result",
    "results",
    "stuff",
    "success",
    "thing",
    "things",
    "value",
    "values",
];

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        let ws: Vec<String> = words::words(&tool.returns.text)
            .into_iter()
            .filter(|w| !words::is_stop_word(w) && w.chars().count() > 1)
            .collect();
        if ws.len() >= 2 && !ws.iter().all(|w| VAGUE.contains(&w.as_str())) {
            continue;
        }
        out.push(
            Finding::on(tool, tool.returns.span, format!("`returns` of `{}` does not say what comes back", tool.name.text))
                .label("vague")
                .help("name what is returned and its key fields: `the ticket with its title, status and customer email`"),
        );
    }
}
