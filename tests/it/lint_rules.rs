//! One test per lint rule: `tests/lint/rules/<id>.bad.yaml` triggers the rule at the given
//! line and column, and `<id>.good.yaml` (the same spec, fixed) does not. Both must pass
//! `toolspec check`. Rules run under the `strict` set so every rule is on.

use crate::lint_common as common;

use common::lint_files;
use toolspec::internals::lint::{Set, rules};

/// Lints the rule's two fixtures and checks where the rule fires.
fn case(id: &str, line: u32, column: u32) {
    let bad = format!("tests/lint/rules/{id}.bad.yaml");
    let good = format!("tests/lint/rules/{id}.good.yaml");
    let found = lint_files(&[&bad], Some(Set::Strict));
    assert!(
        found.at(id).contains(&(line, column)),
        "`{id}` should fire at {bad}:{line}:{column}; it fired at {:?}\n{}",
        found.at(id),
        found.render()
    );
    let clean = lint_files(&[&good], Some(Set::Strict));
    assert!(
        clean.at(id).is_empty(),
        "`{id}` should not fire on {good}:\n{}",
        clean.render()
    );
}

macro_rules! rule_tests {
    ($($name:ident: $id:literal at $line:literal : $col:literal;)*) => {
        $(
            #[test]
            fn $name() {
                case($id, $line, $col);
            }
        )*
        /// Every rule id that has a test above.
        const TESTED: &[&str] = &[$($id),*];
    };
}

rule_tests! {
    tool_name_prefix: "tool-name-prefix" at 6:11;
    groups_missing: "groups-missing" at 2:10;
    group_too_big: "group-too-big" at 115:3;
    no_group_up_front: "no-group-up-front" at 25:3;
    tool_name_verb: "tool-name-verb" at 6:11;
    param_name_cryptic: "param-name-cryptic" at 12:7;
    id_name_suffix: "id-name-suffix" at 12:7;
    placeholder_text: "placeholder-text" at 8:14;
    tool_description_length: "tool-description-length" at 8:14;
    returns_vague: "returns-vague" at 9:14;
    missing_not_for: "missing-not-for" at 13:11;
    param_description_vague: "param-description-vague" at 12:7;
    enum_in_prose: "enum-in-prose" at 13:7;
    number_unbounded: "number-unbounded" at 13:7;
    string_unbounded: "string-unbounded" at 12:7;
    array_unbounded: "array-unbounded" at 13:7;
    free_form_object: "free-form-object" at 15:7;
    nesting_too_deep: "nesting-too-deep" at 13:7;
    too_many_params: "too-many-params" at 6:11;
    destructive_name_tier: "destructive-name-tier" at 10:11;
    open_world_write_without_preview: "open-world-write-without-preview" at 10:11;
    preview_without_fields: "preview-without-fields" at 16:14;
    confirm_flag_param: "confirm-flag-param" at 13:7;
    safeguard_waived: "safeguard-waived" at 11:15;
    irreversible_scope_too_weak: "irreversible-scope-too-weak" at 37:13;
    list_without_pagination: "list-without-pagination" at 6:11;
    page_limit_too_high: "page-limit-too-high" at 22:13;
    page_numbers: "page-numbers" at 22:13;
    id_without_name: "id-without-name" at 14:7;
    response_format_missing: "response-format-missing" at 6:11;
    errors_not_listed: "errors-not-listed" at 12:11;
    error_message_no_next_step: "error-message-no-next-step" at 6:3;
    retryable_permanent_error: "retryable-permanent-error" at 6:3;
    rate_limit_not_retryable: "rate-limit-not-retryable" at 6:3;
    missing_error_example: "missing-error-example" at 12:11;
    too_many_tools: "too-many-tools" at 2:10;
    description_overlap: "description-overlap" at 17:14;
    misroute: "misroute" at 25:9;
    missing_requests: "missing-requests" at 6:11;
    token_budget: "token-budget" at 6:11;
    provider_limits: "provider-limits" at 8:14;
    unprotected_remote_write: "unprotected-remote-write" at 11:13;
}

