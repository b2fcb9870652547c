//! Does a model, reading the tool list toolspec wrote, pick the right tool and call it right?
//! This crate runs the tasks of an evaluation against a provider's API and a server over MCP,
//! and scores what the model did: the harness behind `toolspec eval`.
//!
//! A run, for each task and repeat:
//!
//! 1. the model gets the task's prompt and the provider list toolspec generates for the
//!    specs (`tools.anthropic.json`, `tools.openai-responses.json`, `tools.openai.json`,
//!    `tools.gemini.json`: what a user ships, its deferred groups waiting for the provider's
//!    tool search), or the whole list, every tool loaded ([`ToolList`]), on that provider's
//!    own wire ([`Provider`]);
//! 2. each tool call it makes goes to the server over MCP ([`Server`]): a fresh process with
//!    a fresh throwaway store per run over stdio, or a streamable HTTP endpoint; the harness
//!    is the host, and answers the server's approval requests as the task says;
//! 3. every call's answer goes back to the model, until it is done or the task's turn cap;
//! 4. the state is read through the spec's read tools, and the run is scored from its
//!    transcript alone ([`score`]), so recorded runs score again offline ([`rescore`]).
//!
//! Everything is written to the output directory: `transcripts/<task>.<repeat>.jsonl` (every
//! request and answer, keys cut out), `logs/` (each server's standard error) and
//! `report.json` ([`Report`]).

pub mod client;
pub mod host;
pub mod report;
pub mod run;
pub mod score;
pub mod transcript;
pub mod turn;
pub mod wire;

mod compare;
mod lists;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toolspec::internals::eval::EvalTask;
use toolspec::model::Model;

pub use client::RetryPolicy;
pub use compare::compare;
pub use host::Server;
pub use lists::{ToolList, list_tokens, lists};
pub use report::Report;
pub use wire::{Lists, Provider};

use transcript::{CallRecord, Event, Redactor, StateRecord, TaskRecord, Writer};

/// The system prompt every run gives the model: short, and no hint about the tools, so that
/// what is measured is what the tool list says.
pub const SYSTEM: &str = "You are an assistant with tools. Use them to do what the user asks, \
then answer in a sentence or two. Do not ask the user questions: they are not there.";

/// What an evaluation runs.
pub struct Evaluation<'a> {
    /// The specs' model: the tools, their tiers, their lists.
    pub spec: &'a Model,
    /// The tasks, in order.
    pub tasks: &'a [EvalTask],
    /// The provider's wire.
    pub provider: Provider,
    /// Which of its lists the model is sent.
    pub list: ToolList,
    /// The model to ask.
    pub model: String,
    /// The provider's base URL.
    pub base: String,
    /// The API key, if the endpoint takes one.
    pub key: Option<String>,
    /// The server under evaluation.
    pub server: Server,
    /// Runs of each task.
    pub repeat: u32,
    /// Where transcripts, logs and `report.json` go (new, or empty).
    pub out: PathBuf,
    /// Retries of the provider.
    pub policy: RetryPolicy,
    /// Called after each run with (runs done, runs in all, task id, repeat, passed).
    pub progress: &'a dyn Fn(usize, usize, &str, u32, bool),
}

