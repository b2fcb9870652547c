//! `tickets-server --db PATH|URL [--demo] [--http ADDR] [--metrics ADDR] [--lease SECS]
//! [--mailbox FILE]`: serve the tickets toolset over MCP.
//!
//! Over stdio by default (what desktop hosts start), or streamable HTTP at `http://ADDR/mcp`
//! with `--http`, with Prometheus metrics at `/metrics` beside it (or at `--metrics ADDR`).
//! Logs go to standard error, never standard output.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use toolspec_runtime::mcp::rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use toolspec_runtime::mcp::serve_http_beside;
use toolspec_runtime::prelude::{McpServer, serve_stdio};

const USAGE: &str =
    "usage: tickets-server --db PATH|URL [--demo] [--http ADDR [--stateless]] [--metrics ADDR]
                      [--lease SECS] [--mailbox FILE]

  --db PATH       SQLite file for tickets, idempotency keys, previews, approvals and the
                  email outbox (created if absent; servers on one machine may share it)
  --db URL        postgres://USER@HOST:PORT/DB: the same in PostgreSQL, shared by replicas
                  on any machine (tables created if absent)
  --demo          seed the 23 demo tickets T-1000..T-1022 if they are not there yet
  --http ADDR     serve streamable HTTP at http://ADDR/mcp instead of stdio
  --stateless     keep no HTTP sessions, so any replica behind a load balancer can answer
                  any request (2026-07-28 requests never have one; for older clients this
                  gives up server-to-client requests: approvals fall back to the preview)
  --metrics ADDR  serve Prometheus metrics at http://ADDR/metrics (with --http they are also
                  at http://ADDR/metrics of the MCP address)
  --lease SECS    how long a call holds its idempotency key before a retry may take it
                  over (default 30)
  --mailbox FILE  append each customer email to FILE as a JSON line instead of logging it";

struct Args {
    db: String,
    demo: bool,
    http: Option<String>,
    stateless: bool,
    metrics: Option<String>,
    lease: Duration,
    mailbox: Option<PathBuf>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut db, mut demo, mut http, mut mailbox) = (None, false, None, None);
    let mut stateless = false;
    let mut metrics = None;
    let mut lease = toolspec_runtime::engine::DEFAULT_LEASE;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--db" => {
                db = Some(
                    args.next()
                        .ok_or("--db needs a file path or a postgres:// URL")?,
                )
            }
            "--demo" => demo = true,
            "--stateless" => stateless = true,
            "--metrics" => {
                metrics = Some(
                    args.next()
                        .ok_or("--metrics needs an address like 127.0.0.1:9464")?,
                )
            }
            "--http" => {
                http = Some(
                    args.next()
                        .ok_or("--http needs an address like 127.0.0.1:8080")?,
                )
            }
            "--lease" => {
                let secs: f64 = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or("--lease needs a positive number of seconds, like 30")?;
                lease = Duration::from_secs_f64(secs);
            }
            "--mailbox" => {
                mailbox = Some(PathBuf::from(
                    args.next().ok_or("--mailbox needs a file path")?,
                ))
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if stateless && http.is_none() {
        return Err("--stateless is for --http (stdio has no sessions)".into());
    }
    Ok(Args {
        db: db.ok_or("--db PATH or --db postgres://... is required")?,
        demo,
        http,
        stateless,
        metrics,
        lease,
        mailbox,
    })
}

/// `db` as it may be printed: a URL's password left out.
fn shown(db: &str) -> String {
    match (tickets_server::is_postgres(db), db.split_once('@')) {
        (true, Some((user, host))) => match user.split_once("://") {
            Some((scheme, name)) => {
                let name = name.split(':').next().unwrap_or_default();
                format!("{scheme}://{name}@{host}")
            }
            None => db.to_string(),
        },
        _ => db.to_string(),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    // Warnings (a deprecated tool name called, once per name) on standard error.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .init();
    // Before the first call, so that every call is counted.
    let metrics = match tickets_server::Metrics::install() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    if let Some(addr) = &args.metrics {
        let listener = metrics.clone();
        let addr = addr.clone();
        eprintln!("tickets-server: serving metrics at http://{addr}/metrics");
        tokio::spawn(async move {
            if let Err(e) = listener.serve(&addr).await {
                eprintln!("error: metrics at {addr}: {e}");
                std::process::exit(1);
            }
        });
    }
    let server = match tickets_server::open(&args.db, args.demo, args.lease).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot open {}: {e}", shown(&args.db));
            return ExitCode::from(1);
        }
    };
    tokio::spawn(tickets_server::purge_expired(
        server.runtime().clone(),
        Duration::from_secs(60),
    ));
    tokio::spawn(tickets_server::deliver_emails(
        server.runtime().clone(),
        args.mailbox.clone(),
    ));
    let mcp = match McpServer::new(
        Arc::new(server),
        "tickets-server",
        env!("CARGO_PKG_VERSION"),
    ) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let result = match &args.http {
        Some(addr) => {
            let mode = if args.stateless { " (stateless)" } else { "" };
            eprintln!("tickets-server: serving MCP at http://{addr}/mcp{mode}");
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(!args.stateless)
                .with_json_response(args.stateless);
            serve_http_beside(mcp, addr.as_str(), config, metrics.router()).await
        }
        None => serve_stdio(mcp).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
