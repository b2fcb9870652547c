//! Anthropic Messages: `tool_use` content blocks; a `tool_result` block for every one of them
//! in the next user message (a missing one is a 400).

use serde_json::{Value, json};

use super::{answer_text, count};
use crate::turn::{Call, ModelTurn, Stop, ToolAnswer, Usage};

/// The most tokens a turn may write.
const MAX_TOKENS: u64 = 4096;

pub(super) fn start(prompt: &str) -> Vec<Value> {
    vec![json!({"role": "user", "content": prompt})]
}

pub(super) fn body(model: &str, system: &str, tools: &Value, conversation: &[Value]) -> Value {
    json!({
        "model": model,
        "max_tokens": MAX_TOKENS,
        "system": system,
        "tools": tools,
        "messages": conversation,
    })
}

pub(super) fn read(answer: &Value) -> Result<ModelTurn, String> {
    let content = answer
        .get("content")
        .and_then(Value::as_array)
        .ok_or("the answer has no `content` array")?;
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut searches = 0;
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                text.push_str(block.get("text").and_then(Value::as_str).unwrap_or(""));
            }
            Some("tool_use") => {
                let id = block
                    .get("id")
                    .and_then(Value::as_str)
                    .ok_or("a `tool_use` block has no `id`")?;
                let name = block
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or("a `tool_use` block has no `name`")?;
                calls.push(Call {
                    id: id.to_string(),
                    name: name.to_string(),
                    arguments: block.get("input").cloned().unwrap_or(json!({})),
                });
            }
            // The tool search tool, run by the API: its results (`tool_reference` blocks)
            // load deferred tools, and go back as they came, like every other block.
            Some("server_tool_use")
                if block
                    .get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| n.starts_with("tool_search_tool_")) =>
            {
                searches += 1;
            }
            // Thinking and other server tool blocks go back as they came; nothing to read.
            _ => {}
        }
    }
    let stop_word = answer
        .get("stop_reason")
        .and_then(Value::as_str)
        .ok_or("the answer has no `stop_reason`")?
        .to_string();
    let stop = match stop_word.as_str() {
        "tool_use" => Stop::ToolCalls,
        "end_turn" | "stop_sequence" => Stop::Done,
        "pause_turn" => Stop::Paused,
        _ if !calls.is_empty() => Stop::ToolCalls,
        _ => Stop::Cut,
    };
    let usage = answer.get("usage");
    Ok(ModelTurn {
        text,
        calls,
        searches,
        usage: Usage {
            input: count(usage, "input_tokens"),
            output: count(usage, "output_tokens"),
        },
        stop,
        stop_word,
        echo: vec![json!({"role": "assistant", "content": content})],
    })
}

pub(super) fn answers(answers: &[ToolAnswer]) -> Vec<Value> {
    let blocks: Vec<Value> = answers
        .iter()
        .map(|a| {
            let mut block = json!({
                "type": "tool_result",
                "tool_use_id": a.call_id,
                "content": [{"type": "text", "text": answer_text(a)}],
            });
            if a.is_error {
                block["is_error"] = json!(true);
            }
            block
        })
        .collect();
    vec![json!({"role": "user", "content": blocks})]
}
