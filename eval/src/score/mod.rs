//! Scoring a run from its transcript alone, so a recorded run scores the same offline.
//!
//! The verdicts are trusted in the order the field has learned to: the state read after the
//! run, then the calls made (a subset match on arguments; idempotency keys and cursors are
//! never compared), then the final answer. A call outside the task's tiers fails the run
//! whatever else it did; so does a run that stopped before the model was done.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::transcript::{CallRecord, Event, TaskRecord};
use crate::turn::ToolAnswer;

/// Arguments never compared: they are fresh on every run by design.
const UNCOMPARED: &[&str] = &["idempotency_key", "cursor", "preview_id"];

/// The figures and the verdict of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunScore {
    /// The repeat, from 1.
    pub repeat: u32,
    /// Whether the run passed every check.
    pub passed: bool,
    /// Why it did not, one reason a line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<String>,
    /// Why the run stopped before the model was done, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Tool calls made.
    pub tool_calls: u32,
    /// Calls refused by validation (or naming no tool).
    pub invalid_calls: u32,
    /// Failed calls by error code.
    pub errors: BTreeMap<String, u32>,
    /// Failed calls followed by a valid call of the same tool.
    pub recoveries: u32,
    /// Whether the first tool called was not the expected one; absent when the task expects
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misroute: Option<bool>,
    /// Calls of a tool outside the task's tiers.
    pub outside_tiers: u32,
    /// Approvals the server asked for.
    pub approvals: u32,
    /// Model turns.
    pub turns: u32,
    /// Tool searches the provider ran for the model, loading deferred tools.
    #[serde(default, skip_serializing_if = "crate::transcript::is_zero")]
    pub searches: u32,
    /// Attempts the provider refused and the harness made again.
    pub provider_retries: u32,
    /// Input tokens as the provider reported them; absent when some turn had no usage.
    pub input_tokens: Option<u64>,
    /// Output tokens, likewise.
    pub output_tokens: Option<u64>,
    /// Time waiting for the model.
    pub model_ms: u64,
    /// Time waiting for the tools.
    pub tool_ms: u64,
    /// The transcript, relative to the report.
    pub transcript: String,
}

