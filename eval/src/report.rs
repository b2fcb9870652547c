//! The report of an evaluation: per run, per task and overall, as `report.json` and as a
//! table on the terminal. It is made from the transcripts alone, in a fixed order, so the
//! same transcripts give the same bytes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::score::RunScore;
use crate::transcript::{Event, TaskRecord};

/// The version of `report.json`'s shape.
pub const REPORT_VERSION: u32 = 1;

/// A whole evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The shape's version ([`REPORT_VERSION`]).
    pub report: u32,
    /// The toolspec version that made the runs.
    pub toolspec: String,
    /// The provider (`anthropic`, `openai-responses`, `openai-chat`, `gemini`).
    pub provider: String,
    /// Its wire, in words.
    pub wire: String,
    /// The model, as asked for.
    pub model: String,
    /// When the first run started (UTC).
    pub date: String,
    /// Runs of each task.
    pub repeats: u32,
    /// Which lists the model was sent: `deferred` (as toolspec writes them) or `whole`.
    #[serde(default = "crate::lists::unnamed")]
    pub list: String,
    /// Tokens of the tool list the model reads on every turn before any search.
    pub list_tokens: u64,
    /// The figures over every run.
    pub summary: Summary,
    /// Each task, in the evaluation's order.
    pub tasks: Vec<TaskReport>,
}

/// The figures over every run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Tasks.
    pub tasks: u32,
    /// Runs (tasks times repeats, less any that never started).
    pub runs: u32,
    /// Runs that passed.
    pub passed: u32,
    /// Tasks whose every run passed.
    pub tasks_passed: u32,
    /// pass^k for k = 1..=repeats (tau-bench's estimator: the chance that k runs of a task,
    /// drawn from its runs, all pass, averaged over tasks). `pass_hat[0]` is the pass rate.
    pub pass_hat: Vec<f64>,
    /// Tool calls.
    pub tool_calls: u32,
    /// Calls refused by validation, or naming no tool.
    pub invalid_calls: u32,
    /// Failed calls by error code.
    pub errors: BTreeMap<String, u32>,
    /// Failed calls followed by a valid call of the same tool.
    pub recoveries: u32,
    /// Runs whose first call was not the expected tool.
    pub misroutes: u32,
    /// Calls outside their task's tiers.
    pub outside_tiers: u32,
    /// Runs that stopped before the model was done (a provider error, a server that died,
    /// the turn cap).
    pub stopped_runs: u32,
    /// Model turns.
    pub turns: u32,
    /// Tool searches the provider ran, loading deferred tools.
    #[serde(default)]
    pub searches: u32,
    /// Attempts made again after the provider refused one.
    pub provider_retries: u32,
    /// Input tokens as the providers reported them; absent when some turn had none.
    pub input_tokens: Option<u64>,
    /// Output tokens, likewise.
    pub output_tokens: Option<u64>,
    /// Time waiting for the model.
    pub model_ms: u64,
    /// Time waiting for the tools.
    pub tool_ms: u64,
}

/// One task over its runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskReport {
    /// The task's id.
    pub id: String,
    /// `written`, `routing`, `misroute` or `recovery`.
    pub origin: String,
    /// What the model was asked.
    pub prompt: String,
    /// Runs that passed.
    pub passed: u32,
    /// pass^k at k = the number of runs.
    pub pass_hat_k: f64,
    /// Each run.
    pub runs: Vec<RunScore>,
}

/// Builds the report of scored runs: `(task index, task, score)` with the run settings of
/// the first transcript (`start`).
pub fn build(start: &Event, mut runs: Vec<(usize, TaskRecord, RunScore)>) -> Report {
    let (toolspec, provider, wire, model, date, list, list_tokens) = match start {
        Event::Start {
            toolspec,
            provider,
            wire,
            model,
            date,
            list,
            list_tokens,
            ..
        } => (
            toolspec.clone(),
            provider.clone(),
            wire.clone(),
            model.clone(),
            date.clone(),
            list.clone(),
            *list_tokens,
        ),
        _ => Default::default(),
    };
    runs.sort_by_key(|run| (run.0, run.2.repeat));
    let mut tasks: Vec<TaskReport> = Vec::new();
    for (_, task, run) in runs {
        match tasks.last_mut() {
            Some(last) if last.id == task.id => last.runs.push(run),
            _ => tasks.push(TaskReport {
                id: task.id,
                origin: task.origin,
                prompt: task.prompt,
                passed: 0,
                pass_hat_k: 0.0,
                runs: vec![run],
            }),
        }
    }
    let repeats = tasks.iter().map(|t| t.runs.len() as u32).max().unwrap_or(0);
    for t in &mut tasks {
        t.passed = t.runs.iter().filter(|r| r.passed).count() as u32;
        t.pass_hat_k = pass_hat(t.runs.len() as u32, t.passed, t.runs.len() as u32);
    }
    let all = || tasks.iter().flat_map(|t| &t.runs);
    let sum = |f: fn(&RunScore) -> u32| all().map(f).sum::<u32>();
    let tokens =
        |f: fn(&RunScore) -> Option<u64>| all().try_fold(0u64, |total, r| f(r).map(|n| total + n));
    let mut errors = BTreeMap::new();
    for r in all() {
        for (code, n) in &r.errors {
            *errors.entry(code.clone()).or_default() += n;
        }
    }
    let pass_hat_all = (1..=repeats)
        .map(|k| {
            let hats: Vec<f64> = tasks
                .iter()
                .filter(|t| t.runs.len() as u32 >= k)
                .map(|t| pass_hat(t.runs.len() as u32, t.passed, k))
                .collect();
            round(hats.iter().sum::<f64>() / hats.len().max(1) as f64)
        })
        .collect();
    let summary = Summary {
        tasks: tasks.len() as u32,
        runs: all().count() as u32,
        passed: sum(|r| u32::from(r.passed)),
        tasks_passed: tasks
            .iter()
            .filter(|t| t.passed as usize == t.runs.len())
            .count() as u32,
        pass_hat: pass_hat_all,
        tool_calls: sum(|r| r.tool_calls),
        invalid_calls: sum(|r| r.invalid_calls),
        errors,
        recoveries: sum(|r| r.recoveries),
        misroutes: sum(|r| u32::from(r.misroute == Some(true))),
        outside_tiers: sum(|r| r.outside_tiers),
        stopped_runs: sum(|r| u32::from(r.failure.is_some())),
        turns: sum(|r| r.turns),
        searches: sum(|r| r.searches),
        provider_retries: sum(|r| r.provider_retries),
        input_tokens: tokens(|r| r.input_tokens),
        output_tokens: tokens(|r| r.output_tokens),
        model_ms: all().map(|r| r.model_ms).sum(),
        tool_ms: all().map(|r| r.tool_ms).sum(),
    };
    Report {
        report: REPORT_VERSION,
        toolspec,
        provider,
        wire,
        model,
        date,
        repeats,
        list,
        list_tokens,
        summary,
        tasks,
    }
}

