//! `toolspec eval`: does a model, reading the tool list toolspec wrote, pick the right tool and
//! call it right?
//!
//! The tasks come from `--tasks FILE` (checked like a spec: every mistake with its place)
//! and from the specs themselves (routing, misroute and recovery tasks; see
//! `toolspec::internals::eval`). `--dry-run` prints them with the cost of the run before any is made; a
//! run goes through `toolspec_eval`, and `--rescore DIR` scores its transcripts again.

use super::Outcome;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use toolspec::internals::eval::{EvalTask, Origin};
use toolspec_eval::{Provider, Report, ToolList};

/// The provider wire a run speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProviderArg {
    /// Anthropic Messages (`tool_use` / `tool_result`).
    Anthropic,
    /// OpenAI Responses (`function_call` / `function_call_output`).
    OpenaiResponses,
    /// OpenAI Chat Completions (`tool_calls`), also OpenAI-compatible local servers
    /// (Ollama, llama.cpp's server, vLLM).
    OpenaiChat,
    /// Gemini generateContent (`functionCall` / `functionResponse`).
    Gemini,
}

impl From<ProviderArg> for Provider {
    fn from(p: ProviderArg) -> Provider {
        match p {
            ProviderArg::Anthropic => Provider::Anthropic,
            ProviderArg::OpenaiResponses => Provider::OpenAiResponses,
            ProviderArg::OpenaiChat => Provider::OpenAiChat,
            ProviderArg::Gemini => Provider::Gemini,
        }
    }
}

/// Which tool lists a run sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListArg {
    /// The lists toolspec writes: groups not loaded up front wait for the provider's tool
    /// search (Anthropic, OpenAI Responses) or are left out (OpenAI Chat, Gemini).
    Deferred,
    /// Every tool loaded up front, as the lists would be without groups.
    Whole,
}

impl From<ListArg> for ToolList {
    fn from(l: ListArg) -> ToolList {
        match l {
            ListArg::Deferred => ToolList::Deferred,
            ListArg::Whole => ToolList::Whole,
        }
    }
}

