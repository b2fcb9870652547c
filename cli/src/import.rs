//! `toolspec import openapi`: an OpenAPI document into a draft spec, with an account of
//! what was carried, dropped, guessed and missing on standard error.

use super::Outcome;
use std::path::{Path, PathBuf};
use toolspec::internals::import::openapi::{self, Options};

/// Imports `file` as `service`; writes the draft to `out` (refusing to replace a file
/// unless `force`) or to standard output.
pub fn openapi(
    file: &Path,
    service: &str,
    include: &[String],
    out: Option<&PathBuf>,
    force: bool,
) -> Outcome {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", file.display());
            return Outcome::Usage;
        }
    };
    let options = Options {
        service: service.to_string(),
        include: include.to_vec(),
        source_name: file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    let draft = match openapi::import(&text, &options) {
        Ok(d) => d,
        Err(e) => {
            eprintln!(
                "error: {}: {}\n  help: {}",
                file.display(),
                e.message,
                e.help
            );
            return Outcome::Failed;
        }
    };
    match out {
        Some(path) => {
            if path.exists() && !force {
                eprintln!(
                    "error: {} exists; the draft would replace it\n  help: write the draft elsewhere and compare with `toolspec diff OLD NEW`, or pass --force",
                    path.display()
                );
                return Outcome::Usage;
            }
            if let Err(e) = std::fs::write(path, &draft.yaml) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return Outcome::Usage;
            }
            eprintln!("wrote {}", path.display());
        }
        None => print!("{}", draft.yaml),
    }
    eprint!("{}", draft.report);
    eprintln!("next: `toolspec check` the draft, then `toolspec lint` it for what to finish");
    Outcome::Clean
}
