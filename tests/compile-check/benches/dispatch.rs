//! What the generated dispatch costs: one `tickets_search` call through the generated
//! server (routing, validation of every argument, defaults, typed input, the method, typed
//! output, shaping, paging) against
//!
//! - `serde_json` deserialization of the same arguments into `TicketsSearchInput` alone,
//! - `jsonschema` validation against the tool's input schema, then that deserialization,
//!
//! and, to show where the rest goes, the generated layer's input half alone: routing,
//! validation (the fast path a valid call takes), defaults, and the typed input.
//!
//! Then the cost of recording each call's metrics ([`toolspec_runtime::telemetry`]): the
//! same dispatch with a Prometheus recorder installed, against a runtime that records
//! nothing (`Runtime::with_metrics(false)`); the issue's bound is 5%. Beside it, the floor
//! of any per-call duration: the unrecorded dispatch plus two readings of the cycle counter
//! the runtime times calls with, and nothing else.
//!
//! The method is trivial (an empty page) so the numbers are the dispatch's own cost; the
//! recording overhead is measured a second time on a method that returns a page of five
//! tickets, for a call with a result to count. Every variant starts from the same owned
//! `serde_json::Value`, as the MCP adapter hands it over. The ratios are printed after the
//! run:
//!
//! ```text
//! cargo bench -p toolspec-compile-check --bench dispatch
//! ```
//!
//! With `DISPATCH_NO_RECORDER` set (to any value) no recorder is installed (the `metrics`
//! facade's no-op one takes the samples), which splits recording's cost into the calling
//! thread's own work and the exporter's.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use serde_json::{Value, json};
use toolspec_compile_check::tickets::*;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::glue::{self, Page, Window};
use toolspec_runtime::engine::{CallContext, Runtime, Toolset};

/// Answers every search with the same page (a copy of its tickets, the whole result); the
/// other tools are never called.
struct Fixed(Vec<Ticket>);

/// The trivial method: an empty page.
fn empty() -> Fixed {
    Fixed(Vec::new())
}

/// A method with something to return: a page of five tickets, as a store would build it.
fn five() -> Fixed {
    Fixed(
        (1..=5)
            .map(|i| Ticket {
                ticket_id: format!("T-{i}"),
                title: format!("Login loop after password reset, report {i}"),
                status: TicketStatus::Open,
                customer_email: format!("customer{i}@example.com"),
            })
            .collect(),
    )
}

impl TicketsTools for Fixed {
    async fn tickets_search(
        &self,
        input: TicketsSearchInput,
        _window: Window,
    ) -> Result<Page<TicketsSearchOutput>, ToolError> {
        black_box(&input);
        let tickets = self.0.clone();
        let total = tickets.len() as u64;
        Ok(Page::new(TicketsSearchOutput { tickets }, total))
    }
    async fn tickets_get(&self, _: TicketsGetInput) -> Result<TicketsGetOutput, ToolError> {
        Err(ToolError::internal("not benchmarked"))
    }
    async fn tickets_export(
        &self,
        _: TicketsExportInput,
    ) -> Result<TicketsExportOutput, ToolError> {
        Err(ToolError::internal("not benchmarked"))
    }
    async fn preview_tickets_create(
        &self,
        _: TicketsCreateInput,
    ) -> Result<TicketsCreatePreview, ToolError> {
        Err(ToolError::internal("not benchmarked"))
    }
    async fn tickets_create(
        &self,
        _: TicketsCreateInput,
        _: TicketsCreatePreview,
        _: toolspec_runtime::store::Work,
    ) -> Result<TicketsCreateOutput, ToolError> {
        Err(ToolError::internal("not benchmarked"))
    }
    async fn tickets_update_status(
        &self,
        _: TicketsUpdateStatusInput,
        _: toolspec_runtime::store::Work,
    ) -> Result<TicketsUpdateStatusOutput, ToolError> {
        Err(ToolError::internal("not benchmarked"))
    }
}

/// Polls a future that never waits (in-memory stores, a trivial method) to completion
/// without an executor, so the executor's cost is not measured.
fn now<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

fn args() -> Value {
    json!({"query": "login loop", "status": "open", "limit": 5})
}

