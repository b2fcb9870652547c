//! `id-name-suffix`: fields that hold identifiers are named `<thing>_id`.

use super::prelude::*;
use crate::model::Format;

/// The rule.
pub static RULE: Rule = Rule {
    id: "id-name-suffix",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Names,
    summary: "Fields holding identifiers are named `<thing>_id` (`ticket_id`, not `ticket` or `ticketId`).",
    what: "Reports a parameter or output field (fields of union variants included) whose type is an id (a named type ending in `Id`, \
           or a `uuid` string) but whose name does not end in `_id` (`_ids` for lists); a \
           camelCase `ticketId`; and a bare `id` in an output (bare `id` parameters are \
           `param-name-cryptic`'s).",
    why: "A field named `ticket` could hold an id, a title or a whole object; the model \
          guesses, and passes a title where an id was wanted. `ticket_id` says what to pass \
          and matches the `ticket_id` fields of other tools' results, so the model can chain \
          calls without guessing. Snake_case keeps names consistent across every tool.",
    bad: "params:\n  ticket: { type: TicketId, description: The ticket to read. }",
    good: "params:\n  ticket_id: { type: TicketId, description: The ticket to read. }",
    fix: "Rename the field `<thing>_id` (or `<thing>_ids` for a list of ids).",
    check,
};

fn is_id_type(ty: &Type) -> bool {
    ty.name
        .as_deref()
        .is_some_and(|n| n.ends_with("Id") || n.ends_with("ID"))
        || matches!(&ty.kind, Kind::String(s) if s.format == Some(Format::Uuid))
}

fn problem(f: &Field, is_param: bool) -> Option<String> {
    let name = f.name.as_str();
    let (ty, list) = match &f.ty.kind {
        Kind::Array { items, .. } => (items.as_ref(), true),
        _ => (&f.ty, false),
    };
    let snake_ok = if list {
        name.ends_with("_ids")
    } else {
        name.ends_with("_id")
    };
    if name == "id" {
        return (!is_param).then(|| "a bare `id` does not say whose id it is".to_string());
    }
    let words = words::ident_words(name);
    if name.chars().any(char::is_uppercase) && words.last().is_some_and(|w| w == "id" || w == "ids")
    {
        return Some(format!(
            "`{name}` is camelCase; ids are named snake_case `<thing>_id`"
        ));
    }
    if is_id_type(ty) && !snake_ok {
        return Some(format!(
            "`{name}` holds {} but is not named `<thing>_{}`",
            if list { "ids" } else { "an id" },
            if list { "ids" } else { "id" }
        ));
    }
    None
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        for (fields, is_param) in [(&tool.params, true), (&tool.output, false)] {
            walk_variants(fields, &mut |s: &Slot| {
                // A variant's name is a tag value, not a field name; its fields are visited.
                if s.is_items || s.is_variant {
                    return;
                }
                if let Some(why) = problem(s.field, is_param) {
                    let stem = s.field.name.trim_end_matches("Ids").trim_end_matches("Id");
                    let help = if s.field.name == "id" || stem.is_empty() {
                        "rename it `<thing>_id`, like `ticket_id`".to_string()
                    } else {
                        format!(
                            "rename it `{}_id` (or `_ids` for a list)",
                            heck::ToSnakeCase::to_snake_case(stem)
                        )
                    };
                    out.push(
                        Finding::on(tool, s.field.span, why)
                            .label("name ids `<thing>_id`")
                            .help(help),
                    );
                }
            });
        }
    }
}
