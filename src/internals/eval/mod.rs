//! The tasks an evaluation gives a model: read from a tasks file ([`load_tasks`]) or
//! derived from the specs themselves ([`derived_tasks`]), and checked against the specs' tools.
//!
//! An evaluation asks whether a model, reading the tool list toolspec generates, picks the
//! right tool and calls it right. Its tasks come from two places:
//!
//! - a **tasks file** (`eval: 1`), written by the team: prompts with the verdicts a run must
//!   show (the state read back through the toolset's read tools, the calls made, the final
//!   answer), the tiers the task may use and the host's answer to an approval request;
//! - the **spec**: each `requests:` entry is a routing task (its tool must be called
//!   first), each `not_for` entry a misroute task (the named alternative must be called
//!   first, not the tool), and each example with an `error:` a recovery task (after that
//!   error, the next call of the tool is valid).
//!
//! A tasks file is loaded as a spec is: every mistake at once, each with its file, line and
//! column and a fix; a tool it names must exist, a read of the state must be a read, and a
//! call it expects must be one its tiers allow.

pub mod format;

use std::sync::OnceLock;

use serde_json::Value;

use crate::diagnostics::{Diagnostic, Diagnostics, FileId, Span, did_you_mean};
use crate::model::{Model, Tier, Tool};
use crate::spec::spanned::Sp;
use format::TasksFile;

/// The most model turns a task takes by default.
pub const DEFAULT_MAX_TURNS: u32 = 10;

/// [`tasks_schema`] as `toolspec tasks-schema` prints it: pretty-printed JSON.
pub fn tasks_schema_text() -> String {
    serde_json::to_string_pretty(tasks_schema()).unwrap_or_default()
}

/// The JSON Schema of the tasks file (2020-12), for editors and for the shape check.
pub fn tasks_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        crate::spec::top_first(generator.into_root_schema_for::<TasksFile>().to_value())
    })
}

/// Where a task came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Written in a tasks file.
    Written,
    /// A `requests:` entry of a tool: that tool must be called first.
    Routing,
    /// A `not_for` entry: its named alternative must be called first, not the tool.
    Misroute,
    /// An example with an `error:`: after that error, the next call of the tool is valid.
    Recovery,
}

impl Origin {
    /// The word reports use (`written`, `routing`, `misroute`, `recovery`).
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Written => "written",
            Origin::Routing => "routing",
            Origin::Misroute => "misroute",
            Origin::Recovery => "recovery",
        }
    }
}

/// One task of an evaluation, whatever its origin.
#[derive(Debug, Clone)]
pub struct EvalTask {
    /// Its id, unique in the evaluation.
    pub id: String,
    /// Where it came from.
    pub origin: Origin,
    /// What the model is asked.
    pub prompt: String,
    /// The tiers it may use; empty: all.
    pub tiers: Vec<Tier>,
    /// The host's answer to an approval request.
    pub approve: bool,
    /// The most model turns.
    pub max_turns: u32,
    /// The tool that must be called first, for a routing or misroute task.
    pub first_tool: Option<String>,
    /// For a recovery task: the tool whose error must be followed by a valid call.
    pub recovers: Option<String>,
    /// The written verdicts, for a task of a tasks file.
    pub expect: Option<format::Expect>,
}

