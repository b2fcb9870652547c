//! Every promise of `notes.yaml`, checked against `Notebook`: one `#[test]` per check.

use notes_server::Notebook;
use notes_server::notes::NotesServer;

include!(concat!(env!("OUT_DIR"), "/notes_gauntlet.rs"));

/// A fresh notebook holding what the spec's examples expect, around the gauntlet's runtime.
fn fixture(runtime: toolspec_runtime::engine::Runtime) -> NotesServer<Notebook> {
    let mut notebook = Notebook::default();
    notebook.add("N-1", "Groceries", "milk, eggs");
    NotesServer::new(notebook, runtime)
}

notes_gauntlet!(fixture);
