//! Parameter and output tables: one row per field, nested fields under dotted names.
//!
//! The words for types and constraints are composed here from the model's structured
//! fields (the same numbers the schemas and the validator use), so a table cannot claim a
//! limit the server does not enforce.

use super::filters::code_span;
use crate::model::describe::{
    Counted, bound_words, count_words, enum_words, json_number, map_words, requirement_sentence,
};
use crate::model::{Field, Kind, Origin, StringRules, Type};
use serde::Serialize;
use serde_json::Value;

/// One row of a parameter or output table.
#[derive(Debug, Clone, Serialize)]
pub struct FieldRow {
    /// Dotted name (`ticket.status`; items of a list are under the list's name).
    pub name: String,
    /// How deep it is nested (0 for top-level fields).
    pub depth: usize,
    /// The type in words (`string`, `array of Ticket`, `TicketId (string)`).
    pub ty: String,
    /// Parameters: the call must include it. Outputs: it is always present.
    pub required: bool,
    /// The default as JSON, if it has one.
    pub default: Option<String>,
    /// The constraints in words, values and patterns as Markdown code spans
    /// (`` one of: `open`, `closed` ``, `1 to 50`), empty when none.
    pub constraints: String,
    /// A realistic value, as compact JSON.
    pub example: String,
    /// What it means.
    pub description: String,
    /// `spec`, or the setting that implied it: `paging`, `response_format`, `projection`,
    /// `idempotency`, `preview`, `undo`, `budget`.
    pub origin: &'static str,
    /// Whether a setting implied it rather than the spec listing it.
    pub implied: bool,
    /// Present only in detailed responses (itself or a parent).
    pub detailed_only: bool,
    /// A projected field: when results carry it, in words (`` unless `fields` leaves it
    /// out ``); `None` for a field every result carries.
    pub projected: Option<String>,
    /// The variant of a union it belongs to, as a condition on the wire (`` `result.kind`
    /// is `get` ``); `None` outside unions. Its `required` holds within that variant.
    pub when: Option<String>,
}

/// Rows for `fields` and everything nested in them, in order.
pub fn rows(fields: &[Field]) -> Vec<FieldRow> {
    let mut out = Vec::new();
    walk(fields, "", 0, (false, None), &mut out);
    out
}

fn walk(
    fields: &[Field],
    prefix: &str,
    depth: usize,
    (detailed, when): (bool, Option<&str>),
    out: &mut Vec<FieldRow>,
) {
    for f in fields {
        let name = format!("{prefix}{}", f.name);
        let detailed_only = detailed || f.detailed_only;
        out.push(FieldRow {
            name: name.clone(),
            depth,
            ty: type_words(&f.ty),
            required: f.required,
            default: f.default.as_ref().map(Value::to_string),
            constraints: with_null(f, constraints(&f.ty)),
            example: f.example.to_string(),
            description: f.description.clone(),
            origin: origin_name(f.origin),
            implied: f.origin != Origin::Spec,
            detailed_only,
            projected: f.projected.then(String::new),
            when: when.map(str::to_string),
        });
        let inner = (detailed_only, when);
        match &innermost(&f.ty).kind {
            Kind::Object { fields, .. } => {
                walk(fields, &format!("{name}."), depth + 1, inner, out);
            }
            Kind::Map { values, .. } => {
                if let Kind::Object { fields, .. } = &innermost(values).kind {
                    walk(fields, &format!("{name}.*."), depth + 1, inner, out);
                }
            }
            Kind::Union { variants, tag } => {
                union_rows(f, &name, variants, tag.as_deref(), depth, inner, out);
            }
            _ => {}
        }
    }
}

