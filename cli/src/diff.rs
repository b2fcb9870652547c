//! `toolspec diff`: compare two versions of specs and classify every change.
//!
//! `toolspec diff OLD NEW` compares two files; `toolspec diff --against REF SPEC...` compares
//! each spec with its version in git at `REF` (`git show REF:./path`, run beside the file), the
//! specs of each side resolved together. A file that did not exist at `REF` counts as new.

use super::Outcome;
use std::path::{Path, PathBuf};
use std::process::Command;
use toolspec::internals::diff::{diff, load, render};

/// Output formats of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per change with its location, and the reason below it.
    Human,
    /// One JSON document: counts and `changes`.
    Json,
}

/// Runs the diff. Exit: 0 when nothing breaks, 1 when something does (or a spec is
/// invalid), 2 for usage problems (wrong arguments, unreadable files, a bad git ref).
pub fn run(files: &[PathBuf], against: Option<&str>, format: Format) -> Outcome {
    let sides = match against {
        None => {
            let [old, new] = files else {
                eprintln!("error: give two spec files (OLD NEW), or `--against REF` and the specs");
                return Outcome::Usage;
            };
            read_files(std::slice::from_ref(old))
                .and_then(|o| read_files(std::slice::from_ref(new)).map(|n| (o, n)))
        }
        Some(git_ref) => read_git(files, git_ref).and_then(|o| read_files(files).map(|n| (o, n))),
    };
    let (old_side, new_side) = match sides {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Outcome::Usage;
        }
    };
    let (old, new) = match (load(&old_side), load(&new_side)) {
        (Ok(o), Ok(n)) => (o, n),
        (o, n) => {
            for side in [o, n] {
                if let Err((sources, diags)) = side {
                    eprint!("{}", diags.render(&sources));
                }
            }
            return Outcome::Failed;
        }
    };
    let changes = diff(&old.0, &new.0);
    match format {
        Format::Human => print!("{}", render::human(&changes, &old.1, &new.1)),
        Format::Json => print!("{}", render::json(&changes, &old.1, &new.1)),
    }
    if changes.iter().any(|c| c.is_breaking()) {
        Outcome::Failed
    } else {
        Outcome::Clean
    }
}

/// (path as shown, text) of each spec of one side.
type Side = Vec<(String, String)>;

fn read_files(files: &[PathBuf]) -> Result<Side, String> {
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        out.push((
            f.display().to_string(),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    Ok(out)
}

fn read_git(files: &[PathBuf], git_ref: &str) -> Result<Side, String> {
    if files.is_empty() {
        return Err("give the spec files to compare with their version at the git ref".into());
    }
    let mut out = Vec::new();
    for f in files {
        let dir = f
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = f
            .file_name()
            .ok_or_else(|| format!("{} is not a file", f.display()))?
            .to_string_lossy();
        let verify = git(
            dir,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{git_ref}^{{commit}}"),
            ],
        )?;
        if !verify.0 {
            return Err(format!(
                "`{git_ref}` is not a commit in the git repository of {}",
                f.display()
            ));
        }
        let (ok, text) = git(dir, &["show", &format!("{git_ref}:./{name}")])?;
        if ok {
            out.push((format!("{git_ref}:{}", f.display()), text));
        }
        // Not in that commit: the file is new, so the old side simply lacks it.
    }
    Ok(out)
}

fn git(dir: &Path, args: &[&str]) -> Result<(bool, String), String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    Ok((
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}
