//! `response-format-missing`: large results let the agent ask for less.

use super::prelude::*;

/// Output fields (counted down to leaves) above which a result is large.
pub const MANY_FIELDS: usize = 12;

/// The rule.
pub static RULE: Rule = Rule {
    id: "response-format-missing",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Results,
    summary: "Paginated tools and tools with many output fields offer `response_format` or a `projection`.",
    what: "Reports a tool with neither `response_format` nor `projection` that is paginated \
           (over a list of objects: a list of plain values has no fields to leave out), or \
           whose output has more than 12 leaf fields (nested fields counted, list items once).",
    why: "Most calls need a few fields: the model scanning a page of results needs ids and \
          titles, not every email and body. `response_format` lets it ask for `concise` \
          results (fields marked `detailed_only` left out) and `detailed` only when it needs \
          them, which keeps pages small in the context. A `projection` does the same with a \
          list of the fields the call wants, for a server whose callers already send one.",
    bad: "  - name: orders_search\n    paging: { items: orders }",
    good: "  - name: orders_search\n    paging: { items: orders }\n    response_format: {}   # and `detailed_only: true` on the fields a scan does not need",
    fix: "Add `response_format: {}` and mark the fields only some calls need `detailed_only: true`, or add a `projection` (`projection: { always: [id] }`) so calls name the fields they want.",
    check,
};

fn leaves(fields: &[Field]) -> usize {
    let mut n = 0;
    walk(fields, &mut |s: &Slot| {
        if !matches!(s.ty.kind, Kind::Object { .. } | Kind::Array { .. }) {
            n += 1;
        }
    });
    n
}

/// Whether a paged tool's items are objects, which have fields a concise page can leave out;
/// file names or tags do not.
fn pages_objects(tool: &Tool) -> bool {
    let Some(paging) = &tool.paging else {
        return false;
    };
    paging.list(&tool.output).is_none_or(|f| match &f.ty.kind {
        Kind::Array { items, .. } => matches!(items.kind, Kind::Object { .. }),
        _ => true,
    })
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        // Either lets a call ask for less.
        if tool.response_format.is_some() || tool.projection.is_some() {
            continue;
        }
        let n = leaves(&tool.output);
        let why = if tool.paging.is_some() && pages_objects(tool) {
            format!("paginated `{}` has no `response_format`", tool.name.text)
        } else if n > MANY_FIELDS {
            format!(
                "`{}` returns {n} fields but has no `response_format`",
                tool.name.text
            )
        } else {
            continue;
        };
        out.push(
            Finding::on(tool, tool.name.span, why)
                .label("every call gets every field")
                .help("add `response_format: {}` and mark the fields a quick scan does not need `detailed_only: true`, or a `projection` so calls name the fields they want"),
        );
    }
}