/// The rows inside a union, at the paths they have on the wire. A variant is no key of its
/// own: a tagged union's variant is named by its tag (`result.kind`, a row listing every
/// variant), and each variant's fields sit beside the tag (`result.pull_request`), present
/// when the tag names their variant. An untagged union's object variants put their fields
/// right under the union's name, told apart by the fields themselves.
fn union_rows(
    f: &Field,
    name: &str,
    variants: &[Field],
    tag: Option<&str>,
    depth: usize,
    (detailed, when): (bool, Option<&str>),
    out: &mut Vec<FieldRow>,
) {
    let both = |cond: String| match when {
        Some(outer) => format!("{outer} and {cond}"),
        None => cond,
    };
    if let Some(tag) = tag {
        let rules = StringRules {
            enum_values: Some(variants.iter().map(|v| v.name.clone()).collect()),
            enum_descriptions: variants
                .iter()
                .filter(|v| !v.description.is_empty())
                .map(|v| (v.name.clone(), v.description.clone()))
                .collect(),
            ..StringRules::default()
        };
        out.push(FieldRow {
            name: format!("{name}.{tag}"),
            depth: depth + 1,
            ty: "string".into(),
            required: true,
            default: None,
            constraints: constraints(&Type::of(Kind::String(rules))),
            example: variants
                .first()
                .map(|v| Value::from(v.name.as_str()).to_string())
                .unwrap_or_default(),
            description: format!(
                "Which variant `{}` is; the rows below say which fields each one has.",
                f.name
            ),
            origin: origin_name(f.origin),
            implied: f.origin != Origin::Spec,
            detailed_only: detailed,
            projected: None,
            when: when.map(str::to_string),
        });
    }
    for v in variants {
        let Kind::Object { fields, .. } = &innermost(&v.ty).kind else {
            continue;
        };
        let cond = match tag {
            Some(tag) => both(format!("`{name}.{tag}` is {}", code_span(&v.name))),
            None => both(format!("`{name}` is the `{}` variant", v.name)),
        };
        walk(
            fields,
            &format!("{name}."),
            depth + 1,
            (detailed || v.detailed_only, Some(&cond)),
            out,
        );
    }
}

/// A nullable field's meaning of `null`, after its other constraints.
fn with_null(f: &Field, constraints: String) -> String {
    if !f.nullable {
        return constraints;
    }
    let null = crate::model::describe::null_words(f);
    if constraints.is_empty() {
        null
    } else {
        format!("{constraints}; {null}")
    }
}

/// The type inside any number of arrays.
fn innermost(ty: &Type) -> &Type {
    match &ty.kind {
        Kind::Array { items, .. } => innermost(items),
        _ => ty,
    }
}

fn origin_name(o: Origin) -> &'static str {
    match o {
        Origin::Spec => "spec",
        Origin::Paging => "paging",
        Origin::ResponseFormat => "response_format",
        Origin::Projection => "projection",
        Origin::Idempotency => "idempotency",
        Origin::Preview => "preview",
        Origin::Undo => "undo",
        Origin::Budget => "budget",
    }
}

/// A type in words: named types by name with their JSON type, arrays by their items.
pub fn type_words(ty: &Type) -> String {
    match (&ty.kind, &ty.name) {
        (Kind::Array { items, .. }, _) => format!("array of {}", item_words(items)),
        (Kind::Map { values, .. }, None) => format!("map of {}", item_words(values)),
        (Kind::Object { .. }, Some(name)) => name.clone(),
        (Kind::Content(c), None) => c.as_str().replace('_', " "),
        (Kind::Union { variants, tag }, None) => {
            let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
            match tag {
                Some(tag) => format!("one of {} (by `{tag}`)", names.join(", ")),
                None => format!("one of {}", names.join(", ")),
            }
        }
        (_, Some(name)) => format!("{name} ({})", ty.json_type()),
        (
            Kind::Object {
                fields, open: true, ..
            },
            None,
        ) if fields.is_empty() => "object (any keys)".into(),
        (_, None) => ty.json_type().into(),
    }
}

fn item_words(ty: &Type) -> String {
    match (&ty.kind, &ty.name) {
        (Kind::Array { .. }, _) => format!("({})", type_words(ty)),
        (_, Some(name)) => name.clone(),
        _ => type_words(ty),
    }
}

