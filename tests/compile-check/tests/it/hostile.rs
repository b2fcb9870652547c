//! The adversarial spec (`specs/adversarial/hostile.yaml`) compiled (see the library), and
//! its strings back exactly as written: enum values, titles, descriptions, defaults,
//! examples and error messages full of `"#`, `*/`, `\`, emoji, CJK, bidirectional and
//! zero-width characters, through the generated types and server.
//!
//! The generated module names types `Option`, `Result`, `String` and `Some`, so it is used
//! through the `h::` path here, never glob-imported.

use std::sync::Mutex;

use serde_json::{Value, json};
use toolspec_compile_check::hostile as h;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::glue::{Page, Window};
use toolspec_runtime::engine::{CallContext, Toolset};

/// The enum values exactly as the spec writes them (the last four spell the same letters
/// and digits, and get variants of their own).
const VALUES: [&str; 17] = [
    "open",
    "say \"hi\"#",
    "*/ closed /*",
    "back\\slash",
    "🎉",
    "naïve café",
    "日本語",
    "r#\"raw\"#",
    "zero\u{200B}width",
    "line\nbreak",
    "type",
    "self",
    "1st",
    "+1",
    "-1",
    "1",
    "reactions-+1",
];

#[derive(Default)]
struct Things {
    searched: Mutex<Vec<h::HostileSearchInput>>,
}

fn thing(i: i64) -> h::Self_ {
    h::Self_ {
        r#type: h::Option::RRaw,
        self_: format!("x\"#y */ {i}"),
        crate_: i,
        r#match: Some("abc\"#1".to_string()),
        r#ref: Some("r\"#".to_string()),
        customer_email: "a@example.com".into(),
    }
}

impl h::HostileTools for Things {
    async fn hostile_search(
        &self,
        input: h::HostileSearchInput,
        window: Window,
    ) -> Result<Page<h::HostileSearchOutput>, ToolError> {
        self.searched.lock().unwrap().push(input);
        let all: Vec<h::Self_> = (0..3).map(thing).collect();
        let page = all.into_iter().skip(window.skip()).take(window.take());
        Ok(Page::new(
            h::HostileSearchOutput {
                r#match: page.collect(),
            },
            3,
        ))
    }

    async fn self_(&self, input: h::SelfInput) -> Result<h::SelfOutput, ToolError> {
        if input.crate_.crate_ < 0 {
            return Err(h::HostileError::GoneAway {
                id: input.crate_.self_,
                kind: Some(input.crate_.r#type),
            }
            .into());
        }
        Ok(h::SelfOutput {
            self_: input.crate_,
            some: Some(3),
        })
    }

    async fn hostile_type(
        &self,
        input: h::HostileTypeInput,
        _work: toolspec_runtime::store::Work,
    ) -> Result<h::HostileTypeOutput, ToolError> {
        Ok(h::HostileTypeOutput {
            id: input.id,
            previous: h::Option::Open,
        })
    }

    async fn preview_match(&self, input: h::MatchInput) -> Result<h::MatchPreview, ToolError> {
        Ok(h::MatchPreview {
            r#fn: input.r#fn,
            crate_: 2,
            summary: Some("Would match */ \"# 🎉".into()),
        })
    }

    async fn r#match(
        &self,
        input: h::MatchInput,
        preview: h::MatchPreview,
        _work: toolspec_runtime::store::Work,
    ) -> Result<h::MatchOutput, ToolError> {
        assert_eq!(input.r#fn, preview.r#fn);
        Ok(h::MatchOutput {
            outcome: h::Option::RRaw,
        })
    }
}

fn server() -> h::HostileServer<Things> {
    h::HostileServer::in_memory(Things::default()).unwrap()
}

async fn ok(s: &h::HostileServer<Things>, tool: &str, args: Value) -> Value {
    match s.call(tool, args, &CallContext::new()).await {
        Ok(out) => out.structured,
        Err(e) => panic!("{tool}: {}", e.to_value()),
    }
}

#[test]
fn enum_values_round_trip_exactly() {
    let wire: Vec<&str> = h::Option::ALL.iter().map(|v| v.as_str()).collect();
    assert_eq!(wire, VALUES);
    for (v, text) in h::Option::ALL.iter().zip(VALUES) {
        assert_eq!(serde_json::to_value(v).unwrap(), json!(text));
        assert_eq!(
            serde_json::from_value::<h::Option>(json!(text)).unwrap(),
            *v
        );
        assert_eq!(v.to_string(), text);
    }
}

#[test]
fn titles_descriptions_schemas_and_examples_are_exact() {
    let titles: Vec<&str> = h::DEFINITIONS.iter().map(|d| d.title).collect();
    assert_eq!(
        titles,
        [
            "Search \"# */",
            "Self \"#",
            "Change the type */",
            "Match \"# */"
        ]
    );
    let search = &h::DEFINITIONS[0];
    assert!(
        search.description.starts_with(
            "Search things */ \"# r#\"raw\"# \\ 🎉 naïve 日本語 \u{200B}. \
             Returns things ``` and </script> \u{202E}."
        ),
        "{}",
        search.description
    );
    assert_eq!(search.deprecated_aliases, ["hostile_find"]);

    let schema: Value = serde_json::from_str(search.input_schema).unwrap();
    assert_eq!(schema["properties"]["kind"]["enum"], json!(VALUES));
    assert_eq!(schema["properties"]["flavor"]["default"], "*/\"#\\");
    assert!(
        schema["properties"]["query"]["description"]
            .as_str()
            .unwrap()
            .starts_with("Words \"# */ to match.")
    );
    let example: Value = serde_json::from_str(search.example_call).unwrap();
    assert_eq!(
        example,
        json!({"query": "\"#*/🎉", "kind": "say \"hi\"#", "limit": 2})
    );
    let pattern = h::DEFINITIONS[2].input_schema;
    let schema: Value = serde_json::from_str(pattern).unwrap();
    assert_eq!(
        schema["properties"]["id"]["pattern"],
        "^[^\"#\\\\]*\"?#?[0-9]*$"
    );
}

#[test]
fn error_messages_fill_their_hostile_templates_exactly() {
    let e: ToolError = h::HostileError::GoneAway {
        id: "a\"#1".into(),
        kind: Some(h::Option::SayHi),
    }
    .into();
    assert_eq!(e.code, "gone_away");
    assert!(!e.retryable);
    assert_eq!(
        e.message,
        "No \"a\"#1\" */ here; r#\"x\"# \\ a\"#1 🎉 {\"json\": 1} say \"hi\"#"
    );
    assert_eq!(e.details["kind"], "say \"hi\"#");
    let t: ToolError = h::HostileError::Type.into();
    assert_eq!((t.code.as_ref(), t.retryable), ("type", true));
    assert_eq!(t.message, "Try again */ later.");
}

#[test]
fn keyword_fields_keep_their_wire_names() {
    let v = serde_json::to_value(thing(1)).unwrap();
    let mut keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        ["crate", "customerEmail", "match", "ref", "self", "type"]
    );
    let s = serde_json::to_value(h::String {
        value: true,
        r#async: 0.5,
    })
    .unwrap();
    assert_eq!(s, json!({"_": true, "async": 0.5}));
}