/// `toolspec eval`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Spec files, resolved together: the tools the model is given.
    #[arg(required_unless_present = "rescore")]
    specs: Vec<PathBuf>,
    /// A tasks file (`eval: 1`), checked against the specs' tools; the tasks the specs
    /// imply are added to its own.
    #[arg(long)]
    tasks: Option<PathBuf>,
    /// The services whose tools the model is given and the server serves (repeatable;
    /// default: every spec's). Other specs only resolve the names these ones use.
    #[arg(long, value_name = "NAME")]
    service: Vec<String>,
    /// Only the tasks of `--tasks`: leave out those the specs imply.
    #[arg(long, requires = "tasks")]
    no_derived: bool,
    /// The server: a command started for each run over stdio (`{dir}` in it becomes a new
    /// empty directory each run), or a streamable HTTP URL.
    #[arg(long, value_name = "CMD|URL")]
    server: Option<String>,
    /// The provider whose wire a run speaks, and whose tool list it sends.
    #[arg(long, value_enum, default_value = "anthropic")]
    provider: ProviderArg,
    /// The lists the model is sent: run the same tasks with each and compare the reports
    /// (`--baseline`) to see what deferring groups costs or saves. For specs without groups
    /// both are the whole list.
    #[arg(long, value_enum, default_value = "deferred")]
    list: ListArg,
    /// The model a run asks (`claude-sonnet-4-5`, `gpt-5`, `qwen3:8b`...).
    #[arg(long)]
    model: Option<String>,
    /// The provider's base URL (default: `ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL` or
    /// `GEMINI_BASE_URL`, then the provider's own).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Runs of each task (pass^k is measured over them).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: u32,
    /// Where transcripts, server logs and `report.json` go: a new or empty directory
    /// (default: `toolspec-eval/<provider>-<time>`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// A `report.json` to compare with, task by task.
    #[arg(long, value_name = "REPORT")]
    baseline: Option<PathBuf>,
    /// Score the transcripts of an earlier run again, offline, and say whether the report
    /// is the same; with `--out`, write the new report there.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["tasks", "server", "dry_run"])]
    rescore: Option<PathBuf>,
    /// List the tasks and what a run would send, and send nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(args: Args) -> Outcome {
    if let Some(dir) = &args.rescore {
        return rescore(dir, args.out.as_deref(), args.baseline.as_deref());
    }
    let Some(toolspec::Loaded {
        mut model,
        mut sources,
        diagnostics: mut diags,
    }) = super::load(&args.specs)
    else {
        return Outcome::Usage;
    };
    if diags.has_errors() {
        eprint!("{}", diags.render(&sources));
        return Outcome::Failed;
    }
    for name in &args.service {
        if !model.toolsets.iter().any(|ts| &ts.service.text == name) {
            let known: Vec<&str> = model
                .toolsets
                .iter()
                .map(|ts| ts.service.text.as_str())
                .collect();
            eprintln!(
                "error: no spec has the service `{name}` (the specs given have {})",
                known.join(", ")
            );
            return Outcome::Usage;
        }
    }
    if !args.service.is_empty() {
        model
            .toolsets
            .retain(|ts| args.service.contains(&ts.service.text));
    }
    let mut tasks: Vec<EvalTask> = Vec::new();
    let mut written = 0;
    if let Some(path) = &args.tasks {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return Outcome::Usage;
            }
        };
        let file = sources.add(path.display().to_string(), text.clone());
        if let Some(read) = toolspec::internals::eval::load_tasks(file, &text, &model, &mut diags) {
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
    let derived = if args.no_derived {
        Vec::new()
    } else {
        toolspec::internals::eval::derived_tasks(&model)
    };
    // A written task with a derived task's id keeps its place; the derived one is dropped.
    let fresh: Vec<EvalTask> = derived
        .into_iter()
        .filter(|d| !tasks.iter().any(|t| t.id == d.id))
        .collect();
    tasks.extend(fresh);
    let provider = Provider::from(args.provider);
    if args.dry_run {
        print!("{}", plan(&args, provider, &model, &tasks, written));
        return Outcome::Clean;
    }
    let (Some(server), Some(model_name)) = (&args.server, &args.model) else {
        eprintln!(
            "error: a run needs `--server CMD|URL` and `--model NAME`; `--dry-run` lists the tasks without them"
        );
        return Outcome::Usage;
    };
    let server = match toolspec_eval::Server::parse(server) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Outcome::Usage;
        }
    };
    let base = args
        .base_url
        .clone()
        .or_else(|| {
            std::env::var(provider.base_variable())
                .ok()
                .filter(|b| !b.is_empty())
        })
        .unwrap_or_else(|| provider.default_base().to_string());
    let key = std::env::var(provider.key_variable())
        .ok()
        .filter(|k| !k.trim().is_empty());
    if key.is_none() && provider.needs_key(&base) {
        eprintln!(
            "error: {} is not set; a run at {base} needs the provider's API key (it is sent in a header and never written anywhere)",
            provider.key_variable()
        );
        return Outcome::Usage;
    }
    let out = args.out.clone().unwrap_or_else(|| {
        let stamp: String = toolspec_eval::utc_now()
            .chars()
            .filter(|c| c.is_ascii_digit() || *c == 'T')
            .collect();
        PathBuf::from("toolspec-eval").join(format!("{}-{stamp}", provider.as_str()))
    });
    let baseline = match args.baseline.as_deref().map(read_report).transpose() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return Outcome::Usage;
        }
    };
    let terminal = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize, id: &str, repeat: u32, passed: bool| {
        let verdict = if passed { "passed" } else { "failed" };
        if terminal {
            let filled = done * 24 / total.max(1);
            eprint!(
                "\r[{}{}] {done}/{total} {id} #{repeat} {verdict}\x1b[K",
                "#".repeat(filled),
                "-".repeat(24 - filled)
            );
            if done == total {
                eprintln!();
            }
        } else {
            eprintln!("[{done}/{total}] {id} #{repeat} {verdict}");
        }
    };
    eprintln!(
        "evaluating {} tasks x {} on {} ({}), model {model_name}; transcripts in {}",
        tasks.len(),
        args.repeat,
        provider.as_str(),
        base,
        out.display()
    );
    let evaluation = toolspec_eval::Evaluation {
        spec: &model,
        tasks: &tasks,
        provider,
        list: args.list.into(),
        model: model_name.clone(),
        base,
        key,
        server,
        repeat: args.repeat,
        out: out.clone(),
        policy: toolspec_eval::RetryPolicy::default(),
        progress: &progress,
    };
    match toolspec_eval::evaluate(&evaluation) {
        Ok(report) => finish(&report, baseline.as_ref(), Some(&out.join("report.json"))),
        Err(e) => {
            eprintln!("error: {e}");
            Outcome::Usage
        }
    }
}

