//! `notes-server`: the tutorial's notes served over MCP on stdio.

use std::sync::Arc;

use notes_server::Notebook;
use notes_server::notes::NotesServer;
use toolspec_runtime::prelude::{McpServer, serve_stdio};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut notebook = Notebook::default();
    notebook.add("N-1", "Groceries", "milk, eggs");
    let server = NotesServer::in_memory(notebook)?;
    let mcp = McpServer::new(Arc::new(server), "notes-server", env!("CARGO_PKG_VERSION"))?;
    serve_stdio(mcp).await?; // until the host closes stdin
    Ok(())
}
