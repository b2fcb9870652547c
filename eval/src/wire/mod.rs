//! The providers' wires: how a conversation with tools is written to each provider's API and
//! how its answer is read back.
//!
//! Each wire keeps the conversation in the provider's own form (messages, input items,
//! contents), so what goes back to the model is exactly what it sent, thought signatures and
//! all. The harness only reads from an answer the text, the calls and the usage
//! ([`ModelTurn`]), and only writes the tool answers ([`ToolAnswer`]).

mod anthropic;
mod chat;
mod gemini;
mod responses;

use serde_json::Value;

use crate::turn::{ModelTurn, ToolAnswer};

/// A provider API, by its wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Anthropic Messages: `tool_use` blocks, `tool_result` blocks in the next user message.
    Anthropic,
    /// OpenAI Responses: `function_call` output items, `function_call_output` input items.
    OpenAiResponses,
    /// OpenAI Chat Completions: `tool_calls` and `tool` messages. Also OpenAI-compatible local
    /// servers (Ollama, llama.cpp's server, vLLM).
    OpenAiChat,
    /// Gemini `generateContent`: `functionCall` and `functionResponse` parts.
    Gemini,
}

impl Provider {
    /// Every provider, in the order reports list them.
    pub const ALL: [Provider; 4] = [
        Provider::Anthropic,
        Provider::OpenAiResponses,
        Provider::OpenAiChat,
        Provider::Gemini,
    ];

    /// The name the command line and reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAiResponses => "openai-responses",
            Provider::OpenAiChat => "openai-chat",
            Provider::Gemini => "gemini",
        }
    }

    /// The provider named `name` (as [`Provider::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// The wire's name in reports: the API and its endpoint.
    pub fn wire(self) -> &'static str {
        match self {
            Provider::Anthropic => "Anthropic Messages (POST /v1/messages)",
            Provider::OpenAiResponses => "OpenAI Responses (POST /responses)",
            Provider::OpenAiChat => "OpenAI Chat Completions (POST /chat/completions)",
            Provider::Gemini => "Gemini generateContent (POST /models/{model}:generateContent)",
        }
    }

    /// The environment variable that holds the API key.
    pub fn key_variable(self) -> &'static str {
        match self {
            Provider::Anthropic => "ANTHROPIC_API_KEY",
            Provider::OpenAiResponses | Provider::OpenAiChat => "OPENAI_API_KEY",
            Provider::Gemini => "GEMINI_API_KEY",
        }
    }

    /// The environment variable that moves the base URL.
    pub fn base_variable(self) -> &'static str {
        match self {
            Provider::Anthropic => "ANTHROPIC_BASE_URL",
            Provider::OpenAiResponses | Provider::OpenAiChat => "OPENAI_BASE_URL",
            Provider::Gemini => "GEMINI_BASE_URL",
        }
    }

    /// The provider's own base URL, as its SDKs write it (OpenAI's and Gemini's with their
    /// version, Anthropic's without).
    pub fn default_base(self) -> &'static str {
        match self {
            Provider::Anthropic => "https://api.anthropic.com",
            Provider::OpenAiResponses | Provider::OpenAiChat => "https://api.openai.com/v1",
            Provider::Gemini => "https://generativelanguage.googleapis.com/v1beta",
        }
    }

    /// Whether a run needs a key at `base`: always at the provider's own URL; an
    /// OpenAI-compatible local server (Ollama, llama.cpp) takes none.
    pub fn needs_key(self, base: &str) -> bool {
        self != Provider::OpenAiChat || base == self.default_base()
    }

    /// The URL a turn is posted to.
    pub fn endpoint(self, base: &str, model: &str) -> String {
        let base = base.trim_end_matches('/');
        match self {
            Provider::Anthropic => format!("{base}/v1/messages"),
            Provider::OpenAiResponses => format!("{base}/responses"),
            Provider::OpenAiChat => format!("{base}/chat/completions"),
            Provider::Gemini => format!("{base}/models/{model}:generateContent"),
        }
    }

    /// The headers that carry `key` (besides `content-type`).
    pub fn key_headers(self, key: &str) -> Vec<(&'static str, String)> {
        match self {
            Provider::Anthropic => vec![
                ("x-api-key", key.to_string()),
                ("anthropic-version", "2023-06-01".to_string()),
            ],
            Provider::OpenAiResponses | Provider::OpenAiChat => {
                vec![("authorization", format!("Bearer {key}"))]
            }
            Provider::Gemini => vec![("x-goog-api-key", key.to_string())],
        }
    }

    /// The tool list this provider is given, from the lists toolspec writes for the toolset
    /// (`tools.anthropic.json`, `tools.openai.json`, `tools.openai-responses.json`,
    /// `tools.gemini.json`): what a user ships. Without a Responses list (one built by
    /// hand), Responses takes the Chat list's functions flattened, as OpenAI's migration
    /// says.
    pub fn tools(self, lists: &Lists) -> Value {
        match self {
            Provider::Anthropic => lists.anthropic.clone(),
            Provider::OpenAiChat => lists.openai.clone(),
            Provider::OpenAiResponses => match lists.responses.as_array() {
                Some(list) if !list.is_empty() => lists.responses.clone(),
                _ => responses::flatten(&lists.openai),
            },
            Provider::Gemini => lists.gemini.clone(),
        }
    }

    /// The conversation's opening: the task's prompt as the first user message.
    pub fn start(self, prompt: &str) -> Vec<Value> {
        match self {
            Provider::Anthropic => anthropic::start(prompt),
            Provider::OpenAiResponses => responses::start(prompt),
            Provider::OpenAiChat => chat::start(prompt),
            Provider::Gemini => gemini::start(prompt),
        }
    }

    /// The body of one turn's request.
    pub fn body(self, model: &str, system: &str, tools: &Value, conversation: &[Value]) -> Value {
        match self {
            Provider::Anthropic => anthropic::body(model, system, tools, conversation),
            Provider::OpenAiResponses => responses::body(model, system, tools, conversation),
            Provider::OpenAiChat => chat::body(model, system, tools, conversation),
            Provider::Gemini => gemini::body(system, tools, conversation),
        }
    }

    /// The model's turn in an answer; `turn` numbers the ids made up for calls that have none.
    pub fn read(self, answer: &Value, turn: u32) -> Result<ModelTurn, String> {
        match self {
            Provider::Anthropic => anthropic::read(answer),
            Provider::OpenAiResponses => responses::read(answer, turn),
            Provider::OpenAiChat => chat::read(answer, turn),
            Provider::Gemini => gemini::read(answer, turn),
        }
    }

    /// What goes back to the model after its calls: every call answered, in its order.
    pub fn answers(self, answers: &[ToolAnswer]) -> Vec<Value> {
        match self {
            Provider::Anthropic => anthropic::answers(answers),
            Provider::OpenAiResponses => responses::answers(answers),
            Provider::OpenAiChat => chat::answers(answers),
            Provider::Gemini => gemini::answers(answers),
        }
    }

    /// The provider's error message in an error answer's body, when it has one.
    pub fn error_message(body: &Value) -> Option<String> {
        let error = body.get("error").unwrap_or(body);
        error
            .get("message")
            .and_then(Value::as_str)
            .or_else(|| error.as_str())
            .map(str::to_string)
    }
}

