//! A notes toolset from `notes.yaml`: the tutorial of the `toolspec` crate documentation,
//! built and tested with the workspace so the tutorial cannot rot.

use std::collections::HashMap;

use toolspec_runtime::prelude::*;

/// What toolspec generated from `notes.yaml`: types, errors, the trait, the server.
#[allow(missing_docs)]
pub mod notes {
    include!(concat!(env!("OUT_DIR"), "/notes.rs"));
}
use notes::{NotesError, NotesGetInput, NotesGetOutput, NotesTools};

/// The implementation: only the domain. Validation, errors and paging are generated.
#[derive(Default)]
pub struct Notebook {
    notes: HashMap<String, (String, String)>,
}

impl Notebook {
    /// Adds a note.
    pub fn add(&mut self, id: &str, title: &str, text: &str) {
        self.notes.insert(id.into(), (title.into(), text.into()));
    }
}

impl NotesTools for Notebook {
    async fn notes_get(&self, input: NotesGetInput) -> Result<NotesGetOutput, ToolError> {
        // `input.note_id` already matches `^N-[0-9]+$`: the generated layer refused
        // anything else with `pattern_mismatch` before this method ran.
        match self.notes.get(&input.note_id) {
            Some((title, text)) => Ok(NotesGetOutput {
                title: title.clone(),
                text: text.clone(),
            }),
            None => Err(NotesError::NotFound {
                note_id: input.note_id,
            }
            .into()),
        }
    }
}
