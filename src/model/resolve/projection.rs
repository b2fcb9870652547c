//! A read-only tool's `projection`: the objects it projects (the result, or each item of
//! one list), its field names checked, and the fields a call may leave out marked
//! `projected` so that every output (schemas, docs, the runtime's paths) says so.

use crate::diagnostics::{Diagnostic, did_you_mean};
use crate::model::fields::{FieldResolver, is_portable_param_name};
use crate::model::implied::RESERVED_PARAMS;
use crate::model::{Field, Kind, ListProblem, Paging, Projection, Text, find_list, keys_of};
use crate::spec::format::{self as raw, Tier};
use crate::spec::spanned::{Pos, Sp};

use super::text;

/// The default name of the field list parameter.
const PARAM: &str = "fields";

/// Resolves `t.projection` against the spec's own `output` and `params` (before the
/// implied ones are added), marking the projected fields; `None` when the tool has none or
/// it is written wrong (each mistake reported).
pub(super) fn resolve(
    fr: &mut FieldResolver,
    t: &raw::Tool,
    params: &[Field],
    output: &mut [Field],
    paging: Option<&Paging>,
) -> Option<Projection> {
    let p = t.projection.as_ref()?;
    let span = fr.span(p.pos);
    if t.tier.value != Tier::ReadOnly {
        fr.diags.push(
            Diagnostic::error(
                "invalid-projection",
                span,
                "`projection` is for read-only tools",
            )
            .label("a write's result is the record of its change")
            .help("remove `projection`, or move the read to its own read-only tool"),
        );
        return None;
    }
    let param = p
        .param
        .as_ref()
        .map_or_else(|| PARAM.to_string(), |n| n.value.clone());
    let param_at = p.param.as_ref().map_or(span, |n| fr.span(n.pos));
    let taken = params.iter().any(|f| f.name == param)
        || RESERVED_PARAMS.contains(&param.as_str())
        || paging
            .and_then(|pg| pg.pages.as_ref())
            .is_some_and(|n| n.page == param || n.size == param);
    let misnamed = taken || !is_portable_param_name(&param);
    if misnamed {
        let what = if taken {
            format!("the projection's parameter `{param}` is already a parameter of the tool")
        } else {
            format!("the projection's parameter `{param}` is not a portable parameter name")
        };
        fr.diags.push(
            Diagnostic::error("invalid-projection", param_at, what)
                .label("the field list needs a name of its own")
                .help("name it with `param:` (letters, digits, `_` or `-`, at most 64)"),
        );
    }

    let (path, objects) = match &p.items {
        None => (Vec::new(), Some(&mut *output)),
        Some(items) => {
            let segments: Vec<&str> = items.value.split('.').collect();
            let (keys, in_variant) = keys_of(output, &segments);
            if in_variant {
                fr.diags.push(
                    Diagnostic::error(
                        "invalid-projection",
                        fr.span(items.pos),
                        format!(
                            "projection items `{}` is inside a union's variant",
                            items.value
                        ),
                    )
                    .label("only lists reached through objects can be projected")
                    .help(
                        "project a list of the result's objects, or the result itself (no `items`)",
                    ),
                );
                return None;
            }
            let found = match find_list(output, &segments) {
                Ok(_) => list_items(output, &keys),
                Err(problem) => {
                    not_a_list(fr, items, problem);
                    return None;
                }
            };
            // The runtime's shaping paths join keys with `/` and read `*` as every item.
            if let Some(k) = keys.iter().find(|k| k.contains('/') || k.as_str() == "*") {
                fr.diags.push(
                    Diagnostic::error(
                        "invalid-projection",
                        fr.span(items.pos),
                        format!("projection items `{}` passes through the field `{k}`", items.value),
                    )
                    .label("`/` and `*` cannot be part of a projected list's path")
                    .help("project a list whose path has plain field names, or the result itself (no `items`)"),
                );
                return None;
            }
            if found.is_none() {
                fr.diags.push(
                    Diagnostic::error(
                        "invalid-projection",
                        fr.span(items.pos),
                        format!("the items of `{}` are not objects with fields", items.value),
                    )
                    .label("nothing to choose from")
                    .help("project a list of objects, or the result itself (no `items`)"),
                );
                return None;
            }
            (keys, found)
        }
    };
    let objects = objects?;
    let fields: Vec<String> = objects.iter().map(|f| f.name.clone()).collect();
    let always = names(fr, p.always.as_deref(), &fields, "always");
    let default = p
        .default
        .as_deref()
        .map(|d| names(fr, Some(d), &fields, "default"));

    // What the runtime needs in every result: the paged list (a projection of the result
    // itself could drop it) and a keyset's sort fields (the next cursor is read from them).
    let mut needed: Vec<&str> = Vec::new();
    if let Some(pg) = paging {
        if path.is_empty() {
            needed.extend(pg.path.first().map(String::as_str));
        } else if pg.path == path {
            needed.extend(pg.keyset.iter().map(|k| k.text.as_str()));
        }
    }
    for n in needed {
        if !always.iter().any(|a| a.text == n) {
            fr.diags.push(
                Diagnostic::error(
                    "invalid-projection",
                    span,
                    format!("`{n}` must be in the projection's `always`"),
                )
                .label("paging reads it from every result")
                .help(format!("add `{n}` to `always`")),
            );
        }
    }
    if misnamed {
        return None;
    }
    for f in objects.iter_mut() {
        f.projected = !always.iter().any(|a| a.text == f.name);
    }
    Some(Projection {
        param,
        path,
        fields,
        always: always.into_iter().map(|a| a.text).collect(),
        default: default.map(|d| d.into_iter().map(|a| a.text).collect()),
        span,
    })
}

