//! The metrics table and the dashboard are written from [`toolspec_runtime::telemetry`]:
//! the user guide's table (docs/guide/src/serving.md) is the one the code prints, and the
//! Grafana dashboard queries every metric and only those.

use std::collections::BTreeSet;
use std::path::PathBuf;

use toolspec_runtime::telemetry::{self, Kind, METRICS};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

const START: &str =
    "<!-- metrics table: written by toolspec_runtime::telemetry::markdown_table -->\n";
const END: &str = "<!-- end of metrics table -->";

#[test]
fn the_guide_shows_the_table_the_code_records() {
    let path = workspace().join("docs/guide/src/serving.md");
    let readme = std::fs::read_to_string(&path).expect("the guide's serving chapter");
    let start = readme
        .find(START)
        .expect("the serving chapter has the metrics table's start marker")
        + START.len();
    let end = start + readme[start..].find(END).expect("and its end marker");
    let table = telemetry::markdown_table();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let updated = format!("{}{table}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).expect("write the serving chapter");
        return;
    }
    assert_eq!(
        &readme[start..end],
        table,
        "the guide's metrics table (docs/guide/src/serving.md) is stale: rerun with UPDATE_GOLDEN=1"
    );
}

#[test]
fn the_dashboard_queries_every_metric_and_only_those() {
    let path = workspace().join("examples/tickets-server/grafana/toolspec-dashboard.json");
    let text = std::fs::read_to_string(&path).expect("dashboard");
    let dashboard: serde_json::Value = serde_json::from_str(&text).expect("the dashboard is JSON");
    let exprs: Vec<&str> = dashboard["panels"]
        .as_array()
        .expect("panels")
        .iter()
        .flat_map(|p| p["targets"].as_array().expect("targets"))
        .map(|t| t["expr"].as_str().expect("expr"))
        .collect();
    let mut queried = BTreeSet::new();
    for expr in &exprs {
        for word in expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if !word.starts_with("tool_") {
                continue;
            }
            let metric = METRICS.iter().find(|m| {
                word == m.name
                    || (m.kind == Kind::Histogram
                        && ["_bucket", "_count", "_sum"]
                            .iter()
                            .any(|s| word.strip_suffix(s) == Some(m.name)))
            });
            let metric = metric
                .unwrap_or_else(|| panic!("the dashboard queries `{word}`, which nothing records"));
            queried.insert(metric.name);
        }
    }
    let all: BTreeSet<&str> = METRICS.iter().map(|m| m.name).collect();
    assert_eq!(queried, all, "every metric has a panel");
    // Importable: it asks for its data source instead of naming one of ours.
    assert_eq!(dashboard["__inputs"][0]["pluginId"], "prometheus");
    assert!(!text.contains("\"uid\": \"prometheus\""));
}

#[test]
fn histograms_have_rising_buckets_and_counters_none() {
    for m in METRICS {
        match m.kind {
            Kind::Counter => assert!(m.buckets.is_empty(), "{}", m.name),
            Kind::Histogram => {
                assert!(!m.buckets.is_empty(), "{}", m.name);
                assert!(m.buckets.windows(2).all(|w| w[0] < w[1]), "{}", m.name);
            }
        }
        assert!(m.name.starts_with("tool_"), "{}", m.name);
        assert_eq!(
            m.kind == Kind::Counter,
            m.name.ends_with("_total"),
            "{}",
            m.name
        );
    }
}
