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
        println!("approval of previewed changes:");
    }
    for (approval, names) in by_approval {
        println!(
            "  {} ({}): {}",
            approval.as_str(),
            names.join(", "),
            toolspec::model::describe::approval_explained(approval)
        );
    }
    // What a retry of each write can promise depends on where its change happens: said for
    // every write whose change is made outside the server's store, each kind explained once.
    let tools = || model.toolsets.iter().flat_map(|ts| &ts.tools);
    let mut by_effect: Vec<(toolspec::model::Effect, Vec<&str>)> = Vec::new();
    for tool in tools().filter(|t| t.effect.is_remote()) {
        match by_effect.iter_mut().find(|(e, _)| *e == tool.effect) {
            Some((_, names)) => names.push(&tool.name.text),
            None => by_effect.push((tool.effect, vec![&tool.name.text])),
        }
    }
    if !by_effect.is_empty() {
        println!("writes whose change is made at a remote service:");
    }
    for (effect, names) in by_effect {
        println!(
            "  {} ({}): {}",
            effect.as_str(),
            names.join(", "),
            toolspec::model::describe::effect_explained(effect)
        );
    }
    // A write that skips a safeguard does so for a stated reason: every one is listed, so a
    // reviewer sees them without reading the spec.
    let low_risk: Vec<_> = tools()
        .filter_map(|t| t.low_risk.as_ref().map(|r| (&t.name.text, &r.text)))
        .collect();
    if !low_risk.is_empty() {
        println!("irreversible changes made without a preview (low_risk):");
        for (name, why) in low_risk {
            println!("  {name}: {why}");
        }
    }
    let keyless: Vec<_> = tools()
        .filter_map(|t| {
            let i = t.idempotency.as_ref()?;
            i.key_optional.as_ref().map(|r| (&t.name.text, &r.text))
        })
        .collect();
    if !keyless.is_empty() {
        println!("writes that run again when retried without a key (key_optional):");
        for (name, why) in keyless {
            println!("  {name}: {why}");
        }
    }
    Outcome::Clean
}
