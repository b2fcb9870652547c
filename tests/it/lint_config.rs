//! Lint configuration: sets, `lint.allow` / `lint.deny`, tool allowances with reasons, and
//! the problems reported in the configuration itself.

use crate::lint_common as common;

use common::lint_texts;
use toolspec::diagnostics::Severity;
use toolspec::internals::lint::Set;

/// A spec with `lint:` settings `lint` (indented YAML or empty) and two tools whose
/// parameter is named `q`; `tool_lint` is added to the first tool.
fn spec(lint: &str, tool_lint: &str) -> String {
    format!(
        "toolspec: 1
service: notes
title: Notes
description: Personal notes that one user writes, finds and reads.
{lint}tools:
  - name: notes_search
    title: Search notes
    summary: Search notes by words in their title.
    returns: matching note titles, best first.
    tier: read_only
    params:
      q: {{ type: string, description: Words to match in note titles., max_length: 100, example: milk }}
    output:
      titles: {{ type: array, description: Matching titles., max_items: 20, items: {{ type: string, max_length: 100, example: Groceries }} }}
{tool_lint}  - name: notes_count
    title: Count notes
    summary: Count notes whose title has these words.
    returns: how many notes have those words in their title.
    tier: read_only
    params:
      q: {{ type: string, description: Words to match in note titles., max_length: 100, example: milk }}
    output:
      count: {{ type: integer, description: Notes that match., minimum: 0, example: 3 }}
"
    )
}

fn lint(text: &str, set: Option<Set>) -> common::Linted {
    lint_texts(&[("notes.yaml", text)], set)
}

#[test]
fn cryptic_names_are_found_without_configuration() {
    let l = lint(&spec("", ""), None);
    assert_eq!(
        l.at("param-name-cryptic"),
        [(12, 7), (21, 7)],
        "{}",
        l.render()
    );
    assert!(
        l.with("param-name-cryptic")
            .iter()
            .all(|d| d.severity == Severity::Warning)
    );
}

#[test]
fn spec_allow_turns_a_rule_off() {
    let l = lint(&spec("lint:\n  allow: [param-name-cryptic]\n", ""), None);
    assert!(l.at("param-name-cryptic").is_empty(), "{}", l.render());
}

#[test]
fn spec_deny_raises_a_rule_to_error_even_outside_the_set() {
    let l = lint(
        &spec(
            "lint:\n  set: minimal\n  deny: [param-name-cryptic, tool-name-verb]\n",
            "",
        ),
        None,
    );
    let d = l.with("param-name-cryptic");
    assert_eq!(d.len(), 2);
    assert!(d.iter().all(|d| d.severity == Severity::Error));
    // `notes_count` has a verb; nothing else from the recommended set runs under minimal.
    assert!(l.at("tool-name-verb").is_empty());
    assert!(l.at("list-without-pagination").is_empty(), "{}", l.render());
}

#[test]
fn minimal_set_leaves_out_recommended_rules_and_cli_set_overrides_the_spec() {
    let text = spec("lint:\n  set: minimal\n", "");
    let minimal = lint(&text, None);
    assert!(minimal.at("list-without-pagination").is_empty());
    assert!(
        !minimal.at("param-name-cryptic").is_empty(),
        "minimal rules still run"
    );
    let strict = lint(&text, Some(Set::Strict));
    assert!(
        !strict.at("missing-requests").is_empty(),
        "{}",
        strict.render()
    );
}

#[test]
fn tool_allowance_with_reason_turns_a_rule_off_for_that_tool_only() {
    let allow = "    lint:\n      allow:\n        - rule: param-name-cryptic\n          reason: q is the search box's name in the upstream API.\n";
    let l = lint(&spec("", allow), None);
    assert_eq!(l.at("param-name-cryptic"), [(25, 7)], "{}", l.render());
    assert!(l.at("unused-lint-allow").is_empty());
}

#[test]
fn empty_reason_is_an_error() {
    let allow =
        "    lint:\n      allow:\n        - rule: param-name-cryptic\n          reason: \"\"\n";
    let l = lint(&spec("", allow), None);
    let d = l.with("lint-allow-without-reason");
    assert_eq!(d.len(), 1, "{}", l.render());
    assert_eq!(d[0].severity, Severity::Error);
    assert_eq!((d[0].span.pos.line, d[0].span.pos.column), (18, 19));
}

#[test]
fn unknown_rule_ids_are_reported_with_did_you_mean() {
    let l = lint(
        &spec(
            "lint:\n  allow: [param-name-crypic]\n  deny: [no-such-rule-at-all]\n",
            "    lint:\n      allow:\n        - rule: tool-name-verbs\n          reason: Counting is the action.\n",
        ),
        None,
    );
    let d = l.with("unknown-lint-rule");
    assert_eq!(d.len(), 3, "{}", l.render());
    assert!(d.iter().all(|d| d.severity == Severity::Error));
    assert_eq!((d[0].span.pos.line, d[0].span.pos.column), (6, 11));
    assert_eq!(
        d[0].help.as_deref(),
        Some("did you mean `param-name-cryptic`?")
    );
    assert_eq!(
        d[1].help.as_deref(),
        Some("`toolspec rules` lists every rule id")
    );
    assert_eq!(d[2].help.as_deref(), Some("did you mean `tool-name-verb`?"));
    // An unknown id allows nothing.
    assert_eq!(l.at("param-name-cryptic").len(), 2);
}

#[test]
fn unknown_set_is_reported_with_did_you_mean() {
    // Without `max_items` the search's list is open, which only the recommended set reports.
    let text = spec("lint:\n  set: recomended\n", "").replace("max_items: 20, ", "");
    let l = lint(&text, None);
    let d = l.with("unknown-lint-set");
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].span.pos.line, d[0].span.pos.column), (6, 8));
    assert_eq!(d[0].help.as_deref(), Some("did you mean `recommended`?"));
    // It falls back to the recommended set.
    assert!(!l.at("list-without-pagination").is_empty());
}

#[test]
fn an_allowance_that_allows_nothing_is_reported() {
    let allow = "    lint:\n      allow:\n        - rule: too-many-params\n          reason: It has many filters.\n";
    let l = lint(&spec("", allow), None);
    let d = l.with("unused-lint-allow");
    assert_eq!(d.len(), 1, "{}", l.render());
    assert_eq!(d[0].severity, Severity::Warning);
    assert_eq!((d[0].span.pos.line, d[0].span.pos.column), (17, 17));
}

#[test]
fn a_tool_allowance_does_not_hide_a_named_type_problem_other_tools_share() {
    let text = "toolspec: 1
service: notes
title: Notes
description: Personal notes that one user writes, finds and reads.
types:
  Words:
    type: string
    description: Words to match in note titles.
    example: milk
tools:
  - name: notes_search
    title: Search notes
    summary: Search notes by words in their title.
    returns: matching note titles, best first.
    tier: read_only
    params:
      query: { type: Words, description: Words to match in note titles. }
    output:
      total_words: { type: integer, description: Words in all notes., minimum: 0, example: 3 }
    lint:
      allow:
        - rule: string-unbounded
          reason: The search backend truncates long queries itself.
  - name: notes_count
    title: Count notes
    summary: Count notes whose title has these words.
    returns: how many notes have those words in their title.
    tier: read_only
    params:
      query: { type: Words, description: Words to match in note titles. }
    output:
      count: { type: integer, description: Notes that match., minimum: 0, example: 3 }
";
    let l = lint_texts(&[("notes.yaml", text)], None);
    // Reported once, at the type, for both tools.
    assert_eq!(l.at("string-unbounded"), [(6, 3)], "{}", l.render());
}
