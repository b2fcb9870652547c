//! `toolspec diff` end to end: exit codes, JSON, and `--against` a git ref.

use std::path::Path;
use std::process::Command;

fn toolspec_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run toolspec");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn toolspec(args: &[&str]) -> (i32, String, String) {
    toolspec_in(crate::common::root(), args)
}

#[test]
fn breaking_changes_exit_1_and_compatible_ones_exit_0() {
    let (code, out, _) = toolspec(&[
        "diff",
        "tests/diff/param-removed/old.yaml",
        "tests/diff/param-removed/new.yaml",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("tests/diff/param-removed/old.yaml:21:7: breaking (callers) [param-removed]"),
        "{out}"
    );
    let (code, out, _) = toolspec(&[
        "diff",
        "tests/diff/param-added-optional/old.yaml",
        "tests/diff/param-added-optional/new.yaml",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.ends_with("0 breaking changes (0 for callers, 0 for consumers), 1 compatible\n"),
        "{out}"
    );
}

#[test]
fn json_lists_changes_with_locations() {
    let (code, out, _) = toolspec(&[
        "diff",
        "--format",
        "json",
        "tests/diff/enum-value-added-output/old.yaml",
        "tests/diff/enum-value-added-output/new.yaml",
    ]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["breaking"], 1);
    let c = &doc["changes"][0];
    assert_eq!(c["kind"], "enum-value-added");
    assert_eq!(c["breaks"], "consumers");
    assert_eq!(c["tool"], "notes_search");
    assert_eq!(c["path"], "notes_search.output.notes[].status");
    assert_eq!(c["location"]["side"], "new");
    assert_eq!(
        c["location"]["path"],
        "tests/diff/enum-value-added-output/new.yaml"
    );
}

#[test]
fn usage_problems_exit_2() {
    let (code, _, err) = toolspec(&["diff", "tests/diff/param-removed/old.yaml"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = toolspec(&["diff", "no/such.yaml", "tests/diff/param-removed/old.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read no/such.yaml"), "{err}");
}

#[test]
fn an_invalid_spec_is_reported_and_exits_1() {
    let dir = std::env::temp_dir().join(format!("toolspec-diff-invalid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("bad.yaml"), "toolspec: 1\nservice: notes\n").expect("write");
    let old =
        std::fs::canonicalize(crate::common::root().join("tests/diff/param-removed/old.yaml"))
            .expect("path");
    let (code, _, err) = toolspec_in(&dir, &["diff", old.to_str().expect("utf-8"), "bad.yaml"]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.yaml"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn against_a_git_ref_reads_the_old_version_from_git() {
    let dir = std::env::temp_dir().join(format!("toolspec-diff-git-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("specs")).expect("temp dir");
    let read = |p: &str| std::fs::read_to_string(crate::common::root().join(p)).expect("fixture");
    git(&dir, &["init", "-q"]);
    std::fs::write(
        dir.join("specs/notes.yaml"),
        read("tests/diff/param-removed/old.yaml"),
    )
    .expect("write");
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "old"]);
    std::fs::write(
        dir.join("specs/notes.yaml"),
        read("tests/diff/param-removed/new.yaml"),
    )
    .expect("write");
    std::fs::write(
        dir.join("specs/extra.yaml"),
        read("tests/diff/tool-added/new.yaml")
            .replace("service: notes", "service: extra")
            .replace("notes_", "extra_"),
    )
    .expect("write");

    let (code, out, err) = toolspec_in(
        &dir,
        &[
            "diff",
            "--against",
            "HEAD",
            "specs/notes.yaml",
            "specs/extra.yaml",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("HEAD:specs/notes.yaml:21:7: breaking (callers) [param-removed]"),
        "{out}"
    );
    // extra.yaml did not exist at HEAD: all its tools are new.
    assert!(
        out.contains(
            "specs/extra.yaml:14:11: compatible [tool-added] tool `extra_search` was added"
        ),
        "{out}"
    );

    let (code, _, err) = toolspec_in(
        &dir,
        &["diff", "--against", "no-such-ref", "specs/notes.yaml"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("`no-such-ref` is not a commit"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
