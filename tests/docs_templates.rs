//! `toolspec generate --emit docs --templates DIR`: a team's templates replace the built-in
//! ones file by file, and a broken one is reported by file and line (through the real
//! binary, as a user meets it).
//!
//! Run: `cargo test --test docs_templates`.

#[path = "docs/common.rs"]
mod common;

use common::{root, spec_paths};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolspec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// `toolspec generate specs/*.yaml --out OUT --emit docs [--templates DIR]`.
fn generate(out: &Path, templates: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolspec"));
    cmd.current_dir(root()).arg("generate");
    for p in spec_paths() {
        cmd.arg(p.strip_prefix(root()).unwrap_or(&p));
    }
    cmd.arg("--out").arg(out).arg("--emit").arg("docs");
    if let Some(dir) = templates {
        cmd.arg("--templates").arg(dir);
    }
    cmd.output().expect("toolspec runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn an_override_replaces_one_template_and_keeps_the_others() {
    let base = scratch("tpl-base");
    let custom = scratch("tpl-custom");
    let templates = scratch("tpl-dir");
    // Front matter for another site generator, then the built-in page's macros reused.
    std::fs::write(
        templates.join("tool.md.jinja"),
        "---\ntitle: {{ tool.name }}\ntier: {{ tool.tier }}\nservice: {{ toolset.service }}\n---\n\
         {% import \"macros.jinja\" as m %}\n# {{ tool.title | text }}\n\n> {{ tool.description | text }}\n\n\
         {% for p in tool.params %}- `{{ p.name }}`: {{ p.ty | text }}\n{% endfor %}",
    )
    .expect("write");
    assert!(generate(&base, None).status.success());
    let run = generate(&custom, Some(&templates));
    assert!(run.status.success(), "{}", text(&run));

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
    assert_ne!(page, read(base.join("tickets/docs/tickets_search.md")));
    // Templates not overridden render as before.
    for other in ["index.md", "errors.md", "SUMMARY.md", "book.toml"] {
        assert_eq!(
            read(custom.join("tickets/docs").join(other)),
            read(base.join("tickets/docs").join(other)),
            "{other} changed although only tool.md.jinja was overridden"
        );
    }
    for dir in [base, custom, templates] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn a_broken_template_is_reported_by_file_and_line() {
    let out = scratch("tpl-broken-out");
    let templates = scratch("tpl-broken");
    std::fs::write(
        templates.join("index.md.jinja"),
        "# {{ toolset.title }}\n\n{% for t in toolset.tools %}\n- {{ t.name }}\n{% endfor\n",
    )
    .expect("write");
    let run = generate(&out, Some(&templates));
    let said = text(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    let file = templates.join("index.md.jinja").display().to_string();
    assert!(
        said.contains(&format!("error[template]: {file}:5: syntax error")),
        "no file:line diagnostic:\n{said}"
    );
    // Reported once, not once per toolset, and nothing is written.
    assert_eq!(said.matches("error[template]").count(), 1, "{said}");
    assert!(!out.join("tickets/docs/index.md").exists());
    let _ = std::fs::remove_dir_all(&templates);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_misspelt_variable_is_an_error_not_an_empty_string() {
    let out = scratch("tpl-typo-out");
    let templates = scratch("tpl-typo");
    std::fs::write(
        templates.join("errors.md.jinja"),
        "# Errors\n\n{% for e in toolset.errors %}\n- {{ e.cdoe }}\n{% endfor %}\n",
    )
    .expect("write");
    let run = generate(&out, Some(&templates));
    let said = text(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    let file = templates.join("errors.md.jinja").display().to_string();
    assert!(
        said.contains(&format!("error[template]: {file}:4: undefined value")),
        "{said}"
    );
    assert!(said.contains("--templates directory"), "no hint:\n{said}");
    let _ = std::fs::remove_dir_all(&templates);
    let _ = std::fs::remove_dir_all(&out);
}
