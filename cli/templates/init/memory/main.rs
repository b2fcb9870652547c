//! `{{crate}} [--http [ADDR]] [--groups A,B] [--read-only]`: serves the tools of `{{service}}.yaml` over MCP.
//!
//! Over stdio by default (what desktop hosts start), or streamable HTTP at
//! `http://ADDR/mcp` with `--http`. Logs go to standard error: standard output is the
//! protocol's.

use std::process::ExitCode;
use std::sync::Arc;

use toolspec_runtime::engine::Served;
use toolspec_runtime::prelude::{McpServer, serve_http, serve_stdio};

const USAGE: &str = "usage: {{crate}} [OPTIONS]

  (items and records are kept in memory: a restart starts from the starter items)
  --http [ADDR]  serve streamable HTTP at http://ADDR/mcp instead of stdio (default ADDR
                 127.0.0.1:8080: loopback only, since there is no authorization)
  --groups A,B   serve only these groups of the spec's tools (default: all of them; or
                 set {{SERVICE}}_GROUPS)
  --read-only    serve no tool that changes anything (or set {{SERVICE}}_READ_ONLY=1)";

/// Where `--http` listens without an address.
const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// The command line.
struct Args {
    http: Option<String>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args { http: None };
    let mut args = args.by_ref().peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                // The address is optional: the next argument is one unless it is a flag.
                let addr = args.next_if(|a| !a.starts_with('-'));
                parsed.http = Some(addr.unwrap_or_else(|| DEFAULT_ADDR.to_owned()));
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(parsed)
}

#[tokio::main]
async fn main() -> ExitCode {
    // What to serve: `--groups` and `--read-only`, else their environment variables.
    let served = Served::take_flags(std::env::args().skip(1).collect())
        .and_then(|(served, rest)| Ok((served.or_env("{{SERVICE}}")?, rest)));
    let (served, rest) = match served {
        Ok(taken) => taken,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let args = match parse(rest.into_iter()) {
        Ok(args) => args,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = match {{crate_ident}}::open() {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let mcp = match McpServer::new(Arc::new(server), "{{crate}}", env!("CARGO_PKG_VERSION")) {
        Ok(mcp) => mcp,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let mcp = match mcp.serving(served) {
        Ok(mcp) => mcp,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let served = match &args.http {
        Some(addr) => {
            eprintln!("{{crate}}: serving MCP at http://{addr}/mcp");
            serve_http(mcp, addr.as_str()).await
        }
        None => serve_stdio(mcp).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
