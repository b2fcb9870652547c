//! The eval tasks file, as written: what `toolspec eval --tasks FILE` reads. Its JSON Schema
//! ([`super::tasks_schema`]) is derived from these structs, for editors and for the shape
//! check, as the spec format's is.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::spec::format::Tier;
use crate::spec::spanned::Sp;

/// A file of evaluation tasks: prompts a model is given with the toolset's tools, and what
/// a run must show to pass.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "toolspec eval tasks, format version 1")]
pub struct TasksFile {
    /// Format version of this file. Always `1` for now.
    pub eval: Sp<u32>,
    /// The tasks, each run on a fresh server and store.
    pub tasks: Sp<Vec<Task>>,
}

/// One task: a prompt, the limits of the run, and its verdicts.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// A short id, kebab-case (`count-open-login`), unique in the file: how reports and
    /// transcripts name the task.
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9-]*$"), length(max = 64))]
    pub id: Sp<String>,
    /// What the user asks, as the model receives it.
    #[schemars(length(min = 1))]
    pub prompt: Sp<String>,
    /// The tiers the task may use: a call of a tool of any other tier fails the run (a
    /// write in a task that should only read, say). All tiers when absent.
    #[serde(default)]
    pub tiers: Option<Sp<Vec<Tier>>>,
    /// The host's answer when the server asks the person to approve a change: `true`
    /// approves, `false` (the default) declines.
    #[serde(default)]
    pub approve: Option<Sp<bool>>,
    /// The most model turns the run may take before it fails (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub max_turns: Option<Sp<u32>>,
    /// What the run must show; a task without expectations only reports its figures.
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// The verdicts of a task, trusted in this order: the state after the run, the calls made,
/// the final answer.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Reads made after the run, through the toolset's read-only tools, and the value each
    /// must find.
    #[serde(default)]
    pub state: Vec<StateCheck>,
    /// Calls the run must make, in this order among its calls; each call's arguments must
    /// hold the ones given (a subset match; idempotency keys and cursors are never compared).
    #[serde(default)]
    pub calls: Vec<Call>,
    /// What the model's final answer must say.
    #[serde(default)]
    pub answer: Option<Sp<Answer>>,
}

/// A tool call, by the tool's name and (some of) its arguments.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The tool's name.
    pub tool: Sp<String>,
    /// Its arguments, or the part of them that must match.
    #[serde(default)]
    pub arguments: Option<Sp<serde_json::Map<String, Value>>>,
}

/// One read of the state after a run.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateCheck {
    /// The read: a call of a read-only tool.
    pub call: Call,
    /// A JSON Pointer into its result (`/total`, `/tickets/0/status`); the whole result when
    /// empty.
    #[serde(default)]
    pub at: Option<Sp<String>>,
    /// The value found there.
    pub equals: Value,
}

/// How the final answer is matched.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// Text the answer must contain, case-insensitively.
    #[serde(default)]
    pub contains: Option<String>,
    /// Text the answer must be, ignoring case and surrounding whitespace.
    #[serde(default)]
    pub equals: Option<String>,
}
