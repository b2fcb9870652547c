//! `effect`: where a write's change happens decides every word about a retry of it. Each
//! effect's tool says exactly its guarantee, in the key, the description, the hints, the
//! docs page and the trait's method, and a toolset's `defaults.effect` reaches every write
//! that does not set its own.

use toolspec::internals::emit::{self, Kind, Options};

/// One reversible tool (`notes_title_set`, its own undo) with `effect: EFFECT`, and a toolset
/// default of `DEFAULT` that a second tool (`notes_archive`) inherits.
fn spec(effect: &str, default: &str) -> String {
    format!(
        r#"toolspec: 1
service: notes
title: Notes
description: Keep notes in the team's wiki.
defaults:
  effect: {default}
tools:
  - name: notes_title_set
    title: Set a note's title
    summary: Set the title of one note.
    returns: the note's id and its title before.
    tier: reversible
    effect: {effect}
    params:
      note_id: {{ type: string, description: The note., max_length: 20, example: N-1 }}
      title: {{ type: string, description: Its new title., max_length: 200, example: Groceries }}
    output:
      note_id: {{ type: string, description: The note., max_length: 20, example: N-1 }}
      previous_title: {{ type: string, description: Its title before., max_length: 200, example: Shopping }}
    idempotency: {{}}
    undo:
      tool: notes_title_set
      arguments: {{ note_id: note_id, title: previous_title }}
  - name: notes_archive
    title: Archive a note
    summary: Archive one note for good.
    returns: the archived note's id.
    tier: irreversible
    low_risk: Archiving hides a note from lists; nobody needs to approve it first.
    params:
      note_id: {{ type: string, description: The note., max_length: 20, example: N-1 }}
    output:
      note_id: {{ type: string, description: The note., max_length: 20, example: N-1 }}
    idempotency: {{}}
"#
    )
}

struct Served {
    files: Vec<toolspec::internals::emit::GeneratedFile>,
}

impl Served {
    fn of(spec: &str) -> Self {
        let loaded = toolspec::load_texts([("notes.yaml".to_owned(), spec.to_owned())]);
        assert!(!loaded.diagnostics.has_errors(), "{:?}", loaded.diagnostics);
        let files = emit::generate(
            &loaded.model,
            &[Kind::Schemas, Kind::Docs, Kind::Rust],
            &Options::default(),
        )
        .expect("outputs")
        .files;
        Served { files }
    }

    fn file(&self, path: &str) -> String {
        self.files
            .iter()
            .find(|f| f.path.to_string_lossy() == path)
            .unwrap_or_else(|| panic!("no {path}"))
            .contents
            .clone()
    }

    fn tool(&self, name: &str) -> serde_json::Value {
        let list: serde_json::Value =
            serde_json::from_str(&self.file("notes/tools.mcp.json")).unwrap();
        list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    }

    fn key(&self, name: &str) -> String {
        self.tool(name)["inputSchema"]["properties"]["idempotency_key"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    fn description(&self, name: &str) -> String {
        self.tool(name)["description"].as_str().unwrap().to_owned()
    }
}

#[test]
fn each_effect_promises_what_a_retry_does() {
    let store = Served::of(&spec("store", "store"));
    assert!(
        store
            .key("notes_title_set")
            .contains("a retry with it returns the first result")
    );
    assert!(!store.description("notes_title_set").contains("remote"));
    assert_eq!(
        store.tool("notes_title_set")["annotations"]["idempotentHint"],
        true
    );

    let keyed = Served::of(&spec("remote_keyed", "store"));
    let key = keyed.key("notes_title_set");
    assert!(
        key.contains("the service gets it too, so a retry with it never repeats the change"),
        "{key}"
    );
    assert!(!keyed.description("notes_title_set").contains("twice"));

    let lookup = Served::of(&spec("remote_lookup", "store"));
    let key = lookup.key("notes_title_set");
    assert!(
        key.contains("a retry with it first checks whether the change was made"),
        "{key}"
    );

    let unprotected = Served::of(&spec("remote_unprotected", "store"));
    let description = unprotected.description("notes_title_set");
    assert!(
        description.ends_with(
            "After an error or no answer, a retry may make the change twice: check first."
        ),
        "{description}"
    );
    // Said once: the key promises only the replay of a finished call.
    assert!(!unprotected.key("notes_title_set").contains("never"));
    // Not idempotent, MCP's default for the hint, so it is left out.
    assert!(
        unprotected.tool("notes_title_set")["annotations"]
            .get("idempotentHint")
            .is_none()
    );
}

#[test]
fn a_remote_undo_says_what_it_does_not_recall() {
    let remote = Served::of(&spec("remote_keyed", "store")).description("notes_title_set");
    assert!(
        remote.contains(
            "reverts it at the remote service, not what that service did with it meanwhile"
        ),
        "{remote}"
    );
    let local = Served::of(&spec("store", "store")).description("notes_title_set");
    assert!(
        local.contains("undo is the call that reverts it."),
        "{local}"
    );
}

#[test]
fn the_toolset_default_reaches_writes_without_their_own() {
    let served = Served::of(&spec("store", "remote_unprotected"));
    assert!(
        served
            .description("notes_archive")
            .contains("a retry may make the change twice")
    );
    assert!(
        !served.description("notes_title_set").contains("twice"),
        "its own effect wins"
    );
}

#[test]
fn docs_and_trait_say_where_the_change_happens() {
    let served = Served::of(&spec("remote_lookup", "store"));
    let page = served.file("notes/docs/notes_title_set.md");
    assert!(
        page.contains("- **Where the change happens** (`remote_lookup`): At a remote service the server can query"),
        "{page}"
    );
    let code = served.file("notes/notes.rs");
    assert!(
        code.contains("remote: ::toolspec_runtime::store::Remote"),
        "the method gets a Remote"
    );
    assert!(
        code.contains("when\n    /// `remote.earlier_attempt()` is true")
            || code.contains("`remote.earlier_attempt()` is true")
    );
    assert!(code.contains(".effect(::toolspec_runtime::store::Effect::RemoteLookup)"));
    // The store's tool keeps its unit of work.
    let archive_sig = code
        .split("fn notes_archive(")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap();
    assert!(
        archive_sig.contains("work: ::toolspec_runtime::store::Work"),
        "{archive_sig}"
    );
}
