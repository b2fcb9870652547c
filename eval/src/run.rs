//! One run: a task's prompt to the model, its calls to the server, until the model is done,
//! the turn cap is reached or something stops the run; then the state read back.

use std::time::Duration;

use serde_json::Value;

use crate::client::ProviderClient;
use crate::host::{Host, Server};
use crate::transcript::{Event, TaskRecord, Writer};
use crate::turn::{Call, Stop};
use crate::wire::Provider;

/// How long one tool call may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// The most calls of one model turn that are made; the ones after are answered with an
/// error that says they were not made (`too_many_calls`), since a provider's answer is not
/// trusted to be small.
pub const MAX_CALLS_PER_TURN: usize = 64;

/// The answer to a call past [`MAX_CALLS_PER_TURN`]: an error, truthfully not made.
fn not_made(call: &Call) -> crate::turn::ToolAnswer {
    let text = format!(
        "not made: a turn may make at most {MAX_CALLS_PER_TURN} calls; make the ones still needed in the next turn"
    );
    crate::turn::ToolAnswer {
        call_id: call.id.clone(),
        name: call.name.clone(),
        text: text.clone(),
        structured: Some(serde_json::json!({"code": "too_many_calls", "message": text})),
        is_error: true,
    }
}

/// What every run of an evaluation shares.
pub struct Setting<'a> {
    /// The provider's wire.
    pub provider: Provider,
    /// The model asked for.
    pub model: &'a str,
    /// The system prompt.
    pub system: &'a str,
    /// The tool list, in the provider's form.
    pub tools: &'a Value,
    /// The provider's endpoint.
    pub client: &'a ProviderClient,
    /// The server under evaluation.
    pub server: &'a Server,
}

/// Runs `task` once, writing every event to `transcript` (whose `start` is written). Never
/// fails: whatever stops the run is its `end` event's `failure`.
pub async fn run(
    setting: &Setting<'_>,
    task: &TaskRecord,
    log: &std::path::Path,
    transcript: &mut Writer,
) -> std::io::Result<()> {
    let mut host = match Host::start(setting.server, task.approve, log).await {
        Ok(host) => host,
        Err(why) => {
            return transcript.push(Event::End {
                answer: String::new(),
                failure: Some(why),
            });
        }
    };
    let (answer, failure) = converse(setting, task, &mut host, transcript).await?;
    // The state is read whatever happened: a write may have landed before the run stopped.
    if !host.stopped() {
        for (index, check) in task.state.iter().enumerate() {
            let call = Call {
                id: format!("state-{index}"),
                name: check.call.tool.clone(),
                arguments: Value::Object(check.call.arguments.clone()),
            };
            let (answer, _) = host.call(&call, CALL_TIMEOUT).await;
            transcript.push(Event::State { index, answer })?;
        }
    }
    host.stop().await;
    transcript.push(Event::End { answer, failure })
}

/// The conversation: the model's last text, and why it stopped early if it did.
async fn converse(
    setting: &Setting<'_>,
    task: &TaskRecord,
    host: &mut Host,
    transcript: &mut Writer,
) -> std::io::Result<(String, Option<String>)> {
    let provider = setting.provider;
    let mut conversation = provider.start(&task.prompt);
    let mut last_text = String::new();
    for turn in 1..=task.max_turns {
        let body = provider.body(setting.model, setting.system, setting.tools, &conversation);
        transcript.push(Event::Request {
            turn,
            body: body.clone(),
        })?;
        let answer = match setting.client.send(turn, &body, transcript).await {
            Ok((answer, _)) => answer,
            Err(why) => return Ok((last_text, Some(why))),
        };
        let model_turn = match provider.read(&answer, turn) {
            Ok(t) => t,
            Err(why) => {
                return Ok((
                    last_text,
                    Some(format!("the provider's answer cannot be read: {why}")),
                ));
            }
        };
        transcript.push(Event::Model {
            turn,
            text: model_turn.text.clone(),
            calls: model_turn.calls.clone(),
            searches: model_turn.searches,
            usage: model_turn.usage,
            stop: model_turn.stop_word.clone(),
        })?;
        if !model_turn.text.is_empty() {
            last_text = model_turn.text.clone();
        }
        conversation.extend(model_turn.echo);
        match model_turn.stop {
            Stop::Done => return Ok((last_text, None)),
            Stop::Cut => {
                return Ok((
                    last_text,
                    Some(format!(
                        "the model's turn ended with `{}`",
                        model_turn.stop_word
                    )),
                ));
            }
            Stop::Paused => continue,
            Stop::ToolCalls => {}
        }
        // Every call is answered, in the order the model wrote them.
        let mut answers = Vec::with_capacity(model_turn.calls.len());
        for (index, call) in model_turn.calls.iter().enumerate() {
            let (answer, ms) = if index < MAX_CALLS_PER_TURN {
                host.call(call, CALL_TIMEOUT).await
            } else {
                (not_made(call), 0)
            };
            for (message, said) in host.take_approvals() {
                transcript.push(Event::Approval {
                    message,
                    answer: said,
                })?;
            }
            transcript.push(Event::Tool {
                turn,
                call: call.clone(),
                answer: answer.clone(),
                ms,
            })?;
            answers.push(answer);
        }
        conversation.extend(provider.answers(&answers));
        if host.stopped() {
            return Ok((
                last_text,
                Some("the server stopped during the run".to_string()),
            ));
        }
    }
    Ok((
        last_text,
        Some(format!(
            "the model was not done after {} turns (the task's cap)",
            task.max_turns
        )),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_past_the_cap_is_answered_as_not_made() {
        let call = Call {
            id: "c-65".into(),
            name: "tickets_get".into(),
            arguments: serde_json::json!({}),
        };
        let answer = not_made(&call);
        assert!(answer.is_error);
        assert_eq!(answer.call_id, "c-65");
        assert_eq!(answer.code(), Some("too_many_calls"));
        assert!(answer.text.starts_with("not made"), "{}", answer.text);
    }
}
