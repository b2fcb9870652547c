//! `toolspec generate --emit docs --templates DIR`, through the real binary as a user runs
//! it: a team's templates replace the built-in ones file by file, and a broken one is
//! reported by file and line. Also the docs' own refusal of a spec example the server
//! would answer otherwise.
//!
//! Fixtures are in `tests/docs/`: `templates-*/` are override directories, and each
//! `<case>.stderr` is exactly what `toolspec generate` prints for a failing case, run from
//! the crate root so the paths in it are stable. To rewrite them after an intended change:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test -p toolspec-cli --test it docs_templates::
//! ```
//!
//! then review `git diff tests/docs`. Run: `cargo test -p toolspec-cli --test it docs_templates::`.

use crate::docs_common as common;

use common::{root, spec_paths};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolspec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// `toolspec generate SPECS --out OUT --emit docs [--templates DIR]`, from the crate root,
/// with spec and template paths relative to it.
fn generate(specs: &[PathBuf], out: &Path, templates: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolspec"));
    cmd.current_dir(root()).arg("generate");
    for p in specs {
        cmd.arg(p.strip_prefix(root()).unwrap_or(p));
    }
    cmd.arg("--out").arg(out).arg("--emit").arg("docs");
    if let Some(dir) = templates {
        cmd.arg("--templates").arg(dir);
    }
    cmd.output().expect("toolspec runs")
}

fn both(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Compares stderr with `tests/docs/<case>.stderr`, or rewrites it with `UPDATE_GOLDEN=1`.
fn golden(case: &str, run: &Output) {
    let path = root().join("tests/docs").join(format!("{case}.stderr"));
    let got = String::from_utf8_lossy(&run.stderr).into_owned();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).expect("write golden");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "{} is missing; run with UPDATE_GOLDEN=1 to create it. Got:\n{got}",
            path.display()
        )
    });
    assert_eq!(got, want, "stderr differs from {}", path.display());
}

#[test]
fn an_override_replaces_one_template_and_keeps_the_others() {
    let base = scratch("tpl-base");
    let custom = scratch("tpl-custom");
    let specs = spec_paths();
    assert!(generate(&specs, &base, None).status.success());
    let run = generate(&specs, &custom, Some("tests/docs/templates-front-matter"));
    assert!(run.status.success(), "{}", both(&run));

    let page = read(custom.join("tickets/docs/tickets_search.md"));
    assert!(
        page.starts_with(
            "---\ntitle: tickets_search\ntier: read_only\nservice: tickets\n---\n# Search tickets\n"
        ),
        "front matter missing:\n{page}"
    );
    assert!(
        page.contains("- `limit`: integer\n"),
        "implied parameters are in the context:\n{page}"
    );
    assert!(
        page.contains("<!-- call: tickets_search -->\n```json\n"),
        "the built-in macros are importable from an override:\n{page}"
    );
    assert_ne!(page, read(base.join("tickets/docs/tickets_search.md")));
    // Templates not overridden render as before.
    for other in ["index.md", "errors.md", "SUMMARY.md", "book.toml"] {
        assert_eq!(
            read(custom.join("tickets/docs").join(other)),
            read(base.join("tickets/docs").join(other)),
            "{other} changed although only tool.md.jinja was overridden"
        );
    }
    for dir in [base, custom] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn a_broken_template_is_reported_by_file_and_line() {
    let out = scratch("tpl-broken");
    let run = generate(&spec_paths(), &out, Some("tests/docs/templates-broken"));
    let said = both(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "error[template]: tests/docs/templates-broken/index.md.jinja:5: syntax error"
        ),
        "no file:line diagnostic:\n{said}"
    );
    // Reported once, not once per toolset, and nothing is written.
    assert_eq!(said.matches("error[template]").count(), 1, "{said}");
    assert!(!out.join("tickets/docs/index.md").exists());
    golden("templates-broken", &run);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_misspelt_variable_is_an_error_not_an_empty_string() {
    let out = scratch("tpl-typo");
    let run = generate(&spec_paths(), &out, Some("tests/docs/templates-typo"));
    let said = both(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "error[template]: tests/docs/templates-typo/errors.md.jinja:4: undefined value"
        ),
        "{said}"
    );
    assert!(said.contains("--templates directory"), "no hint:\n{said}");
    golden("templates-typo", &run);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn an_example_the_server_answers_otherwise_is_refused_at_its_line() {
    let out = scratch("docs-mismatch");
    let spec = root().join("tests/docs/example-answered-otherwise.yaml");
    let run = generate(&[spec], &out, None);
    let said = both(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(
        said.contains("error[docs-example]")
            && said.contains("example-answered-otherwise.yaml:26:")
            && said.contains("expects `invalid_enum`, but the server answers `pattern_mismatch`"),
        "{said}"
    );
    golden("example-answered-otherwise", &run);
    let _ = std::fs::remove_dir_all(&out);
}
