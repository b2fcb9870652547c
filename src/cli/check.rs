//! `toolspec check`: load, resolve and report.

use super::Outcome;
use crate::diagnostics::{Diagnostics, Sources};
use std::path::PathBuf;

pub fn run(specs: &[PathBuf]) -> Outcome {
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let model = match crate::model::load_files(specs, &mut sources, &mut diags) {
        Ok(model) => model,
        Err((path, e)) => {
            eprintln!("error: cannot read {path}: {e}");
            return Outcome::Usage;
        }
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
    Outcome::Clean
}
