//! `toolspec import openapi` as a user runs it: the draft where asked, the report on
//! standard error, an existing file kept, and documents it cannot read refused with the fix.
//! What drafts hold is the library's test (`tests/it/import_openapi.rs`).

use std::process::{Command, Output, Stdio};

use crate::common;

fn toolspec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("run toolspec")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn writes_a_draft_that_checks_and_keeps_an_existing_file() {
    let dir = std::env::temp_dir().join(format!("toolspec-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let out = dir.join("petstore.yaml");
    let _ = std::fs::remove_file(&out);
    let out_arg = out.to_string_lossy().into_owned();
    let args = [
        "import",
        "openapi",
        "tests/import/documents/petstore3.yaml",
        "--service",
        "petstore",
        "--include",
        "tag:store",
        "--out",
        &out_arg,
    ];
    let first = toolspec(&args);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let report = text(&first.stderr);
    assert!(
        report.contains("imported: 4 of 19 operations read, 4 tools written"),
        "{report}"
    );
    assert!(
        first.stdout.is_empty(),
        "the draft went to the file, nothing to stdout"
    );
    let check = toolspec(&["check", &out_arg]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    assert!(text(&check.stdout).starts_with("ok: 1 spec, 4 tools"));
    // A second import does not overwrite the draft a person may have edited.
    std::fs::write(&out, "edited").expect("edit");
    let again = toolspec(&args);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("toolspec diff"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(std::fs::read_to_string(&out).expect("read"), "edited");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refuses_what_it_cannot_import_and_says_how_to_fix_it() {
    let dir = std::env::temp_dir().join(format!("toolspec-import-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let swagger = dir.join("swagger.json");
    std::fs::write(&swagger, r#"{"swagger": "2.0", "paths": {}}"#).expect("write");
    let out = toolspec(&[
        "import",
        "openapi",
        &swagger.to_string_lossy(),
        "--service",
        "old",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("Swagger 2.0"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("help: convert it to OpenAPI 3"),
        "{}",
        text(&out.stderr)
    );
    let bad_service = toolspec(&[
        "import",
        "openapi",
        "tests/import/documents/petstore3.yaml",
        "--service",
        "Pet Store",
    ]);
    assert_eq!(bad_service.status.code(), Some(1));
    assert!(
        text(&bad_service.stderr).contains("--service"),
        "{}",
        text(&bad_service.stderr)
    );
    let missing = toolspec(&["import", "openapi", "no/such/file.yaml", "--service", "x"]);
    assert_eq!(missing.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    // `toolspec import ... | head -1`: the reader is gone before the draft (of Svix's whole
    // API, larger than a pipe's buffer) is written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args([
            "import",
            "openapi",
            "tests/import/documents/svix.json",
            "--service",
            "svix",
        ])
        .current_dir(common::root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("waits");
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        !out.status.success(),
        "the write failed, so the command did not finish"
    );
}
