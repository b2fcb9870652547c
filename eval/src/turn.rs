//! What one model turn holds, whatever the provider's wire: the words, the tool calls, the
//! tokens; and what goes back to the model for each call.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The id the answer must carry back (made up by the harness when the wire gave none).
    pub id: String,
    /// The tool's name, as the model wrote it.
    pub name: String,
    /// The arguments, as a JSON value (an object when the model wrote one).
    pub arguments: Value,
}

/// The tokens a provider reported for one turn. `None` is unknown (a local server that sends
/// no usage), never zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens the model read.
    pub input: Option<u64>,
    /// Tokens the model wrote.
    pub output: Option<u64>,
}

/// Why a model turn ended, in the provider's own word where it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The model asked for tool calls.
    ToolCalls,
    /// The model finished its answer.
    Done,
    /// The provider paused a long turn (Anthropic's `pause_turn`): send it back to go on.
    Paused,
    /// The turn was cut off or refused (`max_tokens`, `refusal`, `SAFETY`...): the run ends.
    Cut,
}

/// A model turn read from a provider's answer.
#[derive(Debug, Clone)]
pub struct ModelTurn {
    /// The text the model wrote this turn, joined.
    pub text: String,
    /// The tool calls, in the order the model wrote them.
    pub calls: Vec<Call>,
    /// Tool searches the provider ran for the model this turn (Anthropic's tool search
    /// tool, OpenAI's hosted `tool_search`), each loading deferred tools.
    pub searches: u32,
    /// The tokens, as reported.
    pub usage: Usage,
    /// Why the turn ended.
    pub stop: Stop,
    /// The provider's word for it (`end_turn`, `tool_calls`, `STOP`...), for the transcript.
    pub stop_word: String,
    /// What is sent back to the provider as the model's part of the conversation: the
    /// assistant message, or the output items, with any ids the harness made up.
    pub echo: Vec<Value>,
}

/// What the server answered for one call, as the model is told.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolAnswer {
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The text content the server sent (joined), or the harness's words when there was no
    /// answer (an unknown tool, a server that stopped).
    pub text: String,
    /// The structured content, when the server sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// Whether the call failed (`isError`, or no answer at all).
    pub is_error: bool,
}

impl ToolAnswer {
    /// The error code of a failed call: the server's `code`, or the harness's word for a
    /// call that got no result (`unknown_tool`, `no_answer`).
    pub fn code(&self) -> Option<&str> {
        if !self.is_error {
            return None;
        }
        self.structured
            .as_ref()
            .and_then(|s| s.get("code"))
            .and_then(Value::as_str)
            .or(Some("tool_error"))
    }
}