/// The constraints of a type in words, `; `-separated; empty when it has none. Enum values
/// and patterns are Markdown code spans, so `*` or `_` in them cannot turn into emphasis.
pub fn constraints(ty: &Type) -> String {
    let mut parts = Vec::new();
    match &ty.kind {
        Kind::String(rules) => string_rules(rules, &mut parts),
        // The validator checks nothing else on an enum; neither do the docs.
        Kind::Integer {
            enum_values: Some(values),
            enum_descriptions,
            ..
        } => parts.push(format!(
            "one of: {}",
            enum_words(values, enum_descriptions, code_span)
        )),
        Kind::Integer {
            minimum, maximum, ..
        } => {
            if let Some(r) = bound_words(*minimum, *maximum) {
                parts.push(r);
            }
        }
        Kind::Number { minimum, maximum } => {
            if let Some(r) =
                bound_words(minimum.and_then(json_number), maximum.and_then(json_number))
            {
                parts.push(r);
            }
        }
        Kind::Boolean => {}
        Kind::Array {
            items,
            min_items,
            max_items,
        } => {
            if let Some(c) = count_words(*min_items, *max_items, Counted::Items) {
                parts.push(c);
            }
            let inner = constraints(items);
            if !inner.is_empty() {
                parts.push(format!("each: {inner}"));
            }
        }
        Kind::Map {
            values,
            keys,
            max_entries,
        } => {
            parts.extend(map_words(keys, *max_entries).into_iter().map(|w| {
                // A pattern is shown as code, as a string's is.
                match w.strip_prefix("keys matching ") {
                    Some(p) => format!("keys matching {}", code_span(p)),
                    None => w,
                }
            }));
            let inner = constraints(values);
            if !inner.is_empty() {
                parts.push(format!("each value: {inner}"));
            }
        }
        Kind::Object { requires, .. } => {
            parts.extend(requires.iter().map(requirement_sentence));
        }
        Kind::Union { .. } => {}
        Kind::Content(c) => parts.push(if c.moves() {
            "sent as its own content block, not in the structured result".into()
        } else {
            "also sent as a content block".into()
        }),
    }
    parts.join("; ")
}

fn string_rules(rules: &StringRules, parts: &mut Vec<String>) {
    if let Some(values) = &rules.enum_values {
        parts.push(format!(
            "one of: {}",
            enum_words(values, &rules.enum_descriptions, code_span)
        ));
        // The validator checks nothing else on an enum; neither do the docs.
        return;
    }
    if let Some(c) = count_words(rules.min_length, rules.max_length, Counted::Characters) {
        parts.push(c);
    }
    if let Some(p) = &rules.pattern {
        parts.push(format!("matches {}", code_span(p)));
    }
    if let Some(f) = rules.format {
        parts.push(format!("format: {}", f.as_str()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(rules: StringRules) -> Type {
        Type::of(Kind::String(rules))
    }

    #[test]
    fn words_for_constraints() {
        let t = string(StringRules {
            min_length: Some(1),
            max_length: Some(200),
            pattern: Some("^T-[0-9]+$".into()),
            ..StringRules::default()
        });
        assert_eq!(constraints(&t), "1-200 characters; matches `^T-[0-9]+$`");
        let list = Type::of(Kind::Array {
            items: Box::new(string(StringRules {
                max_length: Some(40),
                ..StringRules::default()
            })),
            min_items: Some(1),
            max_items: Some(5),
        });
        assert_eq!(constraints(&list), "1-5 items; each: up to 40 characters");
        assert_eq!(type_words(&list), "array of string");
        let money = Type::of(Kind::Number {
            minimum: Some(0.0),
            maximum: Some(1000000.0),
        });
        assert_eq!(constraints(&money), "0 to 1000000");
        let one = Type::of(Kind::integer(Some(1), None));
        assert_eq!(constraints(&one), "at least 1");
    }

    #[test]
    fn enums_say_only_their_values() {
        let t = string(StringRules {
            enum_values: Some(vec!["open".into(), "closed".into()]),
            max_length: Some(3),
            ..StringRules::default()
        });
        assert_eq!(constraints(&t), "one of: `open`, `closed`");
        // An integer's: its values say everything its bounds would.
        let t = Type::of(Kind::Integer {
            minimum: Some(1),
            maximum: Some(5),
            enum_values: Some(vec![1, 2, 5]),
            enum_descriptions: vec![(1, "Urgent.".into())],
        });
        assert_eq!(constraints(&t), "one of: `1` (urgent), `2`, `5`");
    }
}
