//! `idempotency: {key_optional: <reason>}`: a low-risk write whose existing callers send no
//! key takes one without requiring it, and every output says so, with the reason in the docs.

use toolspec::emit::{self, Kind, Options};

const SPEC: &str = r#"toolspec: 1
service: notes
title: Notes
description: Keep short notes.
tools:
  - name: notes_pin
    title: Pin a note
    summary: Pin or unpin one note.
    returns: the note's id and whether it was pinned before.
    tier: reversible
    params:
      note_id: { type: string, description: The note., max_length: 20, example: N-1 }
      pinned: { type: boolean, description: Pin it or not., example: true }
    output:
      note_id: { type: string, description: The note., max_length: 20, example: N-1 }
      was_pinned: { type: boolean, description: Whether it was pinned before., example: false }
    idempotency:
      key_optional: Callers from before keys existed send none, and pinning twice changes nothing.
    undo:
      tool: notes_pin
      arguments: { note_id: note_id, pinned: was_pinned }
"#;

#[test]
fn the_key_is_optional_and_every_output_says_so() {
    let loaded = toolspec::load_texts([("notes.yaml".to_owned(), SPEC.to_owned())]);
    assert!(!loaded.diagnostics.has_errors(), "{:?}", loaded.diagnostics);
    let files = emit::generate(
        &loaded.model,
        &[Kind::Schemas, Kind::Docs],
        &Options::default(),
    )
    .expect("outputs")
    .files;
    let file = |path: &str| {
        files
            .iter()
            .find(|f| f.path.to_string_lossy() == path)
            .unwrap_or_else(|| panic!("no {path}"))
            .contents
            .clone()
    };
    let input: serde_json::Value =
        serde_json::from_str(&file("notes/schemas/notes_pin.input.json")).unwrap();
    assert_eq!(input["required"], serde_json::json!(["note_id", "pinned"]));
    let key = input["properties"]["idempotency_key"]["description"]
        .as_str()
        .unwrap();
    assert!(
        key.ends_with("Optional: without one a retry runs again."),
        "{key}"
    );
    // Said once, by the key itself: the MCP list carries it there, and not again in the
    // tool's description.
    let mcp: serde_json::Value = serde_json::from_str(&file("notes/tools.mcp.json")).unwrap();
    let served = &mcp["tools"][0];
    assert_eq!(
        served["inputSchema"]["properties"]["idempotency_key"]["description"],
        input["properties"]["idempotency_key"]["description"]
    );
    assert!(
        !served["description"].as_str().unwrap().contains("retry"),
        "{served}"
    );
    let page = file("notes/docs/notes_pin.md");
    assert!(
        page.contains(
            "Why: Callers from before keys existed send none, and pinning twice changes nothing."
        ),
        "{page}"
    );

    // Without `key_optional` the key stays required.
    let required = SPEC.replace(
        "    idempotency:\n      key_optional: Callers from before keys existed send none, and pinning twice changes nothing.\n",
        "    idempotency: {}\n",
    );
    let loaded = toolspec::load_texts([("notes.yaml".to_owned(), required)]);
    assert!(!loaded.diagnostics.has_errors(), "{:?}", loaded.diagnostics);
    let tool = &loaded.model.toolsets[0].tools[0];
    let key = tool
        .params
        .iter()
        .find(|p| p.name == "idempotency_key")
        .unwrap();
    assert!(key.required);
}
