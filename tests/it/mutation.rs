//! Mutation test of the loader: thousands of broken variants of the example specs, none of
//! which may panic, and every error of which must point at a real place in the file.
//!
//! Each mutant is made deterministically from a seed by a small PRNG written here (no `rand`):
//! lines deleted, duplicated, swapped or re-indented, values swapped between keys, the file cut
//! at a random character, random characters inserted, scalars replaced by values of other
//! types, and combinations of these. For each mutant the test loads it together with the other
//! example specs (so cross-spec checks run too), resolves the model, renders the diagnostics,
//! and checks that every error has a location inside the file. A panic is caught and reported
//! with the seed that made it, so it can be replayed:
//!
//! ```text
//! MUTATION_SEED=1234 cargo test --features tokens --test it mutation:: -- --nocapture
//! ```
//!
//! prints that one mutant and its diagnostics. `MUTATIONS=N` changes how many are tried.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use toolspec::diagnostics::{Diagnostics, Severity, Sources};
use toolspec::internals::spec;
use toolspec::model::{self, describe};

/// How many mutants the test tries unless `MUTATIONS` says otherwise.
const DEFAULT_MUTATIONS: u64 = 10_000;

const SPECS: [(&str, &str); 3] = [
    (
        "specs/tickets.yaml",
        include_str!("../../specs/tickets.yaml"),
    ),
    ("specs/orders.yaml", include_str!("../../specs/orders.yaml")),
    ("specs/docs.yaml", include_str!("../../specs/docs.yaml")),
];

/// SplitMix64: tiny, fast, and the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Values of every YAML type, and the awkward ones: what a scalar gets replaced with.
const REPLACEMENTS: &[&str] = &[
    "42",
    "-1",
    "0",
    "3.5",
    "1e400",
    "99999999999999999999999",
    "true",
    "false",
    "null",
    "~",
    "\"\"",
    "''",
    "[]",
    "{}",
    "[a, b]",
    "{ a: 1 }",
    "\"quoted string\"",
    "plain words here",
    "yes",
    ".nan",
    "-.inf",
    "*anchor",
    "&anchor value",
    "!!binary aGVsbG8=",
    "!custom tag",
    "|\n  block text",
    ">-\n  folded",
    "'^([unclosed'",
    "é ü 日本 🙂",
    "{{weird}}",
    "T-1001",
    "string",
    "array",
    "object",
    "read_only",
    "irreversible",
    "24h",
    "0s",
    "tickets_search",
];

/// Characters worth inserting: YAML's indicators, whitespace, and multi-byte characters.
const INSERTS: &[&str] = &[
    ":", "-", "- ", "{", "}", "[", "]", "\"", "'", "\t", "\n", "#", "&", "*", "!", "|", ">", "%",
    "@", "`", ",", "?", " ", "  ", "\r", "\u{0}", "\u{feff}", "é", "🙂", "\\", "{x}", "<<: *a",
    "---\n", "...\n",
];

/// The positions of `key: value` values: (byte start, byte end) of each value.
fn value_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for (i, _) in text.match_indices(": ") {
        let start = i + 2;
        let end = text[start..]
            .find([',', '}', ']', '\n'])
            .map_or(text.len(), |e| start + e);
        if end > start {
            spans.push((start, end));
        }
    }
    spans
}

