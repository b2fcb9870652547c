//! How long `--emit schemas` takes for large toolsets: synthetic specs of 100, 1,000 and
//! 10,000 tools, built as YAML text, loaded and resolved outside the timing.
//!
//! A toolset holds at most 100 tools (OpenAI takes 128 per request, so a bigger one would be
//! refused, not generated), so the larger cases are several specs resolved together, as a
//! host loading many services would. Tools cycle through the three tiers: a paged read-only
//! search, a reversible status change with undo, an irreversible create with preview.
//!
//! Run: `cargo bench --bench generate`. Criterion reports the time per run and, as
//! throughput, tools per second; time per tool is the run time divided by the tool count.
//! After the run it prints the ratio to writing the same documents with serde_json alone,
//! measured in the same run, then the time of every output (schemas, docs, Rust, tests)
//! for 100, 1,000 and 10,000 tools against loading and checking the same specs.
//! Last, the same for GitHub's REST document imported whole (1,221 tools, a group per tag).
//! `GENERATE_CASES=1000x125,github` runs those cases of the last reports alone (to profile).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use std::hint::black_box;
use toolspec::diagnostics::{Diagnostics, Sources};
use toolspec::internals::emit::{self, Kind, Options};
use toolspec::model::Model;

mod common;
use common::paired;

const TOOLS_PER_SPEC: usize = 100;