/// The item fields of the list at `keys` (object keys from the result), when its items are
/// objects with fields.
fn list_items<'f>(output: &'f mut [Field], keys: &[String]) -> Option<&'f mut [Field]> {
    let (last, through) = keys.split_last()?;
    let mut level = output;
    for key in through {
        let f = level.iter_mut().find(|f| &f.name == key)?;
        level = match &mut f.ty.kind {
            Kind::Object { fields, .. } => fields.as_mut_slice(),
            _ => return None,
        };
    }
    let list = level.iter_mut().find(|f| &f.name == last)?;
    match &mut list.ty.kind {
        Kind::Array { items, .. } => match &mut items.kind {
            Kind::Object {
                fields,
                open: false,
                ..
            } if !fields.is_empty() => Some(fields.as_mut_slice()),
            _ => None,
        },
        _ => None,
    }
}

/// `always` or `default`, each name checked against the projected objects' fields and
/// listed once.
fn names(
    fr: &mut FieldResolver,
    written: Option<&[Sp<String>]>,
    fields: &[String],
    key: &str,
) -> Vec<Text> {
    let file = fr.span(Pos::default()).file;
    let mut out: Vec<Text> = Vec::new();
    for n in written.into_iter().flatten() {
        let at = fr.span(n.pos);
        if out.iter().any(|o| o.text == n.value) {
            fr.diags.push(
                Diagnostic::error(
                    "invalid-projection",
                    at,
                    format!("`{}` is listed twice in `{key}`", n.value),
                )
                .label("listed before")
                .help("name each field once"),
            );
            continue;
        }
        if !fields.contains(&n.value) {
            let help = match did_you_mean(&n.value, fields.iter().map(String::as_str)) {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!("the projected fields are: {}", fields.join(", ")),
            };
            fr.diags.push(
                Diagnostic::error(
                    "invalid-projection",
                    at,
                    format!(
                        "`{key}` names `{}`, which is not a projected field",
                        n.value
                    ),
                )
                .label("no such field")
                .help(help),
            );
            continue;
        }
        out.push(text(file, n));
    }
    out
}

fn not_a_list(fr: &mut FieldResolver, items: &Sp<String>, problem: ListProblem) {
    let why = match problem {
        ListProblem::NoField { name, .. } => format!("has no field `{name}`"),
        ListProblem::NotAList { json_type, .. } => format!("is {json_type}, not a list"),
        ListProblem::NotAnObject { name, json_type } => {
            format!("goes inside `{name}`, which is {json_type}")
        }
        ListProblem::NoVariant { union, .. }
        | ListProblem::NoVariantHolds { union, .. }
        | ListProblem::Untagged { union } => {
            format!("goes inside the union `{union}`")
        }
    };
    fr.diags.push(
        Diagnostic::error(
            "invalid-projection",
            fr.span(items.pos),
            format!("projection items `{}` {why}", items.value),
        )
        .label("not a list of the result")
        .help("name an output list by the fields that lead to it (`page.events`), or leave `items` out to project the result itself"),
    );
}
