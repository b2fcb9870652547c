//! A reversible tool's `undo` call: that the runtime can build it from every result and that
//! the undo tool will take it.
//!
//! The runtime builds the call after the change (`toolspec_runtime::engine::attach_undo`):
//! each argument is read from the result at its dotted path, and the undo tool's
//! `idempotency_key` is derived from the call's own key when the call had one. An agent
//! makes that call later; one the undo tool refuses leaves the change in place. So every
//! argument must come from a result field that is always there, whose values the parameter
//! all takes ([`super::fits`]), every required parameter must be given, and the undo tool may
//! require a key only if every call of the undone tool has one to derive it from. What passes
//! becomes the `undo` output field, whose schema says exactly what the runtime sends.

use super::fits::{Misfit, misfits};
use crate::diagnostics::{Diagnostic, Diagnostics, Span, did_you_mean};
use crate::model::implied;
use crate::model::{Field, Kind, Origin, Tool, Undo};

/// The problems of `tool`'s undo call to `target`, and the `undo` output field it implies.
pub(super) fn check_undo(
    tool: &Tool,
    undo: &Undo,
    target: &Tool,
    diags: &mut Diagnostics,
) -> Field {
    let mut args = Vec::new();
    for (param, path) in &undo.arguments {
        let Some(p) = target.param(&param.text) else {
            let known: Vec<&str> = target.spec_params().map(|p| p.name.as_str()).collect();
            let mut d = Diagnostic::error(
                "unknown-param",
                param.span,
                format!("`{}` has no parameter `{}`", target.name, param.text),
            )
            .label("not a parameter of the undo tool");
            d = match did_you_mean(&param.text, known.iter().copied()) {
                Some(s) => d.help(format!("did you mean `{s}`?")),
                None => d.help(format!("its parameters are: {}", known.join(", "))),
            };
            diags.push(d);
            continue;
        };
        match tool.output_path(&path.text) {
            Some(source) => {
                if let Some(d) = sometimes_absent(&tool.output, &path.text, param.span) {
                    diags.push(d);
                }
                let argument = Argument {
                    path: &path.text,
                    param: &p.name,
                    tool: &target.name.text,
                    at: param.span,
                };
                for m in misfits(source, p) {
                    diags.push(argument.refusal(&m));
                }
            }
            None => diags.push(unknown_output_path(tool, &path.text, path.span)),
        }
        let mut f = p.clone();
        f.required = true;
        // The argument holds the value it is read from (`previous.summary`: "Its title
        // before"), not what the parameter means in a call of its own ("Its new title"),
        // so it is described by that result field.
        if let Some(source) = tool.output_path(&path.text)
            && !source.description.is_empty()
        {
            f.description = source.description.clone();
        }
        args.push(f);
    }
    for p in target
        .params
        .iter()
        .filter(|p| p.required && p.name != "idempotency_key")
    {
        if !undo.arguments.iter().any(|(k, _)| k.text == p.name) {
            diags.push(
                Diagnostic::error(
                    "undo-missing-argument",
                    undo.tool.span,
                    format!(
                        "the undo call to `{}` lacks its required `{}`",
                        target.name, p.name
                    ),
                )
                .label("incomplete undo call")
                .help(format!(
                    "add `{}: <path into the result>` under `arguments`",
                    p.name
                )),
            );
        }
    }
    if let Some(k) = target.param("idempotency_key") {
        // The runtime derives the undo's key from the call's (`undo_key`), so the undo
        // carries one exactly when the call did: always if the call's key is required.
        let always = tool
            .idempotency
            .as_ref()
            .is_some_and(|i| i.key_optional.is_none());
        if k.required
            && !always
            && let Some(d) = key_sometimes_missing(tool, undo, target)
        {
            diags.push(d);
        }
        let mut k = k.clone();
        k.required = always;
        args.push(k);
    }
    implied::undo_output(undo.span, &target.name.text, args)
}

