//! Warnings `check` gives (not lint rules: they come from reading the YAML), each with specs
//! it must stay quiet on and specs where it must speak, at a given line and column.
//!
//! `tests/check-warnings/quiet/<code>--<what>.yaml` pass `check` without a warning of that
//! code; `tests/check-warnings/loud/<code>--<what>.yaml` pass `check` with exactly the
//! warnings of that code listed in [`LOUD`].

use crate::common::{root, yaml_files};
use toolspec::diagnostics::{Diagnostic, Severity};

/// One warning a loud spec must get: its line and column, the fix it suggests (the text
/// between backticks after "quote the value:"), and the value that fix loads to.
type Expected = (u32, u32, &'static str, &'static str);

/// Each loud spec and the warnings it must get, in order.
const LOUD: &[(&str, &[Expected])] = &[(
    "comment-in-value--block-value",
    &[
        (
            11,
            21,
            r#"summary: "List the issues of a repository, a page at a time, with their numbers # and titles""#,
            "List the issues of a repository, a page at a time, with their numbers # and titles",
        ),
        (
            20,
            35,
            r#"open: "issues still open # the default""#,
            "issues still open # the default",
        ),
        (
            26,
            36,
            r#"description: "Returns items # of the page""#,
            "Returns items # of the page",
        ),
        (
            30,
            20,
            r#"- "list issue #12 and the ones after it # please""#,
            "list issue #12 and the ones after it # please",
        ),
    ],
)];

/// Loads one spec; asserts it has no errors; returns its warnings of `code`.
fn warnings(path: &std::path::Path, code: &str) -> Vec<Diagnostic> {
    let loaded = toolspec::load(&[path]).expect("readable");
    assert!(
        !loaded.has_errors(),
        "{} must pass check:\n{}",
        path.display(),
        loaded.render_diagnostics()
    );
    loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning && d.code == code)
        .cloned()
        .collect()
}

fn code_of(path: &std::path::Path) -> String {
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    stem.split("--").next().unwrap().to_string()
}

#[test]
fn quiet_specs_stay_quiet() {
    let cases = yaml_files(&root().join("tests/check-warnings/quiet"));
    assert!(!cases.is_empty());
    for path in cases {
        let found = warnings(&path, &code_of(&path));
        assert!(
            found.is_empty(),
            "{}: {:?}",
            path.display(),
            found.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    }
}

#[test]
fn loud_specs_warn_where_the_cause_is_with_a_fix_that_loads() {
    let cases = yaml_files(&root().join("tests/check-warnings/loud"));
    let names: Vec<String> = cases
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let listed: Vec<&str> = LOUD.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, listed, "every loud spec is listed in LOUD, in order");
    for (path, (name, expected)) in cases.iter().zip(LOUD) {
        let found = warnings(path, &code_of(path));
        let at: Vec<(u32, u32)> = found
            .iter()
            .map(|d| (d.span.pos.line, d.span.pos.column))
            .collect();
        let want: Vec<(u32, u32)> = expected.iter().map(|(l, c, ..)| (*l, *c)).collect();
        assert_eq!(at, want, "{name}");
        for (d, (_, _, fix, meant)) in found.iter().zip(expected.iter()) {
            let help = d.help.as_deref().unwrap_or_default();
            let suggested = help
                .split_once("quote the value: `")
                .and_then(|(_, rest)| rest.split_once("`; if"))
                .map(|(fix, _)| fix)
                .unwrap_or_else(|| panic!("{name}: no fix in {help}"));
            assert_eq!(suggested, *fix, "{name}");
            // The fix is YAML that loads to what the author meant.
            let loaded: serde_json::Value = serde_saphyr::from_str(suggested)
                .unwrap_or_else(|e| panic!("{name}: the fix `{suggested}` is not YAML: {e}"));
            let value = match &loaded {
                serde_json::Value::Object(m) => m.values().next().cloned(),
                serde_json::Value::Array(items) => items.first().cloned(),
                _ => None,
            };
            assert_eq!(
                value,
                Some(serde_json::Value::from(*meant)),
                "{name}: {suggested}"
            );
        }
    }
}
