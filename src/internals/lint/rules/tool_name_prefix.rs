//! `tool-name-prefix`: tool names start with the service namespace.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "tool-name-prefix",
    severity: Severity::Error,
    set: Set::Minimal,
    category: Category::Names,
    summary: "Tool names start with the service prefix (`tickets_`).",
    what: "Reports a tool whose name does not start with the toolset's `service` followed by `_` \
           (or `-`) and at least one more word.",
    why: "A host loads tools from several servers into one list. Two servers that both offer \
          `search` collide, and the model picks one by chance; `tickets_search` and \
          `docs_search` never collide and tell the model which domain each one covers.",
    bad: "service: tickets\ntools:\n  - name: search",
    good: "service: tickets\ntools:\n  - name: tickets_search",
    fix: "Rename the tool to `<service>_<verb>` or `<service>_<resource>_<verb>`; keep the old \
          name in `deprecated_aliases` so existing callers still reach it.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools() {
        let service = &ts.service.text;
        let name = &tool.name.text;
        if crate::model::has_service_prefix(service, name) {
            continue;
        }
        let (prefix, suggestion) = crate::model::with_service_prefix(service, name);
        out.push(
            Finding::on(tool, tool.name.span, format!("tool `{name}` does not start with `{prefix}`"))
                .label("no service prefix")
                .help(format!(
                    "rename it `{suggestion}` and add `deprecated_aliases: [{name}]` so old callers still reach it"
                )),
        );
    }
}