/// One undo argument: the result path it is read from and the parameter it fills.
struct Argument<'a> {
    path: &'a str,
    param: &'a str,
    tool: &'a str,
    at: Span,
}

impl Argument<'_> {
    /// The diagnostic for one way the argument's values break the parameter.
    fn refusal(&self, m: &Misfit) -> Diagnostic {
        let (path, tool) = (self.path, self.tool);
        let from = format!("{path}{}", m.at());
        let to = format!("{}{}", self.param, m.at());
        let (message, help) = match m {
            Misfit::Type { from: a, to: b, .. } => (
                format!("`{from}` is {a}, but `{tool}`'s `{to}` takes {b}"),
                if m.at().is_empty() {
                    format!(
                        "take `{to}` from a result field of type {}, or change the field's type",
                        b.split_once(' ').map_or(b.as_str(), |(_, t)| t)
                    )
                } else {
                    format!(
                        "make `{from}` {b} (a shared named type keeps the two alike), or change `{tool}`'s `{to}`"
                    )
                },
            ),
            Misfit::Values {
                outside, allowed, ..
            } => (
                format!(
                    "`{from}` can be {}, which `{tool}`'s `{to}` does not take (one of: {})",
                    outside.join(", "),
                    allowed.join(", ")
                ),
                "give the result field the same enum (a shared named type), or widen the parameter's"
                    .to_string(),
            ),
            Misfit::Null { .. } => (
                format!("`{from}` can be null, which `{tool}`'s `{to}` does not take"),
                format!("make `{to}` nullable, or `{from}` not nullable"),
            ),
            Misfit::ExtraKey {
                key,
                takes,
                unmatched,
                ..
            } => (
                format!(
                    "`{from}` has a field `{key}` that `{tool}`'s `{to}` does not take (it takes only: {})",
                    takes.join(", ")
                ),
                match renamed(key, unmatched) {
                    Some(s) => format!(
                        "rename `{from}.{key}` to `{s}`, the name `{to}` takes it by"
                    ),
                    None => format!(
                        "give `{from}` the fields of `{to}` (a shared named type), or add `{key}` to the parameter"
                    ),
                },
            ),
            Misfit::MissingKey {
                key,
                optional: false,
                ..
            } => (
                format!("`{tool}`'s `{to}` requires a field `{key}`, which `{from}` does not have"),
                format!(
                    "add `{key}` to `{from}` (a shared named type keeps them alike), or make it optional in the parameter"
                ),
            ),
            Misfit::MissingKey {
                key,
                optional: true,
                ..
            } => (
                format!("`{tool}`'s `{to}` requires a field `{key}`, which `{from}` may leave out"),
                format!("make `{key}` required in `{from}`, or optional in the parameter"),
            ),
            Misfit::OpenKeys { takes, .. } => (
                format!(
                    "`{from}` can hold any keys, but `{tool}`'s `{to}` takes only: {}",
                    takes.join(", ")
                ),
                format!("give `{from}` the fields of `{to}` (a shared named type)"),
            ),
            Misfit::Variant { name, takes, .. } => (
                format!(
                    "`{from}` can be the variant `{name}`, which `{tool}`'s `{to}` does not have (its variants: {})",
                    takes.join(", ")
                ),
                "give both the same union (a shared named type), or add the variant to the parameter's"
                    .to_string(),
            ),
        };
        let code = if m.is_shape() {
            "undo-argument-shape"
        } else {
            "undo-argument-type"
        };
        let label = match m {
            Misfit::Values { .. } | Misfit::Null { .. } | Misfit::Variant { .. } => {
                "some undo calls would be refused"
            }
            Misfit::MissingKey { optional: true, .. } => "some undo calls would be refused",
            _ => "the undo call would be refused",
        };
        Diagnostic::error(code, self.at, message)
            .label(label)
            .help(help)
    }
}