/// Scores the run `events` record (a whole transcript); `transcript` names it in the report.
pub fn score(
    events: &[Event],
    transcript: String,
) -> Result<(usize, TaskRecord, RunScore), String> {
    let Some(Event::Start {
        index,
        repeat,
        task,
        tiers,
        ..
    }) = events.first()
    else {
        return Err(format!(
            "{transcript}: a transcript starts with its `start` event"
        ));
    };
    let mut s = RunScore {
        repeat: *repeat,
        passed: false,
        why: Vec::new(),
        failure: None,
        tool_calls: 0,
        invalid_calls: 0,
        errors: BTreeMap::new(),
        recoveries: 0,
        misroute: None,
        outside_tiers: 0,
        approvals: 0,
        turns: 0,
        searches: 0,
        provider_retries: 0,
        input_tokens: Some(0),
        output_tokens: Some(0),
        model_ms: 0,
        tool_ms: 0,
        transcript: transcript.clone(),
    };
    let mut calls: Vec<(&str, &Value, &ToolAnswer)> = Vec::new();
    let mut state: BTreeMap<usize, &ToolAnswer> = BTreeMap::new();
    let mut final_answer: Option<&str> = None;
    for event in events {
        match event {
            Event::Response {
                ms, retry_in_ms, ..
            } => {
                s.model_ms += ms;
                if retry_in_ms.is_some() {
                    s.provider_retries += 1;
                }
            }
            Event::Model {
                usage, searches, ..
            } => {
                s.turns += 1;
                s.searches += searches;
                s.input_tokens = s.input_tokens.zip(usage.input).map(|(a, b)| a + b);
                s.output_tokens = s.output_tokens.zip(usage.output).map(|(a, b)| a + b);
            }
            Event::Approval { .. } => s.approvals += 1,
            Event::Tool {
                call, answer, ms, ..
            } => {
                s.tool_ms += ms;
                calls.push((call.name.as_str(), &call.arguments, answer));
            }
            Event::State { index, answer } => {
                state.insert(*index, answer);
            }
            Event::End { answer, failure } => {
                final_answer = Some(answer);
                s.failure = failure.clone();
            }
            Event::Start { .. } | Event::Request { .. } => {}
        }
    }
    if final_answer.is_none() && s.failure.is_none() {
        s.failure = Some("the transcript ends before the run did".into());
    }
    if s.turns == 0 {
        s.input_tokens = None;
        s.output_tokens = None;
    }

    // Calls: counts, errors, recoveries, tiers.
    s.tool_calls = calls.len() as u32;
    for (i, (name, _, answer)) in calls.iter().enumerate() {
        if let Some(code) = answer.code() {
            *s.errors.entry(code.to_string()).or_default() += 1;
            if invalid(code) {
                s.invalid_calls += 1;
            }
            let next = calls[i + 1..].iter().find(|(n, _, _)| n == name);
            if next.is_some_and(|(_, _, a)| !a.is_error) {
                s.recoveries += 1;
            }
        }
        let tier = tiers.get(*name);
        if !task.tiers.is_empty()
            && let Some(tier) = tier
            && !task.tiers.contains(tier)
        {
            s.outside_tiers += 1;
            s.why.push(format!(
                "called {name}, a {tier} tool, in a task that allows only {}",
                task.tiers.join(", ")
            ));
        }
    }
    let first = calls.first().map(|(name, _, _)| *name);
    let expected_first = task
        .first_tool
        .as_deref()
        .or(task.calls.first().map(|c| c.tool.as_str()));
    if let Some(expected) = expected_first {
        let wrong = first != Some(expected);
        s.misroute = Some(wrong);
        // A written task may well read before it writes: its calls are judged in order
        // below. Only a routing or misroute task is about the first call.
        if wrong && task.first_tool.is_some() {
            s.why.push(match first {
                Some(first) => format!("called {first} first, not {expected}"),
                None => format!("called no tool; {expected} was expected first"),
            });
        }
    }

    // State, then calls, then the answer.
    for (i, check) in task.state.iter().enumerate() {
        let found = state.get(&i).map(|a| found_at(a, &check.at));
        match found {
            None => s.why.push(format!(
                "the state was not read ({} {})",
                check.call.tool,
                Value::Object(check.call.arguments.clone())
            )),
            Some(Err(why)) => s.why.push(format!("state {}: {why}", check.call.tool)),
            Some(Ok(value)) if !same(&value, &check.equals) => s.why.push(format!(
                "state {}{}: found {}, expected {}",
                check.call.tool,
                check.at,
                crate::client::cut(&value.to_string(), 120),
                check.equals
            )),
            Some(Ok(_)) => {}
        }
    }
    let mut from = 0;
    for expected in &task.calls {
        match calls[from..]
            .iter()
            .position(|(name, args, _)| matches_call(expected, name, args))
        {
            Some(at) => from += at + 1,
            None => {
                s.why.push(format!(
                    "no call of {} with {} (in order)",
                    expected.tool,
                    Value::Object(expected.arguments.clone())
                ));
                break;
            }
        }
    }
    let said = final_answer.unwrap_or("");
    if let Some(contains) = &task.answer_contains
        && !said.to_lowercase().contains(&contains.to_lowercase())
    {
        s.why
            .push(format!("the answer does not contain {contains:?}"));
    }
    if let Some(equals) = &task.answer_equals
        && said.trim().to_lowercase() != equals.trim().to_lowercase()
    {
        s.why.push(format!("the answer is not {equals:?}"));
    }
    if let Some(tool) = &task.recovers {
        let of_tool: Vec<&ToolAnswer> = calls
            .iter()
            .filter(|(name, _, _)| name == tool)
            .map(|(_, _, a)| *a)
            .collect();
        match of_tool.last() {
            None => s.why.push(format!("{tool} was never called")),
            Some(last) if last.code().is_some_and(invalid) => s.why.push(format!(
                "the last call of {tool} was still refused ({})",
                last.code().unwrap_or_default()
            )),
            Some(_) => {}
        }
    }
    if let Some(failure) = &s.failure {
        s.why.insert(0, format!("the run stopped: {failure}"));
    }
    s.passed = s.why.is_empty();
    Ok((*index, task.clone(), s))
}

/// Whether `code` says the call itself was wrong: refused by validation, or naming no tool.
pub fn invalid(code: &str) -> bool {
    toolspec_runtime::catalog::is_validation(code) || code == "unknown_tool"
}

/// Whether a call of `name` with `args` is the `expected` one: the same tool, and every
/// expected argument (but keys and cursors) equal.
fn matches_call(expected: &CallRecord, name: &str, args: &Value) -> bool {
    name == expected.tool
        && expected.arguments.iter().all(|(k, v)| {
            UNCOMPARED.contains(&k.as_str()) || args.get(k).is_some_and(|a| same(a, v))
        })
}

/// Equality of JSON values, with numbers compared as numbers (`1` equals `1.0`) and text
/// case-sensitive.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The value at `pointer` in a state read's answer.
fn found_at(answer: &ToolAnswer, pointer: &str) -> Result<Value, String> {
    if answer.is_error {
        return Err(format!(
            "the read failed ({}): {}",
            answer.code().unwrap_or("tool_error"),
            crate::client::cut(&answer.text, 200)
        ));
    }
    let whole = match &answer.structured {
        Some(v) => v.clone(),
        None => serde_json::from_str(&answer.text).unwrap_or(Value::String(answer.text.clone())),
    };
    whole
        .pointer(pointer)
        .cloned()
        .ok_or_else(|| format!("the read's result has nothing at {pointer}"))
}

#[cfg(test)]
mod tests;
