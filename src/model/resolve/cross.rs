//! Checks that need every toolset loaded together: duplicate tool names and aliases, and
//! tools named by `not_for` and `undo` that must exist.

use crate::diagnostics::{Diagnostic, Diagnostics, Span, did_you_mean};
use crate::model::implied;
use crate::model::{Field, Kind, Model, Origin, Text};
use std::collections::HashMap;

/// Checks that need every toolset: duplicate names, `not_for` and `undo` references.
pub(super) fn cross_check(model: &mut Model, all_loaded: bool, diags: &mut Diagnostics) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for ts in &model.toolsets {
        for t in &ts.tools {
            for n in std::iter::once(&t.name).chain(&t.aliases) {
                if let Some(first) = seen.get(&n.text) {
                    let path = model
                        .toolsets
                        .iter()
                        .find(|t| t.span.file == first.file)
                        .map_or("", |t| t.path.as_str());
                    let fp = first.pos;
                    diags.push(
                        Diagnostic::error("duplicate-tool", n.span, format!("tool name `{}` is used twice", n.text))
                            .label("already used")
                            .note(format!("first used at {path}:{}:{}", fp.line, fp.column))
                            .help("tool names and deprecated aliases must be unique across the toolsets a host loads"),
                    );
                } else {
                    seen.insert(n.text.clone(), n.span);
                }
            }
        }
    }
    let names: Vec<String> = model.tools().map(|(_, t)| t.name.text.clone()).collect();
    let mut undo_fields: Vec<(usize, usize, Field)> = Vec::new();
    for (si, ts) in model.toolsets.iter().enumerate() {
        for (ti, t) in ts.tools.iter().enumerate() {
            for nf in &t.not_for {
                if all_loaded && !names.contains(&nf.use_tool.text) {
                    diags.push(unknown_tool(&nf.use_tool, &names, "`use`"));
                }
            }
            let Some(undo) = &t.undo else { continue };
            let Some((_, target)) = model.tool(&undo.tool.text) else {
                if all_loaded {
                    diags.push(unknown_tool(&undo.tool, &names, "undo `tool`"));
                }
                continue;
            };
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
                if let Some(source) = t.output_path(&path.text)
                    && let Some(d) =
                        undo_type_mismatch(source, p, &path.text, param.span, &target.name.text)
                {
                    diags.push(d);
                }
                if t.output_path(&path.text).is_none() {
                    let paths = spec_output_paths(&t.output);
                    let help = match did_you_mean(&path.text, paths.iter().map(String::as_str)) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!(
                            "use a dotted path to a field of the output: {}",
                            paths.join(", ")
                        ),
                    };
                    diags.push(
                        Diagnostic::error(
                            "unknown-output-path",
                            path.span,
                            format!("`{}` is not a field of `{}`'s output", path.text, t.name),
                        )
                        .label("the undo argument must come from the result")
                        .help(help),
                    );
                }
                let mut f = p.clone();
                f.required = true;
                // The argument holds the value it is read from (`previous.summary`: "Its
                // title before"), not what the parameter means in a call of its own ("Its
                // new title"), so it is described by that result field.
                if let Some(source) = t.output_path(&path.text)
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
                args.push(k.clone());
            }
            undo_fields.push((
                si,
                ti,
                implied::undo_output(undo.span, &target.name.text, args),
            ));
        }
    }
    for (si, ti, field) in undo_fields {
        let output = &mut model.toolsets[si].tools[ti].output;
        let at = output
            .iter()
            .position(|f| f.name == "truncated")
            .unwrap_or(output.len());
        output.insert(at, field);
    }
}

/// Why an undo argument taken from `source` (a result field) cannot fill the undo tool's
/// parameter `target`: another JSON type, or values the parameter does not allow. The undo
/// call is made by an agent after a change; one the undo tool refuses leaves the change in
/// place, so it is refused here instead.
fn undo_type_mismatch(
    source: &Field,
    target: &Field,
    path: &str,
    at: crate::diagnostics::Span,
    tool: &str,
) -> Option<Diagnostic> {
    let (from, to) = (source.ty.json_type(), target.ty.json_type());
    if from != to {
        return Some(
            Diagnostic::error(
                "undo-argument-type",
                at,
                format!(
                    "`{path}` is {} {from}, but `{tool}`'s `{}` takes {} {to}",
                    article(from),
                    target.name,
                    article(to)
                ),
            )
            .label("the undo call would be refused")
            .help(format!(
                "take `{}` from a result field of type {to}, or change the field's type",
                target.name
            )),
        );
    }
    if let (Kind::String(s), Kind::String(t)) = (&source.ty.kind, &target.ty.kind)
        && let Some(allowed) = &t.enum_values
    {
        let outside: Vec<&str> = match &s.enum_values {
            Some(values) => values
                .iter()
                .filter(|v| !allowed.contains(v))
                .map(String::as_str)
                .collect(),
            None => vec!["any other string"],
        };
        if !outside.is_empty() {
            return Some(
                Diagnostic::error(
                    "undo-argument-type",
                    at,
                    format!(
                        "`{path}` can be {}, which `{tool}`'s `{}` does not take (one of: {})",
                        outside.join(", "),
                        target.name,
                        allowed.join(", ")
                    ),
                )
                .label("some undo calls would be refused")
                .help("give the result field the same enum (a shared named type), or widen the parameter's"),
            );
        }
    }
    None
}

fn article(json_type: &str) -> &'static str {
    if json_type.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
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

fn unknown_tool(name: &Text, names: &[String], what: &str) -> Diagnostic {
    let d = Diagnostic::error(
        "unknown-tool",
        name.span,
        format!(
            "{what} names `{}`, which no spec being checked defines",
            name.text
        ),
    )
    .label("unknown tool");
    match did_you_mean(&name.text, names.iter().map(String::as_str)) {
        Some(s) => d.help(format!("did you mean `{s}`?")),
        None => {
            d.help("fix the name, or check this spec together with the spec that defines the tool")
        }
    }
}
