//! `toolspec check`: load, resolve and report. Eval tasks files (`eval: 1`) given beside the
//! specs are checked against them, with the same reports.

use super::Outcome;
use std::path::PathBuf;

pub fn run(files: &[PathBuf]) -> Outcome {
    let mut specs = Vec::new();
    let mut tasks = Vec::new();
    for path in files {
        match std::fs::read_to_string(path) {
            Ok(text) if is_tasks_file(&text) => tasks.push((path.as_path(), text)),
            _ => specs.push(path.clone()),
        }
    }
    if specs.is_empty() {
        eprintln!(
            "error: no spec given: a tasks file is checked against the specs it names tools of"
        );
        return Outcome::Usage;
    }
    let Some(toolspec::Loaded {
        model,
        mut sources,
        diagnostics: mut diags,
    }) = super::load(&specs)
    else {
        return Outcome::Usage;
    };
    let mut task_count = 0;
    if !diags.has_errors() {
        for (path, text) in &tasks {
            let file = sources.add(path.display().to_string(), text.clone());
            if let Some(read) =
                toolspec::internals::eval::load_tasks(file, text, &model, &mut diags)
            {
                task_count += read.len();
            }
        }
    }
    if !diags.is_empty() {
        eprint!("{}", diags.render(&sources));
    }
    if diags.has_errors() {
        return Outcome::Failed;
    }
    let tools: usize = model.toolsets.iter().map(|t| t.tools.len()).sum();
    let tasks_said = if tasks.is_empty() {
        String::new()
    } else {
        format!(
            ", {task_count} eval task{} in {} file{}",
            if task_count == 1 { "" } else { "s" },
            tasks.len(),
            if tasks.len() == 1 { "" } else { "s" }
        )
    };
    println!(
        "ok: {} spec{}, {} tool{}{tasks_said}",
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

/// Whether `text` is an eval tasks file: its first key at the top level is `eval`.
fn is_tasks_file(text: &str) -> bool {
    text.lines()
        .map(str::trim_end)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("---"))
        .is_some_and(|l| l.starts_with("eval:"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tasks_file_is_known_by_its_first_key() {
        assert!(super::is_tasks_file("# tasks\n---\neval: 1\ntasks: []\n"));
        assert!(!super::is_tasks_file("toolspec: 1\nservice: x\n"));
        assert!(!super::is_tasks_file(""));
    }
}
