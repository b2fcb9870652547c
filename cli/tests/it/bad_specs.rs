//! Bad specs and the exact diagnostics `toolspec check` prints for them.
//!
//! Every `tests/bad-specs/<case>.yaml` is a spec with one kind of mistake (a few hold several,
//! to show that all are reported in one run). Next to it, `<case>.stderr` is the golden file:
//! exactly what `toolspec check tests/bad-specs/<case>.yaml` prints to stderr, run from the
//! crate root so the paths in it are stable. The test runs the real binary on each case,
//! compares its stderr with the golden file and checks the exit code is 1.
//!
//! The golden files are the product here: read a changed one as a user would. Is the message
//! clear, the location the node that is wrong, the hint something one can act on?
//!
//! To rewrite the golden files after an intended change in messages:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test -p toolspec-cli --test it bad_specs::
//! ```
//!
//! then review the diff with `git diff tests/bad-specs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURES: &str = "tests/bad-specs";

fn crate_root() -> &'static Path {
    crate::common::root()
}

/// The cases, as paths relative to the crate root, sorted by name.
fn cases() -> Vec<PathBuf> {
    let dir = crate_root().join(FIXTURES);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| Path::new(FIXTURES).join(p.file_name().expect("file name")))
        .collect();
    cases.sort();
    cases
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn check(case: &Path) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .arg("check")
        .arg(case)
        .current_dir(crate_root())
        .output()
        .expect("run toolspec");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn updating() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1")
}

#[test]
fn every_bad_spec_prints_its_golden_diagnostics_and_fails() {
    let cases = cases();
    assert!(
        cases.len() >= 30,
        "expected at least 30 bad specs in {FIXTURES}, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let run = check(case);
        let golden = crate_root().join(case.with_extension("stderr"));
        if updating() {
            std::fs::write(&golden, &run.stderr).expect("write golden file");
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if run.stderr != expected {
            failures.push(format!(
                "{}: stderr differs from {}\n--- expected\n{expected}\n--- actual\n{}",
                case.display(),
                golden.display(),
                run.stderr
            ));
        }
        if run.code != Some(1) {
            failures.push(format!(
                "{}: exit code {:?}, expected 1",
                case.display(),
                run.code
            ));
        }
        if !run.stdout.is_empty() {
            failures.push(format!(
                "{}: printed to stdout: {}",
                case.display(),
                run.stdout
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s); rerun with UPDATE_GOLDEN=1 if the new output is intended:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Every golden file ends with the summary line and reports at least one error with a real
/// location: a fixture that stopped failing would otherwise pass as an empty golden file.
#[test]
fn every_golden_file_reports_located_errors() {
    for case in cases() {
        let golden = crate_root().join(case.with_extension("stderr"));
        let text = std::fs::read_to_string(&golden)
            .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", golden.display()));
        let last = text.lines().last().unwrap_or("");
        assert!(
            last.ends_with("0 warnings") && !last.starts_with("0 errors"),
            "{}: last line `{last}` is not an error summary",
            golden.display()
        );
        let location = format!("--> {}:", case.display());
        for block in text.split("\n\n").filter(|b| b.starts_with("error[")) {
            assert!(
                block.contains(&location),
                "{}: a diagnostic without a location in the spec:\n{block}",
                golden.display()
            );
            assert!(
                block.contains("\nhelp: "),
                "{}: a diagnostic without a fix hint:\n{block}",
                golden.display()
            );
        }
    }
}

/// The codes of every error the loader and resolver can report, read from their source.
fn codes_in_source() -> BTreeSet<String> {
    let mut codes = BTreeSet::new();
    // Every source file below the loader and the resolver, subdirectories included
    // (`src/model/resolve/`, `src/model/fields/`).
    let mut dirs: Vec<PathBuf> = ["src/internals/spec", "src/model"]
        .iter()
        .map(|d| crate_root().join(d))
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("source directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source file");
            // `Diagnostic::error("code", ...` or the same with the code on the next line.
            for (i, _) in text.match_indices("Diagnostic::error(") {
                let rest = text[i + "Diagnostic::error(".len()..].trim_start();
                if let Some(rest) = rest.strip_prefix('"')
                    && let Some(end) = rest.find('"')
                {
                    codes.insert(rest[..end].to_string());
                }
            }
        }
    }
    // Codes passed through a variable (`code`) are listed where they are chosen.
    codes.retain(|c| !c.is_empty());
    for code in [
        "invalid-default",
        "invalid-example",
        "write-without-idempotency",
        "irreversible-without-preview",
        "reversible-without-undo",
    ] {
        codes.insert(code.to_string());
    }
    codes
}

/// Each error code the loader and resolver can report is shown by at least one bad spec, so
/// every message has been read, in context, by a person.
#[test]
fn every_error_code_has_a_bad_spec() {
    let mut shown = BTreeSet::new();
    for case in cases() {
        let golden = crate_root().join(case.with_extension("stderr"));
        let text = std::fs::read_to_string(&golden).unwrap_or_default();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("error[")
                && let Some(end) = rest.find(']')
            {
                shown.insert(rest[..end].to_string());
            }
        }
    }
    let missing: Vec<String> = codes_in_source().difference(&shown).cloned().collect();
    assert!(
        missing.is_empty(),
        "no bad spec in {FIXTURES} shows these error codes; add a case for each: {missing:?}"
    );
}
