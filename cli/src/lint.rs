//! `toolspec lint`: run the lint rules over specs and print the findings.

use super::Outcome;
use std::path::PathBuf;
use toolspec::diagnostics::{Diagnostics, Sources};
use toolspec::internals::lint::output::{self, Counts};
use toolspec::internals::lint::{Options, Set};

/// Output formats of `lint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Each finding with its spec snippet and fix hint, then a summary.
    Human,
    /// One JSON document: `findings` and `summary`.
    Json,
    /// SARIF 2.1.0, for code-scanning upload.
    Sarif,
}

/// Lints `specs` together. Exit: 0 without errors, 1 with errors (or a spec failing
/// `check`), 2 when a file cannot be read.
pub fn run(specs: &[PathBuf], format: Format, set: Option<Set>) -> Outcome {
    let Some(toolspec::Loaded {
        model,
        sources,
        diagnostics: mut diags,
    }) = super::load(specs)
    else {
        return Outcome::Usage;
    };
    if !diags.has_errors() {
        diags.extend(toolspec::internals::lint::lint(&model, &Options { set }));
        diags.sort();
    }
    print(&diags, &sources, format, specs.len());
    if diags.has_errors() {
        Outcome::Failed
    } else {
        Outcome::Clean
    }
}

fn print(diags: &Diagnostics, sources: &Sources, format: Format, specs: usize) {
    match format {
        Format::Json => print!("{}", output::json(diags, sources)),
        Format::Sarif => {
            let cwd = std::env::current_dir().ok();
            print!("{}", output::sarif(diags, sources, cwd.as_deref()));
        }
        Format::Human => {
            for d in diags.iter() {
                println!("{}\n", d.render(sources));
            }
            let counts = Counts::of(diags);
            if counts == Counts::default() {
                println!(
                    "ok: no findings in {specs} spec{}",
                    if specs == 1 { "" } else { "s" }
                );
            } else {
                println!("{}", counts.summary());
            }
        }
    }
}
