//! `toolspec check` and `toolspec schema` as a user runs them: exit codes, output, messages.
//!
//! Exit codes are the CLI's contract: 0 clean, 1 a spec has errors, 2 usage or I/O problems.
//! Bad specs and their exact diagnostics are covered by `tests/bad_specs.rs`.

use std::process::{Command, Output};

mod common;

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

/// The example specs as the CLI is given them from the repository root: `specs/<name>.yaml`.
fn example_specs() -> Vec<String> {
    common::example_specs()
        .iter()
        .map(|p| format!("specs/{}", p.file_name().unwrap().to_string_lossy()))
        .collect()
}

#[test]
fn the_example_specs_check_clean() {
    let specs = example_specs();
    let mut args = vec!["check"];
    args.extend(specs.iter().map(String::as_str));
    let out = toolspec(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "",
        "a clean check prints nothing to stderr"
    );
    assert_eq!(text(&out.stdout), "ok: 3 specs, 13 tools\n");
}

#[test]
fn a_spec_that_names_a_tool_of_another_fails_alone() {
    // tickets.yaml's `not_for` names orders_get, defined in orders.yaml.
    let out = toolspec(&["check", "specs/tickets.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("error[unknown-tool]"), "{stderr}");
    assert!(stderr.contains("`orders_get`"), "{stderr}");
    assert!(stderr.contains("--> specs/tickets.yaml:"), "{stderr}");
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn a_missing_file_is_a_usage_error_that_names_it() {
    let out = toolspec(&["check", "specs/no-such-spec.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: cannot read specs/no-such-spec.yaml: "),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one clear line: {stderr}");
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn check_without_specs_is_a_usage_error() {
    let out = toolspec(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("<SPECS>"),
        "names what is missing: {stderr}"
    );
    assert!(stderr.contains("Usage: toolspec check"), "{stderr}");
}

#[test]
fn no_command_is_a_usage_error() {
    let out = toolspec(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Usage: toolspec"));
}

#[test]
fn schema_prints_the_checked_in_json_schema() {
    let out = toolspec(&["schema"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let printed: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    assert_eq!(
        printed["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let checked_in = std::fs::read_to_string(common::root().join("toolspec.schema.json"))
        .expect("toolspec.schema.json");
    assert_eq!(
        stdout, checked_in,
        "toolspec.schema.json is stale: UPDATE_GOLDEN=1 cargo test --test format_reference"
    );
}
