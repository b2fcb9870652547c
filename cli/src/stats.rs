//! `toolspec stats`: what each tool definition costs in context, in tokens.

use super::Outcome;
use std::path::PathBuf;

/// How `stats` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table per toolset.
    Human,
    /// JSON, for scripts and CI.
    Json,
}

pub fn run(specs: &[PathBuf], format: Format) -> Outcome {
    let Some(toolspec::Loaded {
        model,
        sources,
        diagnostics: mut diags,
    }) = super::load(specs)
    else {
        return Outcome::Usage;
    };
    // A tool of another spec named in `not_for` or `undo` costs nothing here: say so, count.
    diags.downgrade("unknown-tool");
    if !diags.is_empty() {
        eprint!("{}", diags.render(&sources));
    }
    if diags.has_errors() {
        return Outcome::Failed;
    }
    let sets: Vec<_> = model
        .toolsets
        .iter()
        .map(toolspec::internals::stats::toolset_cost)
        .collect();
    match format {
        Format::Human => print!("{}", toolspec::internals::stats::report::human(&sets)),
        Format::Json => print!("{}", toolspec::internals::stats::report::json(&sets)),
    }
    Outcome::Clean
}
