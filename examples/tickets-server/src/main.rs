//! `tickets-server --db PATH|URL [--demo] [--http ADDR [--auth-issuer URL [--auth-audience
//! URL] | --no-auth]] [--metrics ADDR] [--lease SECS] [--mailbox FILE] [--slow-writes MS]
//! [--slow-exports MS]`:
//! serve the tickets toolset over MCP.
//!
//! Over stdio by default (what desktop hosts start), or streamable HTTP at `http://ADDR/mcp`
//! with `--http`, with Prometheus metrics at `/metrics` beside it (or at `--metrics ADDR`).
//! With `--auth-issuer` every HTTP request needs an OAuth access token from that issuer.
//! Logs go to standard error, never standard output.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use toolspec_runtime::mcp::auth::Authorization;
use toolspec_runtime::mcp::rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use toolspec_runtime::mcp::{Access, HttpGuard, serve_http_guarded};
use toolspec_runtime::prelude::{McpServer, serve_stdio};

const USAGE: &str = "usage: tickets-server --db PATH|URL [--demo] [--http ADDR [--stateless]
                      [--auth-issuer URL [--auth-audience URL] | --no-auth]]
                      [--metrics ADDR] [--lease SECS] [--mailbox FILE] [--slow-writes MS]
                      [--slow-exports MS]

  --db PATH       SQLite file for tickets, idempotency keys, previews, approvals and the
                  email outbox (created if absent; servers on one machine may share it)
  --db URL        postgres://USER@HOST:PORT/DB: the same in PostgreSQL, shared by replicas
                  on any machine (tables created if absent)
  --demo          seed the 23 demo tickets T-1000..T-1022 if they are not there yet
  --http ADDR     serve streamable HTTP at http://ADDR/mcp instead of stdio
  --stateless     keep no HTTP sessions, so any replica behind a load balancer can answer
                  any request (2026-07-28 requests never have one; for older clients this
                  gives up server-to-client requests: approvals fall back to the preview)
  --auth-issuer URL  accept only OAuth access tokens (JWT, RFC 9068) from this issuer,
                  written exactly as its tokens' `iss` (https, or http on loopback); reads
                  need the scope tickets:read, writes tickets:write
  --auth-audience URL  the resource tokens must be issued for (default http://ADDR/mcp)
  --no-auth       serve a non-loopback ADDR without authorization (anyone who reaches it may
                  call every tool); without it such an ADDR needs --auth-issuer
  --metrics ADDR  serve Prometheus metrics at http://ADDR/metrics (with --http they are also
                  at http://ADDR/metrics of the MCP address)
  --lease SECS    how long a call holds its idempotency key between renewals (renewed while
                  its write runs; a key whose process died is free this long after; default 6)
  --mailbox FILE  append each customer email to FILE as a JSON line instead of logging it
  --slow-writes MS  (a test hook) make each ticket creation wait MS before it writes
  --slow-exports MS  (a test hook) make an export wait MS after each ticket";

struct Args {
    db: String,
    demo: bool,
    http: Option<String>,
    stateless: bool,
    auth_issuer: Option<String>,
    auth_audience: Option<String>,
    no_auth: bool,
    metrics: Option<String>,
    lease: Duration,
    slow: tickets_server::Slowness,
    mailbox: Option<PathBuf>,
}

/// A test hook's number of milliseconds.
fn millis(arg: Option<String>, flag: &str) -> Result<Duration, String> {
    arg.and_then(|s| s.parse::<u64>().ok())
        .map(Duration::from_millis)
        .ok_or_else(|| format!("{flag} needs a number of milliseconds, like 8000"))
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut db, mut demo, mut http, mut mailbox) = (None, false, None, None);
    let mut stateless = false;
    let (mut auth_issuer, mut auth_audience, mut no_auth) = (None, None, false);
    let mut metrics = None;
    let mut lease = toolspec_runtime::engine::DEFAULT_LEASE;
    let mut slow = tickets_server::Slowness::default();
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
            "--no-auth" => no_auth = true,
            "--auth-issuer" => {
                auth_issuer =
                    Some(args.next().ok_or(
                        "--auth-issuer needs the issuer's URL, like https://auth.example.com",
                    )?)
            }
            "--auth-audience" => {
                auth_audience = Some(args.next().ok_or(
                    "--auth-audience needs this server's URL, like https://tickets.example.com/mcp",
                )?)
            }
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
            "--slow-writes" => slow.writes = millis(args.next(), "--slow-writes")?,
            "--slow-exports" => slow.exports = millis(args.next(), "--slow-exports")?,
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
    if http.is_none() && (auth_issuer.is_some() || no_auth) {
        return Err(
            "--auth-issuer and --no-auth are for --http (over stdio the host's user calls)".into(),
        );
    }
    if auth_issuer.is_some() && no_auth {
        return Err("--auth-issuer and --no-auth contradict each other: give one".into());
    }
    if auth_audience.is_some() && auth_issuer.is_none() {
        return Err("--auth-audience needs --auth-issuer".into());
    }
    Ok(Args {
        db: db.ok_or("--db PATH or --db postgres://... is required")?,
        demo,
        http,
        stateless,
        auth_issuer,
        auth_audience,
        no_auth,
        metrics,
        lease,
        slow,
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

/// Who may call over HTTP at `addr`, and the host names requests may then carry besides
/// loopback ones (the audience's, so a proxy or a public name works).
fn access(args: &Args, addr: &str) -> Result<(Access, Vec<String>), String> {
    if args.no_auth {
        return Ok((Access::Open, Vec::new()));
    }
    let Some(issuer) = &args.auth_issuer else {
        return Ok((Access::Local, Vec::new()));
    };
    let audience = args
        .auth_audience
        .clone()
        .unwrap_or_else(|| format!("http://{addr}/mcp"));
    let auth = Authorization::new(issuer.as_str(), audience.as_str()).map_err(|e| e.to_string())?;
    eprintln!("tickets-server: accepting access tokens from {issuer} for {audience}");
    let host = audience
        .split_once("://")
        .and_then(|(_, rest)| rest.split('/').next())
        .unwrap_or_default();
    let bare = host.rsplit_once(':').map_or(host, |(name, _)| name);
    Ok((Access::Bearer(auth), vec![host.to_owned(), bare.to_owned()]))
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
    let server = match tickets_server::open(&args.db, args.demo, args.lease, args.slow).await {
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
            // ANCHOR: http
            let mut config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(!args.stateless)
                .with_json_response(args.stateless);
            let mut guard = HttpGuard::with_limits(mcp.toolset().limits());
            match access(&args, addr) {
                Ok((access, hosts)) => {
                    guard.access = access;
                    config.allowed_hosts.extend(hosts);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
            serve_http_guarded(mcp, addr.as_str(), config, guard, metrics.router()).await
            // ANCHOR_END: http
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
