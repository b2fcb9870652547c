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