/// A char boundary at or before `i`.
fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Applies one random mutation; returns the new text and what was done.
fn mutate_once(text: &str, rng: &mut Rng) -> (String, String) {
    let lines: Vec<&str> = text.split('\n').collect();
    let join = |lines: Vec<&str>| lines.join("\n");
    match rng.below(9) {
        0 => {
            let i = rng.below(lines.len());
            let mut l = lines.clone();
            l.remove(i);
            (join(l), format!("deleted line {}", i + 1))
        }
        1 => {
            let i = rng.below(lines.len());
            let mut l = lines.clone();
            l.insert(i, lines[i]);
            (join(l), format!("duplicated line {}", i + 1))
        }
        2 => {
            let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
            let mut l = lines.clone();
            l.swap(a, b);
            (join(l), format!("swapped lines {} and {}", a + 1, b + 1))
        }
        3 => {
            let spans = value_spans(text);
            if spans.len() < 2 {
                return (text.to_string(), "nothing to swap".into());
            }
            let (mut a, mut b) = (*rng.pick(&spans), *rng.pick(&spans));
            if a.0 > b.0 {
                std::mem::swap(&mut a, &mut b);
            }
            if a == b || a.1 > b.0 {
                return (text.to_string(), "swapped a value with itself".into());
            }
            let out = format!(
                "{}{}{}{}{}",
                &text[..a.0],
                &text[b.0..b.1],
                &text[a.1..b.0],
                &text[a.0..a.1],
                &text[b.1..]
            );
            (out, format!("swapped values at bytes {} and {}", a.0, b.0))
        }
        4 => {
            let chars = text.chars().count();
            let at = rng.below(chars + 1);
            let cut: String = text.chars().take(at).collect();
            (cut, format!("truncated at char {at}"))
        }
        5 => {
            let at = floor_boundary(text, rng.below(text.len() + 1));
            let mut s = String::new();
            for _ in 0..=rng.below(3) {
                if rng.below(4) == 0 {
                    // Any Unicode scalar value, not only the interesting ones.
                    let c = char::from_u32((rng.next() % 0x11_0000) as u32).unwrap_or('\u{fffd}');
                    s.push(c);
                } else {
                    let insert: &&str = rng.pick(INSERTS);
                    s.push_str(insert);
                }
            }
            let out = format!("{}{}{}", &text[..at], s, &text[at..]);
            (out, format!("inserted {s:?} at byte {at}"))
        }
        6 => {
            let i = rng.below(lines.len());
            let line = lines[i];
            let trimmed = line.trim_start_matches(' ');
            let indent = line.len() - trimmed.len();
            let new_indent = match rng.below(4) {
                0 => indent.saturating_sub(1 + rng.below(4)),
                1 => indent + 1 + rng.below(4),
                2 => 0,
                _ => usize::MAX,
            };
            let new_line = if new_indent == usize::MAX {
                format!("\t{trimmed}")
            } else {
                format!("{}{trimmed}", " ".repeat(new_indent))
            };
            let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            l[i] = new_line;
            (
                l.join("\n"),
                format!("re-indented line {} to {new_indent}", i + 1),
            )
        }
        7 => {
            let spans = value_spans(text);
            if spans.is_empty() {
                return (text.to_string(), "no value to replace".into());
            }
            let (a, b) = *rng.pick(&spans);
            let with = *rng.pick(REPLACEMENTS);
            let out = format!("{}{}{}", &text[..a], with, &text[b..]);
            (out, format!("replaced {:?} with {with:?}", &text[a..b]))
        }
        _ => {
            // Cut a random byte range out (may split multi-line constructs).
            let a = floor_boundary(text, rng.below(text.len() + 1));
            let b = floor_boundary(text, (a + rng.below(40)).min(text.len()));
            let out = format!("{}{}", &text[..a], &text[b..]);
            (out, format!("removed bytes {a}..{b}"))
        }
    }
}

/// The mutant for a seed: which spec, its new text, and what was done to it.
fn mutant(seed: u64) -> (usize, String, Vec<String>) {
    let mut rng = Rng::new(seed);
    let which = rng.below(SPECS.len());
    let mut text = SPECS[which].1.to_string();
    let mut done = Vec::new();
    // Mostly one mutation, sometimes a pile of them.
    let rounds = match rng.below(10) {
        0..=5 => 1,
        6..=8 => 2 + rng.below(2),
        _ => 4 + rng.below(6),
    };
    for _ in 0..rounds {
        let (t, what) = mutate_once(&text, &mut rng);
        text = t;
        done.push(what);
    }
    (which, text, done)
}

