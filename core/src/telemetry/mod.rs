//! What every generated server records about its calls: metrics through the
//! [`metrics`](https://docs.rs/metrics) facade, so you pick the exporter (Prometheus,
//! StatsD, OpenTelemetry...), and one `tracing` span per call, so OpenTelemetry users get
//! traces. ADR-23 names what to watch to know whether a tool's design works: adoption of
//! new names over deprecated ones, response sizes, truncation, formats, errors, retries,
//! empty searches. [`METRICS`] is the list, and the one place each name, label and unit is
//! written: the recording code and the documentation table ([`markdown_table`]) both read
//! it.
//!
//! Nothing needs wiring in generated code. Install a recorder before the server's first
//! call, and the calls show up:
//!
//! ```no_run
//! # #[cfg(any())] {
//! let prometheus = metrics_exporter_prometheus::PrometheusBuilder::new().install_recorder()?;
//! toolspec_runtime::telemetry::describe(); // HELP lines and units for every metric
//! // ... serve; on each scrape:
//! toolspec_runtime::telemetry::flush();
//! let text = prometheus.render();
//! # }
//! ```
//!
//! **Labels are bounded.** They carry tool names, the deprecated alias a call used (both
//! compiled in), error codes (the spec's catalog and the built-in ones), response formats
//! and preview outcomes: never an argument value, so no label grows with traffic and none
//! holds personal data. An error code that is not a plain identifier is counted as `other`,
//! and so is any code made at run time (not compiled in) past the first 256 different ones.
//!
//! **The call does not wait for the recorder.** A histogram sample costs an exporter some
//! tens of nanoseconds (Prometheus: about 33 ns each), and a trivial call through the
//! generated layer takes about 470 ns, so recording in line would add a fifth to it. A call
//! instead reads a cycle counter twice and puts one 56-byte sample on its thread's ring; a
//! background thread hands the samples to the recorder (within a millisecond under load,
//! at once when a ring is half full, 20 ms when idle), and [`flush`] does it at once: call
//! it before rendering a scrape, so that what you read includes every call that has
//! answered. A full ring (a recorder that
//! cannot keep up) makes the call empty the rings itself: no sample is dropped. A process
//! killed outright loses the samples not yet handed over (at most the last 20 ms).
//! Install the recorder before the first call: the handles are taken from the recorder
//! installed at a metric's first sample, as the facade's own macros do at each call site.
//!
//! The span is `tool_call`, with fields `tool`, `called_as`, `format` and `result`, at
//! `INFO`; it covers validation, the method and shaping. A call through a deprecated alias
//! also logs a `WARN` event, once per alias per process, naming the tool to call instead.

mod ring;
mod sink;

use std::borrow::Cow;

use crate::shape::ResponseFormat;

/// What kind of metric a [`Metric`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only goes up.
    Counter,
    /// A distribution of recorded values.
    Histogram,
}

impl Kind {
    /// `counter` or `histogram`, as the table writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Histogram => "histogram",
        }
    }
}

/// One metric the generated layer records: its name, labels, unit and meaning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metric {
    /// The name, as the exporter shows it (Prometheus adds nothing to it).
    pub name: &'static str,
    /// Counter or histogram.
    pub kind: Kind,
    /// The label names, in the order the table lists them.
    pub labels: &'static [&'static str],
    /// The unit of a histogram's values (`seconds`, `tokens`, `items`), `calls` or `events`
    /// for counters.
    pub unit: &'static str,
    /// What one increment or sample means.
    pub help: &'static str,
    /// Histograms: bucket bounds that fit the values (give them to your exporter, as the
    /// example server does with Prometheus); empty for counters.
    pub buckets: &'static [f64],
}

