//! Checks that need every toolset loaded together: duplicate tool names and aliases, and
//! tools named by `not_for` and `undo` that must exist (an undo call itself is checked in
//! [`super::undo`], against the tool it names).

use super::undo::check_undo;
use crate::diagnostics::{Diagnostic, Diagnostics, Span, did_you_mean};
use crate::model::{Field, Model, Text};
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
            undo_fields.push((si, ti, check_undo(t, undo, target, diags)));
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
