//! `toolspec eval`: the tasks an evaluation gives a model, and what a run of them would send.
//!
//! The tasks come from `--tasks FILE` (checked like a spec: every mistake with its place)
//! and from the specs themselves (routing, misroute and recovery tasks; see
//! `toolspec::eval`). `--dry-run` prints them with the cost of the run before any is made:
//! runs, model turns at most, and the tokens of the tool list sent on every turn.

use super::Outcome;
use std::path::{Path, PathBuf};
use toolspec::eval::{EvalTask, Origin};

/// The provider wire a run speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Provider {
    /// Anthropic Messages (`tool_use` / `tool_result`).
    Anthropic,
    /// OpenAI Responses (`function_call` / `function_call_output`).
    OpenaiResponses,
    /// OpenAI Chat Completions (`tool_calls`), also OpenAI-compatible local servers.
    OpenaiChat,
    /// Gemini function declarations.
    Gemini,
}

impl Provider {
    fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenaiResponses => "openai-responses",
            Provider::OpenaiChat => "openai-chat",
            Provider::Gemini => "gemini",
        }
    }

    /// The tokens of this provider's tool list of the specs.
    fn list_tokens(self, cost: &toolspec::stats::ListCost) -> usize {
        match self {
            Provider::Anthropic => cost.anthropic_tokens,
            Provider::OpenaiResponses | Provider::OpenaiChat => cost.openai_tokens,
            Provider::Gemini => cost.gemini_tokens,
        }
    }
}

/// What `toolspec eval` was asked.
pub struct Request<'a> {
    pub specs: &'a [PathBuf],
    pub tasks: Option<&'a Path>,
    pub provider: Provider,
    pub model: &'a str,
    pub repeat: u32,
    pub dry_run: bool,
}

pub fn run(request: Request<'_>) -> Outcome {
    let Some(toolspec::Loaded {
        model,
        mut sources,
        diagnostics: mut diags,
    }) = super::load(request.specs)
    else {
        return Outcome::Usage;
    };
    let mut tasks: Vec<EvalTask> = Vec::new();
    let mut written = 0;
    if let Some(path) = request.tasks {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return Outcome::Usage;
            }
        };
        let file = sources.add(path.display().to_string(), text.clone());
        if let Some(read) = toolspec::eval::load_tasks(file, &text, &model, &mut diags) {
            written = read.len();
            tasks.extend(read);
        }
    }
    if !diags.is_empty() {
        eprint!("{}", diags.render(&sources));
    }
    if diags.has_errors() {
        return Outcome::Failed;
    }
    let derived = toolspec::eval::derived_tasks(&model);
    // A written task with a derived task's id keeps its place; the derived one is dropped.
    let fresh: Vec<EvalTask> = derived
        .into_iter()
        .filter(|d| !tasks.iter().any(|t| t.id == d.id))
        .collect();
    tasks.extend(fresh);
    if !request.dry_run {
        eprintln!(
            "error: a run against a provider's API is not available in this version of toolspec; \
             `--dry-run` lists the tasks and what a run would send"
        );
        return Outcome::Usage;
    }
    print!("{}", plan(&request, &model, &tasks, written));
    Outcome::Clean
}

/// The dry run's report: the tasks, then what running them would cost.
fn plan(
    request: &Request<'_>,
    model: &toolspec::model::Model,
    tasks: &[EvalTask],
    written: usize,
) -> String {
    let count = |o: Origin| tasks.iter().filter(|t| t.origin == o).count();
    let tools: usize = model.toolsets.iter().map(|ts| ts.tools.len()).sum();
    let list_tokens: usize = model
        .toolsets
        .iter()
        .map(|ts| {
            request
                .provider
                .list_tokens(&toolspec::stats::lists_cost(ts))
        })
        .sum();
    let runs = tasks.len() as u64 * u64::from(request.repeat);
    let turns: u64 =
        tasks.iter().map(|t| u64::from(t.max_turns)).sum::<u64>() * u64::from(request.repeat);
    let mut out = String::new();
    out.push_str(&format!(
        "{} task{}: {written} written, {} routing, {} misroute, {} recovery\n",
        tasks.len(),
        if tasks.len() == 1 { "" } else { "s" },
        count(Origin::Routing),
        count(Origin::Misroute),
        count(Origin::Recovery),
    ));
    let width = tasks.iter().map(|t| t.id.len()).max().unwrap_or(0);
    for t in tasks {
        let prompt: String = t.prompt.chars().take(72).collect();
        let more = if t.prompt.chars().count() > 72 {
            "..."
        } else {
            ""
        };
        let first = t
            .first_tool
            .as_deref()
            .map(|f| format!(" -> {f}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {:<width$}  {:<8}  {prompt}{more}{first}\n",
            t.id,
            t.origin.as_str()
        ));
    }
    out.push_str(&format!(
        "a run would send: {} provider, model {}, {tools} tools in a list of {list_tokens} tokens ({}) on every turn\n",
        request.provider.as_str(),
        request.model,
        toolspec::stats::ENCODING,
    ));
    out.push_str(&format!(
        "{runs} runs ({} tasks x {} repeats), at most {turns} model turns: at most {} tokens of tool list\n",
        tasks.len(),
        request.repeat,
        turns * list_tokens as u64,
    ));
    out
}
