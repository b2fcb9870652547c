//! `tool-name-verb`: the name after the service prefix says what the tool does.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "tool-name-verb",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Names,
    summary: "The name after the service prefix contains an action verb (`search`, `get`, `send`).",
    what: "Splits the tool name after `<service>_` into words (at `_`, `-` and case changes) and reports it when neither the \
           first nor the last word is an action verb from toolspec's list (search, get, list, \
           create, update, send, refund, publish, ...).",
    why: "Agents route by name first. A verb says which action the tool takes, so \
          `tickets_search` and `tickets_create` are never confused; a noun-only name like \
          `tickets_manager` or `orders_data` makes the model guess which mode it is in, and \
          often hides several actions behind one tool.",
    bad: "  - name: tickets_manager",
    good: "  - name: tickets_search\n  - name: tickets_update_status",
    fix: "Name the tool `<service>_<verb>` or `<service>_<resource>_<verb>`; if it does several \
          things, split it into one tool per verb.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools() {
        let name = &tool.name.text;
        let rest = name
            .strip_prefix(ts.service.text.as_str())
            .map_or(name.as_str(), |r| r.trim_start_matches(['_', '-']));
        let ws = words::ident_words(rest);
        let is_verb =
            |w: &String| words::is_verb(w) || w.strip_suffix('s').is_some_and(words::is_verb);
        if ws.first().is_some_and(is_verb) || ws.last().is_some_and(is_verb) {
            continue;
        }
        out.push(
            Finding::on(tool, tool.name.span, format!("tool name `{name}` has no action verb"))
                .label("what does it do?")
                .help(format!(
                    "name the action: `{}_search`, `{}_get`, `{}_create`...; split the tool if it does several things",
                    ts.service.text, ts.service.text, ts.service.text
                )),
        );
    }
}
