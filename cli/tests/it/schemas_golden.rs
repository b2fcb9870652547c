//! `generated/` holds the schema output for `specs/`, and `toolspec generate --check` (the
//! real binary) agrees it is fresh; on a stale output folder, `--check` names the stale and missing
//! files, exits 1 and writes nothing.
//!
//! Run: `cargo test -p toolspec-cli --test it schemas_golden::`. After an intended change to the output, rewrite
//! the golden files with `UPDATE_GOLDEN=1 cargo test -p toolspec-cli --test it schemas_golden::` (the same as
//! `toolspec generate specs/*.yaml --out generated --emit schemas`) and review the diff.

use std::path::Path;
use std::process::{Command, Output};

use crate::common;
use common::{example_specs, load_clean, root};

fn generate(out: &Path, check: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolspec"));
    cmd.current_dir(root())
        .arg("generate")
        .args(example_specs())
        .arg("--out")
        .arg(out)
        .args(["--emit", "schemas"]);
    if check {
        cmd.arg("--check");
    }
    cmd.output().expect("run toolspec")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn generated_folder_is_fresh() {
    let out = root().join("generated");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let o = generate(&out, false);
        assert!(o.status.success(), "{}", text(&o));
    }
    let o = generate(&out, true);
    assert_eq!(
        o.status.code(),
        Some(0),
        "generated/ is stale; rerun with UPDATE_GOLDEN=1 and review the diff:\n{}",
        text(&o)
    );
    assert!(text(&o).contains("fresh:"), "{}", text(&o));
}

#[test]
fn check_reports_stale_and_missing_files_and_writes_nothing() {
    let tmp = std::env::temp_dir().join(format!("toolspec-golden-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    // Generate a fresh copy (not from generated/, so this test does not depend on it).
    let o = generate(&tmp, false);
    assert!(o.status.success(), "{}", text(&o));
    let o = generate(&tmp, true);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let stale = tmp.join("tickets/tools.mcp.json");
    let missing = tmp.join("tickets/schemas/tickets_get.input.json");
    std::fs::write(&stale, "{}\n").expect("edit");
    std::fs::remove_file(&missing).expect("remove");
    let o = generate(&tmp, true);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains(&format!("stale: {}", stale.display())),
        "{out}"
    );
    assert!(
        out.contains(&format!("missing: {}", missing.display())),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(&stale).unwrap(),
        "{}\n",
        "--check writes nothing"
    );
    assert!(!missing.exists(), "--check writes nothing");

    // A second generation restores both, and only those two files change.
    let o = generate(&tmp, false);
    assert!(text(&o).contains("wrote 2 of"), "{}", text(&o));
    let o = generate(&tmp, true);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The same specs give the same bytes on every run.
#[test]
fn output_is_deterministic() {
    let model = load_clean(&example_specs());
    let kinds = [toolspec::internals::emit::Kind::Schemas];
    let a = toolspec::internals::emit::generate(&model, &kinds, &Default::default())
        .expect("export")
        .files;
    let b = toolspec::internals::emit::generate(&model, &kinds, &Default::default())
        .expect("export")
        .files;
    assert_eq!(a, b);
    for f in &a {
        assert!(
            f.contents.ends_with('\n'),
            "{} ends with a newline",
            f.path.display()
        );
        let parsed: serde_json::Value = serde_json::from_str(&f.contents).expect("JSON");
        let pretty = serde_json::to_string_pretty(&parsed).expect("serializes") + "\n";
        assert_eq!(
            f.contents,
            pretty,
            "{} is pretty-printed with 2 spaces",
            f.path.display()
        );
    }
}
