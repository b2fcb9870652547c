//! The metrics every call records ([`toolspec_runtime::telemetry`]) as Prometheus text,
//! at `GET /metrics`: beside `/mcp` when serving HTTP, on an address of its own with
//! `--metrics ADDR` (a stdio server has no port).

use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::telemetry;

/// The path Prometheus scrapes.
pub const METRICS_PATH: &str = "/metrics";

/// The installed Prometheus recorder.
#[derive(Clone)]
pub struct Metrics {
    handle: PrometheusHandle,
}

impl Metrics {
    /// Installs the process's recorder, with each histogram's buckets from the metrics
    /// table, and keeps its histograms compacted (every 5 s, as its own HTTP listener
    /// would). Call it before the first tool call.
    pub fn install() -> Result<Self, String> {
        let mut builder = PrometheusBuilder::new();
        for metric in telemetry::METRICS {
            if !metric.buckets.is_empty() {
                builder = builder
                    .set_buckets_for_metric(Matcher::Full(metric.name.into()), metric.buckets)
                    .map_err(|e| format!("buckets of {}: {e}", metric.name))?;
            }
        }
        let handle = builder
            .install_recorder()
            .map_err(|e| format!("installing the metrics recorder: {e}"))?;
        telemetry::describe();
        let upkeep = handle.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(5)).await;
                upkeep.run_upkeep();
            }
        });
        Ok(Self { handle })
    }

    /// The Prometheus text of every metric, including every call that has answered.
    pub fn render(&self) -> String {
        telemetry::flush();
        self.handle.render()
    }

    /// `GET /metrics`, to serve beside `/mcp` or on its own.
    pub fn router(&self) -> axum::Router {
        let metrics = self.clone();
        axum::Router::new().route(
            METRICS_PATH,
            axum::routing::get(move || {
                let metrics = metrics.clone();
                async move {
                    (
                        [("content-type", "text/plain; version=0.0.4; charset=utf-8")],
                        metrics.render(),
                    )
                }
            }),
        )
    }

    /// Serves [`Metrics::router`] at `addr` until the process ends.
    pub async fn serve(self, addr: &str) -> std::io::Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        axum::serve(listener, self.router()).await
    }
}

/// Forgets expired idempotency keys and previews once a minute, which also counts the
/// previews that went unused (`tool_previews_total{outcome="unused"}`).
pub async fn purge_expired(runtime: Runtime, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        if let Err(e) = runtime.purge_expired().await {
            eprintln!("tickets-server: purging expired records: {}", e.message);
        }
    }
}
