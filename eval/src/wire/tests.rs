//! Each wire reads the answers its provider documents, and writes what it would accept back.

use serde_json::json;

use super::*;
use crate::turn::{Stop, ToolAnswer};

fn answer(id: &str, name: &str, error: bool) -> ToolAnswer {
    ToolAnswer {
        call_id: id.into(),
        name: name.into(),
        text: "{\"total\":15}".into(),
        structured: Some(json!({"total": 15})),
        is_error: error,
    }
}

#[test]
fn anthropic_reads_parallel_tool_use_and_answers_each() {
    let reply = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [
            {"type": "thinking", "thinking": "...", "signature": "s"},
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "toolu_1", "name": "tickets_search", "input": {"status": "open"}},
            {"type": "tool_use", "id": "toolu_2", "name": "tickets_get", "input": {"ticket_id": "T-1"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 900, "output_tokens": 40}
    });
    let turn = Provider::Anthropic.read(&reply, 1).unwrap();
    assert_eq!(turn.stop, Stop::ToolCalls);
    assert_eq!(turn.text, "Looking.");
    assert_eq!(turn.calls.len(), 2);
    assert_eq!(turn.calls[1].arguments, json!({"ticket_id": "T-1"}));
    assert_eq!(turn.usage.input, Some(900));
    // The assistant's content goes back whole, thinking block and all.
    assert_eq!(turn.echo[0]["content"], reply["content"]);
    let back = Provider::Anthropic.answers(&[
        answer("toolu_1", "tickets_search", false),
        answer("toolu_2", "tickets_get", true),
    ]);
    assert_eq!(back.len(), 1, "one user message carries every result");
    assert_eq!(back[0]["role"], "user");
    assert_eq!(back[0]["content"][0]["tool_use_id"], "toolu_1");
    assert!(back[0]["content"][0].get("is_error").is_none());
    assert_eq!(back[0]["content"][1]["is_error"], true);
    assert_eq!(back[0]["content"][1]["content"][0]["type"], "text");

    let paused = json!({"content": [], "stop_reason": "pause_turn", "usage": {"input_tokens": 1, "output_tokens": 1}});
    assert_eq!(
        Provider::Anthropic.read(&paused, 2).unwrap().stop,
        Stop::Paused
    );
    let cut = json!({"content": [{"type": "text", "text": "Half"}], "stop_reason": "max_tokens", "usage": {}});
    let cut = Provider::Anthropic.read(&cut, 2).unwrap();
    assert_eq!((cut.stop, cut.usage.input), (Stop::Cut, None));
    assert!(
        Provider::Anthropic
            .read(&json!({"type": "error"}), 1)
            .is_err()
    );
}

#[test]
fn responses_reads_function_calls_and_answers_by_call_id() {
    let reply = json!({
        "id": "resp_1", "object": "response", "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "tickets_search", "arguments": "{\"query\":\"login\"}"}
        ],
        "usage": {"input_tokens": 700, "output_tokens": 20, "total_tokens": 720}
    });
    let turn = Provider::OpenAiResponses.read(&reply, 1).unwrap();
    assert_eq!(turn.stop, Stop::ToolCalls);
    assert_eq!(turn.calls[0].id, "call_a");
    assert_eq!(turn.calls[0].arguments, json!({"query": "login"}));
    assert_eq!(turn.echo.len(), 2, "every output item goes back");
    let back = Provider::OpenAiResponses.answers(&[answer("call_a", "tickets_search", false)]);
    assert_eq!(
        back[0],
        json!({"type": "function_call_output", "call_id": "call_a", "output": "{\"total\":15}"})
    );
    let flat = Provider::OpenAiResponses.tools(&Lists {
        openai: json!([{"type": "function", "function": {"name": "a", "description": "d", "parameters": {}, "strict": true}}]),
        ..Lists::default()
    });
    assert_eq!(
        flat,
        json!([{"type": "function", "name": "a", "description": "d", "parameters": {}, "strict": true}])
    );
}

#[test]
fn anthropic_counts_tool_searches_and_sends_their_results_back_as_they_came() {
    let reply = json!({
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {"query": "inventory"}},
            {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [{"type": "tool_reference", "tool_name": "petstore_inventory_get"}]}},
            {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": {"query": "pets"}},
            {"type": "tool_use", "id": "toolu_1", "name": "petstore_inventory_get", "input": {}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 900, "output_tokens": 40}
    });
    let turn = Provider::Anthropic.read(&reply, 1).unwrap();
    assert_eq!(turn.searches, 1, "a web search is not a tool search");
    assert_eq!(turn.calls.len(), 1);
    assert_eq!(turn.echo[0]["content"], reply["content"]);
    // Only the client's call is answered: a server tool's id never gets a tool_result.
    let back = Provider::Anthropic.answers(&[answer("toolu_1", "petstore_inventory_get", false)]);
    assert_eq!(back[0]["content"].as_array().map(Vec::len), Some(1));
}

