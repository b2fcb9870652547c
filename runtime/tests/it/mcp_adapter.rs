//! The MCP adapter driven by a real rmcp client over an in-process duplex pipe: what
//! `tools/list` shows, and what each kind of `tools/call` outcome looks like on the wire.
#![cfg(feature = "mcp")]

use crate::mcp_common;

use std::sync::{Arc, Mutex};

use mcp_common::{DEFS, GET_INPUT_SCHEMA, GET_OUTPUT_SCHEMA, connect, server, within};
use rmcp::model::{CallToolRequestParams, CallToolResult, ErrorCode};
use rmcp::service::ServiceError;
use serde_json::{Value, json};
use toolspec_runtime::mcp::{ALIAS_META_KEY, McpServer};

fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(map) = arguments else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name).with_arguments(map)
}

fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .map(|c| c.as_text().expect("only text blocks").text.clone())
        .collect()
}

fn new_log() -> Arc<Mutex<Vec<String>>> {
    Arc::new(Mutex::new(Vec::new()))
}

#[tokio::test]
async fn initialize_reports_name_version_and_the_tools_capability() {
    let client = connect(server(&new_log())).await;
    let info = client.peer_info().expect("server info after initialize");
    let identity = info.server_info.as_ref().expect("serverInfo is sent");
    assert_eq!(identity.name, "notes-test");
    assert_eq!(identity.version, "1.2.3");
    assert!(info.capabilities.tools.is_some(), "tools must be enabled");
}

#[tokio::test]
async fn list_shows_definitions_in_order_with_the_hints_that_say_something_and_no_alias() {
    let client = connect(server(&new_log())).await;
    let listed = within(client.list_tools(None)).await.unwrap();
    assert_eq!(listed.next_cursor, None);
    // Compiled in, the same for everyone until the next build: cacheable, publicly.
    assert_eq!(listed.ttl_ms, Some(3_600_000));
    assert_eq!(listed.cache_scope, Some(rmcp::model::CacheScope::Public));
    let wire = serde_json::to_value(&listed.tools).unwrap();
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        ["notes_get", "notes_delete"],
        "definitions' order, no alias"
    );

    let get = &wire[0];
    assert_eq!(get["title"], "Get a note");
    assert_eq!(get["description"], "Returns one note by id.");
    let input: Value = serde_json::from_str(GET_INPUT_SCHEMA).unwrap();
    let output: Value = serde_json::from_str(GET_OUTPUT_SCHEMA).unwrap();
    assert_eq!(get["inputSchema"], input);
    assert_eq!(get["outputSchema"], output);
    // Each hint that differs from MCP's cautious default, and a write's destructiveHint.
    assert_eq!(
        get["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    assert_eq!(
        wire[1]["annotations"],
        json!({"destructiveHint": true, "openWorldHint": false})
    );
}

#[tokio::test]
async fn a_success_carries_structured_content_and_the_same_json_as_text() {
    let client = connect(server(&new_log())).await;
    let result = within(client.call_tool(call("notes_get", json!({"note_id": "N-7"}))))
        .await
        .unwrap();
    let expected = json!({"note_id": "N-7", "text": "text of N-7"});
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, Some(expected.clone()));
    let texts = texts(&result);
    assert_eq!(texts.len(), 1);
    assert_eq!(serde_json::from_str::<Value>(&texts[0]).unwrap(), expected);
    assert!(result.meta.is_none());
}

#[tokio::test]
async fn a_tool_error_is_an_is_error_result_with_the_structured_error() {
    let client = connect(server(&new_log())).await;
    let result = within(client.call_tool(call("notes_delete", json!({"note_id": "N-7"}))))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let message = "Note N-7 is locked and cannot be deleted. Ask its owner to unlock it.";
    let error = json!({
        "code": "locked",
        "message": message,
        "retryable": false,
        "details": {"note_id": "N-7"},
    });
    assert_eq!(result.structured_content, Some(error.clone()));
    let texts = texts(&result);
    assert_eq!(
        texts[0], message,
        "the message first, for hosts that show only text"
    );
    assert_eq!(serde_json::from_str::<Value>(&texts[1]).unwrap(), error);
}