/// tau-bench's pass^k: of `n` runs with `c` passed, the chance that `k` drawn without
/// replacement all pass, C(c, k) / C(n, k).
pub fn pass_hat(n: u32, c: u32, k: u32) -> f64 {
    if k == 0 || k > n {
        return 0.0;
    }
    round(choose(c, k) / choose(n, k))
}

fn choose(n: u32, k: u32) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// Rounded to four places, so that reports compare and read well.
fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

impl Report {
    /// `report.json`'s text: pretty JSON and a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The table printed on the terminal.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let width = self
            .tasks
            .iter()
            .map(|t| t.id.chars().count())
            .max()
            .unwrap_or(4)
            .max(4);
        out.push_str(&format!(
            "{:<width$}  {:>6}  {:>6}  {:>5}  {:>7}  {:>9}  {:>5}  errors\n",
            "task", "passed", "pass^k", "calls", "invalid", "misroutes", "turns"
        ));
        for t in &self.tasks {
            let calls: u32 = t.runs.iter().map(|r| r.tool_calls).sum();
            let invalid: u32 = t.runs.iter().map(|r| r.invalid_calls).sum();
            let misroutes = t.runs.iter().filter(|r| r.misroute == Some(true)).count();
            let turns: u32 = t.runs.iter().map(|r| r.turns).sum();
            let mut errors: BTreeMap<&str, u32> = BTreeMap::new();
            for r in &t.runs {
                for (code, n) in &r.errors {
                    *errors.entry(code).or_default() += n;
                }
            }
            let errors: Vec<String> = errors.iter().map(|(c, n)| format!("{c} x{n}")).collect();
            out.push_str(&format!(
                "{:<width$}  {:>6}  {:>6.2}  {:>5}  {:>7}  {:>9}  {:>5}  {}\n",
                t.id,
                format!("{}/{}", t.passed, t.runs.len()),
                t.pass_hat_k,
                calls,
                invalid,
                if t.runs.iter().any(|r| r.misroute.is_some()) {
                    misroutes.to_string()
                } else {
                    "-".into()
                },
                turns,
                if errors.is_empty() {
                    "-".into()
                } else {
                    errors.join(", ")
                }
            ));
            for r in t.runs.iter().filter(|r| !r.passed) {
                for why in &r.why {
                    out.push_str(&format!("{:<width$}    run {}: {why}\n", "", r.repeat));
                }
            }
        }
        let s = &self.summary;
        let hats: Vec<String> = s
            .pass_hat
            .iter()
            .enumerate()
            .map(|(k, p)| format!("pass^{} {p:.2}", k + 1))
            .collect();
        out.push_str(&format!(
            "\n{} tasks, {} runs: {} passed ({}), {} tasks passed every run\n",
            s.tasks,
            s.runs,
            s.passed,
            hats.join(", "),
            s.tasks_passed
        ));
        out.push_str(&format!(
            "{} tool calls, {} invalid, {} recovered, {} misrouted, {} outside tiers, {} runs stopped\n",
            s.tool_calls, s.invalid_calls, s.recoveries, s.misroutes, s.outside_tiers, s.stopped_runs
        ));
        out.push_str(&format!(
            "{} model turns ({} retried, {} tool searches), tokens in {} / out {}, {} tool list {} tokens up front; {:.1} s in the model, {:.1} s in tools\n",
            s.turns,
            s.provider_retries,
            s.searches,
            known(s.input_tokens),
            known(s.output_tokens),
            self.list,
            self.list_tokens,
            s.model_ms as f64 / 1000.0,
            s.tool_ms as f64 / 1000.0,
        ));
        out.push_str(&format!(
            "{} ({}), model {}, {}\n",
            self.provider, self.wire, self.model, self.date
        ));
        out
    }
}

/// A token count, or `unknown` when some turn reported none (never zero).
pub(crate) fn known(tokens: Option<u64>) -> String {
    tokens.map_or_else(|| "unknown".to_string(), |n| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_hat_is_tau_benchs_estimator() {
        assert_eq!(pass_hat(4, 4, 4), 1.0);
        assert_eq!(pass_hat(4, 3, 1), 0.75);
        // C(3,2)/C(4,2) = 3/6.
        assert_eq!(pass_hat(4, 3, 2), 0.5);
        assert_eq!(pass_hat(4, 3, 4), 0.0);
        assert_eq!(pass_hat(8, 6, 3), round(20.0 / 56.0));
        assert_eq!(pass_hat(1, 0, 1), 0.0);
    }
}