/// The provider lists toolspec writes for the toolsets under evaluation, as JSON.
#[derive(Debug, Clone, Default)]
pub struct Lists {
    /// The Messages API `tools` array.
    pub anthropic: Value,
    /// The Chat Completions `tools` array.
    pub openai: Value,
    /// The Responses `tools` array (`Null` or empty: the Chat list flattened).
    pub responses: Value,
    /// The `generateContent` `tools` array.
    pub gemini: Value,
}

/// The text a tool answer gives the model: the server's text content, which toolspec servers
/// fill with the result's JSON (or the error's message and recovery).
fn answer_text(answer: &ToolAnswer) -> String {
    if answer.text.is_empty() {
        answer
            .structured
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default()
    } else {
        answer.text.clone()
    }
}

/// Arguments as a wire wrote them: a JSON string (OpenAI's form), or already an object (as
/// Ollama and some llama.cpp builds send them). A string that is not JSON is kept as a string,
/// so the server refuses it and the model hears why.
fn arguments(raw: Option<&Value>) -> Value {
    match raw {
        Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Default::default()),
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(Value::Null) | None => Value::Object(Default::default()),
        Some(v) => v.clone(),
    }
}

/// The id given to the `index`th call of turn `turn` when the wire gave it none (local servers
/// often do not): unique in the run, and marked so that it is never sent as the model's own.
fn made_up_id(turn: u32, index: usize) -> String {
    format!("{MADE_UP}{turn}-{index}")
}

/// Whether `id` was made up by [`made_up_id`].
fn is_made_up(id: &str) -> bool {
    id.starts_with(MADE_UP)
}

const MADE_UP: &str = "toolspec-call-";

/// A `u64` field of a usage object.
fn count(usage: Option<&Value>, field: &str) -> Option<u64> {
    usage?.get(field)?.as_u64()
}

#[cfg(test)]
mod tests;
