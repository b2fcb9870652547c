//! The example specs and the article's two tools, linted.

use crate::lint_common as common;

use common::lint_files;
use std::collections::BTreeSet;
use toolspec::diagnostics::Severity;
use toolspec::internals::lint::Set;

#[test]
fn example_specs_lint_clean_under_recommended() {
    let l = lint_files(
        &["specs/tickets.yaml", "specs/orders.yaml", "specs/docs.yaml"],
        Some(Set::Recommended),
    );
    assert!(l.findings.is_empty(), "{}", l.render());
}

#[test]
fn example_specs_have_no_warnings_under_strict() {
    let l = lint_files(
        &["specs/tickets.yaml", "specs/orders.yaml", "specs/docs.yaml"],
        Some(Set::Strict),
    );
    let loud: Vec<_> = l
        .findings
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .collect();
    assert!(loud.is_empty(), "{}", l.render());
}

/// Each real-server port lints clean with its own settings (its `lint: allow` names what the
/// original's design breaks), and all three together have no cross-server misroutes.
#[test]
fn corpus_ports_lint_clean_alone_and_together() {
    let ports = [
        "tests/corpus/slack.yaml",
        "tests/corpus/calendar.yaml",
        "tests/corpus/supabase.yaml",
        "tests/corpus/puppeteer.yaml",
    ];
    for port in ports {
        let l = lint_files(&[port], None);
        assert!(l.findings.is_empty(), "{port}: {}", l.render());
    }
    let together = lint_files(&ports, None);
    assert!(together.findings.is_empty(), "{}", together.render());
}

#[test]
fn good_tool_is_clean_even_under_strict() {
    let l = lint_files(&["tests/lint/good-tool.yaml"], Some(Set::Strict));
    assert!(l.findings.is_empty(), "{}", l.render());
}

#[test]
fn bad_tool_draws_many_findings() {
    let l = lint_files(&["tests/lint/bad-tool.yaml"], None);
    let rules: BTreeSet<&str> = l.codes().into_iter().collect();
    for expected in [
        "placeholder-text",
        "param-name-cryptic",
        "param-description-vague",
        "enum-in-prose",
        "string-unbounded",
        "number-unbounded",
        "free-form-object",
        "list-without-pagination",
        "array-unbounded",
        "id-without-name",
        "id-name-suffix",
        "returns-vague",
        "tool-description-length",
        "error-message-no-next-step",
        "retryable-permanent-error",
    ] {
        assert!(
            rules.contains(expected),
            "bad tool should draw `{expected}`:\n{}",
            l.render()
        );
    }
    assert!(l.findings.has_errors());
    assert!(l.findings.iter().count() >= 20, "{}", l.render());
}

#[test]
fn misroute_compares_tools_across_specs() {
    // Alone, the ticket request lands on the only tool that could take it...
    let alone = lint_files(&["tests/lint/misroute/docs.yaml"], None);
    assert!(alone.at("misroute").is_empty(), "{}", alone.render());
    // ...but linted with the tickets spec, it lands on tickets_search, in another file.
    let both = lint_files(
        &["tests/lint/misroute/docs.yaml", "tests/lint/good-tool.yaml"],
        None,
    );
    let d = both.with("misroute");
    assert_eq!(d.len(), 1, "{}", both.render());
    assert_eq!((d[0].span.pos.line, d[0].span.pos.column), (19, 9));
    assert!(
        d[0].message
            .contains("lands on `tickets_search` before `helpdesk_search`"),
        "{}",
        d[0].message
    );
}

/// Two unrelated servers linted together (a memory server and a code host): the memory
/// request shares "reviews" and "pull requests" with the code host's tool, but "remember"
/// is the memory tool's alone, so no finding, and no advice for either to name the other.
#[test]
fn misroute_names_another_toolset_only_on_a_strong_overlap() {
    let memory = "tests/lint/misroute/memory.yaml";
    let code = "tests/lint/misroute/code.yaml";
    let together = lint_files(&[memory, code], None);
    assert!(together.at("misroute").is_empty(), "{}", together.render());
    // The request does meet the code host's words (stems and phrases at work): without
    // "remember" in the memory tool, it shares no word with it, the code host is named as
    // where it goes, and the help names no `not_for`.
    let text = std::fs::read_to_string(crate::common::root().join(memory)).unwrap();
    let text = text
        .replace("title: Remember facts", "title: Add observations")
        .replace(
            "summary: Remember new facts (observations) about an entity in the knowledge graph.",
            "summary: Add observations about an entity to the knowledge graph.",
        );
    let code_text = std::fs::read_to_string(crate::common::root().join(code)).unwrap();
    let l = common::lint_texts(&[("memory.yaml", &text), ("code.yaml", &code_text)], None);
    let d = l.with("misroute");
    assert_eq!(d.len(), 1, "{}", l.render());
    assert!(
        d[0].message
            .contains("shares no words with `memory_observation_add`"),
        "{}",
        d[0].message
    );
    assert!(
        d[0].notes.iter().any(|n| n
            == "`code_review_list` matches words `memory_observation_add` lacks: pull requests, reviews"),
        "{:?}",
        d[0].notes
    );
    let help = d[0].help.as_deref().unwrap_or_default();
    assert!(
        help.contains("another toolset (`code`)") && help.contains("name it in no `not_for`"),
        "{help}"
    );
    // Within one toolset, the advice is still to add a `not_for` to the winner.
    let both = lint_files(
        &["tests/lint/misroute/docs.yaml", "tests/lint/good-tool.yaml"],
        None,
    );
    let d = both.with("misroute");
    assert_eq!(d.len(), 1, "{}", both.render());
    assert!(
        d[0].help
            .as_deref()
            .unwrap_or_default()
            .contains("no `not_for`"),
        "helpdesk and tickets are two toolsets: {:?}",
        d[0].help
    );
}
