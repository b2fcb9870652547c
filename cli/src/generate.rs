//! `toolspec generate`: write (or check) every output kind for the specs; `toolspec docs`:
//! the one docs book of all of them.

use super::Outcome;
use std::path::{Path, PathBuf};
use toolspec::internals::emit::write::{FileStatus, check_all, write_all};
use toolspec::internals::emit::{Kind, Options};

pub fn run(
    specs: &[PathBuf],
    out: &Path,
    kinds: &[Kind],
    check: bool,
    options: &Options,
) -> Outcome {
    let kinds = if kinds.is_empty() { Kind::ALL } else { kinds };
    emit(specs, out, check, "generate", |model| {
        toolspec::internals::emit::generate(model, kinds, options)
    })
}

/// `toolspec docs`: one mdBook of every spec's tools under `out`.
pub fn docs(specs: &[PathBuf], out: &Path, check: bool, options: &Options) -> Outcome {
    emit(specs, out, check, "docs", |model| {
        toolspec::internals::emit::docs::book(model, options).map(|files| {
            toolspec::internals::emit::Generated {
                files,
                warnings: Default::default(),
            }
        })
    })
}

/// Loads the specs, makes the files, and writes them under `out` (or checks them).
fn emit(
    specs: &[PathBuf],
    out: &Path,
    check: bool,
    command: &str,
    make: impl FnOnce(
        &toolspec::model::Model,
    ) -> Result<
        toolspec::internals::emit::Generated,
        toolspec::diagnostics::Diagnostics,
    >,
) -> Outcome {
    let Some(toolspec::Loaded {
        model,
        sources,
        diagnostics: diags,
    }) = super::load(specs)
    else {
        return Outcome::Usage;
    };
    if diags.has_errors() {
        eprint!("{}", diags.render(&sources));
        return Outcome::Failed;
    }
    let files = match make(&model) {
        Ok(generated) => {
            // What was left out, and why: a warning does not fail the run.
            if !generated.warnings.is_empty() {
                eprint!("{}", generated.warnings.render(&sources));
            }
            generated.files
        }
        Err(problems) => {
            eprint!("{}", problems.render(&sources));
            return Outcome::Failed;
        }
    };
    let result = if check {
        check_all(out, &files)
    } else {
        write_all(out, &files)
    };
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot write under {}: {e}", out.display());
            return Outcome::Usage;
        }
    };
    let changed: Vec<_> = report
        .iter()
        .filter(|(_, s)| *s != FileStatus::Unchanged)
        .collect();
    if check {
        for (path, status) in &changed {
            let what = if *status == FileStatus::Created {
                "missing"
            } else {
                "stale"
            };
            println!("{what}: {}", path.display());
        }
        if changed.is_empty() {
            println!("fresh: {} files under {}", report.len(), out.display());
            Outcome::Clean
        } else {
            eprintln!(
                "{} of {} generated files are missing or stale; run `toolspec {command}` without --check",
                changed.len(),
                report.len()
            );
            Outcome::Failed
        }
    } else {
        println!(
            "wrote {} of {} files under {} ({} unchanged)",
            changed.len(),
            report.len(),
            out.display(),
            report.len() - changed.len()
        );
        Outcome::Clean
    }
}
