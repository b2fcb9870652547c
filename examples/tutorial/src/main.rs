//! `notes-server [--db PATH] [--http ADDR]`: the tutorial's notes served over MCP, on
//! stdio by default or on streamable HTTP at `http://ADDR/mcp`.

// ANCHOR: main
use std::sync::Arc;

use notes_server::Notebook;
use notes_server::notes::NotesServer;
use toolspec_runtime::prelude::{McpServer, Runtime, SqliteStore, serve_http, serve_stdio};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut db = "notes.db".to_string();
    let mut http = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--db" => db = args.next().ok_or("--db needs a file path")?,
            "--http" => http = Some(args.next().ok_or("--http needs an address")?),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let notebook = Notebook::open(&db)?;
    if notebook.add_first_note_if_empty()? {
        eprintln!("{db}: a new notebook, with one note");
    }
    // The runtime keeps its records (idempotency keys, previews, approvals) in the same
    // file, so a write's unit of work is a transaction there; the file also keeps the key
    // that signs paging cursors, so cursors outlive a restart.
    let store = SqliteStore::new(notebook.database().clone())?;
    let runtime = Runtime::open(Arc::new(store)).await?;
    let server = NotesServer::new(notebook, runtime);
    let mcp = McpServer::new(Arc::new(server), "notes-server", env!("CARGO_PKG_VERSION"))?;
    match http {
        // Streamable HTTP at http://ADDR/mcp, until Ctrl-C.
        Some(addr) => serve_http(mcp, addr).await?,
        // MCP on stdin and stdout, until the host closes stdin; logs go to stderr.
        None => serve_stdio(mcp).await?,
    }
    Ok(())
}
// ANCHOR_END: main
