//! Lint output formats: golden files for the bad tool in human, JSON and SARIF form, and the
//! SARIF validated against the official SARIF 2.1.0 JSON Schema (vendored in tests/sarif/,
//! see tests/sarif/SOURCE.md).
//!
//! Rewrite the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --features tokens --test it lint_sarif::`.

use crate::lint_common as common;

use common::lint_files;
use serde_json::Value;
use toolspec::internals::lint::output;

const BAD: &str = "tests/lint/bad-tool.yaml";

fn golden(path: &str, actual: &str) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        expected == actual,
        "{path} differs from the output (UPDATE_GOLDEN=1 rewrites it):\n{actual}"
    );
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string("tests/sarif/sarif-schema-2.1.0.json").expect("schema");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles")
}

fn problems(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn human_output_of_the_bad_tool() {
    let l = lint_files(&[BAD], None);
    golden("tests/lint/bad-tool.txt", &l.render());
}

#[test]
fn json_output_of_the_bad_tool() {
    let l = lint_files(&[BAD], None);
    let text = output::json(&l.findings, &l.sources);
    golden("tests/lint/bad-tool.json", &text);
    let doc: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(
        doc["findings"].as_array().map(Vec::len),
        Some(l.findings.iter().count())
    );
    assert_eq!(doc["findings"][0]["path"], BAD);
}

#[test]
fn sarif_output_of_the_bad_tool_is_valid_sarif_2_1_0() {
    let l = lint_files(&[BAD], None);
    let text = output::sarif(&l.findings, &l.sources, None);
    golden("tests/lint/bad-tool.sarif", &text);
    let doc: Value = serde_json::from_str(&text).expect("valid JSON");
    let v = validator();
    let errs = problems(&v, &doc);
    assert!(
        errs.is_empty(),
        "SARIF does not match the schema:\n{}",
        errs.join("\n")
    );

    // What code scanning reads.
    let run = &doc["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "toolspec");
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), toolspec::internals::lint::rules::ALL.len());
    assert!(rules.iter().all(|r| r["help"]["text"].is_string()));
    let first = &run["results"][0];
    let loc = &first["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], BAD);
    assert_eq!(first["ruleId"], "placeholder-text");
    assert_eq!(first["level"], "error");
    assert_eq!(loc["region"]["startLine"], 7);
    assert_eq!(loc["region"]["startColumn"], 14);
    let index = first["ruleIndex"].as_u64().expect("ruleIndex") as usize;
    assert_eq!(rules[index]["id"], "placeholder-text");
}

#[test]
fn the_schema_check_rejects_broken_sarif() {
    // The validation above is only worth something if it can fail.
    let l = lint_files(&[BAD], None);
    let mut doc: Value =
        serde_json::from_str(&output::sarif(&l.findings, &l.sources, None)).expect("JSON");
    doc["runs"][0]["results"][0]["level"] = Value::from("fatal");
    doc["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        Value::from(0);
    let errs = problems(&validator(), &doc);
    assert!(errs.len() >= 2, "{errs:?}");
}
