//! `toolspec diff` on fixture pairs: one directory per kind of change under tests/diff/, with
//! `old.yaml`, `new.yaml` and `expected.txt` (the human output). Each case also names the
//! change it is about and whether the pair breaks anything, so a golden cannot silently accept
//! a wrong classification.
//!
//! Rewrite the goldens after an intended change with `UPDATE_GOLDEN=1 cargo test --features tokens --test it diff_cases::`.

use toolspec::internals::diff::{Party, diff, load, render};

/// (case directory, the change it shows, who it breaks, whether anything in the pair breaks).
const CASES: &[(&str, &str, Option<Party>, bool)] = &[
    (
        "param-now-clearable",
        "param-now-clearable",
        Some(Party::Callers),
        true,
    ),
    (
        "output-now-nullable",
        "output-now-nullable",
        Some(Party::Consumers),
        true,
    ),
    (
        "requirement-added",
        "requirement-added",
        Some(Party::Callers),
        true,
    ),
    // A parameter newly taken only for some values of an enum refuses calls that worked.
    (
        "when-rule-added",
        "requirement-added",
        Some(Party::Callers),
        true,
    ),
    // The same parameter taken for more values accepts calls that were refused.
    ("when-rule-loosened", "requirement-removed", None, false),
    // A re-import of a changed API: the same call becomes another request.
    ("http-changed", "http-changed", None, false),
    // A server serving one group no longer serves a tool moved out of it.
    (
        "tool-group-changed",
        "tool-group-changed",
        Some(Party::Callers),
        true,
    ),
    (
        "type-widened-to-union",
        "type-widened-to-union",
        None,
        false,
    ),
    ("variant-added", "variant-added", None, false),
    (
        "variant-removed",
        "variant-removed",
        Some(Party::Callers),
        true,
    ),
    (
        "paging-keyset-changed",
        "paging-keyset-changed",
        Some(Party::Callers),
        true,
    ),
    (
        "paging-style-changed",
        "paging-style-changed",
        Some(Party::Callers),
        true,
    ),
    (
        "effect-weakened",
        "effect-changed",
        Some(Party::Callers),
        true,
    ),
    ("tool-removed", "tool-removed", Some(Party::Callers), true),
    ("tool-added", "tool-added", None, false),
    ("tool-renamed-with-alias", "tool-renamed", None, false),
    (
        "tool-renamed-without-alias",
        "tool-removed",
        Some(Party::Callers),
        true,
    ),
    ("alias-removed", "alias-removed", Some(Party::Callers), true),
    ("param-removed", "param-removed", Some(Party::Callers), true),
    (
        "param-added-required",
        "param-added-required",
        Some(Party::Callers),
        true,
    ),
    ("param-added-optional", "param-added-optional", None, false),
    (
        "param-now-required",
        "param-now-required",
        Some(Party::Callers),
        true,
    ),
    (
        "param-default-changed",
        "param-default-changed",
        Some(Party::Callers),
        true,
    ),
    ("type-changed", "type-changed", Some(Party::Callers), true),
    (
        "enum-value-removed-input",
        "enum-value-removed",
        Some(Party::Callers),
        true,
    ),
    ("enum-value-added-input", "enum-value-added", None, false),
    // An integer enum is compared as a string one: a value removed breaks callers.
    (
        "integer-enum-value-removed-input",
        "enum-value-removed",
        Some(Party::Callers),
        true,
    ),
    (
        "integer-enum-value-added-input",
        "enum-value-added",
        None,
        false,
    ),
    (
        "enum-value-added-output",
        "enum-value-added",
        Some(Party::Consumers),
        true,
    ),
    (
        "max-length-lowered",
        "constraint-narrowed",
        Some(Party::Callers),
        true,
    ),
    ("max-length-raised", "constraint-widened", None, false),
    (
        "minimum-raised",
        "constraint-narrowed",
        Some(Party::Callers),
        true,
    ),
    (
        "pattern-added",
        "constraint-narrowed",
        Some(Party::Callers),
        true,
    ),
    (
        "output-removed",
        "output-removed",
        Some(Party::Consumers),
        true,
    ),
    ("output-added", "output-added", None, false),
    (
        "output-now-optional",
        "output-now-optional",
        Some(Party::Consumers),
        true,
    ),
    (
        "output-widened",
        "constraint-widened",
        Some(Party::Consumers),
        true,
    ),
    ("tier-changed", "tier-changed", Some(Party::Callers), true),
    (
        "idempotency-ttl-shortened",
        "idempotency-ttl-shortened",
        Some(Party::Callers),
        true,
    ),
    (
        "request-limit-lowered",
        "request-limit-lowered",
        Some(Party::Callers),
        true,
    ),
    (
        "error-retryable-changed",
        "error-retryable-changed",
        Some(Party::Consumers),
        true,
    ),
    ("error-listed", "error-listed", None, false),
    ("paging-added", "paging-added", Some(Party::Consumers), true),
    (
        "page-limit-lowered",
        "page-limit-lowered",
        Some(Party::Callers),
        true,
    ),
    (
        "response-format-added",
        "response-format-added",
        Some(Party::Consumers),
        true,
    ),
    ("description-changed", "description-changed", None, false),
    // Fields a call without a field list got come only when it names them.
    (
        "projection-default-narrowed",
        "projection-default-narrowed",
        Some(Party::Consumers),
        true,
    ),
    // Calls that pass the field list are refused once it is gone.
    (
        "projection-removed",
        "projection-removed",
        Some(Party::Callers),
        true,
    ),
    // A new field list whose default leaves fields out takes them from calls without one.
    (
        "projection-added-narrow",
        "projection-added",
        Some(Party::Consumers),
        true,
    ),
    // A tool needs a scope it did not: tokens without it are refused.
    ("scope-added", "scope-added", Some(Party::Callers), true),
    // A write scope dropped from the defaults: every token that worked still works.
    ("scope-removed", "scope-removed", None, false),
    // A limit where there was none: calls past it are refused.
    (
        "rate-limit-added",
        "rate-limit-added",
        Some(Party::Callers),
        true,
    ),
    // The same calls per hour instead of per minute.
    (
        "rate-limit-lowered",
        "rate-limit-lowered",
        Some(Party::Callers),
        true,
    ),
    // More calls in the same window: nothing refused before is refused now.
    ("rate-limit-raised", "rate-limit-raised", None, false),
    ("rate-limit-removed", "rate-limit-removed", None, false),
    // The MCP list publishes less of the output schema; results are the same.
    (
        "output-schema-level-lowered",
        "output-schema-level-changed",
        None,
        false,
    ),
];

