//! Each port served over MCP: the generated server behind `toolspec_runtime::mcp::McpServer`,
//! a real rmcp client connected through an in-process pipe (stdio's framing). `tools/list`
//! lists exactly the spec's tools with the checked-in schemas; every example the spec
//! expects to succeed answers with structured content valid against the tool's whole output
//! schema (`schemas/<tool>.output.json`, of which the list publishes the shape or nothing), and every example expecting an error answers `isError` with that code.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::Value;
use toolspec_runtime::engine::{Runtime, Toolset};
use toolspec_runtime::gauntlet::Facts;
use toolspec_runtime::mcp::McpServer;

fn checked_in(service: &str) -> Value {
    checked_in_file(service, "tools.mcp.json")
}

/// A JSON file of a port's checked-in outputs.
fn checked_in_file(service: &str, file: &str) -> Value {
    let path = format!(
        "{}/../corpus/generated/{service}/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
        .expect("json")
}

async fn serve_and_check(facts: &Facts, toolset: Arc<dyn Toolset>) -> Vec<(String, Value)> {
    let service = facts.service;
    let server = McpServer::new(toolset, service, "0.0.0")
        .expect("the generated definitions are servable")
        .with_call_logger(None);
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("initialize");

    let listed = client.list_all_tools().await.expect("tools/list");
    let file = checked_in(service);
    let wanted = file["tools"].as_array().expect("tools");
    let names = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let served: Vec<Value> = listed
        .iter()
        .map(|t| serde_json::to_value(t).expect("tool json"))
        .collect();
    assert_eq!(names(&served), names(wanted), "{service}: tools/list");
    for (tool, want) in served.iter().zip(wanted) {
        for key in ["inputSchema", "outputSchema", "annotations"] {
            assert_eq!(tool[key], want[key], "{service} {}: {key}", tool["name"]);
        }
    }

    let mut checked = 0;
    let mut content_blocks: Vec<(&str, Value)> = Vec::new();
    for tool in facts.tools {
        // The whole schema, every rule in it: what the list publishes is its shape, or
        // nothing (`output_schema`), and results must keep more than that.
        let output_schema = checked_in_file(service, &format!("schemas/{}.output.json", tool.name));
        let validator = jsonschema::validator_for(&output_schema).expect("output schema compiles");
        for example in tool.examples {
            let arguments: Value = serde_json::from_str(example.arguments).expect("arguments");
            let Value::Object(arguments) = arguments else {
                panic!("{}: arguments are an object", tool.name)
            };
            let result = client
                .call_tool(CallToolRequestParams::new(tool.name).with_arguments(arguments))
                .await
                .expect("tools/call answers");
            let structured = result.structured_content.clone().unwrap_or(Value::Null);
            let failed = result.is_error == Some(true);
            match example.error {
                None => {
                    assert!(
                        !failed,
                        "{service} {} `{}`: {structured}",
                        tool.name, example.title
                    );
                    // A preview (applied: false) carries no content yet.
                    if structured["applied"] != false {
                        let blocks = serde_json::to_value(&result.content).expect("content json");
                        content_blocks.push((tool.name, blocks));
                    }
                    let problems: Vec<String> = validator
                        .iter_errors(&structured)
                        .map(|e| e.to_string())
                        .collect();
                    assert!(
                        problems.is_empty(),
                        "{service} {} `{}`: {problems:?} in {structured}",
                        tool.name,
                        example.title
                    );
                }
                Some(code) => {
                    assert!(
                        failed,
                        "{service} {} `{}` should fail",
                        tool.name, example.title
                    );
                    assert_eq!(structured["code"], code, "{service} {}", tool.name);
                }
            }
            checked += 1;
        }
    }
    assert!(
        checked >= facts.tools.len(),
        "{service}: every tool has an example"
    );
    // A tool whose description says it sends content blocks sends them, beside the JSON.
    for (name, blocks) in &content_blocks {
        let listed = served.iter().find(|t| t["name"] == *name).expect("listed");
        let promises = listed["description"]
            .as_str()
            .is_some_and(|d| d.contains("Sent as content blocks"));
        let links = blocks
            .as_array()
            .is_some_and(|b| b.iter().any(|x| x["type"] == "resource_link"));
        let extra = blocks.as_array().map_or(0, |b| b.len().saturating_sub(1));
        assert_eq!(promises || links, extra > 0, "{service} {name}: {blocks}");
    }
    client.cancel().await.expect("close");
    content_blocks
        .into_iter()
        .map(|(n, b)| (n.to_owned(), b))
        .collect()
}

/// The blocks of a successful call to `tool` after its JSON text block.
fn blocks_of<'a>(calls: &'a [(String, Value)], tool: &str) -> &'a [Value] {
    let (_, blocks) = calls.iter().find(|(n, _)| n == tool).expect("called");
    &blocks.as_array().expect("blocks")[1..]
}

fn runtime() -> Runtime {
    Runtime::in_memory().expect("runtime")
}

#[tokio::test]
async fn every_port_is_served_over_mcp_as_its_spec_says() {
    let slack = Arc::new(super::slack::fixture(runtime()));
    serve_and_check(super::slack::FACTS, slack).await;
    let calendar = Arc::new(super::calendar::fixture(runtime()));
    serve_and_check(super::calendar::FACTS, calendar).await;
    let github = Arc::new(super::github::fixture(runtime()));
    serve_and_check(super::github::FACTS, github).await;
    let supabase = Arc::new(super::supabase::fixture(runtime()));
    let calls = serve_and_check(super::supabase::FACTS, supabase).await;
    let types = blocks_of(&calls, "generate_typescript_types");
    assert_eq!(types[0]["type"], "text");
    assert!(
        types[0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("export type Database"))
    );

    let browser = Arc::new(super::puppeteer::fixture(runtime()));
    let calls = serve_and_check(super::puppeteer::FACTS, browser).await;
    // The screenshot is an image block a host shows, the PNG's bytes in base64, and a link.
    let shot = blocks_of(&calls, "puppeteer_screenshot");
    assert_eq!(shot[0]["type"], "image");
    assert_eq!(shot[0]["mimeType"], "image/png");
    assert!(
        shot[0]["data"]
            .as_str()
            .is_some_and(|d| d.starts_with("iVBORw0KGgo")),
        "{}",
        shot[0]
    );
    assert_eq!(shot[1]["type"], "resource_link");
    assert_eq!(shot[1]["uri"], "screenshot://login-page");
    // With `encoded`, as in the original, the picture is text in the result: no image block.
    let encoded = calls
        .iter()
        .filter(|(n, _)| n == "puppeteer_screenshot")
        .map(|(_, b)| b.as_array().expect("blocks"))
        .find(|b| b.iter().all(|x| x["type"] != "image"))
        .expect("the encoded screenshot");
    assert!(
        encoded[0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("data:image/png;base64,iVBORw0KGgo")),
        "{}",
        encoded[0]
    );
}
