//! `list-without-pagination`: list and search tools page their results.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "list-without-pagination",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Results,
    summary: "List and search tools have `paging` (a default limit, a hard maximum and a cursor).",
    what: "Reports a tool without `paging` whose name's verb is list, search, find, query, \
           browse or lookup, or whose output has a top-level list without `max_items`; a \
           tool whose lists all have `max_items` (or maps `max_entries`) is bounded already.",
    why: "A search that returns every match puts thousands of rows into the context, and \
          every later turn re-reads them. Paging gives a small default page, a hard maximum, \
          the total (so the model can narrow the query instead of paging) and an opaque \
          cursor for the rest.",
    bad: "  - name: tickets_search\n    output:\n      tickets: { type: array, items: { type: Ticket } }",
    good: "  - name: tickets_search\n    output:\n      tickets: { type: array, items: { type: Ticket } }\n    paging: { items: tickets }",
    fix: "Add `paging: {items: <the output list>}`; toolspec adds `limit`, `cursor`, `total` \
          and `next_cursor`.",
    check,
};

const LIST_VERBS: &[&str] = &["browse", "find", "list", "lookup", "query", "search"];

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools() {
        if tool.paging.is_some() {
            continue;
        }
        let rest = tool
            .name
            .text
            .strip_prefix(ts.service.text.as_str())
            .unwrap_or(&tool.name.text);
        let ws = words::ident_words(rest);
        let verb = [ws.first(), ws.last()]
            .into_iter()
            .flatten()
            .find(|w| LIST_VERBS.contains(&w.as_str()));
        let open_list = tool.spec_output().find(|f| {
            matches!(
                f.ty.kind,
                Kind::Array {
                    max_items: None,
                    ..
                }
            )
        });
        // A list capped with `max_items` is bounded by design (the ten best matches): the
        // cap says how much the context can get, which is what paging is for.
        // So is a map capped with `max_entries` (a palette by color id).
        let capped = open_list.is_none()
            && tool.spec_output().any(|f| {
                matches!(
                    f.ty.kind,
                    Kind::Array {
                        max_items: Some(_),
                        ..
                    } | Kind::Map {
                        max_entries: Some(_),
                        ..
                    }
                )
            });
        if capped {
            continue;
        }
        let why = match (verb, open_list) {
            (Some(v), _) => format!("`{}` is a `{v}` tool without paging", tool.name.text),
            (None, Some(f)) => format!(
                "`{}` returns the list `{}` without paging or `max_items`",
                tool.name.text, f.name
            ),
            (None, None) => continue,
        };
        let items = open_list
            .or_else(|| {
                tool.spec_output()
                    .find(|f| matches!(f.ty.kind, Kind::Array { .. }))
            })
            .map_or("<the output list>", |f| f.name.as_str());
        out.push(
            Finding::on(tool, tool.name.span, why)
                .label("returns every match")
                .help(format!("add `paging: {{items: {items}}}`")),
        );
    }
}