/// Loads the mutant with the other example specs; returns problems with its diagnostics.
fn check_mutant(which: usize, text: &str, show: bool) -> Vec<String> {
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let mut loaded = Vec::new();
    // Only the mutant alone in most runs, to keep the test fast; with its siblings in some,
    // so cross-spec checks (`not_for`, `undo`, duplicate names) see broken input too.
    let with_siblings = text.len().is_multiple_of(16);
    for (i, (path, original)) in SPECS.iter().enumerate() {
        if i != which && !with_siblings {
            continue;
        }
        let body = if i == which { text } else { original };
        let file = sources.add(*path, body);
        if let Some(s) = spec::load(file, body, &mut diags) {
            loaded.push((file, s));
        }
    }
    let model = model::resolve(&loaded, &sources, &mut diags);
    let rendered = diags.render(&sources);
    if show {
        eprintln!("{rendered}");
    }
    if !diags.has_errors() {
        for (_, tool) in model.tools() {
            let _ = describe::tool_description(tool);
        }
    }
    let mut problems = Vec::new();
    for d in diags.iter().filter(|d| d.severity == Severity::Error) {
        let file = d.span.file;
        if file >= sources.len() {
            problems.push(format!("[{}] names file {file}", d.code));
            continue;
        }
        let lines = sources.get(file).text.split('\n').count();
        let pos = d.span.pos;
        if pos.line < 1 || pos.column < 1 || pos.line as usize > lines {
            problems.push(format!(
                "[{}] {} at line {} column {} (file has {lines} lines)",
                d.code, d.message, pos.line, pos.column
            ));
        }
    }
    problems
}

thread_local! {
    /// Set while a mutant runs: its panic is recorded here instead of printed.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    static QUIET: RefCell<bool> = const { RefCell::new(false) };
}

fn install_panic_recorder() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if QUIET.with(|q| *q.borrow()) {
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{at}")));
        } else {
            default(info);
        }
    }));
}

/// The originals are clean, so every error a mutant gets comes from its mutation.
#[test]
fn the_example_specs_load_without_errors() {
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let mut loaded = Vec::new();
    for (path, text) in SPECS {
        let file = sources.add(path, text);
        loaded.extend(spec::load(file, text, &mut diags).map(|s| (file, s)));
    }
    let model = model::resolve(&loaded, &sources, &mut diags);
    assert!(diags.is_empty(), "{}", diags.render(&sources));
    assert_eq!(model.toolsets.len(), SPECS.len());
}

/// Inputs built to hurt a parser: deep nesting, alias bombs, huge scalars and keys. Each must
/// be refused (or loaded) with located errors, without a panic or a stack overflow.
#[test]
fn hostile_inputs_are_refused_with_located_errors() {
    let laughs = {
        let mut s = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let _ = std::fmt::Write::write_fmt(
                &mut s,
                format_args!(
                    "{}: &{} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n",
                    (b'a' + i) as char,
                    (b'a' + i) as char,
                    p = (b'a' + i - 1) as char
                ),
            );
        }
        s
    };
    let cases: Vec<(&str, String)> = vec![
        (
            "deep flow nesting",
            format!("tools: {}", "[".repeat(10_000)),
        ),
        (
            "deep block nesting",
            (0..200)
                .map(|i| format!("{}k{i}:\n", " ".repeat(i * 2)))
                .collect(),
        ),
        ("alias bomb", laughs),
        (
            "huge scalar",
            format!("toolspec: 1\nservice: {}\n", "x".repeat(2_000_000)),
        ),
        ("huge number", format!("toolspec: {}\n", "9".repeat(5_000))),
        (
            "many keys",
            (0..3_000).map(|i| format!("k{i}: v\n")).collect(),
        ),
        ("only a tab", "\t".to_string()),
        ("a byte-order mark", "\u{feff}toolspec: 1\n".to_string()),
        ("nul bytes", "toolspec: 1\u{0}\u{0}\n".to_string()),
        (
            "two documents",
            format!("{}---\n{}", SPECS[0].1, SPECS[0].1),
        ),
        (
            "merge key into a tool",
            SPECS[0].1.replace(
                "  - name: tickets_get",
                "  - <<: {extra: 1}\n    name: tickets_get",
            ),
        ),
    ];
    for (what, text) in cases {
        // Printed first: a stack overflow aborts the process without naming the case.
        eprintln!("hostile input: {what}");
        let started = std::time::Instant::now();
        let problems = check_mutant_text(&text);
        eprintln!("  took {:?}", started.elapsed());
        assert!(problems.is_empty(), "{what}: {problems:?}");
    }
}

