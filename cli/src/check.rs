//! `toolspec check`: load, resolve and report.

use super::Outcome;
use std::path::PathBuf;

pub fn run(specs: &[PathBuf]) -> Outcome {
    let Some(toolspec::Loaded {
        model,
        sources,
        diagnostics: diags,
    }) = super::load(specs)
    else {
        return Outcome::Usage;
    };
    if !diags.is_empty() {
        eprint!("{}", diags.render(&sources));
    }
    if diags.has_errors() {
        return Outcome::Failed;
    }
    let tools: usize = model.toolsets.iter().map(|t| t.tools.len()).sum();
    println!(
        "ok: {} spec{}, {} tool{}",
        model.toolsets.len(),
        if model.toolsets.len() == 1 { "" } else { "s" },
        tools,
        if tools == 1 { "" } else { "s" }
    );
    // Who approves each irreversible change is a security decision: say it for every one,
    // each kind explained once.
    let mut by_approval: Vec<(toolspec::model::Approval, Vec<&str>)> = Vec::new();
    for tool in model.toolsets.iter().flat_map(|ts| &ts.tools) {
        let Some(p) = &tool.preview else { continue };
        match by_approval.iter_mut().find(|(a, _)| *a == p.approval) {
            Some((_, names)) => names.push(&tool.name.text),
            None => by_approval.push((p.approval, vec![&tool.name.text])),
        }
    }
    if !by_approval.is_empty() {
        println!("approval of irreversible changes:");
    }
    for (approval, names) in by_approval {
        println!(
            "  {} ({}): {}",
            approval.as_str(),
            names.join(", "),
            toolspec::model::describe::approval_explained(approval)
        );
    }
    Outcome::Clean
}
