//! OpenAI Responses: `function_call` output items; a `function_call_output` input item for
//! each, by `call_id`. Nothing is stored at OpenAI (`store: false`): the whole conversation
//! goes with every turn, so a run never depends on state the harness cannot see.

use serde_json::{Value, json};

use super::{answer_text, arguments, count};
use crate::turn::{Call, ModelTurn, Stop, ToolAnswer, Usage};

/// The Chat Completions list's functions in the Responses form: `{type, name, description,
/// parameters, strict}` at the top level instead of under `function`.
pub(super) fn flatten(chat: &Value) -> Value {
    let tools = chat.as_array().map(Vec::as_slice).unwrap_or_default();
    Value::Array(
        tools
            .iter()
            .map(|t| {
                let mut flat = serde_json::Map::new();
                flat.insert("type".into(), json!("function"));
                if let Some(function) = t.get("function").and_then(Value::as_object) {
                    for (k, v) in function {
                        flat.insert(k.clone(), v.clone());
                    }
                }
                Value::Object(flat)
            })
            .collect(),
    )
}

pub(super) fn start(prompt: &str) -> Vec<Value> {
    vec![json!({"role": "user", "content": prompt})]
}

pub(super) fn body(model: &str, system: &str, tools: &Value, conversation: &[Value]) -> Value {
    json!({
        "model": model,
        "instructions": system,
        "input": conversation,
        "tools": tools,
        "store": false,
    })
}

pub(super) fn read(answer: &Value, turn: u32) -> Result<ModelTurn, String> {
    let output = answer
        .get("output")
        .and_then(Value::as_array)
        .ok_or("the answer has no `output` array")?;
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut searches = 0;
    let mut echo = Vec::with_capacity(output.len());
    for item in output {
        let mut item = item.clone();
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    if part.get("type").and_then(Value::as_str) == Some("output_text") {
                        text.push_str(part.get("text").and_then(Value::as_str).unwrap_or(""));
                    }
                }
            }
            Some("function_call") => {
                let name = item
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or("a `function_call` item has no `name`")?
                    .to_string();
                let id = match item.get("call_id").and_then(Value::as_str) {
                    Some(id) => id.to_string(),
                    None => {
                        let made = super::made_up_id(turn, calls.len());
                        item["call_id"] = json!(made);
                        made
                    }
                };
                calls.push(Call {
                    id,
                    name,
                    arguments: arguments(item.get("arguments")),
                });
            }
            // OpenAI's hosted tool search; its `tool_search_output` (the functions it
            // loaded) follows, and both go back as they came. A namespaced `function_call`
            // keeps its `namespace` the same way.
            Some("tool_search_call") => searches += 1,
            _ => {}
        }
        echo.push(item);
    }
    let status = answer
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("completed");
    let stop = if !calls.is_empty() {
        Stop::ToolCalls
    } else if status == "completed" {
        Stop::Done
    } else {
        Stop::Cut
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
        stop_word: status.to_string(),
        echo,
    })
}

pub(super) fn answers(answers: &[ToolAnswer]) -> Vec<Value> {
    answers
        .iter()
        .map(|a| {
            json!({
                "type": "function_call_output",
                "call_id": a.call_id,
                "output": answer_text(a),
            })
        })
        .collect()
}
