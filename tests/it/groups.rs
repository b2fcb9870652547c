//! A spec's `groups` from the spec to each provider's list: which tool is in which group,
//! what is deferred and where, the search tool the spec chose, and what `check` says of a
//! `tool_search` with nothing to defer. (Wrongly named groups are `tests/bad-specs/group-*`;
//! a real catalog of three groups is `import_openapi::a_catalog_of_three_tags_...`.)

use serde_json::Value;
use toolspec::internals::emit::providers::{Lists, toolset_files};
use toolspec::model::Model;

fn tool(name: &str, tier: &str) -> String {
    let extra = match tier {
        "read_only" => "",
        _ => "    idempotency: { key_param: true }\n",
    };
    format!(
        "  - name: {name}
    title: {name}
    summary: Does the {name} thing to one note.
    returns: the note's text.
    tier: {tier}
{extra}    params:
      note_id: {{ type: string, description: The note's id., max_length: 20, example: N-1 }}
    output:
      text: {{ type: string, description: The note's text., max_length: 200, example: Buy milk }}
"
    )
}

fn spec(groups: &str) -> String {
    format!(
        "toolspec: 1
service: notes
title: Notes
description: Keep short notes and their tags.
tools:
{}{}{}{groups}",
        tool("notes_get", "read_only"),
        tool("notes_tags_get", "read_only"),
        tool("notes_tags_list", "read_only"),
    )
}

fn load(yaml: &str) -> (Model, toolspec::Loaded) {
    let loaded = toolspec::load_texts([("notes.yaml".to_string(), yaml.to_string())]);
    assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
    (loaded.model.clone(), loaded)
}

fn lists(model: &Model) -> impl Fn(&str) -> Value {
    let files = toolset_files(&model.toolsets[0], Lists::default());
    move |name: &str| {
        let f = files
            .iter()
            .find(|f| f.path.ends_with(name))
            .unwrap_or_else(|| panic!("no {name}"));
        serde_json::from_str(&f.contents).expect("JSON")
    }
}

const GROUPS: &str = "groups:
  notes:
    description: Notes, one at a time.
    tools: [notes_get]
    up_front: true
  tags:
    description: The tags of notes.
    match: notes_tags_*
tool_search: regex
";

#[test]
fn each_tool_is_in_the_group_that_names_it_by_list_or_pattern() {
    let (model, _) = load(&spec(GROUPS));
    let ts = &model.toolsets[0];
    let group_of = |name: &str| {
        let tool = ts.tool(name).expect("a tool");
        ts.group_of(tool).map(|g| g.name.text.clone())
    };
    assert_eq!(group_of("notes_get").as_deref(), Some("notes"));
    assert_eq!(group_of("notes_tags_get").as_deref(), Some("tags"));
    assert_eq!(group_of("notes_tags_list").as_deref(), Some("tags"));
    assert_eq!(ts.members(1).count(), 2);
    assert!(ts.defers());
}

#[test]
fn the_lists_defer_what_is_not_up_front_with_the_search_the_spec_chose() {
    let (model, _) = load(&spec(GROUPS));
    let list = lists(&model);
    let anthropic = list("tools.anthropic.json");
    assert_eq!(
        anthropic[0],
        serde_json::json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
    );
    let deferred: Vec<&str> = anthropic
        .as_array()
        .expect("array")
        .iter()
        .filter(|t| t["defer_loading"] == true)
        .map(|t| t["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(deferred, ["notes_tags_get", "notes_tags_list"]);
    let responses = list("tools.openai-responses.json");
    assert_eq!(responses[0]["name"], "notes_notes");
    assert_eq!(responses[1]["name"], "notes_tags");
    assert_eq!(responses[1]["description"], "The tags of notes.");
    assert_eq!(responses[2], serde_json::json!({"type": "tool_search"}));
    let chat = list("tools.openai.json");
    let chat: Vec<&str> = chat
        .as_array()
        .expect("array")
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(chat, ["notes_get"]);
}

#[test]
fn all_groups_up_front_defer_nothing_and_add_no_search() {
    let all_up_front = GROUPS.replace(
        "    match: notes_tags_*\n",
        "    match: notes_tags_*\n    up_front: true\n",
    );
    let (model, _) = load(&spec(&all_up_front));
    assert!(!model.toolsets[0].defers());
    let list = lists(&model);
    let anthropic = list("tools.anthropic.json");
    assert_eq!(
        anthropic.as_array().map(Vec::len),
        Some(3),
        "no search tool"
    );
    assert!(
        anthropic
            .as_array()
            .expect("array")
            .iter()
            .all(|t| t.get("defer_loading").is_none())
    );
    let responses = list("tools.openai-responses.json");
    assert_eq!(
        responses.as_array().map(Vec::len),
        Some(2),
        "two namespaces, no search"
    );
    let kept = list("tools.mcp.json")["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|t| t["_meta"]["anthropic/alwaysLoad"] == true)
        .count();
    assert_eq!(kept, 3);
}

#[test]
fn without_groups_every_list_is_flat_and_whole() {
    let (model, _) = load(&spec(""));
    let list = lists(&model);
    let responses = list("tools.openai-responses.json");
    let responses = responses.as_array().expect("array");
    assert_eq!(responses.len(), 3);
    assert!(
        responses
            .iter()
            .all(|t| t["type"] == "function" && t.get("defer_loading").is_none())
    );
    assert!(list("tools.mcp.json")["tools"][0].get("_meta").is_none());
    assert_eq!(list("tools.openai.json").as_array().map(Vec::len), Some(3));
}

#[test]
fn a_tool_search_without_groups_is_a_warning_at_its_line() {
    let (_, loaded) = load(&spec("tool_search: bm25\n"));
    let found: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == "tool-search-without-groups")
        .collect();
    assert_eq!(found.len(), 1, "{}", loaded.render_diagnostics());
    let rendered = loaded.render_diagnostics();
    assert!(rendered.contains("notes.yaml:33:14"), "{rendered}");
}
