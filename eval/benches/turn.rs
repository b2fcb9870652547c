//! The harness's own cost per model turn: everything `toolspec eval` does besides waiting for
//! the model and the server. One turn of the tickets toolset on the Anthropic wire with two
//! parallel calls: the request body built and serialized, the answer parsed and read, the
//! request, answer, model and two tool events written to a transcript (redacted, flushed),
//! and the tool answers put back into the conversation.
//!
//! The baseline, measured in the same run, is the least any harness does per turn: serialize
//! the same request body and parse the same answer with serde_json.
//!
//! Run: `cargo bench -p toolspec-eval --bench turn`. Criterion reports each time; after it,
//! the ratio to the baseline, taking turns.

use criterion::{Criterion, criterion_group};
use serde_json::{Value, json};
use std::hint::black_box;
use toolspec_eval::transcript::{Event, Redactor, Writer};
use toolspec_eval::turn::ToolAnswer;
use toolspec_eval::{Provider, SYSTEM};

#[path = "../../benches/common/mod.rs"]
mod common;

struct Fixture {
    tools: Value,
    conversation: Vec<Value>,
    answer: Vec<u8>,
    results: Vec<ToolAnswer>,
}

fn fixture() -> Fixture {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let paths = [
        format!("{root}/specs/tickets.yaml"),
        format!("{root}/specs/orders.yaml"),
    ];
    let mut loaded = toolspec::load(&paths).expect("the example specs load");
    loaded
        .model
        .toolsets
        .retain(|ts| ts.service.text == "tickets");
    let tools = Provider::Anthropic.tools(&toolspec_eval::lists(
        &loaded.model,
        toolspec_eval::ToolList::Deferred,
    ));
    let answer = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "tickets_search", "input": {"query": "login loop", "status": "open"}},
            {"type": "tool_use", "id": "toolu_2", "name": "tickets_get", "input": {"ticket_id": "T-1001"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1200, "output_tokens": 60}
    });
    let result = |id: &str, name: &str| {
        ToolAnswer {
        call_id: id.into(),
        name: name.into(),
        text: r#"{"tickets":[{"ticket_id":"T-1001","title":"login loop case 1","status":"open"}],"total":15}"#.into(),
        structured: Some(json!({"tickets": [{"ticket_id": "T-1001", "title": "login loop case 1", "status": "open"}], "total": 15})),
        is_error: false,
    }
    };
    Fixture {
        tools,
        conversation: Provider::Anthropic.start("How many open tickets mention a login loop?"),
        answer: serde_json::to_vec(&answer).expect("JSON"),
        results: vec![
            result("toolu_1", "tickets_search"),
            result("toolu_2", "tickets_get"),
        ],
    }
}

/// What any harness does: the request out, the answer in.
fn floor(f: &Fixture) {
    let body = Provider::Anthropic.body("m", SYSTEM, &f.tools, &f.conversation);
    black_box(serde_json::to_vec(&body).ok());
    black_box(serde_json::from_slice::<Value>(&f.answer).ok());
}

/// What `toolspec eval` does in a turn, but wait.
fn harness(f: &Fixture, writer: &mut Writer) {
    let provider = Provider::Anthropic;
    let mut conversation = f.conversation.clone();
    let body = provider.body("m", SYSTEM, &f.tools, &conversation);
    black_box(serde_json::to_vec(&body).ok());
    let answer: Value = serde_json::from_slice(&f.answer).expect("JSON");
    writer
        .push(Event::Request { turn: 1, body })
        .expect("written");
    writer
        .push(Event::Response {
            turn: 1,
            attempt: 1,
            status: 200,
            ms: 1,
            retry_in_ms: None,
            body: answer.clone(),
        })
        .expect("written");
    let turn = provider.read(&answer, 1).expect("an answer");
    writer
        .push(Event::Model {
            turn: 1,
            text: turn.text.clone(),
            calls: turn.calls.clone(),
            searches: turn.searches,
            usage: turn.usage,
            stop: turn.stop_word.clone(),
        })
        .expect("written");
    conversation.extend(turn.echo);
    for (call, result) in turn.calls.iter().zip(&f.results) {
        writer
            .push(Event::Tool {
                turn: 1,
                call: call.clone(),
                answer: result.clone(),
                ms: 1,
            })
            .expect("written");
    }
    conversation.extend(provider.answers(&f.results));
    black_box(conversation);
}

fn writer() -> Writer {
    Writer::sink(
        Box::new(std::io::sink()),
        Redactor::new(["sk-ant-benchmark-key".to_string()]),
    )
}

fn bench_turn(c: &mut Criterion) {
    let f = fixture();
    let mut group = c.benchmark_group("eval_turn");
    group.bench_function("floor_serialize_and_parse", |b| b.iter(|| floor(&f)));
    group.bench_function("harness_turn_two_calls", |b| {
        b.iter_batched_ref(writer, |w| harness(&f, w), criterion::BatchSize::SmallInput)
    });
    group.finish();
}

fn report_ratio() {
    let f = fixture();
    const TURNS: usize = 2000;
    let t = common::paired(
        7,
        || {
            for _ in 0..TURNS {
                floor(&f);
            }
        },
        || {
            let mut w = writer();
            for _ in 0..TURNS {
                harness(&f, &mut w);
            }
        },
    );
    println!(
        "\none model turn with two tool calls (tickets, Anthropic wire), medians of 7 rounds of {TURNS} turns, taking turns:\n  harness {:.1} us per turn ({:.1} us per tool call), floor {:.1} us, ratio {:.2}x",
        t.subject / TURNS as f64 * 1e6,
        t.subject / TURNS as f64 / 2.0 * 1e6,
        t.baseline / TURNS as f64 * 1e6,
        t.ratio
    );
}

criterion_group!(benches, bench_turn);

fn main() {
    benches();
    report_ratio();
    Criterion::default().configure_from_args().final_summary();
}