/// Loads a tasks file's `text` (`file` in `out`'s sources) and checks it against `model`'s
/// tools: every problem goes into `out`; the tasks when there are none.
pub fn load_tasks(
    file: FileId,
    text: &str,
    model: &Model,
    out: &mut Diagnostics,
) -> Option<Vec<EvalTask>> {
    let empty = crate::spec::Empty {
        code: "empty-tasks",
        message: "the tasks file is empty",
        help: "start with `eval: 1`, then `tasks:`, each with an `id` and a `prompt`",
    };
    let parsed: TasksFile =
        crate::spec::load_document(file, text, tasks_schema(), empty, out, |_, _| {})?;
    let before = out.error_count();
    let at = |pos| Span { file, pos };
    if *parsed.eval != 1 {
        out.push(
            Diagnostic::error(
                "eval-version",
                at(parsed.eval.pos),
                format!("eval format version {} is not known", *parsed.eval),
            )
            .label("this version")
            .help("write `eval: 1`, the only version so far"),
        );
    }
    let mut seen: Vec<&Sp<String>> = Vec::new();
    for task in parsed.tasks.iter() {
        if let Some(first) = seen.iter().find(|s| s.value == task.id.value) {
            out.push(
                Diagnostic::error(
                    "duplicate-task",
                    at(task.id.pos),
                    format!("task id `{}` is used twice", *task.id),
                )
                .label("used again here")
                .note(format!("first used at line {}", first.pos.line))
                .help("give each task its own id: reports and transcripts are named by it"),
            );
        }
        seen.push(&task.id);
        check_task(task, model, file, out);
    }
    if out.error_count() > before {
        return None;
    }
    Some(
        parsed
            .tasks
            .value
            .into_iter()
            .map(|t| EvalTask {
                id: t.id.value,
                origin: Origin::Written,
                prompt: t.prompt.value,
                tiers: t.tiers.map(|t| t.value).unwrap_or_default(),
                approve: t.approve.is_some_and(|a| a.value),
                max_turns: t.max_turns.map_or(DEFAULT_MAX_TURNS, |m| m.value),
                first_tool: None,
                recovers: None,
                expect: t.expect,
            })
            .collect(),
    )
}