/// `--rescore DIR`: the report its transcripts give now, compared with the one it holds.
fn rescore(dir: &Path, out: Option<&Path>, baseline: Option<&Path>) -> Outcome {
    let report = match toolspec_eval::rescore(dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Outcome::Usage;
        }
    };
    let baseline = match baseline.map(read_report).transpose() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return Outcome::Usage;
        }
    };
    let recorded = dir.join("report.json");
    match std::fs::read_to_string(&recorded) {
        Ok(text) if text == report.to_json() => {
            eprintln!("re-scored: the same report as {}", recorded.display())
        }
        Ok(_) => eprintln!(
            "re-scored: the report differs from {} (scored by another toolspec version?)",
            recorded.display()
        ),
        Err(_) => eprintln!("re-scored: {} has no report to compare", dir.display()),
    }
    let written = match out {
        Some(out) => {
            let path = out.join("report.json");
            if let Err(e) =
                std::fs::create_dir_all(out).and_then(|()| std::fs::write(&path, report.to_json()))
            {
                eprintln!("error: cannot write {}: {e}", path.display());
                return Outcome::Usage;
            }
            Some(path)
        }
        None => None,
    };
    finish(&report, baseline.as_ref(), written.as_deref())
}

/// Prints the table (and the comparison); 0 when every run passed, 1 otherwise.
fn finish(report: &Report, baseline: Option<&Report>, written: Option<&Path>) -> Outcome {
    print!("{}", report.table());
    if let Some(path) = written {
        println!("report: {}", path.display());
    }
    if let Some(baseline) = baseline {
        println!("\ncompared with the baseline:");
        print!("{}", toolspec_eval::compare(report, baseline));
    }
    if report.summary.passed == report.summary.runs {
        Outcome::Clean
    } else {
        Outcome::Failed
    }
}

fn read_report(path: &Path) -> Result<Report, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a toolspec eval report: {e}", path.display()))
}

/// The dry run's report: the tasks, then what running them would cost.
fn plan(
    args: &Args,
    provider: Provider,
    model: &toolspec::model::Model,
    tasks: &[EvalTask],
    written: usize,
) -> String {
    let count = |o: Origin| tasks.iter().filter(|t| t.origin == o).count();
    let tools: usize = model.toolsets.iter().map(|ts| ts.tools.len()).sum();
    let list = ToolList::from(args.list);
    let list_tokens = toolspec_eval::list_tokens(model, provider, list);
    // Whether some tool waits for a search in the list sent (the whole list has none).
    let defers = list == ToolList::Deferred && model.toolsets.iter().any(|ts| ts.defers());
    let reach = if !defers {
        format!("{tools} tools in a list of {list_tokens} tokens")
    } else if matches!(provider, Provider::Anthropic | Provider::OpenAiResponses) {
        format!("{tools} tools in the deferred list, {list_tokens} tokens up front")
    } else {
        let up_front: usize = model
            .toolsets
            .iter()
            .map(|ts| ts.tools.iter().filter(|t| ts.up_front(t)).count())
            .sum();
        format!(
            "{up_front} of {tools} tools (the groups loaded up front: this provider cannot defer the others) in a list of {list_tokens} tokens"
        )
    };
    let runs = tasks.len() as u64 * u64::from(args.repeat);
    let turns: u64 =
        tasks.iter().map(|t| u64::from(t.max_turns)).sum::<u64>() * u64::from(args.repeat);
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
        "a run would send: {} provider, model {}, {reach} ({}) on every turn\n",
        provider.as_str(),
        args.model.as_deref().unwrap_or("(not given)"),
        toolspec::internals::stats::ENCODING,
    ));
    out.push_str(&format!(
        "{runs} runs ({} tasks x {} repeats), at most {turns} model turns: at most {} tokens of tool list\n",
        tasks.len(),
        args.repeat,
        turns * list_tokens,
    ));
    out
}
