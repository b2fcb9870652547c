use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::transcript::{StateRecord, TaskRecord};
use crate::turn::{Call, Usage};

fn task() -> TaskRecord {
    TaskRecord {
        id: "count-open".into(),
        origin: "written".into(),
        prompt: "How many open tickets?".into(),
        tiers: vec!["read_only".into()],
        approve: false,
        max_turns: 10,
        first_tool: None,
        recovers: None,
        state: vec![],
        calls: vec![CallRecord {
            tool: "tickets_search".into(),
            arguments: json!({"status": "open", "cursor": "x"})
                .as_object()
                .cloned()
                .unwrap(),
        }],
        answer_contains: Some("15".into()),
        answer_equals: None,
    }
}

fn start(task: TaskRecord) -> Event {
    Event::Start {
        index: 0,
        repeat: 1,
        task,
        toolspec: "0.1.0".into(),
        provider: "anthropic".into(),
        wire: "w".into(),
        model: "m".into(),
        date: "2026-12-07T00:00:00Z".into(),
        system: "s".into(),
        list: "deferred".into(),
        list_tokens: 100,
        tiers: BTreeMap::from([
            ("tickets_search".to_string(), "read_only".to_string()),
            ("tickets_create".to_string(), "reversible".to_string()),
        ]),
    }
}

fn model(turn: u32, usage: Option<u64>) -> Event {
    Event::Model {
        turn,
        text: String::new(),
        calls: vec![],
        searches: 0,
        usage: Usage {
            input: usage,
            output: usage.map(|u| u / 10),
        },
        stop: "tool_use".into(),
    }
}

fn tool(name: &str, args: Value, code: Option<&str>) -> Event {
    Event::Tool {
        turn: 1,
        call: Call {
            id: "c".into(),
            name: name.into(),
            arguments: args,
        },
        answer: ToolAnswer {
            call_id: "c".into(),
            name: name.into(),
            text: String::new(),
            structured: Some(match code {
                Some(code) => json!({"code": code}),
                None => json!({"total": 15}),
            }),
            is_error: code.is_some(),
        },
        ms: 3,
    }
}

fn end(answer: &str) -> Event {
    Event::End {
        answer: answer.into(),
        failure: None,
    }
}

#[test]
fn a_wrong_enum_then_the_fix_passes_with_one_invalid_call_and_one_recovery() {
    let events = vec![
        start(task()),
        model(1, Some(1000)),
        tool(
            "tickets_search",
            json!({"status": "opened"}),
            Some("invalid_enum"),
        ),
        model(2, Some(1200)),
        tool(
            "tickets_search",
            json!({"status": "open", "cursor": "other"}),
            None,
        ),
        model(3, Some(1300)),
        end("There are 15 open tickets."),
    ];
    let (_, _, s) = score(&events, "t.jsonl".into()).unwrap();
    assert!(s.passed, "{:?}", s.why);
    assert_eq!(
        (s.tool_calls, s.invalid_calls, s.recoveries, s.turns),
        (2, 1, 1, 3)
    );
    assert_eq!(s.errors, BTreeMap::from([("invalid_enum".to_string(), 1)]));
    assert_eq!(s.misroute, Some(false));
    assert_eq!((s.input_tokens, s.output_tokens), (Some(3500), Some(350)));
    assert_eq!(s.tool_ms, 6);
}

#[test]
fn a_write_in_a_read_only_task_fails_it_and_unknown_usage_stays_unknown() {
    let events = vec![
        start(task()),
        model(1, None),
        tool("tickets_create", json!({"title": "x"}), None),
        tool("tickets_search", json!({"status": "open"}), None),
        model(2, Some(10)),
        end("15"),
    ];
    let (_, _, s) = score(&events, "t.jsonl".into()).unwrap();
    assert!(!s.passed);
    assert_eq!(s.outside_tiers, 1);
    assert_eq!(s.misroute, Some(true));
    assert!(
        s.why.iter().any(|w| w.contains("a reversible tool")),
        "{:?}",
        s.why
    );
    assert_eq!(
        s.input_tokens, None,
        "one turn without usage makes the total unknown"
    );
}

#[test]
fn the_state_is_judged_first_and_a_stopped_run_fails() {
    let mut t = task();
    t.calls.clear();
    t.answer_contains = None;
    t.state = vec![StateRecord {
        call: CallRecord {
            tool: "tickets_search".into(),
            arguments: Default::default(),
        },
        at: "/total".into(),
        equals: json!(1),
    }];
    let state = |total: Value| Event::State {
        index: 0,
        answer: ToolAnswer {
            call_id: "s".into(),
            name: "tickets_search".into(),
            text: String::new(),
            structured: Some(json!({"total": total})),
            is_error: false,
        },
    };
    let ok = vec![
        start(t.clone()),
        model(1, Some(1)),
        state(json!(1.0)),
        end("done"),
    ];
    assert!(score(&ok, "t".into()).unwrap().2.passed);
    let wrong = vec![
        start(t.clone()),
        model(1, Some(1)),
        state(json!(0)),
        end("done"),
    ];
    let s = score(&wrong, "t".into()).unwrap().2;
    assert_eq!(
        s.why,
        vec!["state tickets_search/total: found 0, expected 1"]
    );
    let stopped = vec![
        start(t),
        model(1, Some(1)),
        state(json!(1)),
        Event::End {
            answer: String::new(),
            failure: Some("anthropic answered 500".into()),
        },
    ];
    let s = score(&stopped, "t".into()).unwrap().2;
    assert!(!s.passed);
    assert_eq!(s.why[0], "the run stopped: anthropic answered 500");
    let cut_short = vec![start(task()), model(1, Some(1))];
    assert!(score(&cut_short, "t".into()).unwrap().2.failure.is_some());
    assert!(score(&[end("x")], "t".into()).is_err());
}

#[test]
fn a_recovery_task_needs_a_valid_last_call() {
    let mut t = task();
    t.calls.clear();
    t.answer_contains = None;
    t.tiers.clear();
    t.recovers = Some("tickets_search".into());
    let fixed = vec![
        start(t.clone()),
        tool("tickets_search", json!({}), Some("missing_argument")),
        tool("tickets_search", json!({"query": "a"}), None),
        end("ok"),
    ];
    assert!(score(&fixed, "t".into()).unwrap().2.passed);
    let stuck = vec![
        start(t),
        tool("tickets_search", json!({}), Some("missing_argument")),
        tool(
            "tickets_search",
            json!({"query": ""}),
            Some("invalid_length"),
        ),
        end("I could not"),
    ];
    let s = score(&stuck, "t".into()).unwrap().2;
    assert!(!s.passed);
    assert_eq!(s.recoveries, 0);
    assert_eq!(s.invalid_calls, 2);
}
