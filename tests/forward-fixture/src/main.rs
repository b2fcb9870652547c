//! `forward-fixture petstore|svix|github [--http ADDR]`: one imported draft served over MCP
//! (stdio, or streamable HTTP at ADDR), each call forwarded to the API at
//! `<SERVICE>_BASE_URL` (`PETSTORE_BASE_URL`, `SVIX_BASE_URL`, `GITHUB_BASE_URL`).

use std::process::ExitCode;
use std::sync::Arc;

use forward_fixture::{github, petstore, svix};
use toolspec_runtime::engine::Toolset;
use toolspec_runtime::prelude::*;

const USAGE: &str = "usage: forward-fixture petstore|svix|github [--http ADDR]";

async fn run(which: &str, http: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
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
    let mcp = McpServer::new(toolset, "forward-fixture", env!("CARGO_PKG_VERSION"))?;
    match http {
        Some(addr) => serve_http(mcp, addr.as_str()).await?,
        None => serve_stdio(mcp).await?,
    }
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
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
    match run(&which, http).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("forward-fixture: {e}");
            ExitCode::FAILURE
        }
    }
}