/// A clock a minute ahead at every reading: each call opens a new rate-limit window, so the
/// spec's 30 searches a minute never refuse one here. Every call still pays the check.
#[derive(Default)]
struct Racing(std::sync::atomic::AtomicI64);

impl toolspec_runtime::clock::Clock for Racing {
    fn now_ms(&self) -> i64 {
        self.0
            .fetch_add(61_000, std::sync::atomic::Ordering::Relaxed)
    }
}

/// An in-memory runtime on the racing clock.
fn runtime() -> Runtime {
    Runtime::in_memory()
        .expect("runtime")
        .with_clock(std::sync::Arc::new(Racing::default()))
}

/// One `tickets_search` call through `server`, from a fresh copy of `args`, as every
/// dispatch variant makes it.
fn search(server: &TicketsServer<Fixed>, args: &Value, ctx: &CallContext) {
    black_box(now(server.call("tickets_search", black_box(args.clone()), ctx)).ok());
}

fn dispatch(c: &mut Criterion) {
    let server = TicketsServer::new(empty(), runtime());
    let ctx = CallContext::new();
    let args = args();
    let schema: Value = serde_json::from_str(DEFINITIONS[0].input_schema).expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("valid schema");

    let out = now(server.call("tickets_search", args.clone(), &ctx)).expect("call");
    assert_eq!(out.structured["total"], 0);
    assert!(validator.is_valid(&args));

    let mut g = c.benchmark_group("tickets_search");
    g.bench_function("serde_deserialize", |b| {
        b.iter(|| serde_json::from_value::<TicketsSearchInput>(black_box(args.clone())))
    });
    g.bench_function("jsonschema_then_deserialize", |b| {
        b.iter(|| {
            let a = black_box(args.clone());
            assert!(validator.is_valid(&a));
            serde_json::from_value::<TicketsSearchInput>(a)
        })
    });
    g.bench_function("generated_dispatch", |b| {
        b.iter(|| now(server.call("tickets_search", black_box(args.clone()), &ctx)))
    });
    g.finish();
}

