//! The one place samples meet the `metrics` facade: each [`super::Metric`] recorded by its
//! constant's name and labels.

use std::collections::HashMap;

use metrics::{Counter, Histogram, Unit, counter, describe_counter, describe_histogram, histogram};

use super::{
    CALLS, CallSample, DURATION, Kind, METRICS, Metric, PAGE_ITEMS, PREVIEWS, REPLAYS,
    RESPONSE_TOKENS, RETRIES, SEARCH_EMPTY, TRUNCATIONS,
};
use crate::shape::ResponseFormat;

/// The recorder's handles, so that a sample costs the recorder's increments, not a
/// registration (a label set built and looked up) for each metric.
pub(super) struct Sink {
    /// By the addresses of the tool's name and of the name it was called by ([`CallSample`]
    /// holds references to the definition's `&'static str` fields): each names one
    /// compiled-in string for the life of the process.
    tools: Option<HashMap<[usize; 2], ToolHandles>>,
}

/// One tool's handles, each registered when first needed (a tool that never truncates
/// shows no truncation series).
struct ToolHandles {
    ok: Counter,
    errors: HashMap<&'static str, Counter>,
    /// By format: concise, detailed.
    duration: [Option<Histogram>; 2],
    tokens: [Option<Histogram>; 2],
    page_items: Option<Histogram>,
    /// Search empty, truncations, replays, retries: [`EVENTS`]' order.
    events: [Option<Counter>; 4],
    /// Applied, declined, expired.
    previews: [Option<Counter>; 3],
}

/// The per-tool event counters, in [`ToolHandles::events`]' order.
const EVENTS: [&Metric; 4] = [&SEARCH_EMPTY, &TRUNCATIONS, &REPLAYS, &RETRIES];

impl Sink {
    pub(super) const fn new() -> Self {
        Self { tools: None }
    }

    /// Records one call's sample into the installed recorder.
    pub(super) fn record(&mut self, s: &CallSample) {
        let key = [
            std::ptr::from_ref(s.tool) as usize,
            std::ptr::from_ref(s.called_as) as usize,
        ];
        let (tool, called_as) = (*s.tool, *s.called_as);
        let handles = self.tools.get_or_insert_with(HashMap::new).entry(key).or_insert_with(|| {
            ToolHandles {
                ok: counter!(CALLS.name, "tool" => tool, "called_as" => called_as, "result" => "ok"),
                errors: HashMap::new(),
                duration: [None, None],
                tokens: [None, None],
                page_items: None,
                events: [None, None, None, None],
                previews: [None, None, None],
            }
        });
        match s.error {
            None => handles.ok.increment(1),
            Some(code) => {
                handles
                    .errors
                    .entry(code)
                    .or_insert_with(|| {
                        counter!(CALLS.name, "tool" => tool, "called_as" => called_as, "result" => code)
                    })
                    .increment(1);
            }
        }
        let format = s.format.as_str();
        let slot = usize::from(s.format == ResponseFormat::Detailed);
        let seconds = super::ring::clock().delta(0, s.elapsed).as_secs_f64();
        handles.duration[slot]
            .get_or_insert_with(|| histogram!(DURATION.name, "tool" => tool, "format" => format))
            .record(seconds);
        if s.error.is_none() {
            handles.tokens[slot]
                .get_or_insert_with(
                    || histogram!(RESPONSE_TOKENS.name, "tool" => tool, "format" => format),
                )
                .record(f64::from(s.tokens));
        }
        if s.paged {
            handles
                .page_items
                .get_or_insert_with(|| histogram!(PAGE_ITEMS.name, "tool" => tool))
                .record(f64::from(s.items));
        }
        let happened = [s.paged && s.items == 0, s.truncated, s.replayed, s.retried];
        for (i, metric) in EVENTS.iter().enumerate() {
            if happened[i] {
                let name = metric.name;
                handles.events[i]
                    .get_or_insert_with(|| counter!(name, "tool" => tool))
                    .increment(1);
            }
        }
        if let Some(outcome) = s.preview {
            let label = outcome.label();
            handles.previews[outcome as usize]
                .get_or_insert_with(|| counter!(PREVIEWS.name, "tool" => tool, "outcome" => label))
                .increment(1);
        }
    }
}

/// `count` previews of `tool` purged unused.
pub(super) fn unused_previews(tool: &str, count: u64) {
    counter!(PREVIEWS.name, "tool" => tool.to_owned(), "outcome" => "unused").increment(count);
}

pub(super) fn describe() {
    for m in METRICS {
        let unit = match m.unit {
            "seconds" => Some(Unit::Seconds),
            "calls" | "previews" | "items" | "tokens" => Some(Unit::Count),
            _ => None,
        };
        match (m.kind, unit) {
            (Kind::Counter, Some(unit)) => describe_counter!(m.name, unit, m.help),
            (Kind::Counter, None) => describe_counter!(m.name, m.help),
            (Kind::Histogram, Some(unit)) => describe_histogram!(m.name, unit, m.help),
            (Kind::Histogram, None) => describe_histogram!(m.name, m.help),
        }
    }
}