/// `tool_calls_total{tool, called_as, result}`.
pub const CALLS: Metric = Metric {
    name: "tool_calls_total",
    kind: Kind::Counter,
    labels: &["tool", "called_as", "result"],
    unit: "calls",
    help: "Calls that reached a tool, by canonical name, the name the client used (the tool's or a deprecated alias) and `ok` or the error code.",
    buckets: &[],
};
/// `tool_call_duration_seconds{tool, format}`.
pub const DURATION: Metric = Metric {
    name: "tool_call_duration_seconds",
    kind: Kind::Histogram,
    labels: &["tool", "format"],
    unit: "seconds",
    help: "Time from the call reaching the generated layer to its answer: validation, the method, paging and shaping. `format` is `concise` or `detailed` as served (`detailed` for tools without `response_format`).",
    buckets: &[
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
    ],
};
/// `tool_response_tokens{tool, format}`.
pub const RESPONSE_TOKENS: Metric = Metric {
    name: "tool_response_tokens",
    kind: Kind::Histogram,
    labels: &["tool", "format"],
    unit: "tokens",
    help: "Estimated tokens of each successful result's structured content (compact JSON bytes / 3, the estimate token budgets use).",
    buckets: &[
        25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2000.0, 4000.0, 8000.0, 16000.0,
    ],
};
/// `tool_truncations_total{tool}`.
pub const TRUNCATIONS: Metric = Metric {
    name: "tool_truncations_total",
    kind: Kind::Counter,
    labels: &["tool"],
    unit: "calls",
    help: "Results cut to fit the tool's token budget (they carry `truncated`).",
    buckets: &[],
};
/// `tool_idempotent_replays_total{tool}`.
pub const REPLAYS: Metric = Metric {
    name: "tool_idempotent_replays_total",
    kind: Kind::Counter,
    labels: &["tool"],
    unit: "calls",
    help: "Calls answered with the stored outcome of an earlier call with the same idempotency key and arguments (nothing ran again).",
    buckets: &[],
};
/// `tool_retries_total{tool}`.
pub const RETRIES: Metric = Metric {
    name: "tool_retries_total",
    kind: Kind::Counter,
    labels: &["tool"],
    unit: "calls",
    help: "Calls whose idempotency key was seen before: replays, calls refused `idempotency_in_progress` and calls refused `idempotency_key_reused`.",
    buckets: &[],
};
/// `tool_previews_total{tool, outcome}`.
pub const PREVIEWS: Metric = Metric {
    name: "tool_previews_total",
    kind: Kind::Counter,
    labels: &["tool", "outcome"],
    unit: "previews",
    help: "What became of previews: `applied` (a call applied one, by `preview_id` or the person's yes), `declined` (a call answered `approval_declined`), `expired` (a call answered `preview_expired`), `unused` (purged after expiry without being applied or declined; counted by `Runtime::purge_expired`).",
    buckets: &[],
};
/// `tool_page_items{tool}`.
pub const PAGE_ITEMS: Metric = Metric {
    name: "tool_page_items",
    kind: Kind::Histogram,
    labels: &["tool"],
    unit: "items",
    help: "Items in each successful page of a paged tool, after the token budget.",
    buckets: &[0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0],
};
/// `tool_search_empty_total{tool}`.
pub const SEARCH_EMPTY: Metric = Metric {
    name: "tool_search_empty_total",
    kind: Kind::Counter,
    labels: &["tool"],
    unit: "calls",
    help: "Successful calls of a paged tool that returned no items.",
    buckets: &[],
};

/// Every metric the generated layer records, in the order the table lists them.
pub const METRICS: &[Metric] = &[
    CALLS,
    DURATION,
    RESPONSE_TOKENS,
    TRUNCATIONS,
    REPLAYS,
    RETRIES,
    PREVIEWS,
    PAGE_ITEMS,
    SEARCH_EMPTY,
];

/// [`METRICS`] as a Markdown table (name, kind, labels, unit, meaning): what the user
/// guide's Serving chapter shows, written from the same constants the recording code uses.
///
/// ```
/// let table = toolspec_runtime::telemetry::markdown_table();
/// assert!(table.contains("| `tool_calls_total` | counter | `tool`, `called_as`, `result` |"));
/// ```
pub fn markdown_table() -> String {
    let mut out =
        String::from("| metric | kind | labels | unit | what it counts |\n|---|---|---|---|---|\n");
    for m in METRICS {
        let labels: Vec<String> = m.labels.iter().map(|l| format!("`{l}`")).collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            m.name,
            m.kind.as_str(),
            labels.join(", "),
            m.unit,
            m.help
        ));
    }
    out
}

/// Hands every sample recorded so far, on every thread, to the installed recorder. Call it
/// before rendering a scrape; the background thread does it within 20 ms anyway.
pub fn flush() {
    ring::drain();
}

/// Describes every metric of [`METRICS`] to the installed recorder (Prometheus shows the
/// help as `# HELP` and the histogram units). Call it once, after installing the recorder.
pub fn describe() {
    sink::describe();
}

/// How a preview ended, for [`PREVIEWS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PreviewOutcome {
    Applied = 0,
    Declined = 1,
    Expired = 2,
}

impl PreviewOutcome {
    fn label(self) -> &'static str {
        match self {
            PreviewOutcome::Applied => "applied",
            PreviewOutcome::Declined => "declined",
            PreviewOutcome::Expired => "expired",
        }
    }
}

/// The cycle-counter reading a call starts from ([`CallSample::elapsed`]).
pub(crate) fn now() -> u64 {
    ring::clock().raw()
}

