//! Two reports side by side, task by task: which differences are larger than the repeats'
//! own spread, and which could be chance.

use crate::report::{Report, TaskReport, known};

/// A comparison of `current` with `baseline`, as lines for the terminal.
///
/// A task's pass rate is called changed only when the difference is more than twice its
/// standard error, estimated from both reports' runs (each rate taken as (passed + 1) /
/// (runs + 2), so that a task that always or never passed still has a spread). One run a
/// side is never enough to call a change: the words say so.
pub fn compare(current: &Report, baseline: &Report) -> String {
    let mut out = String::new();
    if current.model != baseline.model || current.provider != baseline.provider {
        out.push_str(&format!(
            "note: the baseline ran {} on {}, this run {} on {}\n",
            baseline.model, baseline.provider, current.model, current.provider
        ));
    }
    if current.list != baseline.list {
        out.push_str(&format!(
            "note: the baseline was sent the {} tool list, this run the {} one\n",
            baseline.list, current.list
        ));
    }
    let width = current
        .tasks
        .iter()
        .map(|t| t.id.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let (mut better, mut worse, mut unclear) = (0, 0, 0);
    for task in &current.tasks {
        let Some(before) = baseline.tasks.iter().find(|b| b.id == task.id) else {
            out.push_str(&format!(
                "{:<width$}  new task: {}/{} passed\n",
                task.id,
                task.passed,
                task.runs.len()
            ));
            continue;
        };
        let (now, then) = (rate(task), rate(before));
        let diff = now - then;
        if diff == 0.0 {
            continue;
        }
        let spread = 2.0 * (variance(task) + variance(before)).sqrt();
        let verdict = if diff.abs() > spread {
            if diff > 0.0 {
                better += 1;
                "better"
            } else {
                worse += 1;
                "worse"
            }
        } else {
            unclear += 1;
            "within the spread of the repeats"
        };
        out.push_str(&format!(
            "{:<width$}  {}/{} -> {}/{} passed: {verdict}\n",
            task.id,
            before.passed,
            before.runs.len(),
            task.passed,
            task.runs.len()
        ));
    }
    for gone in baseline
        .tasks
        .iter()
        .filter(|b| !current.tasks.iter().any(|t| t.id == b.id))
    {
        out.push_str(&format!("{:<width$}  not in this run\n", gone.id));
    }
    let (s, b) = (&current.summary, &baseline.summary);
    out.push_str(&format!(
        "{better} tasks better, {worse} worse, {unclear} changed within the repeats' spread\n"
    ));
    out.push_str(&format!(
        "runs passed {}/{} -> {}/{}; tool calls {} -> {}; invalid calls {} -> {}; misroutes {} -> {}; tool searches {} -> {}; tool list up front {} -> {} tokens; tokens in {} -> {}\n",
        b.passed, b.runs, s.passed, s.runs, b.tool_calls, s.tool_calls, b.invalid_calls,
        s.invalid_calls, b.misroutes, s.misroutes, b.searches, s.searches, baseline.list_tokens,
        current.list_tokens, known(b.input_tokens), known(s.input_tokens)
    ));
    out
}

/// A task's pass rate, (passed + 1) / (runs + 2).
fn rate(task: &TaskReport) -> f64 {
    (f64::from(task.passed) + 1.0) / (task.runs.len() as f64 + 2.0)
}

/// The variance of [`rate`]'s estimate.
fn variance(task: &TaskReport) -> f64 {
    let p = rate(task);
    p * (1.0 - p) / (task.runs.len().max(1) as f64)
}
