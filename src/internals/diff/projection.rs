//! Comparing a tool's `projection` and its `output_schema` level: what a call without a
//! field list gets, what a call with one may pass, and what the MCP list publishes.

use super::{Changes, Party, Side};
use crate::model::{Projection, Tool};

/// The fields of `p`'s objects a call without a field list gets.
fn by_default(p: &Projection) -> Vec<&str> {
    p.fields
        .iter()
        .map(String::as_str)
        .filter(|f| p.sent_by_default(f))
        .collect()
}

/// A projection added, removed, renamed or sending less by default.
pub(super) fn compare_projection(o: &Tool, n: &Tool, out: &mut Changes) {
    let name = n.name.text.as_str();
    match (&o.projection, &n.projection) {
        (None, Some(p)) => {
            let left_out: Vec<&str> = p
                .fields
                .iter()
                .map(String::as_str)
                .filter(|f| !p.sent_by_default(f))
                .collect();
            let (breaks, why) = if left_out.is_empty() {
                (
                    None,
                    "a new optional argument; results by default are as before".to_string(),
                )
            } else {
                (
                    Some(Party::Consumers),
                    format!(
                        "calls without {} no longer get {}",
                        p.param,
                        left_out.join(", ")
                    ),
                )
            };
            out.push(
                "projection-added",
                breaks,
                Some(name),
                format!("{name}.projection"),
                (Side::New, p.span),
                format!("`{name}` now takes a field list, `{}`", p.param),
                why,
            );
        }
        (Some(p), None) => out.push(
            "projection-removed",
            Some(Party::Callers),
            Some(name),
            format!("{name}.projection"),
            (Side::Old, p.span),
            format!("`{name}` no longer takes a field list (`{}`)", p.param),
            format!(
                "calls that pass {} are refused with unknown_argument",
                p.param
            ),
        ),
        (Some(a), Some(b)) => {
            if a.param != b.param {
                out.push(
                    "projection-param-renamed",
                    Some(Party::Callers),
                    Some(name),
                    format!("{name}.projection.param"),
                    (Side::New, b.span),
                    format!(
                        "the field list of `{name}` is now `{}` (was `{}`)",
                        b.param, a.param
                    ),
                    format!(
                        "calls that pass {} are refused with unknown_argument",
                        a.param
                    ),
                );
            }
            let before = by_default(a);
            let now = by_default(b);
            let lost: Vec<&str> = before
                .iter()
                .copied()
                .filter(|f| !now.contains(f) && b.fields.iter().any(|x| x == f))
                .collect();
            if !lost.is_empty() {
                out.push(
                    "projection-default-narrowed",
                    Some(Party::Consumers),
                    Some(name),
                    format!("{name}.projection.default"),
                    (Side::New, b.span),
                    format!(
                        "calls to `{name}` without {} no longer get {}",
                        b.param,
                        lost.join(", ")
                    ),
                    format!("they come only when {} names them", b.param),
                );
            }
            let dropped_always: Vec<&str> = a
                .always
                .iter()
                .map(String::as_str)
                .filter(|f| !b.always.iter().any(|x| x == f) && b.fields.iter().any(|x| x == f))
                .collect();
            if !dropped_always.is_empty() {
                out.push(
                    "projection-always-narrowed",
                    Some(Party::Consumers),
                    Some(name),
                    format!("{name}.projection.always"),
                    (Side::New, b.span),
                    format!(
                        "{} of `{name}` no longer come with every field list",
                        dropped_always.join(", ")
                    ),
                    format!(
                        "a call whose {} leaves them out stops getting them",
                        b.param
                    ),
                );
            }
        }
        (None, None) => {}
    }
}

/// The output schema the MCP list publishes: a client that validated results with the
/// full schema, or read the shape, loses it when the level goes down.
pub(super) fn compare_output_schema(o: &Tool, n: &Tool, out: &mut Changes) {
    use crate::model::OutputSchema;
    if o.output_schema == n.output_schema {
        return;
    }
    let rank = |s: OutputSchema| match s {
        OutputSchema::None => 0,
        OutputSchema::Shape => 1,
        OutputSchema::Full => 2,
    };
    let name = n.name.text.as_str();
    let less = rank(n.output_schema) < rank(o.output_schema);
    out.push(
        "output-schema-level-changed",
        None,
        Some(name),
        format!("{name}.output_schema"),
        (Side::New, n.name.span),
        format!(
            "the MCP list of `{name}` publishes {} of its output schema (was {})",
            n.output_schema.as_str(),
            o.output_schema.as_str()
        ),
        if less {
            "results are the same; a client that checked them with the published schema checks less"
        } else {
            "results are the same; clients can check more of them"
        },
    );
}
