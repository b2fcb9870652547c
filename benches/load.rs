//! How long loading and checking a spec takes, per tool, as specs grow.
//!
//! Generates specs of 100, 1,000 and 10,000 realistic tools (parameters with constraints and
//! enums, named types, paging and response formats, a reversible tool with undo and an
//! irreversible one with preview and idempotency) and measures what `toolspec check` does with
//! each: parse, shape-check, read and resolve. Criterion reports time per tool through
//! `Throughput::Elements`; after the run, the ratio of each to a bare YAML parse of the same
//! text (serde-saphyr into an untyped value), measured in the same run, is printed.
//!
//! ```text
//! cargo bench --bench load -- --quick
//! ```

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;
use toolspec::diagnostics::{Diagnostics, Sources};
use toolspec::internals::spec;
use toolspec::model;

mod common;
use common::paired;

/// The head of a synthetic spec: defaults, named types and an error catalog.
const HEAD: &str = r#"toolspec: 1
service: bench
title: Benchmark records
description: Synthetic records, to measure how long specs take to load.
defaults:
  paging: { default_limit: 10, max_limit: 50 }
  idempotency: { ttl: 24h }
  preview: { ttl: 10m }
types:
  RecordId:
    type: string
    description: A record id, R- and digits.
    pattern: '^R-[0-9]+$'
    max_length: 20
    example: R-1001
  RecordStatus:
    type: string
    description: Where a record is in its life.
    enum: [draft, active, archived]
    example: active
  Record:
    type: object
    description: A record.
    fields:
      record_id: { type: RecordId, description: The record's id. }
      title: { type: string, description: The record's title., max_length: 120, example: Quarterly report }
      status: { type: RecordStatus, description: Current status. }
      owner_email: { type: string, format: email, description: Who owns it., example: a@example.com, detailed_only: true }
errors:
  not_found:
    message: "No record {record_id}. Find the id with a search tool, then retry with it."
    retryable: false
    when: No record has this id.
    details:
      record_id: { type: RecordId, description: The id that was looked up. }
tools:
"#;

/// Four tools (search, get, update, delete) of group `g`: every tier and setting.
fn group(out: &mut String, g: usize) {
    let _ = write!(
        out,
        r#"  - name: bench_g{g}_search
    title: Search group {g} records
    summary: Search records of group {g} by words, optionally by status.
    returns: matching records, best match first, with the total.
    use_when: finding group {g} records by words.
    not_for:
      - when: reading one record by id
        use: bench_g{g}_get
    tier: read_only
    params:
      query: {{ type: string, description: Words to match in titles., min_length: 1, max_length: 200, example: report }}
      status: {{ type: RecordStatus, description: Only records with this status., required: false }}
      sort: {{ type: string, description: Order of results., enum: [relevance, newest, oldest], default: relevance, example: newest }}
    output:
      records:
        type: array
        description: This page of matching records.
        items: {{ type: Record }}
    paging: {{ items: records }}
    response_format: {{ default: concise }}
    requests: [find group {g} reports]
    examples:
      - title: Active reports
        arguments: {{ query: report, status: active, limit: 5 }}
        result: {{ total: 3 }}
      - title: A misspelled status
        arguments: {{ query: report, status: actve }}
        error: invalid_enum
  - name: bench_g{g}_get
    title: Get a group {g} record
    summary: Get one record of group {g} by its id.
    returns: the record.
    tier: read_only
    params:
      record_id: {{ type: RecordId, description: The record to read. }}
    output:
      record: {{ type: Record, description: The record. }}
    errors: [not_found]
    examples:
      - title: Read one record
        arguments: {{ record_id: R-1001 }}
  - name: bench_g{g}_set_status
    title: Set a group {g} record's status
    summary: Set the status of one record of group {g}.
    returns: the record after the change and its previous status.
    tier: reversible
    params:
      record_id: {{ type: RecordId, description: The record to change. }}
      status: {{ type: RecordStatus, description: The new status. }}
    output:
      record: {{ type: Record, description: The record after the change. }}
      previous_status: {{ type: RecordStatus, description: The status before. }}
    errors: [not_found]
    idempotency: {{}}
    undo:
      tool: bench_g{g}_set_status
      arguments: {{ record_id: record.record_id, status: previous_status }}
  - name: bench_g{g}_delete
    title: Delete a group {g} record
    summary: Delete one record of group {g} for good.
    returns: the id of the deleted record.
    tier: irreversible
    params:
      record_id: {{ type: RecordId, description: The record to delete. }}
      reason: {{ type: string, description: "Why it is deleted, kept in the audit log.", max_length: 500, example: Duplicate of R-1000 }}
    output:
      record_id: {{ type: RecordId, description: The deleted record's id. }}
    errors: [not_found]
    idempotency: {{ ttl: 48h }}
    preview:
      fields:
        title: {{ type: string, description: Title of the record that would be deleted., example: Quarterly report }}
"#
    );
}

/// A spec of `tools` tools (a multiple of four).
fn synthetic_spec(tools: usize) -> String {
    let mut out = String::from(HEAD);
    for g in 0..tools / 4 {
        group(&mut out, g);
    }
    out
}

/// What `toolspec check` does with one spec's text; returns the number of tools.
fn load_and_check(text: &str) -> usize {
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let file = sources.add("bench.yaml", text);
    let loaded: Vec<_> = spec::load(file, text, &mut diags)
        .map(|s| (file, s))
        .into_iter()
        .collect();
    let model = model::resolve(&loaded, &sources, &mut diags);
    assert!(!diags.has_errors(), "{}", diags.render(&sources));
    model.tools().count()
}

/// The baseline: the same text parsed by serde-saphyr into an untyped JSON value, as any
/// YAML-reading tool must; what `load_and_check` costs above it is toolspec's own checking.
fn parse_only(text: &str) -> usize {
    // The node and event budgets toolspec's loader uses, so the large spec parses here too.
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! { max_nodes: 4_000_000, max_events: 16_000_000 },
    };
    let value: serde_json::Value =
        serde_saphyr::from_str_with_options(text, options).expect("the synthetic spec parses");
    value["tools"].as_array().map_or(0, Vec::len)
}

/// Prints time per tool and the ratio to the YAML-parse baseline, measured in this run.
fn report_ratios() {
    println!("\nload and check vs bare YAML parse (medians of 5 rounds, taking turns):");
    for tools in [100, 1_000, 10_000] {
        let text = synthetic_spec(tools);
        let t = paired(
            5,
            || {
                black_box(parse_only(black_box(&text)));
            },
            || {
                black_box(load_and_check(black_box(&text)));
            },
        );
        println!(
            "  {tools:>6} tools: load+check {:>8.2} ms ({:.3} ms/tool), YAML parse {:>8.2} ms, ratio {:.2}x",
            t.subject * 1e3,
            t.subject * 1e3 / tools as f64,
            t.baseline * 1e3,
            t.ratio
        );
    }
}

fn bench_load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load_and_check");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for tools in [100, 1_000, 10_000] {
        let text = synthetic_spec(tools);
        // The spec must be clean, or this would measure the error path.
        assert_eq!(load_and_check(&text), tools);
        group.throughput(Throughput::Elements(tools as u64));
        group.bench_with_input(BenchmarkId::from_parameter(tools), &text, |b, text| {
            b.iter(|| load_and_check(black_box(text)));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_load);

fn main() {
    benches();
    report_ratios();
    Criterion::default().configure_from_args().final_summary();
}