#[test]
fn responses_counts_hosted_searches_and_keeps_a_calls_namespace() {
    let reply = json!({
        "status": "completed",
        "output": [
            {"type": "tool_search_call", "id": "tsc_1", "call_id": null, "execution": "server", "status": "completed", "arguments": {"query": "inventory"}},
            {"type": "tool_search_output", "id": "tso_1", "call_id": null, "execution": "server", "status": "completed", "tools": []},
            {"type": "function_call", "id": "fc_1", "call_id": "call_a", "namespace": "petstore_store", "name": "petstore_inventory_get", "arguments": "{}"}
        ]
    });
    let turn = Provider::OpenAiResponses.read(&reply, 1).unwrap();
    assert_eq!(turn.searches, 1);
    assert_eq!(turn.calls[0].name, "petstore_inventory_get");
    assert_eq!(turn.echo, reply["output"].as_array().cloned().unwrap());
    assert_eq!(turn.echo[2]["namespace"], "petstore_store");
}

#[test]
fn chat_takes_what_local_servers_send() {
    // Ollama's form: arguments as an object, no id, no type, no usage.
    let reply = json!({
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": "tickets_search", "arguments": {"status": "open"}}}]
        }}]
    });
    let turn = Provider::OpenAiChat.read(&reply, 3).unwrap();
    assert_eq!(turn.calls[0].arguments, json!({"status": "open"}));
    assert_eq!(turn.calls[0].id, "toolspec-call-3-0");
    assert_eq!(turn.usage.input, None, "absent usage is unknown, not zero");
    // Sent back in the documented form, with the id the tool message will carry.
    let echoed = &turn.echo[0]["tool_calls"][0];
    assert_eq!(echoed["id"], "toolspec-call-3-0");
    assert_eq!(echoed["type"], "function");
    assert_eq!(echoed["function"]["arguments"], "{\"status\":\"open\"}");
    let back =
        Provider::OpenAiChat.answers(&[answer("toolspec-call-3-0", "tickets_search", false)]);
    assert_eq!(back[0]["role"], "tool");
    assert_eq!(back[0]["tool_call_id"], "toolspec-call-3-0");
    // A string that is not JSON stays a string: the server refuses it and the model hears why.
    let bad = json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "x", "arguments": "{oops"}}]}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2}});
    let bad = Provider::OpenAiChat.read(&bad, 1).unwrap();
    assert_eq!(bad.calls[0].arguments, json!("{oops"));
    assert_eq!(
        bad.usage,
        crate::turn::Usage {
            input: Some(5),
            output: Some(2)
        }
    );
    let body = Provider::OpenAiChat.body("m", "sys", &json!([]), &Provider::OpenAiChat.start("hi"));
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "sys"})
    );
}

#[test]
fn gemini_keeps_thought_signatures_and_answers_errors_under_error() {
    let reply = json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "tickets_get", "args": {"ticket_id": "T-1"}}, "thoughtSignature": "sig"}
        ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 500, "candidatesTokenCount": 9}
    });
    let turn = Provider::Gemini.read(&reply, 1).unwrap();
    assert_eq!(turn.stop, Stop::ToolCalls);
    assert_eq!(turn.echo[0]["parts"][0]["thoughtSignature"], "sig");
    let back = Provider::Gemini.answers(&[ToolAnswer {
        is_error: true,
        ..answer(&turn.calls[0].id, "tickets_get", true)
    }]);
    let response = &back[0]["parts"][0]["functionResponse"];
    assert_eq!(response["name"], "tickets_get");
    assert!(
        response.get("id").is_none(),
        "a made-up id is not sent as the model's"
    );
    assert_eq!(response["response"]["error"]["total"], 15);
}

#[test]
fn endpoints_follow_the_sdks_base_urls() {
    assert_eq!(
        Provider::Anthropic.endpoint("https://api.anthropic.com/", "m"),
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(
        Provider::OpenAiChat.endpoint("http://localhost:11434/v1", "m"),
        "http://localhost:11434/v1/chat/completions"
    );
    assert_eq!(
        Provider::Gemini.endpoint(Provider::Gemini.default_base(), "gemini-3-pro"),
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro:generateContent"
    );
    assert!(Provider::OpenAiChat.needs_key(Provider::OpenAiChat.default_base()));
    assert!(!Provider::OpenAiChat.needs_key("http://localhost:11434/v1"));
    assert!(Provider::Anthropic.needs_key("http://127.0.0.1:9/"));
}
