//! The fixture binary refuses a configuration it cannot serve before it serves anything, and
//! says which variable is wrong: what an operator of an imported draft meets first. (The
//! forwarding itself is driven end to end by `tests/e2e/test_forwarding.py`, which starts this
//! binary against a mock of each API.)

use std::process::{Command, Output, Stdio};

fn fixture(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_forward-fixture"));
    command.args(args).stdin(Stdio::null());
    for name in ["PETSTORE", "SVIX", "GITHUB"] {
        for suffix in [
            "BASE_URL",
            "API_KEY",
            "TIMEOUT_SECS",
            "MAX_ANSWER_BYTES",
            "HEADERS",
        ] {
            command.env_remove(format!("{name}_{suffix}"));
        }
    }
    command.envs(env.iter().copied());
    command.output().expect("the fixture binary starts")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// What the fixture said on refusing to start (exit status 1), before serving anything.
fn refused(args: &[&str], env: &[(&str, &str)]) -> String {
    let out = fixture(args, env);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "nothing served: {:?}", out.stdout);
    stderr(&out)
}

#[test]
fn without_a_draft_it_prints_its_usage_and_exits_2() {
    let out = fixture(&[], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("usage: forward-fixture petstore|svix|github"));
}

#[test]
fn an_unknown_draft_is_named_with_the_ones_it_serves() {
    let said = refused(&["stripe"], &[]);
    assert!(said.contains("unknown draft \"stripe\""), "{said}");
    assert!(said.contains("petstore|svix|github"), "{said}");
}

#[test]
fn a_base_url_that_is_not_a_url_names_the_variable_to_set() {
    let said = refused(&["petstore"], &[("PETSTORE_BASE_URL", "petstore.example")]);
    assert!(
        said.contains("\"petstore.example\" is not an absolute URL"),
        "{said}"
    );
    assert!(said.contains("PETSTORE"), "{said}");
}

#[test]
fn a_timeout_that_is_not_a_number_is_refused_with_its_value() {
    let said = refused(&["svix"], &[("SVIX_TIMEOUT_SECS", "soon")]);
    assert!(
        said.contains("SVIX_TIMEOUT_SECS is \"soon\", not a whole number of seconds"),
        "{said}"
    );
}

#[test]
fn a_header_without_a_colon_is_refused_before_any_call() {
    let said = refused(&["github"], &[("GITHUB_HEADERS", "X-Trace 1")]);
    assert!(
        said.contains("GITHUB_HEADERS: \"X-Trace 1\" is not `Name: value`"),
        "{said}"
    );
}