/// Which of the parameter's fields the result lacks (`unmatched`) a result field `key`
/// probably is under another name: a near spelling, or one its name contains
/// (`addedObservations` for `observations`).
fn renamed<'a>(key: &str, unmatched: &'a [String]) -> Option<&'a str> {
    let lower = key.to_lowercase();
    did_you_mean(key, unmatched.iter().map(String::as_str)).or_else(|| {
        unmatched
            .iter()
            .find(|t| t.len() > 2 && lower.contains(&t.to_lowercase()))
            .map(String::as_str)
    })
}

/// The refusal of an undo tool that requires a key when the undone tool's calls may come
/// without one: the runtime then sends the undo without a key, and it is refused as
/// `missing_argument`.
fn key_sometimes_missing(tool: &Tool, undo: &Undo, target: &Tool) -> Option<Diagnostic> {
    let reason = tool.idempotency.as_ref()?.key_optional.as_ref()?;
    let p = reason.span.pos;
    Some(
        Diagnostic::error(
            "undo-key-optional",
            undo.tool.span,
            format!(
                "`{}` may be called without an idempotency key, but its undo tool `{}` requires one",
                tool.name, target.name
            ),
        )
        .label("a call without a key gets an undo call without one")
        .note(format!(
            "the undo's key is derived from the call's; `{}`'s key is optional at line {}, column {}, so some undo calls carry none and are refused as missing_argument",
            tool.name, p.line, p.column
        ))
        .help(format!(
            "give `{}` `idempotency: {{key_optional: <reason>}}` too, or remove `key_optional` from `{}` so every call has a key",
            target.name, tool.name
        )),
    )
}

/// The refusal of an argument read through an optional or nullable result field: the
/// runtime finds nothing at the path of a result that leaves it out, and the change gets no
/// undo call (the call fails with `internal_error` instead).
fn sometimes_absent(fields: &[Field], path: &str, at: Span) -> Option<Diagnostic> {
    let mut fields = fields;
    let mut walked = Vec::new();
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let f = fields.iter().find(|f| f.name == *part)?;
        walked.push(*part);
        let last = i + 1 == parts.len();
        // A null leaf is passed on as null (`fits` judges it); a null on the way has
        // nothing below it.
        if !f.required || (f.nullable && !last) {
            let here = walked.join(".");
            let why = if f.required { "be null" } else { "be left out" };
            return Some(
                Diagnostic::error(
                    "undo-argument-shape",
                    at,
                    format!("`{here}` may {why} of the result, and the undo call reads `{path}` from it"),
                )
                .label("some changes would get no undo call")
                .help(format!(
                    "make `{here}` required{} in the output, or take the argument from a field every result has",
                    if f.nullable { " and not nullable" } else { "" }
                )),
            );
        }
        fields = match &f.ty.kind {
            Kind::Object { fields, .. } => fields,
            _ => &[],
        };
    }
    None
}

fn unknown_output_path(tool: &Tool, path: &str, at: Span) -> Diagnostic {
    let paths = spec_output_paths(&tool.output);
    let help = match did_you_mean(path, paths.iter().map(String::as_str)) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!(
            "use a dotted path to a field of the output: {}",
            paths.join(", ")
        ),
    };
    Diagnostic::error(
        "unknown-output-path",
        at,
        format!("`{path}` is not a field of `{}`'s output", tool.name),
    )
    .label("the undo argument must come from the result")
    .help(help)
}

/// Dotted paths of every field the spec wrote in an output, objects followed into, for
/// suggesting where an undo argument can come from.
fn spec_output_paths(fields: &[Field]) -> Vec<String> {
    fn walk(fields: &[Field], prefix: &str, out: &mut Vec<String>) {
        for f in fields.iter().filter(|f| f.origin == Origin::Spec) {
            let path = format!("{prefix}{}", f.name);
            out.push(path.clone());
            if let Kind::Object { fields, .. } = &f.ty.kind {
                walk(fields, &format!("{path}."), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(fields, "", &mut out);
    out
}
