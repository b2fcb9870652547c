//! `check` judges a spec's example calls with the generated server's own validator: an
//! example the server would accept passes, one it would refuse fails with the server's words.
//! (Before, the loader had rules of its own and refused `3.0` for an integer and `null` for
//! an optional parameter, which every server accepts.)

const SPEC: &str = r#"toolspec: 1
service: notes
title: Notes
description: Keep short notes.
tools:
  - name: notes_search
    title: Search notes
    summary: Search notes by words.
    returns: matching notes.
    tier: read_only
    params:
      query: { type: string, description: Words to look for., max_length: 20, example: milk }
      min_words: { type: integer, description: At least this many words., minimum: 1, maximum: 100, example: 3, required: false }
      color: { type: string, description: Only this color., enum: [red, green], required: false, example: red }
    output:
      count: { type: integer, description: How many notes match., example: 3 }
    examples:
      - title: The example
        arguments: ARGUMENTS
"#;

/// The error messages of loading the spec with `arguments` as its example call.
fn errors(arguments: &str) -> Vec<String> {
    let text = SPEC.replace("ARGUMENTS", arguments);
    let loaded = toolspec::load_texts([("notes.yaml".to_owned(), text)]);
    loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == toolspec::diagnostics::Severity::Error)
        .map(|d| d.message.clone())
        .collect()
}

#[test]
fn what_the_server_accepts_passes() {
    for arguments in [
        "{ query: milk }",
        "{ query: milk, min_words: 3.0 }",
        "{ query: milk, color: null }",
        "{ query: milk, min_words: 100, color: green }",
    ] {
        assert_eq!(errors(arguments), Vec::<String>::new(), "{arguments}");
    }
}

#[test]
fn what_the_server_refuses_fails_in_its_words() {
    assert_eq!(
        errors("{ query: milk, min_words: 1.5 }"),
        [
            "example `The example` would be refused at /min_words: min_words must be an integer, not number 1.5."
        ]
    );
    assert_eq!(
        errors("{ min_words: 0 }"),
        [
            "example `The example` would be refused at /query: Missing required argument 'query' (string).",
            "example `The example` would be refused at /min_words: min_words 0 is out of range. Use a value from 1 to 100.",
        ]
    );
}

#[test]
fn a_large_whole_number_is_a_whole_number() {
    // 9007199254740000 is below 2^53: every JSON parser reads it exactly, and so does the
    // server's validator. The loader used to call it "not a whole number".
    let text = SPEC
        .replace(
            "minimum: 1, maximum: 100, example: 3",
            "minimum: 1, example: 9007199254740000",
        )
        .replace("ARGUMENTS", "{ query: milk, min_words: 9007199254740000 }");
    let loaded = toolspec::load_texts([("notes.yaml".to_owned(), text)]);
    assert!(!loaded.diagnostics.has_errors(), "{:?}", loaded.diagnostics);
}

/// A tool whose output holds a tagged union and a list, with `RESULT` as the result of its
/// one example.
const UNION_SPEC: &str = r#"toolspec: 1
service: tickets
title: Tickets
description: Support tickets.
tools:
  - name: tickets_get
    title: Get a ticket
    summary: Get one ticket and where it stands.
    returns: the ticket's state and its history.
    tier: read_only
    params:
      ticket_id: { type: string, description: The ticket., max_length: 20, example: T-1 }
    output:
      state:
        type: union
        description: Where the ticket stands.
        tag: kind
        variants:
          open:
            type: object
            description: Still being worked on.
            fields:
              assignee: { type: string, description: Who works on it., example: ada }
          closed:
            type: object
            description: Done.
            fields:
              reason: { type: string, description: Why it was closed., enum: [fixed, duplicate], example: fixed }
              closed_at: { type: string, format: date-time, description: When., example: '2026-11-30T10:00:00Z' }
      history:
        type: array
        description: What happened to it, oldest first.
        items:
          type: object
          fields:
            at: { type: string, format: date-time, description: When., example: '2026-11-29T09:00:00Z' }
            note: { type: string, description: What happened., example: Opened. }
    examples:
      - title: The example
        arguments: { ticket_id: T-2 }
        result: RESULT
"#;

/// The error messages of loading [`UNION_SPEC`] with `result`.
fn result_errors(result: &str) -> Vec<String> {
    let text = UNION_SPEC.replace("RESULT", result);
    let loaded = toolspec::load_texts([("tickets.yaml".to_owned(), text)]);
    loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == toolspec::diagnostics::Severity::Error)
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

/// The result the docs page shows for [`UNION_SPEC`]'s example with `result`, after
/// checking it against the output schema with an independent validator.
fn shown_result(result: &str) -> serde_json::Value {
    use crate::docs_common::{blocks, generate, json};
    let text = UNION_SPEC.replace("RESULT", result);
    let loaded = toolspec::load_texts([("tickets.yaml".to_owned(), text)]);
    assert!(!loaded.diagnostics.has_errors(), "{:?}", loaded.diagnostics);
    let files = generate(
        &loaded.model,
        &[
            toolspec::internals::emit::Kind::Docs,
            toolspec::internals::emit::Kind::Schemas,
        ],
    );
    let page = &files["tickets/docs/tickets_get.md"];
    let block = blocks(page)
        .into_iter()
        .find(|b| b.tag.as_deref() == Some("result: tickets_get"))
        .expect("a result block");
    let shown = json(page, &block);
    let schema: serde_json::Value =
        serde_json::from_str(&files["tickets/schemas/tickets_get.output.json"]).unwrap();
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let problems: Vec<String> = validator
        .iter_errors(&shown)
        .map(|e| e.to_string())
        .collect();
    assert_eq!(problems, Vec::<String>::new(), "{shown}");
    shown
}

#[test]
fn a_partial_union_value_goes_over_the_variant_its_tag_selects() {
    // The tag alone: the closed variant's example, not the open one's fields under it.
    assert_eq!(
        result_errors("{ state: { kind: closed } }"),
        Vec::<String>::new()
    );
    assert_eq!(
        shown_result("{ state: { kind: closed } }")["state"],
        serde_json::json!({"kind": "closed", "reason": "fixed", "closed_at": "2026-11-30T10:00:00Z"})
    );
    assert_eq!(
        shown_result("{ state: { kind: closed, reason: duplicate } }")["state"],
        serde_json::json!({"kind": "closed", "reason": "duplicate", "closed_at": "2026-11-30T10:00:00Z"})
    );
    // Each list item goes over the items' example.
    assert_eq!(
        shown_result("{ history: [{ note: Closed. }, { note: Reopened. }] }")["history"],
        serde_json::json!([
            {"at": "2026-11-29T09:00:00Z", "note": "Closed."},
            {"at": "2026-11-29T09:00:00Z", "note": "Reopened."}
        ])
    );
}

#[test]
fn a_partial_result_no_server_can_return_is_refused() {
    // Without the tag the fields land on the first variant, which does not have them.
    assert_eq!(
        result_errors("{ state: { reason: duplicate } }"),
        [
            "invalid-example-result: the result of example `The example` breaks the output schema at /state/reason: Unknown field 'reason' in state. Allowed fields: assignee."
        ]
    );
    assert_eq!(
        result_errors("{ state: { kind: closed, reason: wontfix }, priority: 1 }"),
        [
            "invalid-example-result: the result of example `The example` breaks the output schema at /state/reason: state/reason 'wontfix' is not valid. Use one of: fixed, duplicate.",
            "invalid-example-result: the result of example `The example` breaks the output schema at /priority: `priority` is not an output field; the output has: state, history, truncated",
        ]
    );
}