#[test]
fn every_rule_has_a_test_and_fixtures() {
    for rule in rules::ALL {
        assert!(
            TESTED.contains(&rule.id),
            "`{}` has no test in lint_rules.rs",
            rule.id
        );
        for kind in ["bad", "good"] {
            let path = format!("tests/lint/rules/{}.{kind}.yaml", rule.id);
            assert!(std::path::Path::new(&path).exists(), "missing {path}");
        }
    }
    assert_eq!(
        TESTED.len(),
        rules::ALL.len(),
        "a test names a rule that does not exist"
    );
}

#[test]
fn rules_are_declared_one_per_file_with_their_docs() {
    assert!(rules::ALL.len() >= 25, "only {} rules", rules::ALL.len());
    let mut ids: Vec<&str> = rules::ALL.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), rules::ALL.len(), "duplicate rule ids");
    for r in rules::ALL {
        assert!(
            r.id.split('-')
                .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase())),
            "`{}` is not kebab-case",
            r.id
        );
        let file = format!("src/internals/lint/rules/{}.rs", r.id.replace('-', "_"));
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|_| panic!("`{}` must live in {file}", r.id));
        assert!(
            text.contains(&format!("id: \"{}\"", r.id)),
            "{file} does not declare `{}`",
            r.id
        );
        for (what, doc) in [
            ("summary", r.summary),
            ("what", r.what),
            ("why", r.why),
            ("bad", r.bad),
            ("good", r.good),
            ("fix", r.fix),
        ] {
            assert!(
                doc.trim().len() > 5,
                "`{}` has no `{what}` documentation",
                r.id
            );
        }
    }
}

/// Specs a rule once reported wrongly: `tests/lint/quiet/<rule id>--<what>.yaml`. Each
/// passes `toolspec check`, and the rule in its name stays quiet on it under `strict`.
#[test]
fn false_positives_stay_fixed() {
    let dir = crate::common::root().join("tests/lint/quiet");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/lint/quiet")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "{cases:?}");
    for path in cases {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let id = name.split("--").next().unwrap();
        assert!(
            rules::ALL.iter().any(|r| r.id == id),
            "{name}: no rule `{id}`"
        );
        let file = format!("tests/lint/quiet/{name}.yaml");
        let found = lint_files(&[&file], Some(Set::Strict));
        assert!(
            found.at(id).is_empty(),
            "`{id}` fired on {file}:\n{}",
            found.render()
        );
    }
}

/// Specs a rule once stayed quiet on: `tests/lint/loud/<rule id>--<what>.yaml`, each listed
/// here with where the rule must fire (under `strict`). Each passes `toolspec check`.
const LOUD: &[(&str, u32, u32)] = &[
    ("destructive-name-tier--send-with-undo", 11, 11),
    ("id-name-suffix--union-variant", 23, 15),
    ("id-without-name--union-variant", 27, 11),
];

#[test]
fn missed_findings_stay_found() {
    let dir = crate::common::root().join("tests/lint/loud");
    let files: Vec<String> = crate::common::yaml_files(&dir)
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let listed: Vec<String> = LOUD.iter().map(|(n, ..)| n.to_string()).collect();
    assert_eq!(
        files, listed,
        "every file in tests/lint/loud is listed in LOUD, in order"
    );
    for &(name, line, column) in LOUD {
        let id = name.split("--").next().unwrap();
        assert!(
            rules::ALL.iter().any(|r| r.id == id),
            "{name}: no rule `{id}`"
        );
        let file = format!("tests/lint/loud/{name}.yaml");
        let found = lint_files(&[&file], Some(Set::Strict));
        assert!(
            found.at(id).contains(&(line, column)),
            "`{id}` should fire at {file}:{line}:{column}; it fired at {:?}\n{}",
            found.at(id),
            found.render()
        );
    }
}