/// Everything one finished call tells the metrics, as the generated layer saw it.
///
/// Kept to 56 bytes (a test holds it there): every call writes one onto its thread's ring
/// and another core reads it back, so its size is much of what the push costs the call (in
/// the dispatch bench, pushing a 112-byte sample cost about 0.045 of a trivial call, a
/// 32-byte one nothing measurable). Names are references to the compiled-in `&'static str`
/// fields of the tool's definition, so that the sink can key its handles by address.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallSample {
    /// The tool's canonical name.
    pub(crate) tool: &'static &'static str,
    /// The tool's name or the deprecated alias the client used.
    pub(crate) called_as: &'static &'static str,
    /// `None` for a result, else the error code's label ([`error_label`]).
    pub(crate) error: Option<&'static str>,
    /// Cycle-counter ticks from the start of the call to its answer (see [`now`]).
    pub(crate) elapsed: u64,
    /// Estimated tokens of a successful result (saturating).
    pub(crate) tokens: u32,
    /// Paged tools: the items of a successful page (see [`CallSample::paged`]).
    pub(crate) items: u32,
    /// Whether `items` counts a page (a successful call of a paged tool).
    pub(crate) paged: bool,
    pub(crate) format: ResponseFormat,
    pub(crate) truncated: bool,
    pub(crate) replayed: bool,
    pub(crate) retried: bool,
    pub(crate) preview: Option<PreviewOutcome>,
}

/// Records one finished call that started at `started` ([`now`]): on this thread's ring,
/// for the background thread.
pub(crate) fn record(mut sample: CallSample, started: u64) {
    sample.elapsed = now().saturating_sub(started);
    ring::push(sample);
}

/// Counts previews of `tool` purged after expiry without being applied or declined.
pub(crate) fn unused_previews(tool: &str, count: u64) {
    sink::unused_previews(tool, count);
}

/// Logs, once per alias per process, that `alias` is deprecated in favour of `tool`.
pub(crate) fn deprecated_alias(alias: &'static str, tool: &'static str) {
    use std::collections::BTreeSet;
    use std::sync::{Mutex, OnceLock};
    static WARNED: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let first = WARNED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(alias);
    if first {
        tracing::warn!(
            alias,
            tool,
            "tool name {alias} is deprecated: clients should call {tool}"
        );
    }
}

/// The label for an error code: the code when it is a plain identifier (every catalog and
/// built-in code is), else `other`, so that no label can grow without bound.
///
/// A compiled-in code (`Cow::Borrowed`, as the catalog's and the runtime's are) is its own
/// label at no cost. A code made at run time is kept once for the life of the process, up
/// to [`MAX_OWNED_CODES`] different ones; past that, it is counted as `other`.
pub(crate) fn error_label(code: &Cow<'static, str>) -> &'static str {
    #![allow(clippy::ptr_arg)] // whether the code is borrowed is what tells a kept one apart
    let plain = !code.is_empty()
        && code.len() <= 64
        && code
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    match code {
        _ if !plain => "other",
        Cow::Borrowed(code) => code,
        Cow::Owned(code) => kept(code),
    }
}

/// How many different run-time error codes are kept as labels.
const MAX_OWNED_CODES: usize = 256;

/// `code` as a `&'static str`: the one kept copy, made on first sight.
fn kept(code: &str) -> &'static str {
    use std::collections::BTreeSet;
    use std::sync::Mutex;
    static KEPT: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(known) = kept.get(code) {
        return known;
    }
    if kept.len() >= MAX_OWNED_CODES {
        return "other";
    }
    // Bounded above: at most MAX_OWNED_CODES strings of at most 64 bytes, for the process.
    let leaked: &'static str = Box::leak(code.to_owned().into_boxed_str());
    kept.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_that_are_not_identifiers_are_other() {
        let label = |c: &'static str| error_label(&Cow::Borrowed(c));
        assert_eq!(label("not_found"), "not_found");
        assert_eq!(label("Not Found"), "other");
        assert_eq!(label(""), "other");
        let long: &'static str = Box::leak("a".repeat(65).into_boxed_str());
        assert_eq!(label(long), "other");
    }

    #[test]
    fn run_time_codes_are_kept_once_and_bounded() {
        let owned = |c: &str| error_label(&Cow::Owned(c.to_owned()));
        let first = owned("made_at_run_time");
        assert_eq!(first, "made_at_run_time");
        assert!(std::ptr::eq(first, owned("made_at_run_time")), "one copy");
        assert_eq!(owned("Made At Run Time"), "other");
        for i in 0..MAX_OWNED_CODES {
            owned(&format!("code_{i}"));
        }
        assert_eq!(owned("one_too_many"), "other");
        assert_eq!(
            owned("made_at_run_time"),
            "made_at_run_time",
            "kept ones stay"
        );
    }

    #[test]
    fn a_sample_stays_small() {
        assert!(std::mem::size_of::<CallSample>() <= 56);
    }

    #[test]
    fn every_metric_is_in_the_table_once() {
        let table = markdown_table();
        for m in METRICS {
            assert_eq!(
                table.matches(&format!("| `{}` |", m.name)).count(),
                1,
                "{}",
                m.name
            );
        }
        let names: std::collections::BTreeSet<_> = METRICS.iter().map(|m| m.name).collect();
        assert_eq!(names.len(), METRICS.len());
    }
}