/// Nanoseconds per iteration of `f` over `n` iterations.
fn per_call(n: u32, f: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_nanos() as f64 / f64::from(n)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Prints the costs and their ratios. The variants take turns within each of 15
/// rounds and the ratio is taken per round, so a machine that speeds up or slows down
/// during the run (a shared VM does) moves all of them alike instead of skewing the ratio.
fn ratios(recorder: &str) {
    let server = TicketsServer::new(empty(), runtime());
    let unrecorded = TicketsServer::new(empty(), runtime().with_metrics(false));
    let paging = TicketsServer::new(five(), runtime());
    let paging_unrecorded = TicketsServer::new(five(), runtime().with_metrics(false));
    let ctx = CallContext::new();
    let args = args();
    // `search` drops the answer: make sure each server answers with a page, not an error.
    for (server, tickets) in [(&paging, 5), (&paging_unrecorded, 5), (&server, 0)] {
        let out = now(server.call("tickets_search", args.clone(), &ctx)).expect("a page");
        assert_eq!(
            out.structured["tickets"].as_array().map(Vec::len),
            Some(tickets)
        );
    }
    let schema: Value = serde_json::from_str(DEFINITIONS[0].input_schema).expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("valid schema");
    let mut serde = || {
        black_box(serde_json::from_value::<TicketsSearchInput>(black_box(args.clone())).ok());
    };
    let mut schema_then_serde = || {
        let a = black_box(args.clone());
        black_box(validator.is_valid(&a));
        black_box(serde_json::from_value::<TicketsSearchInput>(a).ok());
    };
    let mut input_half = || {
        let (index, _) = glue::route(&DEFINITIONS, black_box("tickets_search")).expect("routes");
        black_box(
            glue::accept::<TicketsSearchInput>(&DEFINITIONS[index], black_box(args.clone())).ok(),
        );
    };
    let mut generated = || search(&server, &args, &ctx);
    let mut generated_unrecorded = || search(&unrecorded, &args, &ctx);
    let mut page_of_five = || search(&paging, &args, &ctx);
    let mut page_of_five_unrecorded = || search(&paging_unrecorded, &args, &ctx);
    let clock = quanta::Clock::new();
    let mut clock_floor = || {
        black_box(clock.raw());
        search(&unrecorded, &args, &ctx);
        black_box(clock.raw());
    };
    let (mut ns, mut vs_serde, mut vs_schema) = (
        std::array::from_fn::<Vec<f64>, 8, _>(|_| vec![]),
        vec![],
        vec![],
    );
    let (mut input_vs_serde, mut recorded_vs_not, mut floor_vs_not) = (vec![], vec![], vec![]);
    let mut five_recorded_vs_not = vec![];
    for _ in 0..15 {
        let n = 20_000;
        let round = [
            per_call(n, &mut serde),
            per_call(n, &mut schema_then_serde),
            per_call(n, &mut input_half),
            per_call(n, &mut generated),
            per_call(n, &mut generated_unrecorded),
            per_call(n, &mut clock_floor),
            per_call(n, &mut page_of_five),
            per_call(n, &mut page_of_five_unrecorded),
        ];
        for (all, x) in ns.iter_mut().zip(round) {
            all.push(x);
        }
        input_vs_serde.push(round[2] / round[0]);
        vs_serde.push(round[3] / round[0]);
        vs_schema.push(round[3] / round[1]);
        recorded_vs_not.push(round[3] / round[4]);
        floor_vs_not.push(round[5] / round[4]);
        five_recorded_vs_not.push(round[6] / round[7]);
    }
    let [
        serde,
        schema_then_serde,
        input_half,
        generated,
        unrecorded,
        floor,
        five,
        five_unrecorded,
    ] = ns.map(median);
    println!("\ntickets_search, ns per call (median of 15 rounds of 20000, variants interleaved):");
    println!("  serde_json deserialize          {serde:>8.0}");
    println!("  jsonschema + deserialize        {schema_then_serde:>8.0}");
    println!("  generated input half            {input_half:>8.0}");
    println!("  generated dispatch              {generated:>8.0}   (metrics recorded, {recorder})");
    println!("  generated dispatch, no metrics  {unrecorded:>8.0}");
    println!("  no metrics + two clock readings {floor:>8.0}");
    println!("  a page of five tickets          {five:>8.0}   (metrics recorded, {recorder})");
    println!("  a page of five, no metrics      {five_unrecorded:>8.0}");
    println!(
        "  dispatch / serde = {:.2}x, dispatch / (jsonschema + serde) = {:.2}x (medians of per-round ratios)",
        median(vs_serde),
        median(vs_schema)
    );
    println!(
        "  input half (route, validate, defaults, typed input) / serde = {:.2}x",
        median(input_vs_serde)
    );
    println!(
        "  recording metrics: dispatch with / without = {:.3}x",
        median(recorded_vs_not)
    );
    println!(
        "  floor of timing each call: two clock readings / without = {:.3}x",
        median(floor_vs_not)
    );
    println!(
        "  recording metrics, a page of five tickets: with / without = {:.3}x",
        median(five_recorded_vs_not)
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = dispatch
}

fn main() {
    let recorder = if std::env::var_os("DISPATCH_NO_RECORDER").is_some() {
        "no recorder"
    } else {
        install_prometheus();
        "Prometheus"
    };
    benches();
    Criterion::default().configure_from_args().final_summary();
    ratios(recorder);
}

/// A real exporter, so that recording costs what it costs in a server: histograms with
/// buckets, and scraped (rendered) every 100 ms.
fn install_prometheus() {
    let mut builder = metrics_exporter_prometheus::PrometheusBuilder::new();
    for m in toolspec_runtime::telemetry::METRICS {
        if !m.buckets.is_empty() {
            builder = builder
                .set_buckets_for_metric(
                    metrics_exporter_prometheus::Matcher::Full(m.name.into()),
                    m.buckets,
                )
                .expect("buckets");
        }
    }
    let prometheus = builder.install_recorder().expect("the only recorder");
    toolspec_runtime::telemetry::describe();
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_millis(100));
            toolspec_runtime::telemetry::flush();
            black_box(prometheus.render());
        }
    });
}
