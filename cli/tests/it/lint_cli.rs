//! The `lint` and `rules` commands end to end: output formats and exit codes.

use std::process::Command;

fn toolspec(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .current_dir(crate::common::root())
        .args(args)
        .output()
        .expect("run toolspec");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn clean_specs_exit_0() {
    let (code, out, _) = toolspec(&[
        "lint",
        "specs/tickets.yaml",
        "specs/orders.yaml",
        "specs/docs.yaml",
    ]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.trim(), "ok: no findings in 3 specs");
}

#[test]
fn errors_exit_1_with_snippets_and_hints() {
    let (code, out, _) = toolspec(&["lint", "tests/lint/bad-tool.yaml"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("error[placeholder-text]: the summary of `support_search` is a placeholder"),
        "{out}"
    );
    assert!(out.contains("--> tests/lint/bad-tool.yaml:20:14"), "{out}");
    assert!(out.contains("help: rename it `query`"), "{out}");
    assert!(
        out.lines().last().is_some_and(|l| l.ends_with("0 infos")),
        "{out}"
    );
}

#[test]
fn warnings_alone_exit_0() {
    let (code, out, _) = toolspec(&["lint", "tests/lint/rules/param-name-cryptic.bad.yaml"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning[param-name-cryptic]"), "{out}");
}

#[test]
fn json_and_sarif_go_to_stdout() {
    let (code, out, _) = toolspec(&["lint", "--format", "json", "tests/lint/bad-tool.yaml"]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(doc["summary"]["errors"].as_u64().unwrap_or(0) > 0);
    let (code, out, _) = toolspec(&["lint", "--format", "sarif", "tests/lint/good-tool.yaml"]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    assert_eq!(doc["version"], "2.1.0");
    assert_eq!(doc["runs"][0]["results"].as_array().map(Vec::len), Some(0));
}

#[test]
fn a_spec_failing_check_is_reported_as_check_does_and_exits_1() {
    let (code, out, _) = toolspec(&["lint", "specs/tickets.yaml"]);
    assert_eq!(
        code, 1,
        "tickets.yaml alone names orders_get, which it does not define"
    );
    assert!(out.contains("error[unknown-tool]"), "{out}");
    let (code, out, _) = toolspec(&["lint", "--format", "sarif", "specs/tickets.yaml"]);
    assert_eq!(code, 1);
    assert!(out.contains("\"ruleId\": \"unknown-tool\""), "{out}");
}

#[test]
fn usage_problems_exit_2() {
    let (code, _, err) = toolspec(&["lint", "no/such/spec.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read no/such/spec.yaml"), "{err}");
    let (code, _, _) = toolspec(&["lint", "--format", "xml", "specs/docs.yaml"]);
    assert_eq!(code, 2);
    let (code, _, _) = toolspec(&["lint"]);
    assert_eq!(code, 2);
}

#[test]
fn set_flag_overrides_the_spec() {
    let (code, out, _) = toolspec(&[
        "lint",
        "--set",
        "strict",
        "specs/tickets.yaml",
        "specs/orders.yaml",
        "specs/docs.yaml",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("info[missing-error-example]"), "{out}");
}

#[test]
fn rules_lists_every_rule_with_severity_and_sets() {
    let (code, out, _) = toolspec(&["rules"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().count(),
        toolspec::internals::lint::rules::ALL.len() + 1
    );
    let line = out
        .lines()
        .find(|l| l.starts_with("tool-name-prefix "))
        .expect("listed");
    assert!(
        line.contains("error") && line.contains("minimal, recommended, strict"),
        "{line}"
    );
    let line = out
        .lines()
        .find(|l| l.starts_with("missing-requests "))
        .expect("listed");
    assert!(line.contains("info") && line.contains("strict"), "{line}");
}

#[test]
fn rules_id_prints_the_rule_and_suggests_on_typos() {
    let (code, out, _) = toolspec(&["rules", "misroute"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("### `misroute`"), "{out}");
    assert!(out.contains("**Why it matters for an agent.**"), "{out}");
    let (code, _, err) = toolspec(&["rules", "misrout"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `misroute`?"), "{err}");
}
