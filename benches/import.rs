//! How long `toolspec import openapi` takes on the large real document in
//! `tests/import/documents/github.json` (GitHub's REST API, 13 MB, 1,223 operations):
//! importing one tag (`pulls`, 34 operations) and every operation, each against parsing
//! the same text into JSON values with serde_json, the least any importer must do.
//!
//! Run: `cargo bench --bench import`. Criterion reports each time; after it, the ratios to
//! the parse measured in the same run, taking turns.

use criterion::{Criterion, criterion_group};
use std::hint::black_box;
use toolspec::internals::import::openapi::{Document, Options, import_document};

mod common;
use common::paired;

fn text() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/import/documents/github.json"
    );
    std::fs::read_to_string(path).expect("tests/import/documents/github.json")
}

fn options(include: &[&str]) -> Options {
    Options {
        service: "github".into(),
        include: include.iter().map(|s| s.to_string()).collect(),
        source_name: "github.json".into(),
    }
}

fn bench_import(c: &mut Criterion) {
    let text = text();
    let doc = Document::parse(&text).expect("parses");
    let mut group = c.benchmark_group("import_github");
    group.sample_size(10);
    group.bench_function("parse_json", |b| {
        b.iter(|| black_box(serde_json::from_str::<serde_json::Value>(black_box(&text)).ok()))
    });
    group.bench_function("import_tag_pulls", |b| {
        b.iter(|| black_box(import_document(black_box(&doc), &options(&["tag:pulls"])).ok()))
    });
    group.bench_function("import_all", |b| {
        b.iter(|| black_box(import_document(black_box(&doc), &options(&[])).ok()))
    });
    group.finish();
}

/// Prints each import's time (parse included, as the command does it) and its ratio to
/// parsing the document alone.
fn report_ratios() {
    let text = text();
    println!(
        "\nimport of github.json vs parsing it with serde_json (medians of 5 rounds, taking turns):"
    );
    for (label, include) in [
        ("tag pulls", &["tag:pulls"][..]),
        ("every operation", &[][..]),
    ] {
        let t = paired(
            5,
            || {
                black_box(serde_json::from_str::<serde_json::Value>(black_box(&text)).ok());
            },
            || {
                let doc = Document::parse(black_box(&text)).expect("parses");
                black_box(import_document(&doc, &options(include)).ok());
            },
        );
        println!(
            "  {label:>15}: parse + import {:>8.1} ms, parse {:>7.1} ms, ratio {:.2}x",
            t.subject * 1e3,
            t.baseline * 1e3,
            t.ratio
        );
    }
}

criterion_group!(benches, bench_import);

fn main() {
    benches();
    report_ratios();
    Criterion::default().configure_from_args().final_summary();
}
