//! `id-without-name`: objects in results carry a readable name beside their ids.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "id-without-name",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Results,
    summary: "Objects in results that carry `<x>_id` also carry a name, title or label.",
    what: "Looks at every object nested in a tool's output (list items and the variants of \
           unions included, tagged or not; the result itself is not, since the agent knows \
           what it asked for) and reports one that has an `id` or `<x>_id` field (other than \
           ids the tool took as parameters) but no readable field: `name`, `title`, `label`, \
           `subject`, `summary`, `display_name`, a handle a person knows (`login`, `handle`, \
           `username`, `email`, `slug`), or a field ending in `_name`, `_title`, `_label`, \
           `_login`, `_handle`, `_username`, `_email` or `_slug`.",
    why: "Ids alone make the model guess which row is which, and guesses become hallucinated \
          follow-up calls. Anthropic reports fewer wrong follow-ups when tools return \
          readable fields beside ids; a title also lets the model tell the user what it \
          found without another call.",
    bad: "Ticket:\n  type: object\n  fields:\n    ticket_id: { type: TicketId }\n    status: { type: TicketStatus }",
    good: "Ticket:\n  type: object\n  fields:\n    ticket_id: { type: TicketId }\n    title: { type: string, ... }\n    status: { type: TicketStatus }",
    fix: "Add the field a person would recognise the thing by (`title`, `name`, \
          `customer_name`) beside its id.",
    check,
};

/// Words a person recognises a thing by. Handles count: a user's `login` or `email`, a
/// repository's `slug`, are what people call it, and a code host's user object has no
/// other name.
const READABLE: &[&str] = &[
    "name",
    "title",
    "label",
    "subject",
    "summary",
    "display_name",
    "login",
    "handle",
    "username",
    "email",
    "slug",
];

/// The suffixes of readable fields (`author_login`, `owner_email`).
const READABLE_SUFFIXES: &[&str] = &[
    "_name",
    "_title",
    "_label",
    "_login",
    "_handle",
    "_username",
    "_email",
    "_slug",
];

fn is_readable(name: &str) -> bool {
    READABLE.contains(&name) || READABLE_SUFFIXES.iter().any(|s| name.ends_with(s))
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (ts, tool) in cx.tools() {
        let params: Vec<&str> = tool.params.iter().map(|p| p.name.as_str()).collect();
        walk_variants(&tool.output, &mut |s: &Slot| {
            let Kind::Object { fields, .. } = &s.ty.kind else {
                return;
            };
            let ids: Vec<&str> = fields
                .iter()
                .map(|f| f.name.as_str())
                .filter(|n| (*n == "id" || n.ends_with("_id")) && !params.contains(n))
                .collect();
            if ids.is_empty() || fields.iter().any(|f| is_readable(&f.name)) {
                return;
            }
            let (span, named) = constraint_span(ts, s.ty, s.field);
            let what = named.map_or_else(
                || format!("`{}`", s.path),
                |n| format!("type `{n}` (in `{}`)", s.path),
            );
            let msg = format!(
                "{what} returns `{}` without a name, title or label",
                ids.join("`, `")
            );
            let f = match s.ty.name {
                Some(_) => Finding::at(span, msg),
                None => Finding::on(tool, span, msg),
            };
            out.push(
                f.label("ids only")
                    .help("add the field a person would recognise it by, like `title` or `name`"),
            );
        });
    }
}
