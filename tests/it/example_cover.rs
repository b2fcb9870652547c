//! Examples that count for the fields inside them: a named type's `example:`, an object
//! field's own, or a tool's success `result` gives each scalar field inside a value, so the
//! field needs no `example:` of its own; the field's example is that value, and the docs and
//! the gauntlet read it from there. The enclosing example is still validated.

use serde_json::{Value, json};
use toolspec::diagnostics::Severity;
use toolspec::internals::emit::Kind as Out;

/// A code host's pull request, written the short way: the type's example gives `number`,
/// `title` and `state`; the tool's result gives the author's `login`; `merged` has its own.
const SPEC: &str = r#"toolspec: 1
service: code
title: Code host
description: Pull requests of a code host's repositories.
types:
  User:
    type: object
    description: A user.
    fields:
      login: { type: string, description: The user's login., max_length: 39 }
      site_admin: { type: boolean, description: Whether the user runs the site. }
  PullRequest:
    type: object
    description: A pull request.
    example: { number: 42, title: Fix the login loop, state: open }
    fields:
      number: { type: integer, description: Its number., minimum: 1 }
      title: { type: string, description: Its title., max_length: 200 }
      state: { type: string, description: Open or closed., enum: [open, closed] }
      merged: { type: boolean, description: Whether it was merged., example: false, required: false }
      user: { type: User, description: Who opened it., required: false }
tools:
  - name: code_pull_request_get
    title: Read a pull request
    summary: Read one pull request of a repository by its number.
    returns: the pull request with its title, state and author.
    tier: read_only
    params:
      number: { type: integer, description: The pull request's number., minimum: 1, example: 42 }
    output:
      pull_request: { type: PullRequest, description: The pull request. }
      labels:
        type: array
        description: Its labels.
        max_items: 20
        example: [{ name: bug, color: d73a4a }]
        items:
          type: object
          fields:
            name: { type: string, description: The label., max_length: 50 }
            color: { type: string, description: Its color in hex., pattern: '^[0-9a-f]{6}$' }
    examples:
      - title: An open pull request
        arguments: { number: 42 }
        result: { pull_request: { user: { login: octocat, site_admin: false } } }
"#;

fn load(text: &str) -> toolspec::Loaded {
    toolspec::load_texts([("code.yaml".to_owned(), text.to_owned())])
}

fn errors(loaded: &toolspec::Loaded) -> Vec<String> {
    loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

/// The field at `path` (`pull_request.user.login`) of the spec's only tool's output.
fn field_example(loaded: &toolspec::Loaded, path: &str) -> Value {
    let tool = loaded.model.tools().next().expect("a tool").1;
    let mut parts = path.split('.');
    let mut field = tool.output_field(parts.next().unwrap()).expect("top field");
    for part in parts {
        let mut ty = &field.ty;
        while let toolspec::model::Kind::Array { items, .. } = &ty.kind {
            ty = items;
        }
        let toolspec::model::Kind::Object { fields, .. } = &ty.kind else {
            panic!("{path}: `{}` is not an object", field.name);
        };
        field = fields.iter().find(|f| f.name == part).expect(part);
    }
    field.example.clone()
}

#[test]
fn an_enclosing_example_counts_for_the_fields_inside_it() {
    let loaded = load(SPEC);
    assert_eq!(errors(&loaded), Vec::<String>::new());
    for (path, value) in [
        // From the named type's example.
        ("pull_request.number", json!(42)),
        ("pull_request.title", json!("Fix the login loop")),
        ("pull_request.state", json!("open")),
        // Its own.
        ("pull_request.merged", json!(false)),
        // From the tool's success result, through the named type `User`.
        ("pull_request.user.login", json!("octocat")),
        ("pull_request.user.site_admin", json!(false)),
        // From the list field's own example, item by item.
        ("labels.name", json!("bug")),
        ("labels.color", json!("d73a4a")),
    ] {
        assert_eq!(field_example(&loaded, path), value, "{path}");
    }
}

#[test]
fn a_field_no_example_covers_still_needs_one() {
    // Without the tool's result, nothing gives `User`'s fields a value.
    let text = SPEC.replace(
        "result: { pull_request: { user: { login: octocat, site_admin: false } } }",
        "result: { pull_request: { merged: true } }",
    );
    assert_eq!(
        errors(&load(&text)),
        [
            "missing-example: `login` has no example",
            "missing-example: `site_admin` has no example"
        ]
    );
    // A failing example's result is no result of the tool.
    let text = SPEC.replace(
        "arguments: { number: 42 }",
        "arguments: { number: 0 }\n        error: invalid_arguments",
    );
    let found = errors(&load(&text));
    assert!(
        found
            .iter()
            .any(|e| e == "missing-example: `login` has no example"),
        "{found:?}"
    );
}

#[test]
fn the_enclosing_example_is_still_checked() {
    // The type's example breaks its own enum: reported there, and the value counts for
    // nothing, so `state` needs an example of its own as well.
    let text = SPEC.replace("state: open }", "state: draft }");
    let found = errors(&load(&text));
    assert!(
        found
            .iter()
            .any(|e| e.starts_with("invalid-example: the example of `PullRequest` breaks")),
        "{found:?}"
    );
    assert!(
        found.contains(&"missing-example: `state` has no example".to_string()),
        "{found:?}"
    );
    // The list's example breaks the items' pattern: the same.
    let text = SPEC.replace("color: d73a4a", "color: red");
    let found = errors(&load(&text));
    assert!(
        found
            .iter()
            .any(|e| e.starts_with("invalid-example: the example of `labels` breaks")),
        "{found:?}"
    );
    assert!(
        found.contains(&"missing-example: `color` has no example".to_string()),
        "{found:?}"
    );
}

#[test]
fn docs_and_gauntlet_get_the_derived_values() {
    let loaded = load(SPEC);
    assert_eq!(errors(&loaded), Vec::<String>::new());
    let files = toolspec::internals::emit::generate(
        &loaded.model,
        &[Out::Docs, Out::Tests],
        &Default::default(),
    )
    .unwrap_or_else(|_| panic!("generation failed"))
    .files;
    let docs: String = files
        .iter()
        .filter(|f| f.path.to_string_lossy().ends_with(".md"))
        .map(|f| f.contents.as_str())
        .collect();
    for value in ["Fix the login loop", "octocat", "d73a4a"] {
        assert!(docs.contains(value), "the docs never show `{value}`");
    }
    // The composed example result is made of them, not of empty strings.
    assert!(!docs.contains(r#""title": """#), "{docs}");
    assert!(!docs.contains(r#""login": """#), "{docs}");
}

/// A tool whose result is a union: each success example's result gives the variant it holds
/// (by its tag, or for an untagged union, the variant its value fits) values for its fields.
const UNIONS: &str = r#"toolspec: 1
service: code
title: Code host
description: Pull requests of a code host's repositories.
tools:
  - name: code_event_get
    title: Read an event
    summary: Read one event of a pull request's timeline.
    returns: the event, a comment or a review, and when it is due.
    tier: read_only
    params:
      event_id: { type: integer, description: The event's id., minimum: 1, example: 9 }
    output:
      event:
        type: union
        description: The event.
        tag: kind
        variants:
          comment:
            type: object
            description: A comment.
            fields:
              body: { type: string, description: What it says., max_length: 2000 }
          review:
            type: object
            description: A review.
            fields:
              state: { type: string, description: The verdict., enum: [APPROVED, CHANGES_REQUESTED] }
      due:
        type: union
        description: When a reply is due, a date or a number of days.
        variants:
          date: { type: string, format: date, description: The day. }
          days: { type: integer, description: Days from now., minimum: 0 }
    examples:
      - title: A comment
        arguments: { event_id: 9 }
        result: { event: { kind: comment, body: Looks good }, due: 3 }
      - title: A review
        arguments: { event_id: 10 }
        result: { event: { kind: review, state: APPROVED }, due: 2 }
"#;

#[test]
fn results_count_for_the_variant_they_hold() {
    // The untagged `due` was given integers only: `days` is covered, `date` is not.
    assert_eq!(
        errors(&load(UNIONS)),
        ["missing-example: `date` has no example"]
    );
    let text = UNIONS.replace(
        "date: { type: string, format: date, description: The day. }",
        "date: { type: string, format: date, description: The day., example: '2026-12-24' }",
    );
    let loaded = load(&text);
    assert_eq!(errors(&loaded), Vec::<String>::new());
    let tool = loaded.model.tools().next().expect("a tool").1;
    let variant = |field: &str, variant: &str| {
        let f = tool.output_field(field).expect(field);
        let toolspec::model::Kind::Union { variants, .. } = &f.ty.kind else {
            panic!("{field} is not a union");
        };
        variants
            .iter()
            .find(|v| v.name == variant)
            .expect(variant)
            .clone()
    };
    let inner = |field: &str, v: &str, name: &str| {
        let toolspec::model::Kind::Object { fields, .. } = &variant(field, v).ty.kind else {
            panic!("{v} is not an object");
        };
        fields
            .iter()
            .find(|f| f.name == name)
            .expect(name)
            .example
            .clone()
    };
    assert_eq!(inner("event", "comment", "body"), json!("Looks good"));
    assert_eq!(inner("event", "review", "state"), json!("APPROVED"));
    assert_eq!(variant("due", "days").example, json!(3));
}
