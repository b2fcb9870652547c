//! OpenAI Chat Completions: `tool_calls` on the assistant message; a `tool` message for each.
//! Also what OpenAI-compatible local servers speak, with their differences: arguments that
//! arrive as an object, calls without an id, no usage at all.

use serde_json::{Value, json};

use super::{answer_text, arguments, count};
use crate::turn::{Call, ModelTurn, Stop, ToolAnswer, Usage};

/// The system message is the first of the conversation on this wire; it is written into each
/// request rather than kept in the conversation, as the other wires' `system` fields are.
pub(super) fn start(prompt: &str) -> Vec<Value> {
    vec![json!({"role": "user", "content": prompt})]
}

pub(super) fn body(model: &str, system: &str, tools: &Value, conversation: &[Value]) -> Value {
    let mut messages = Vec::with_capacity(conversation.len() + 1);
    messages.push(json!({"role": "system", "content": system}));
    messages.extend(conversation.iter().cloned());
    json!({
        "model": model,
        "messages": messages,
        "tools": tools,
    })
}

pub(super) fn read(answer: &Value, turn: u32) -> Result<ModelTurn, String> {
    let choice = answer
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("the answer has no `choices[0]`")?;
    let message = choice
        .get("message")
        .and_then(Value::as_object)
        .ok_or("`choices[0]` has no `message`")?;
    let mut echo = message.clone();
    echo.insert("role".into(), json!("assistant"));
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let mut calls = Vec::new();
    if let Some(raw) = message.get("tool_calls").and_then(Value::as_array) {
        let mut written = Vec::with_capacity(raw.len());
        for (i, call) in raw.iter().enumerate() {
            let function = call
                .get("function")
                .ok_or("a tool call has no `function`")?;
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .ok_or("a tool call's function has no `name`")?;
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
                .map_or_else(|| super::made_up_id(turn, i), str::to_string);
            let args = arguments(function.get("arguments"));
            // Sent back in the form the API documents (a string, an id, a type), whatever
            // form it came in, so a strict server takes the history.
            written.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": args.to_string()},
            }));
            calls.push(Call {
                id,
                name: name.to_string(),
                arguments: args,
            });
        }
        echo.insert("tool_calls".into(), Value::Array(written));
    }
    let stop_word = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let stop = if !calls.is_empty() {
        Stop::ToolCalls
    } else if matches!(stop_word.as_str(), "stop" | "" | "eos") {
        Stop::Done
    } else {
        Stop::Cut
    };
    let usage = answer.get("usage").filter(|u| u.is_object());
    Ok(ModelTurn {
        text,
        calls,
        searches: 0,
        usage: Usage {
            input: count(usage, "prompt_tokens"),
            output: count(usage, "completion_tokens"),
        },
        stop,
        stop_word,
        echo: vec![Value::Object(echo)],
    })
}

pub(super) fn answers(answers: &[ToolAnswer]) -> Vec<Value> {
    answers
        .iter()
        .map(|a| {
            json!({
                "role": "tool",
                "tool_call_id": a.call_id,
                "content": answer_text(a),
            })
        })
        .collect()
}