fn check_task(task: &format::Task, model: &Model, file: FileId, out: &mut Diagnostics) {
    let at = |pos| Span { file, pos };
    let Some(expect) = &task.expect else { return };
    let tiers = task.tiers.as_ref().map(|t| t.value.as_slice());
    for call in &expect.calls {
        let Some(tool) = known_tool(call, model, file, out) else {
            continue;
        };
        if let Some(tiers) = tiers.filter(|t| !t.contains(&tool.tier)) {
            out.push(
                Diagnostic::error(
                    "call-outside-tiers",
                    at(call.tool.pos),
                    format!(
                        "task `{}` expects a call of `{}`, {} {} tool, but allows only {}",
                        *task.id,
                        tool.name.text,
                        if tool.tier == Tier::Irreversible {
                            "an"
                        } else {
                            "a"
                        },
                        tool.tier.as_str(),
                        tiers
                            .iter()
                            .map(|t| t.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .label("this call would fail the task")
                .help("add its tier to `tiers`, or expect another tool"),
            );
        }
    }
    for check in &expect.state {
        if let Some(tool) = known_tool(&check.call, model, file, out)
            && tool.tier != Tier::ReadOnly
        {
            out.push(
                Diagnostic::error(
                    "state-not-read",
                    at(check.call.tool.pos),
                    format!(
                        "the state is read through read-only tools, and `{}` is {}",
                        tool.name.text,
                        tool.tier.as_str()
                    ),
                )
                .label("a read of the state must change nothing")
                .help("read the state with one of the toolset's read_only tools"),
            );
        }
        if let Some(pointer) = &check.at
            && !pointer.is_empty()
            && !pointer.starts_with('/')
        {
            out.push(
                Diagnostic::error(
                    "bad-pointer",
                    at(pointer.pos),
                    format!("`{}` is not a JSON Pointer", pointer.value),
                )
                .label("a pointer starts with `/`")
                .help(format!("write `/{}`", pointer.value.replace('.', "/"))),
            );
        }
    }
    if let Some(answer) = &expect.answer
        && answer.contains.is_none()
        && answer.equals.is_none()
    {
        out.push(
            Diagnostic::error(
                "empty-answer",
                at(answer.pos),
                "an answer check needs `contains` or `equals`",
            )
            .label("matches nothing")
            .help("write `answer: { contains: \"...\" }`, or leave `answer` out"),
        );
    }
}

/// The tool `call` names, with its arguments checked; a diagnostic when there is none.
fn known_tool<'m>(
    call: &format::Call,
    model: &'m Model,
    file: FileId,
    out: &mut Diagnostics,
) -> Option<&'m Tool> {
    let at = |pos| Span { file, pos };
    let Some((_, tool)) = model.tool(&call.tool) else {
        let names = model
            .toolsets
            .iter()
            .flat_map(|ts| ts.tools.iter().map(|t| t.name.text.as_str()));
        let mut d = Diagnostic::error(
            "unknown-tool",
            at(call.tool.pos),
            format!("no tool `{}` in the specs given", *call.tool),
        )
        .label("not a tool of these specs");
        d = match did_you_mean(&call.tool, names) {
            Some(name) => d.help(format!("did you mean `{name}`?")),
            None => d.help("name a tool of the specs given to `toolspec eval`"),
        };
        out.push(d);
        return None;
    };
    if let Some(arguments) = &call.arguments {
        let params = || tool.params.iter().map(|p| p.name.as_str());
        for key in arguments.keys() {
            if params().any(|p| p == key) {
                continue;
            }
            let mut d = Diagnostic::error(
                "unknown-argument",
                at(arguments.pos),
                format!("`{}` takes no argument `{key}`", tool.name.text),
            )
            .label("in these arguments");
            d = match did_you_mean(key, params()) {
                Some(name) => d.help(format!("did you mean `{name}`?")),
                None => d.help(format!(
                    "its parameters: {}",
                    params().collect::<Vec<_>>().join(", ")
                )),
            };
            out.push(d);
        }
    }
    Some(tool)
}

/// The tasks the specs imply: a routing task per `requests:` entry, a misroute task per
/// `not_for` entry whose alternative is among the specs, a recovery task per example with
/// an `error:`. Ids are `<tool>.route.<n>`, `<tool>.misroute.<n>` and `<tool>.recover.<n>`,
/// numbered from 1 in the spec's order, so they stay put while a spec grows at its end.
pub fn derived_tasks(model: &Model) -> Vec<EvalTask> {
    let mut out = Vec::new();
    let task = |id: String, origin, prompt: String| EvalTask {
        id,
        origin,
        prompt,
        tiers: Vec::new(),
        approve: false,
        max_turns: DEFAULT_MAX_TURNS,
        first_tool: None,
        recovers: None,
        expect: None,
    };
    for tool in model.toolsets.iter().flat_map(|ts| &ts.tools) {
        let name = &tool.name.text;
        for (n, request) in tool.requests.iter().enumerate() {
            let mut t = task(
                format!("{name}.route.{}", n + 1),
                Origin::Routing,
                request.text.clone(),
            );
            t.first_tool = Some(name.clone());
            out.push(t);
        }
        for (n, not_for) in tool.not_for.iter().enumerate() {
            // An alternative in a spec not given cannot be called: no task.
            if model.tool(&not_for.use_tool.text).is_none() {
                continue;
            }
            let mut t = task(
                format!("{name}.misroute.{}", n + 1),
                Origin::Misroute,
                not_for.when.text.clone(),
            );
            t.first_tool = Some(not_for.use_tool.text.clone());
            out.push(t);
        }
        let failing = tool.examples.iter().filter(|e| e.error.is_some());
        for (n, example) in failing.enumerate() {
            let arguments = serde_json::to_string(&example.arguments).unwrap_or_default();
            let mut t = task(
                format!("{name}.recover.{}", n + 1),
                Origin::Recovery,
                format!(
                    "Call {name} with these arguments: {arguments}. If the call fails, fix it as the error says and call again. ({})",
                    example.title.text
                ),
            );
            t.recovers = Some(name.clone());
            out.push(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"toolspec: 1
service: notes
title: Notes
description: A person's notes.
tools:
  - name: notes_search
    title: Search notes
    summary: Finds notes by words in their text.
    returns: The matching notes, newest first.
    tier: read_only
    requests: [find my notes about the trip]
    not_for:
      - when: deleting a note
        use: notes_delete
    params:
      query: { type: string, description: Words to look for., example: trip, min_length: 1 }
    output:
      count: { type: integer, description: How many notes match., example: 3 }
    examples:
      - title: An empty query is refused
        arguments: { query: "" }
        error: invalid_length
  - name: notes_delete
    title: Delete a note
    summary: Deletes one note for good.
    returns: The deleted note's id.
    tier: irreversible
    idempotency: {}
    params:
      id: { type: string, description: The note's id., example: n_1 }
    output:
      id: { type: string, description: The deleted note's id., example: n_1 }
    preview:
      fields:
        note: { type: string, description: The note that would be deleted., example: n_1 }
"#;

    fn model() -> Model {
        let loaded = crate::load_texts([("notes.yaml".to_string(), SPEC.to_string())]);
        assert!(
            !loaded.has_errors(),
            "{}",
            loaded.diagnostics.render(&loaded.sources)
        );
        loaded.model
    }

    fn load(text: &str) -> (Option<Vec<EvalTask>>, String) {
        let model = model();
        let mut sources = crate::diagnostics::Sources::default();
        let file = sources.add("notes.eval.yaml", text);
        let mut out = Diagnostics::default();
        let tasks = load_tasks(file, text, &model, &mut out);
        (tasks, out.render(&sources))
    }

    #[test]
    fn a_tasks_file_reads_into_tasks() {
        let (tasks, said) = load(
            "eval: 1\ntasks:\n  - id: trip\n    prompt: How many notes mention the trip?\n    tiers: [read_only]\n    expect:\n      calls: [{ tool: notes_search, arguments: { query: trip } }]\n      answer: { contains: \"3\" }\n",
        );
        let tasks = tasks.unwrap_or_else(|| panic!("{said}"));
        assert_eq!(tasks.len(), 1);
        assert_eq!(tasks[0].tiers, vec![Tier::ReadOnly]);
        assert_eq!(tasks[0].max_turns, DEFAULT_MAX_TURNS);
        assert!(!tasks[0].approve);
    }

    #[test]
    fn every_mistake_of_a_tasks_file_is_said_at_its_place() {
        let text = "eval: 1\ntasks:\n  - id: a\n    prompt: Delete note n_1.\n    tiers: [read_only]\n    expect:\n      calls: [{ tool: notes_delete }]\n      state:\n        - call: { tool: notes_serch, arguments: { query: x } }\n          at: total\n          equals: 0\n  - id: a\n    prompt: again\n    expect:\n      calls: [{ tool: notes_search, arguments: { qurey: x } }]\n      answer: {}\n";
        let (tasks, said) = load(text);
        assert!(tasks.is_none());
        for expected in [
            "error[call-outside-tiers]: task `a` expects a call of `notes_delete`, an irreversible tool, but allows only read_only\n --> notes.eval.yaml:7:23",
            "error[unknown-tool]: no tool `notes_serch` in the specs given\n --> notes.eval.yaml:9:25",
            "help: did you mean `notes_search`?",
            "error[bad-pointer]: `total` is not a JSON Pointer\n  --> notes.eval.yaml:10:15",
            "error[duplicate-task]: task id `a` is used twice\n  --> notes.eval.yaml:12:9",
            "error[unknown-argument]: `notes_search` takes no argument `qurey`",
            "help: did you mean `query`?",
            "error[empty-answer]",
        ] {
            assert!(said.contains(expected), "missing {expected:?} in:\n{said}");
        }
        // A shape mistake is found by the schema, with the key's place.
        let (_, said) = load("eval: 1\ntasks:\n  - id: a\n    promt: hi\n");
        assert!(said.contains("notes.eval.yaml:4:5"), "{said}");
        assert!(said.contains("`prompt`"), "{said}");
        let (_, said) = load("");
        assert!(said.contains("error[empty-tasks]"), "{said}");
        let (_, said) = load("eval: 2\ntasks: []\n");
        assert!(said.contains("error[eval-version]"), "{said}");
    }

    #[test]
    fn tasks_are_derived_from_requests_not_for_and_error_examples() {
        let tasks = derived_tasks(&model());
        let ids: Vec<(&str, Origin, Option<&str>)> = tasks
            .iter()
            .map(|t| (t.id.as_str(), t.origin, t.first_tool.as_deref()))
            .collect();
        assert_eq!(
            ids,
            vec![
                (
                    "notes_search.route.1",
                    Origin::Routing,
                    Some("notes_search")
                ),
                (
                    "notes_search.misroute.1",
                    Origin::Misroute,
                    Some("notes_delete")
                ),
                ("notes_search.recover.1", Origin::Recovery, None),
            ]
        );
        assert_eq!(tasks[1].prompt, "deleting a note");
        assert!(
            tasks[2].prompt.contains(r#"{"query":""}"#),
            "{}",
            tasks[2].prompt
        );
        assert_eq!(tasks[2].recovers.as_deref(), Some("notes_search"));
    }
}