/// Loads one text on its own; returns errors without a location.
fn check_mutant_text(text: &str) -> Vec<String> {
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let file = sources.add("hostile.yaml", text);
    let loaded: Vec<_> = spec::load(file, text, &mut diags)
        .map(|s| (file, s))
        .into_iter()
        .collect();
    model::resolve(&loaded, &sources, &mut diags);
    let _ = diags.render(&sources);
    let lines = text.split('\n').count();
    diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter(|d| {
            d.span.pos.line < 1 || d.span.pos.column < 1 || d.span.pos.line as usize > lines
        })
        .map(|d| {
            format!(
                "[{}] {} at {}:{}",
                d.code, d.message, d.span.pos.line, d.span.pos.column
            )
        })
        .collect()
}

/// Runs the mutants of these seeds; returns how many differ from their spec, and failures.
fn run_seeds(seeds: impl Iterator<Item = u64>) -> (u64, Vec<String>) {
    let mut failures = Vec::new();
    let mut changed = 0;
    for seed in seeds {
        let (which, text, done) = mutant(seed);
        if text != SPECS[which].1 {
            changed += 1;
        }
        QUIET.with(|q| *q.borrow_mut() = true);
        let outcome = catch_unwind(AssertUnwindSafe(|| check_mutant(which, &text, false)));
        QUIET.with(|q| *q.borrow_mut() = false);
        match outcome {
            Ok(problems) if problems.is_empty() => {}
            Ok(problems) => failures.push(format!(
                "seed {seed} ({}, {done:?}): errors without a location: {problems:?}",
                SPECS[which].0
            )),
            Err(_) => {
                let msg = PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
                failures.push(format!(
                    "seed {seed} ({}, {done:?}): PANIC {msg}",
                    SPECS[which].0
                ));
            }
        }
    }
    (changed, failures)
}

#[test]
fn mutated_specs_never_panic_and_every_error_has_a_location() {
    if let Some(seed) = std::env::var("MUTATION_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        let (which, text, done) = mutant(seed);
        eprintln!("seed {seed}: {} after {done:?}:\n{text}\n", SPECS[which].0);
        let problems = check_mutant(which, &text, true);
        assert!(problems.is_empty(), "{problems:#?}");
        return;
    }
    let count = std::env::var("MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_MUTATIONS);
    install_panic_recorder();
    // One worker per core: each takes every `workers`-th seed, so the set of mutants (and any
    // failure's seed) does not depend on how many cores ran them.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(8)) as u64;
    let results: Vec<(u64, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| scope.spawn(move || run_seeds((w..count).step_by(workers as usize))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker thread"))
            .collect()
    });
    let changed: u64 = results.iter().map(|(c, _)| c).sum();
    let mut failures: Vec<String> = results.into_iter().flat_map(|(_, f)| f).collect();
    failures.sort();
    assert!(
        changed * 10 >= count * 9,
        "only {changed} of {count} mutants differ from their spec: the mutator is broken"
    );
    assert!(
        failures.is_empty(),
        "{} of {count} mutants failed (replay one with MUTATION_SEED=<seed>):\n{}",
        failures.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