#[tokio::test]
async fn bad_arguments_are_an_is_error_result_not_a_protocol_error() {
    let client = connect(server(&new_log())).await;
    let result = within(client.call_tool(call("notes_get", json!({"id": "N-7"}))))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let error = result.structured_content.unwrap();
    assert_eq!(error["code"], "invalid_arguments", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains(r#"{"note_id":"N-1"}"#),
        "the message ends with a valid example call: {error}"
    );
    // No arguments at all is the same as `{}`: a missing argument, reported to the model.
    let result = within(client.call_tool(CallToolRequestParams::new("notes_get")))
        .await
        .unwrap();
    assert_eq!(
        result.structured_content.unwrap()["code"],
        "missing_argument"
    );
}

#[tokio::test]
async fn an_alias_works_and_tells_the_model_the_name_to_use() {
    let client = connect(server(&new_log())).await;
    let result = within(client.call_tool(call("notes_fetch", json!({"note_id": "N-2"}))))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        result.structured_content,
        Some(json!({"note_id": "N-2", "text": "text of N-2"})),
        "structuredContent keeps to the output schema: no note inside"
    );
    let texts = texts(&result);
    assert_eq!(texts.len(), 2);
    assert_eq!(
        texts[1],
        "Note: `notes_fetch` is deprecated; call `notes_get` instead."
    );
    let meta = result.meta.expect("_meta names the canonical tool");
    assert_eq!(
        meta.get(ALIAS_META_KEY),
        Some(&json!({"called": "notes_fetch", "use": "notes_get"}))
    );
}

#[tokio::test]
async fn an_unknown_tool_is_a_json_rpc_invalid_params_error() {
    let client = connect(server(&new_log())).await;
    let outcome = within(client.call_tool(call("notes_burn", json!({})))).await;
    let Err(ServiceError::McpError(error)) = outcome else {
        panic!("expected a JSON-RPC error, got {outcome:?}")
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(error.code.0, -32602);
    assert!(error.message.contains("notes_burn"), "{}", error.message);
    assert!(
        error.message.contains("notes_get, notes_delete"),
        "{}",
        error.message
    );
    let data = error.data.expect("data carries the structured error");
    assert_eq!(data["code"], "unknown_tool");
}

#[tokio::test]
async fn a_panicking_tool_answers_internal_error_and_the_server_keeps_serving() {
    let client = connect(server(&new_log())).await;
    // A write runs on its own task, a read in place: both catch the panic.
    for tool in ["notes_delete", "notes_get"] {
        let result = within(client.call_tool(call(tool, json!({"note_id": "panic"}))))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true), "{tool}");
        let error = result.structured_content.unwrap();
        assert_eq!(error["code"], "internal_error", "{tool}");
        assert!(
            !error["message"].as_str().unwrap().contains("on purpose"),
            "the panic message stays out of what the model reads: {error}"
        );
    }
    let after = within(client.call_tool(call("notes_get", json!({"note_id": "N-1"}))))
        .await
        .unwrap();
    assert_eq!(after.is_error, Some(false));
}

#[tokio::test]
async fn every_call_is_logged_with_its_outcome() {
    let log = new_log();
    let client = connect(server(&log)).await;
    let args = || json!({"note_id": "N-1"});
    within(client.call_tool(call("notes_get", args())))
        .await
        .unwrap();
    within(client.call_tool(call("notes_fetch", args())))
        .await
        .unwrap();
    within(client.call_tool(call("notes_delete", args())))
        .await
        .unwrap();
    let _ = within(client.call_tool(call("nope", args()))).await;
    within(client.list_tools(None)).await.unwrap();

    let lines = log.lock().unwrap().clone();
    assert_eq!(
        lines.len(),
        4,
        "one line per tools/call, none for list: {lines:?}"
    );
    assert!(
        lines[0].starts_with("mcp tools/call notes_get id="),
        "{}",
        lines[0]
    );
    assert!(lines[0].ends_with("ms ok"), "{}", lines[0]);
    assert!(
        lines[1].starts_with("mcp tools/call notes_fetch->notes_get "),
        "{}",
        lines[1]
    );
    assert!(lines[2].ends_with(" error=locked"), "{}", lines[2]);
    assert!(lines[3].starts_with("mcp tools/call nope "), "{}", lines[3]);
    assert!(lines[3].ends_with(" unknown_tool"), "{}", lines[3]);
}

#[tokio::test]
async fn logging_can_be_turned_off() {
    let log = new_log();
    let server = server(&log).with_call_logger(None);
    let client = connect(server).await;
    let ok = within(client.call_tool(call("notes_get", json!({"note_id": "N-1"}))))
        .await
        .unwrap();
    assert_eq!(ok.is_error, Some(false));
    assert!(
        log.lock().unwrap().is_empty(),
        "the removed logger was called"
    );
}

#[test]
fn a_server_over_definitions_is_built_once_with_its_tools() {
    let server = McpServer::new(Arc::new(mcp_common::Notes), "n", "0").unwrap();
    assert_eq!(server.tools().len(), DEFS.len());
    assert_eq!(server.toolset().definitions().len(), 2);
}