fn header(service: &str) -> String {
    format!(
        r#"toolspec: 1
service: {service}
title: Synthetic {service}
description: Generated for benchmarks.
types:
  ItemId: {{ type: string, description: An item id., pattern: '^I-[0-9]+$', max_length: 20, example: I-1 }}
  State: {{ type: string, description: Where an item is., enum: [new, active, done], example: new }}
  Item:
    type: object
    description: An item.
    fields:
      item_id: {{ type: ItemId, description: The item's id. }}
      name: {{ type: string, description: Its name., max_length: 120, example: Red mug }}
      state: {{ type: State, description: Its state. }}
      owner_email: {{ type: string, format: email, description: Who owns it., example: a@example.com, detailed_only: true }}
tools:
"#
    )
}

fn tool(service: &str, i: usize) -> String {
    match i % 3 {
        0 => format!(
            r#"  - name: {service}_search_{i}
    title: Search items {i}
    summary: Search items by words, optionally by state.
    returns: matching items, best first, with the total count.
    use_when: the user asks about items without an id.
    tier: read_only
    params:
      query: {{ type: string, description: Words to match., min_length: 1, max_length: 200, example: red mug }}
      state: {{ type: State, description: Only items in this state., required: false }}
    output:
      items: {{ type: array, description: This page of items., items: {{ type: Item }} }}
    paging: {{ items: items }}
    response_format: {{ default: concise }}
    examples:
      - title: Active red mugs
        arguments: {{ query: red mug, state: active }}
"#
        ),
        1 => format!(
            r#"  - name: {service}_set_state_{i}
    title: Change an item's state {i}
    summary: Set the state of one item.
    returns: the item after the change and its previous state.
    tier: reversible
    params:
      item_id: {{ type: ItemId, description: The item to change. }}
      state: {{ type: State, description: The new state. }}
    output:
      item: {{ type: Item, description: The item after the change. }}
      previous_state: {{ type: State, description: The state before. }}
    idempotency: {{}}
    undo:
      tool: {service}_set_state_{i}
      arguments: {{ item_id: item.item_id, state: previous_state }}
"#
        ),
        _ => format!(
            r#"  - name: {service}_create_{i}
    title: Create an item {i}
    summary: Create a new item and notify its owner.
    returns: the new item.
    tier: irreversible
    open_world: true
    params:
      name: {{ type: string, description: Its name., min_length: 1, max_length: 120, example: Red mug }}
      owner_email: {{ type: string, format: email, description: Who owns it., example: a@example.com }}
      tags:
        type: array
        description: Labels for it.
        required: false
        max_items: 10
        items: {{ type: string, max_length: 30, example: kitchen }}
    output:
      item: {{ type: Item, description: The item that was created. }}
    idempotency: {{}}
    preview:
      fields:
        name: {{ type: string, description: Name it will have., example: Red mug }}
"#
        ),
    }
}

/// Specs of `n` tools in total, at most [`TOOLS_PER_SPEC`] each.
fn synthetic_specs(n: usize) -> Vec<String> {
    specs_of(n, TOOLS_PER_SPEC)
}

/// Specs of `n` tools in total, at most `per_spec` each.
fn specs_of(n: usize, per_spec: usize) -> Vec<String> {
    (0..n.div_ceil(per_spec))
        .map(|s| {
            let service = format!("svc{s}");
            let mut text = header(&service);
            for i in (s * per_spec)..((s + 1) * per_spec).min(n) {
                text.push_str(&tool(&service, i));
            }
            text
        })
        .collect()
}

fn model(n: usize) -> Model {
    model_of(synthetic_specs(n))
}

fn model_of(texts: Vec<String>) -> Model {
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let mut loaded = Vec::new();
    for (i, text) in texts.into_iter().enumerate() {
        let file = sources.add(format!("svc{i}.yaml"), text);
        let spec = toolspec::internals::spec::load(file, &sources.get(file).text, &mut diags);
        loaded.extend(spec.map(|s| (file, s)));
    }
    let model = toolspec::model::resolve(&loaded, &sources, &mut diags);
    assert!(!diags.has_errors(), "{}", diags.render(&sources));
    model
}

fn bench_generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate_schemas");
    for n in [100, 1_000, 10_000] {
        let model = model(n);
        let files = emit::generate(&model, &[Kind::Schemas], &Options::default())
            .expect("exports")
            .files;
        // Per toolset: the MCP list and the four provider lists.
        assert_eq!(files.len(), n * 2 + 5 * n.div_ceil(TOOLS_PER_SPEC));
        group.throughput(Throughput::Elements(n as u64));
        group.sample_size(if n >= 10_000 {
            10
        } else if n >= 1_000 {
            20
        } else {
            50
        });
        group.bench_with_input(BenchmarkId::from_parameter(n), &model, |b, model| {
            b.iter(|| emit::generate(black_box(model), &[Kind::Schemas], &Options::default()))
        });
    }
    group.finish();
}

/// Prints time per tool and the ratio to a baseline measured in this run: writing the very
/// same JSON documents out with `serde_json::to_string_pretty` from values already built,
/// the least any generator of these files must do.
fn report_ratios() {
    println!(
        "\ngenerate schemas vs serializing the same documents (medians of 5 rounds, taking turns):"
    );
    for n in [100, 1_000, 10_000] {
        let model = model(n);
        let files = emit::generate(&model, &[Kind::Schemas], &Options::default())
            .expect("exports")
            .files;
        let values: Vec<serde_json::Value> = files
            .iter()
            .map(|f| serde_json::from_str(&f.contents).expect("generated JSON parses"))
            .collect();
        let t = paired(
            5,
            || {
                for v in &values {
                    black_box(serde_json::to_string_pretty(black_box(v)).ok());
                }
            },
            || {
                black_box(
                    emit::generate(black_box(&model), &[Kind::Schemas], &Options::default()).ok(),
                );
            },
        );
        println!(
            "  {n:>6} tools: generate {:>8.2} ms ({:.3} ms/tool), serialize {:>7.2} ms, ratio {:.2}x",
            t.subject * 1e3,
            t.subject * 1e3 / n as f64,
            t.baseline * 1e3,
            t.ratio
        );
    }
}

/// Prints the generator's own time for every output (schemas, provider lists, docs, Rust,
/// gauntlet tests; the model already loaded and checked) per tool, and the ratio to a
/// baseline measured in this run: parsing the same YAML. A ratio that stays the same from
/// 100 to 10,000 tools is a generator that scales linearly. The cases: specs of 100 tools,
/// and 1,000 tools as 8 specs of 125 and as one spec.
fn report_every_output() {
    println!(
        "
every output vs parsing the same YAML (medians, taking turns):"
    );
    // `GENERATE_CASES=1000x125,1000x1000` runs only those cases (tools x tools per spec), to
    // profile one.
    let only = std::env::var("GENERATE_CASES").ok();
    for (n, per_spec, rounds) in [
        (100, 100, 5),
        (1_000, 125, 5),
        (1_000, 1_000, 5),
        (1_000, 100, 5),
        (10_000, 100, 1),
    ] {
        if let Some(only) = &only
            && !only.split(',').any(|c| c == format!("{n}x{per_spec}"))
        {
            continue;
        }
        let texts = specs_of(n, per_spec);
        let model = model_of(texts.clone());
        let files = emit::generate(&model, Kind::ALL, &Options::default())
            .expect("every output")
            .files;
        let t = paired(
            rounds,
            || {
                let mut diags = Diagnostics::default();
                for text in &texts {
                    black_box(toolspec::internals::spec::load(
                        0,
                        black_box(text),
                        &mut diags,
                    ));
                }
            },
            || {
                black_box(emit::generate(black_box(&model), Kind::ALL, &Options::default()).ok());
            },
        );
        let specs = n.div_ceil(per_spec);
        println!(
            "  {n:>6} tools ({specs} x {per_spec}): every output {:>9.1} ms ({:.3} ms/tool, {} files), parse {:>8.1} ms, ratio {:.2}x",
            t.subject * 1e3,
            t.subject * 1e3 / n as f64,
            files.len(),
            t.baseline * 1e3,
            t.ratio
        );
    }
}

/// Prints the same for a real catalog: GitHub's REST document imported whole (every
/// operation, 1,221 tools in one spec, a group per tag), against parsing the draft's YAML.
/// The import itself is outside the timing (`benches/import.rs` times it).
fn report_github_catalog() {
    use toolspec::internals::import::openapi::{
        Document, Options as ImportOptions, import_document,
    };
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/import/documents/github.json"
    );
    let text = std::fs::read_to_string(path).expect("the GitHub document is in the repository");
    let doc = Document::parse(&text).expect("the GitHub document parses");
    let options = ImportOptions {
        service: "github".into(),
        include: Vec::new(),
        source_name: "github.json".into(),
    };
    let draft = import_document(&doc, &options).expect("the GitHub document imports");
    let model = model_of(vec![draft.yaml.clone()]);
    let ts = &model.toolsets[0];
    let t = paired(
        5,
        || {
            let mut diags = Diagnostics::default();
            black_box(toolspec::internals::spec::load(
                0,
                black_box(&draft.yaml),
                &mut diags,
            ));
        },
        || {
            black_box(emit::generate(black_box(&model), Kind::ALL, &Options::default()).ok());
        },
    );
    println!(
        "  {:>6} tools (GitHub, {} groups): every output {:>9.1} ms ({:.3} ms/tool), parse {:>8.1} ms, ratio {:.2}x",
        ts.tools.len(),
        ts.groups.len(),
        t.subject * 1e3,
        t.subject * 1e3 / ts.tools.len() as f64,
        t.baseline * 1e3,
        t.ratio
    );
}

criterion_group!(benches, bench_generate);

fn main() {
    benches();
    if std::env::var_os("GENERATE_CASES").is_none() {
        report_ratios();
    }
    report_every_output();
    let cases = std::env::var("GENERATE_CASES").ok();
    if cases.is_none_or(|c| c.split(',').any(|c| c == "github")) {
        report_github_catalog();
    }
    Criterion::default().configure_from_args().final_summary();
}
