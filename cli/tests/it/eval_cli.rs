//! `toolspec eval`: the tasks of a tasks file and of the specs, and what a run would send,
//! through the real binary; a tasks file's mistakes with their places.
//!
//! Run: `cargo test -p toolspec-cli --test it eval_cli::`.

use std::process::Command;

use crate::common;
use common::{example_specs, load_clean, root};

fn eval(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .current_dir(root())
        .arg("eval")
        .args(example_specs())
        .args(args)
        .output()
        .expect("run toolspec");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_dry_run_lists_every_task_and_what_a_run_would_send() {
    let (code, out, err) = eval(&[
        "--tasks",
        "specs/eval/tickets.yaml",
        "--dry-run",
        "--repeat",
        "3",
        "--model",
        "m-1",
    ]);
    assert_eq!(code, 0, "{err}");
    let model = load_clean(&example_specs());
    let derived = toolspec::internals::eval::derived_tasks(&model);
    let written = 5;
    let total = written + derived.len();
    assert!(
        out.starts_with(&format!("{total} tasks: {written} written, ")),
        "{out}"
    );
    // Each task is listed once, by its id; a routing task names the tool it must call.
    for task in &derived {
        assert_eq!(
            out.matches(&format!("  {} ", task.id)).count(),
            1,
            "{}",
            task.id
        );
    }
    assert!(
        out.contains("find tickets about the login loop -> tickets_search"),
        "{out}"
    );
    // The cost is the provider's own list, on every turn of every run.
    let tokens: usize = model
        .toolsets
        .iter()
        .map(|ts| toolspec::internals::stats::lists_cost(ts).anthropic_tokens)
        .sum();
    let tools: usize = model.toolsets.iter().map(|ts| ts.tools.len()).sum();
    assert!(
        out.contains(&format!(
            "a run would send: anthropic provider, model m-1, {tools} tools in a list of {tokens} tokens (o200k_base) on every turn"
        )),
        "{out}"
    );
    let runs = total * 3;
    let turns = runs * toolspec::internals::eval::DEFAULT_MAX_TURNS as usize;
    assert!(
        out.ends_with(&format!(
            "{runs} runs ({total} tasks x 3 repeats), at most {turns} model turns: at most {} tokens of tool list\n",
            turns * tokens
        )),
        "{out}"
    );
}

#[test]
fn a_run_needs_a_server_and_a_model_and_sends_nothing_without_them() {
    let (code, out, err) = eval(&[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("a run needs `--server CMD|URL` and `--model NAME`"),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
    // An unknown service is named with the ones there are.
    let (code, _, err) = eval(&["--service", "ticket", "--dry-run"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no spec has the service `ticket` (the specs given have "),
        "{err}"
    );
}

#[test]
fn a_tasks_file_with_mistakes_is_refused_with_each_place() {
    let dir = std::env::temp_dir().join(format!("toolspec-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let file = dir.join("bad.yaml");
    std::fs::write(
        &file,
        "eval: 1\ntasks:\n  - id: x\n    prompt: Close T-1.\n    tiers: [read_only]\n    expect:\n      calls: [{ tool: tickets_update_status }]\n      state:\n        - call: { tool: tickets_serch }\n          equals: 1\n",
    )
    .expect("written");
    let (code, out, err) = eval(&["--tasks", file.to_str().expect("utf-8"), "--dry-run"]);
    assert_eq!(code, 1, "{out}");
    let shown = file.display().to_string();
    assert!(
        err.contains(&format!("error[call-outside-tiers]: task `x` expects a call of `tickets_update_status`, a reversible tool, but allows only read_only\n --> {shown}:7:23")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "error[unknown-tool]: no tool `tickets_serch` in the specs given\n --> {shown}:9:25"
        )),
        "{err}"
    );
    assert!(err.contains("did you mean `tickets_search`?"), "{err}");
    assert!(
        out.is_empty(),
        "nothing is listed when the file has errors: {out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_tasks_schema_is_printed_for_editors() {
    let o = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .arg("tasks-schema")
        .output()
        .expect("run toolspec");
    assert!(o.status.success());
    let schema: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(schema["title"], "toolspec eval tasks, format version 1");
    assert_eq!(&schema, toolspec::internals::eval::tasks_schema());
    // The checked-in copy editors point at (`# yaml-language-server: $schema=...`).
    let path = root().join("toolspec-eval.schema.json");
    let printed = String::from_utf8_lossy(&o.stdout).into_owned();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &printed).expect("written");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == printed,
        "toolspec-eval.schema.json is stale: UPDATE_GOLDEN=1 cargo test -p toolspec-cli --test it eval_cli::"
    );
}

#[test]
fn check_reports_a_tasks_file_beside_the_specs() {
    let run = |files: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_toolspec"))
            .current_dir(root())
            .arg("check")
            .args(files)
            .output()
            .expect("run toolspec");
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&[
        "specs/tickets.yaml",
        "specs/orders.yaml",
        "specs/eval/tickets.yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("ok: 2 specs, ") && out.contains(" tools, 5 eval tasks in 1 file\n"),
        "{out}"
    );
    let dir = std::env::temp_dir().join(format!("toolspec-check-tasks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "eval: 1\ntasks:\n  - id: x\n    prompt: hi\n    expect:\n      calls: [{ tool: tickets_serch }]\n").expect("written");
    let bad_path = bad.to_str().expect("utf-8");
    let (code, _, err) = run(&["specs/tickets.yaml", "specs/orders.yaml", bad_path]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(
            "error[unknown-tool]: no tool `tickets_serch` in the specs given\n --> {bad_path}:6:23"
        )),
        "{err}"
    );
    let (code, _, err) = run(&[bad_path]);
    assert_eq!(code, 2);
    assert!(err.contains("no spec given"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