fn side(path: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    vec![(path.to_string(), text)]
}

fn run(case: &str) -> (Vec<toolspec::internals::diff::Change>, String) {
    let old = format!("tests/diff/{case}/old.yaml");
    let new = format!("tests/diff/{case}/new.yaml");
    let (om, os) = load(&side(&old)).unwrap_or_else(|(s, d)| panic!("{old}:\n{}", d.render(&s)));
    let (nm, ns) = load(&side(&new)).unwrap_or_else(|(s, d)| panic!("{new}:\n{}", d.render(&s)));
    let changes = diff(&om, &nm);
    let text = render::human(&changes, &os, &ns);
    (changes, text)
}

#[test]
fn each_case_is_classified() {
    for (case, kind, breaks, any) in CASES {
        let (changes, text) = run(case);
        assert!(
            changes
                .iter()
                .any(|c| c.kind == *kind && c.breaks == *breaks),
            "{case}: expected a `{kind}` change breaking {breaks:?}:\n{text}"
        );
        assert_eq!(
            changes.iter().any(|c| c.is_breaking()),
            *any,
            "{case}: breaking?\n{text}"
        );
    }
}

#[test]
fn each_case_matches_its_expected_output() {
    let mut dirs: Vec<String> = std::fs::read_dir("tests/diff")
        .expect("tests/diff")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("old.yaml").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    assert!(dirs.len() > CASES.len(), "every case plus no-change");
    for case in &dirs {
        assert!(
            case == "no-change" || CASES.iter().any(|c| c.0 == case),
            "{case} has no entry in CASES"
        );
        let (_, text) = run(case);
        let path = format!("tests/diff/{case}/expected.txt");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &text).expect("write golden");
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            expected == text,
            "{path} differs (UPDATE_GOLDEN=1 rewrites it):\n{text}"
        );
    }
}

#[test]
fn identical_specs_have_no_changes() {
    let (changes, text) = run("no-change");
    assert!(changes.is_empty(), "{text}");
    assert_eq!(text, "no changes\n");
}

#[test]
fn removals_point_into_the_old_spec_and_the_rest_into_the_new() {
    let (changes, _) = run("param-removed");
    let c = changes
        .iter()
        .find(|c| c.kind == "param-removed")
        .expect("change");
    assert_eq!(c.side, toolspec::internals::diff::Side::Old);
    assert_eq!((c.span.pos.line, c.span.pos.column), (21, 7));
    let (changes, _) = run("param-added-required");
    let c = changes
        .iter()
        .find(|c| c.kind == "param-added-required")
        .expect("change");
    assert_eq!(c.side, toolspec::internals::diff::Side::New);
    assert_eq!((c.span.pos.line, c.span.pos.column), (22, 7));
}

#[test]
fn a_rename_without_alias_suggests_the_alias() {
    let (changes, _) = run("tool-renamed-without-alias");
    let c = changes
        .iter()
        .find(|c| c.kind == "tool-removed")
        .expect("change");
    assert!(
        c.reason
            .contains("add `deprecated_aliases: [notes_search]` to `notes_find`"),
        "{}",
        c.reason
    );
    assert!(
        changes
            .iter()
            .any(|c| c.kind == "tool-added" && c.breaks.is_none())
    );
}
