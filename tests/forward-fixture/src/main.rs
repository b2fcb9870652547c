//! `forward-fixture petstore|svix|github [--http ADDR] [--groups A,B] [--read-only]`: one
//! imported draft served over MCP (stdio, or streamable HTTP at ADDR), each call forwarded to
//! the API at `<SERVICE>_BASE_URL` (`PETSTORE_BASE_URL`, `SVIX_BASE_URL`,
//! `GITHUB_BASE_URL`); only the groups `--groups` (or `<SERVICE>_GROUPS`) names, and no
//! write with `--read-only` (or `<SERVICE>_READ_ONLY=1`).

use std::process::ExitCode;
use std::sync::Arc;

use forward_fixture::{github, petstore, svix};
use toolspec_runtime::engine::{Served, Toolset};
use toolspec_runtime::prelude::*;

const USAGE: &str =
    "usage: forward-fixture petstore|svix|github [--http ADDR] [--groups A,B] [--read-only]";

async fn run(
    which: &str,
    http: Option<String>,
    served: Served,
) -> Result<(), Box<dyn std::error::Error>> {
    let toolset: Arc<dyn Toolset> = match which {
        // ANCHOR: petstore
        "petstore" => Arc::new(petstore::PetstoreServer::in_memory(
            petstore::PetstoreApi::from_env()?,
        )?),
        // ANCHOR_END: petstore
        "svix" => Arc::new(svix::SvixServer::in_memory(svix::SvixApi::from_env()?)?),
        "github" => Arc::new(github::GithubServer::in_memory(
            github::GithubApi::from_env()?,
        )?),
        other => return Err(format!("unknown draft {other:?}; {USAGE}").into()),
    };
    // ANCHOR: served
    // `served` holds the `--groups` and `--read-only` taken from the command line
    // (`Served::take_flags`); the environment fills what they left.
    let served = served.or_env(&which.to_ascii_uppercase())?;
    let mcp =
        McpServer::new(toolset, "forward-fixture", env!("CARGO_PKG_VERSION"))?.serving(served)?;
    // ANCHOR_END: served
    match http {
        Some(addr) => serve_http(mcp, addr.as_str()).await?,
        None => serve_stdio(mcp).await?,
    }
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let (served, rest) = match Served::take_flags(std::env::args().skip(1).collect()) {
        Ok(taken) => taken,
        Err(e) => {
            eprintln!("forward-fixture: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut args = rest.into_iter();
    let Some(which) = args.next() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let http = match (args.next().as_deref(), args.next()) {
        (None, _) => None,
        (Some("--http"), Some(addr)) => Some(addr),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&which, http, served).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("forward-fixture: {e}");
            ExitCode::FAILURE
        }
    }
}
