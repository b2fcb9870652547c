//! `remote-fixture`: the chat tools of `chat.yaml` served over MCP (stdio, or streamable
//! HTTP with `--http ADDR`), their records in a SQLite file, their changes made at the chat
//! service at `--api URL`.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use remote_fixture::Chat;
use remote_fixture::chat::ChatServer;
use toolspec_runtime::prelude::*;

const USAGE: &str = "usage: remote-fixture --db FILE --api URL [--lease-ms N] [--http ADDR]";

struct Args {
    db: String,
    api: String,
    lease: Option<Duration>,
    http: Option<String>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut db, mut api, mut lease, mut http) = (None, None, None, None);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--db" => db = Some(value()?),
            "--api" => api = Some(value()?),
            "--http" => http = Some(value()?),
            "--lease-ms" => {
                let ms: u64 = value()?
                    .parse()
                    .map_err(|_| "--lease-ms takes a whole number of milliseconds")?;
                lease = Some(Duration::from_millis(ms));
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Args {
        db: db.ok_or("--db is required")?,
        api: api.ok_or("--api is required")?,
        lease,
        http,
    })
}

async fn serve(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let db = Database::open(&args.db)?;
    let mut runtime = Runtime::sqlite(db, CursorKey::random()?)?;
    if let Some(lease) = args.lease {
        runtime = runtime.with_lease(lease);
    }
    let server = ChatServer::new(Chat::new(args.api), runtime);
    let mcp = McpServer::new(
        Arc::new(server),
        "remote-fixture",
        env!("CARGO_PKG_VERSION"),
    )?;
    match args.http {
        Some(addr) => serve_http(mcp, addr.as_str()).await?,
        None => serve_stdio(mcp).await?,
    }
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match serve(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
