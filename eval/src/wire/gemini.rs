//! Gemini `generateContent`: `functionCall` parts, whose `args` are an object; a
//! `functionResponse` part for each, errors under an `error` key. The model's content goes
//! back as it came, so thought signatures reach the model again.

use serde_json::{Value, json};

use super::count;
use crate::turn::{Call, ModelTurn, Stop, ToolAnswer, Usage};

pub(super) fn start(prompt: &str) -> Vec<Value> {
    vec![json!({"role": "user", "parts": [{"text": prompt}]})]
}

pub(super) fn body(system: &str, tools: &Value, conversation: &[Value]) -> Value {
    json!({
        "systemInstruction": {"parts": [{"text": system}]},
        "contents": conversation,
        "tools": tools,
    })
}

pub(super) fn read(answer: &Value, turn: u32) -> Result<ModelTurn, String> {
    let candidate = answer
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("the answer has no `candidates[0]`")?;
    let stop_word = candidate
        .get("finishReason")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let content = candidate.get("content").cloned().unwrap_or(json!({}));
    let parts = content
        .get("parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut text = String::new();
    let mut calls = Vec::new();
    for part in parts {
        if let Some(t) = part.get("text").and_then(Value::as_str)
            && part.get("thought") != Some(&json!(true))
        {
            text.push_str(t);
        }
        if let Some(call) = part.get("functionCall") {
            let name = call
                .get("name")
                .and_then(Value::as_str)
                .ok_or("a `functionCall` part has no `name`")?;
            calls.push(Call {
                id: call
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| super::made_up_id(turn, calls.len()), str::to_string),
                name: name.to_string(),
                arguments: call.get("args").cloned().unwrap_or(json!({})),
            });
        }
    }
    let stop = if !calls.is_empty() {
        Stop::ToolCalls
    } else if stop_word == "STOP" {
        Stop::Done
    } else {
        Stop::Cut
    };
    let usage = answer.get("usageMetadata");
    let mut echo = content;
    echo["role"] = json!("model");
    Ok(ModelTurn {
        text,
        calls,
        searches: 0,
        usage: Usage {
            input: count(usage, "promptTokenCount"),
            output: count(usage, "candidatesTokenCount"),
        },
        stop,
        stop_word,
        echo: vec![echo],
    })
}

pub(super) fn answers(answers: &[ToolAnswer]) -> Vec<Value> {
    let parts: Vec<Value> = answers
        .iter()
        .map(|a| {
            let result = a
                .structured
                .clone()
                .unwrap_or_else(|| json!({"text": a.text}));
            let response = if a.is_error {
                json!({"error": result})
            } else {
                json!({"result": result})
            };
            let mut part = json!({"functionResponse": {"name": a.name, "response": response}});
            // A made-up id was never the model's: Gemini matches by name then.
            if !super::is_made_up(&a.call_id) {
                part["functionResponse"]["id"] = json!(a.call_id);
            }
            part
        })
        .collect();
    vec![json!({"role": "user", "parts": parts})]
}
