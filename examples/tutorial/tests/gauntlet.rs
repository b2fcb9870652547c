//! Every promise of `notes.yaml`, checked against `Notebook`: one `#[test]` per check.

// ANCHOR: gauntlet
use std::sync::Arc;

use notes_server::Notebook;
use notes_server::notes::NotesServer;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::prelude::SqliteStore;

include!(concat!(env!("OUT_DIR"), "/notes_gauntlet.rs"));

/// A fresh notebook in memory holding what the spec's examples expect, served with the
/// gauntlet's runtime moved onto the notebook's database.
fn fixture(runtime: Runtime) -> NotesServer<Notebook> {
    let notebook = Notebook::open(":memory:").expect("an in-memory database opens");
    // ANCHOR: seed
    notebook.add("Groceries", "milk, eggs").unwrap(); // N-1
    notebook
        .add("Recipes", "pancakes: flour, milk, eggs")
        .unwrap(); // N-2
    notebook.add("Books", "a novel for the train").unwrap(); // N-3
    // ANCHOR_END: seed
    // The gauntlet's runtime (its manual clock, its counts) with its records in the
    // notebook's file: every write's unit of work is then a transaction there.
    let store = SqliteStore::new(notebook.database().clone()).expect("the runtime's tables");
    NotesServer::new(notebook, runtime.with_store(Arc::new(store)))
}

notes_gauntlet!(fixture);
// ANCHOR_END: gauntlet
