//! `idempotency: {key_optional: <reason>}`: a low-risk write whose existing callers send no
//! key takes one without requiring it, and every output says so, with the reason in the docs.

use toolspec::internals::emit::{self, Kind, Options};

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

/// The `notes_pin` of [`SPEC`] undone by `notes_unpin`, each with the key setting given
/// (`""` for a required key, else `key_optional`'s reason).
fn pin_and_unpin(pin_key: &str, unpin_key: &str) -> String {
    let idempotency = |reason: &str| {
        if reason.is_empty() {
            "    idempotency: {}\n".to_string()
        } else {
            format!("    idempotency:\n      key_optional: {reason}\n")
        }
    };
    let pin = SPEC
        .replace(
            "    idempotency:\n      key_optional: Callers from before keys existed send none, and pinning twice changes nothing.\n",
            &idempotency(pin_key),
        )
        .replace("tool: notes_pin", "tool: notes_unpin");
    format!(
        "{pin}
  - name: notes_unpin
    title: Unpin a note
    summary: Take a note off the top.
    returns: the note's id.
    tier: irreversible
    low_risk: It undoes a pin; the note stays where it was otherwise.
    params:
      note_id: {{ type: string, description: The note., max_length: 20, example: N-1 }}
      pinned: {{ type: boolean, description: Unpin it or not., example: false }}
    output:
      note_id: {{ type: string, description: The note., max_length: 20, example: N-1 }}
{}",
        idempotency(unpin_key)
    )
}

/// `notes_pin`'s output schema, generated from `spec`.
fn pin_output_schema(spec: String) -> serde_json::Value {
    let loaded = toolspec::load_texts([("notes.yaml".to_owned(), spec)]);
    assert!(!loaded.diagnostics.has_errors(), "{:?}", loaded.diagnostics);
    let files = emit::generate(&loaded.model, &[Kind::Schemas], &Options::default())
        .expect("outputs")
        .files;
    let file = files
        .iter()
        .find(|f| f.path.to_string_lossy() == "notes/schemas/notes_pin.output.json")
        .expect("the output schema");
    serde_json::from_str(&file.contents).unwrap()
}

/// The result the runtime returns for a `notes_pin` call made with `key` (or none), its
/// undo call built by the runtime's own `attach_undo`.
fn runtime_result(key: Option<&str>) -> serde_json::Value {
    use toolspec_runtime::engine::{UndoSpec, attach_undo};
    let spec = UndoSpec {
        tool: "notes_unpin",
        arguments: &[("note_id", "/note_id"), ("pinned", "/was_pinned")],
        takes_idempotency_key: true,
    };
    let mut result = serde_json::json!({"note_id": "N-1", "was_pinned": false});
    attach_undo(&mut result, &spec, key).expect("an undo call");
    result
}

fn schema_errors(schema: &serde_json::Value, value: &serde_json::Value) -> Vec<String> {
    let validator = jsonschema::draft202012::new(schema).expect("the schema compiles");
    validator
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect()
}

/// The runtime derives the undo's key from the call's, so the undo carries one exactly
/// when the call did. The output schema says so: `undo.arguments.idempotency_key` is
/// required when every call has a key, and optional when a call may have none, and every
/// result the runtime builds passes it.
#[test]
fn the_undo_key_is_required_exactly_when_the_runtime_always_sends_it() {
    let optional = "Callers from before keys existed send none.";
    for (pin, unpin, required, keys) in [
        ("", "", true, vec![Some("k-1")]),
        ("", optional, true, vec![Some("k-1")]),
        (optional, optional, false, vec![Some("k-1"), None]),
    ] {
        let schema = pin_output_schema(pin_and_unpin(pin, unpin));
        let args = &schema["properties"]["undo"]["properties"]["arguments"];
        let listed = args["required"]
            .as_array()
            .expect("required arguments")
            .contains(&serde_json::json!("idempotency_key"));
        assert_eq!(listed, required, "pin {pin:?}, unpin {unpin:?}: {args}");
        for key in keys {
            let result = runtime_result(key);
            assert_eq!(
                schema_errors(&schema, &result),
                Vec::<String>::new(),
                "pin {pin:?}, unpin {unpin:?}, key {key:?}: {result}"
            );
        }
    }
}

/// A call without a key gets an undo call without one; an undo tool that requires a key
/// would refuse it, so `check` refuses the pair and says how to fix it.
#[test]
fn an_optional_key_undone_by_a_required_one_is_refused() {
    let spec = pin_and_unpin("Callers from before keys existed send none.", "");
    let loaded = toolspec::load_texts([("notes.yaml".to_owned(), spec)]);
    let errors: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == toolspec::diagnostics::Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code, "undo-key-optional");
    assert_eq!(
        errors[0].message,
        "`notes_pin` may be called without an idempotency key, but its undo tool `notes_unpin` requires one"
    );
    // What the runtime sends for a call without a key, which `notes_unpin` would refuse.
    let undo = &runtime_result(None)["undo"]["arguments"];
    assert!(undo.get("idempotency_key").is_none(), "{undo}");
}