/// A task as transcripts record it.
pub fn task_record(task: &EvalTask) -> TaskRecord {
    let call = |c: &toolspec::internals::eval::format::Call| CallRecord {
        tool: c.tool.value.clone(),
        arguments: c
            .arguments
            .as_ref()
            .map(|a| a.value.clone())
            .unwrap_or_default(),
    };
    let expect = task.expect.as_ref();
    let answer = expect.and_then(|e| e.answer.as_ref());
    TaskRecord {
        id: task.id.clone(),
        origin: task.origin.as_str().to_string(),
        prompt: task.prompt.clone(),
        tiers: task.tiers.iter().map(|t| t.as_str().to_string()).collect(),
        approve: task.approve,
        max_turns: task.max_turns,
        first_tool: task.first_tool.clone(),
        recovers: task.recovers.clone(),
        state: expect
            .map(|e| {
                e.state
                    .iter()
                    .map(|s| StateRecord {
                        call: call(&s.call),
                        at: s.at.as_ref().map(|a| a.value.clone()).unwrap_or_default(),
                        equals: s.equals.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        calls: expect
            .map(|e| e.calls.iter().map(call).collect())
            .unwrap_or_default(),
        answer_contains: answer.and_then(|a| a.contains.clone()),
        answer_equals: answer.and_then(|a| a.equals.clone()),
    }
}

/// Runs the evaluation: every task `repeat` times, one run after another. A run that fails
/// (the provider refuses, the server dies) is reported with its reason and the others go
/// on; only what keeps every run from starting is an error (an output directory that
/// cannot be written, a server that does not start or does not serve the specs' tools).
pub fn evaluate(e: &Evaluation<'_>) -> Result<Report, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start the async runtime: {err}"))?;
    runtime.block_on(evaluate_async(e))
}

async fn evaluate_async(e: &Evaluation<'_>) -> Result<Report, String> {
    prepare_out(&e.out)?;
    let tiers: BTreeMap<String, String> = e
        .spec
        .toolsets
        .iter()
        .flat_map(|ts| &ts.tools)
        .map(|t| (t.name.text.clone(), t.tier.as_str().to_string()))
        .collect();
    preflight(&e.server, &tiers, &e.out.join("logs").join("preflight.log")).await?;
    let client =
        client::ProviderClient::new(e.provider, &e.base, &e.model, e.key.as_deref(), e.policy)?;
    let tools = e.provider.tools(&lists(e.spec, e.list));
    let setting = run::Setting {
        provider: e.provider,
        model: &e.model,
        system: SYSTEM,
        tools: &tools,
        client: &client,
        server: &e.server,
    };
    let redactor = Redactor::new(e.key.clone());
    let list_tokens = list_tokens(e.spec, e.provider, e.list);
    let total = e.tasks.len() * e.repeat as usize;
    let mut scored = Vec::with_capacity(total);
    let mut first_start = None;
    for (index, task) in e.tasks.iter().enumerate() {
        let record = task_record(task);
        for repeat in 1..=e.repeat {
            let name = format!("{}.{repeat}", task.id);
            let path = e.out.join("transcripts").join(format!("{name}.jsonl"));
            let mut writer = Writer::create(&path, redactor.clone())
                .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
            let start = Event::Start {
                index,
                repeat,
                task: record.clone(),
                toolspec: env!("CARGO_PKG_VERSION").to_string(),
                provider: e.provider.as_str().to_string(),
                wire: e.provider.wire().to_string(),
                model: e.model.clone(),
                date: utc_now(),
                system: SYSTEM.to_string(),
                list: e.list.as_str().to_string(),
                list_tokens,
                tiers: tiers.clone(),
            };
            let io = |err: std::io::Error| format!("cannot write {}: {err}", path.display());
            writer.push(start).map_err(io)?;
            if first_start.is_none() {
                first_start = writer.events().first().cloned();
            }
            let log = e.out.join("logs").join(format!("{name}.server.log"));
            run::run(&setting, &record, &log, &mut writer)
                .await
                .map_err(io)?;
            let relative = format!("transcripts/{name}.jsonl");
            let run = score::score(&writer.finish(), relative)?;
            (e.progress)(scored.len() + 1, total, &task.id, repeat, run.2.passed);
            scored.push(run);
        }
    }
    let Some(start) = first_start else {
        return Err("there are no tasks to run".into());
    };
    let report = report::build(&start, scored);
    let path = e.out.join("report.json");
    std::fs::write(&path, report.to_json())
        .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    Ok(report)
}

/// Makes `out` with its `transcripts/` and `logs/`; refuses a directory that holds anything,
/// so no evaluation overwrites another's transcripts.
fn prepare_out(out: &Path) -> Result<(), String> {
    if out.exists() {
        let mut entries = std::fs::read_dir(out)
            .map_err(|err| format!("cannot read {}: {err}", out.display()))?;
        if entries.next().is_some() {
            return Err(format!(
                "{} is not empty; give `--out` a new directory (an evaluation never overwrites another's transcripts)",
                out.display()
            ));
        }
    }
    for dir in [out.join("transcripts"), out.join("logs")] {
        std::fs::create_dir_all(&dir)
            .map_err(|err| format!("cannot make {}: {err}", dir.display()))?;
    }
    Ok(())
}

/// Starts the server once before any model is asked: it must start and serve every tool of
/// the specs, or nothing is spent.
async fn preflight(
    server: &Server,
    tiers: &BTreeMap<String, String>,
    log: &Path,
) -> Result<(), String> {
    let host = host::Host::start(server, false, log).await?;
    let listed = host.tool_names().await;
    host.stop().await;
    let listed = listed?;
    let missing: Vec<&str> = tiers
        .keys()
        .filter(|name| !listed.contains(name))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the server does not list {} of the specs' tools ({}); is it the server of these specs?",
            missing.len(),
            missing.join(", ")
        ));
    }
    Ok(())
}

/// Scores the transcripts in `dir/transcripts` again, offline: the report they give.
pub fn rescore(dir: &Path) -> Result<Report, String> {
    let transcripts = dir.join("transcripts");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&transcripts)
        .map_err(|err| format!("cannot read {}: {err}", transcripts.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    paths.sort();
    let mut scored = Vec::with_capacity(paths.len());
    let mut first: Option<(usize, u32, Event)> = None;
    for path in paths {
        let events = transcript::read(&path)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let run = score::score(&events, format!("transcripts/{name}"))?;
        let key = (run.0, run.2.repeat);
        if first.as_ref().is_none_or(|(i, r, _)| key < (*i, *r)) {
            first = Some((key.0, key.1, events[0].clone()));
        }
        scored.push(run);
    }
    let Some((_, _, start)) = first else {
        return Err(format!("{} holds no transcripts", transcripts.display()));
    };
    Ok(report::build(&start, scored))
}

/// The time now, UTC, as RFC 3339 to the second.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-to-civil, for dates from 1970.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}