#[tokio::test]
async fn hostile_arguments_reach_the_methods_exactly() {
    let s = server();
    let out = ok(
        &s,
        "hostile_find",
        json!({"query": "\"#*/🎉\u{202E}", "kind": "line\nbreak"}),
    )
    .await;
    let seen = s.tools().searched.lock().unwrap().pop().unwrap();
    assert_eq!(seen.query, "\"#*/🎉\u{202E}");
    assert_eq!(seen.kind, Some(h::Option::LineBreak));
    assert_eq!(
        seen.flavor, "*/\"#\\",
        "the default reaches the typed input"
    );
    assert_eq!(out["total"], 3);
    assert_eq!(out["match"].as_array().unwrap().len(), 2, "default limit 2");
    assert!(out["next_cursor"].is_string());
    // Concise by default: the detailed-only camelCase field is left out.
    assert!(out["match"][0].get("customerEmail").is_none());
    assert_eq!(out["match"][0]["self"], "x\"#y */ 0");

    let detailed = ok(
        &s,
        "hostile_search",
        json!({"query": "x", "response_format": "detailed"}),
    )
    .await;
    assert_eq!(detailed["match"][0]["customerEmail"], "a@example.com");

    let refused = s
        .call(
            "hostile_search",
            json!({"query": "x", "kind": "say \"hi\""}),
            &CallContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(refused.code, "invalid_enum");
    assert_eq!(refused.details["allowed"], json!(VALUES));
}

#[tokio::test]
async fn reversible_and_gated_tools_carry_hostile_text() {
    let s = server();
    let out = ok(
        &s,
        "hostile_type",
        json!({"id": "a\"#1", "type": "🎉", "idempotency_key": "k\"#*/"}),
    )
    .await;
    assert_eq!(
        out["undo"],
        json!({"tool": "hostile_type", "arguments": {"id": "a\"#1", "type": "open", "idempotency_key": "undo-k\"#*/"}})
    );

    let args = json!({"fn": {"_": false, "async": 1.5}, "idempotency_key": "m-1"});
    let preview = ok(&s, "match", args.clone()).await;
    assert_eq!(preview["applied"], false);
    assert_eq!(preview["preview"]["summary"], "Would match */ \"# 🎉");
    assert_eq!(preview["preview"]["crate"], 2);
    let mut apply = args;
    apply["preview_id"] = preview["preview"]["preview_id"].clone();
    let applied = ok(&s, "match", apply).await;
    assert_eq!(applied["applied"], true);
    assert_eq!(applied["outcome"], "r#\"raw\"#");

    let e = s
        .call(
            "self",
            json!({"crate": {"type": "🎉", "self": "x\"#", "crate": -1, "customerEmail": "a@example.com"}}),
            &CallContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        e.message,
        "No \"x\"#\" */ here; r#\"x\"# \\ x\"# 🎉 {\"json\": 1} 🎉"
    );
}

/// A rule over an object's own fields, with keyword names, holds inside a parameter:
/// `match` and `ref` of a `Self` go together or not at all.
#[test]
fn an_objects_rule_is_enforced_at_its_own_pointer() {
    let shape = h::DEFINITIONS
        .iter()
        .find(|d| d.name == "self")
        .expect("the self tool")
        .input;
    let problems = toolspec_runtime::validate::validate(
        shape,
        &serde_json::json!({"crate": {"type": "*/ closed /*", "self": "x", "crate": 1,
            "customerEmail": "a@example.com", "ref": "r"}}),
    );
    let found: Vec<(&str, &str)> = problems.iter().map(|p| (p.code, p.path.as_str())).collect();
    assert_eq!(found, [("missing_argument", "/crate/match")]);
}
