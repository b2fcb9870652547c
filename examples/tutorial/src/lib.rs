//! A notes toolset from `notes.yaml`, on SQLite: the tutorial of the `toolspec` crate
//! documentation and of the user guide (docs/guide), built and tested with the workspace so
//! neither can rot.

// ANCHOR: module
use toolspec_runtime::prelude::*;
use toolspec_runtime::rusqlite::{OptionalExtension, params};

/// What toolspec generated from `notes.yaml`: types, errors, the trait, the server.
#[allow(missing_docs)]
pub mod notes {
    include!(concat!(env!("OUT_DIR"), "/notes.rs"));
}
use notes::*;
// ANCHOR_END: module

// ANCHOR: notebook
/// The implementation: only the domain. Validation, errors, paging, idempotency and
/// previews are generated.
pub struct Notebook {
    /// One SQLite file holds the notes and the runtime's records.
    db: Database,
}

impl Notebook {
    /// Opens (or creates) the notebook at `path` (`":memory:"` for a throwaway one).
    pub fn open(path: &str) -> Result<Self, Box<dyn std::error::Error>> {
        let db = Database::open(path)?;
        db.try_lock()?.execute_batch(
            "CREATE TABLE IF NOT EXISTS notes (
                 num INTEGER PRIMARY KEY,
                 title TEXT NOT NULL,
                 text TEXT NOT NULL
             );",
        )?;
        Ok(Notebook { db })
    }

    /// Adds a note and returns its id.
    pub fn add(&self, title: &str, text: &str) -> Result<String, Box<dyn std::error::Error>> {
        let c = self.db.try_lock()?;
        c.execute(
            "INSERT INTO notes (title, text) VALUES (?1, ?2)",
            params![title, text],
        )?;
        Ok(format!("N-{}", c.last_insert_rowid()))
    }

    /// Adds a first note to an empty notebook; says whether it did.
    pub fn add_first_note_if_empty(&self) -> Result<bool, Box<dyn std::error::Error>> {
        let count: i64 = self
            .db
            .try_lock()?
            .query_row("SELECT COUNT(*) FROM notes", [], |r| r.get(0))?;
        if count == 0 {
            self.add("Groceries", "milk, eggs")?;
        }
        Ok(count == 0)
    }

    /// The database, to build the runtime on: then every write's unit of work is a
    /// transaction in it.
    pub fn database(&self) -> &Database {
        &self.db
    }
}

/// The number of a note id (`N-12` is 12).
fn num(note_id: &str) -> Option<i64> {
    note_id.strip_prefix("N-")?.parse().ok()
}

// ANCHOR_END: notebook

impl NotesTools for Notebook {
    // ANCHOR: get
    async fn notes_get(&self, input: NotesGetInput) -> Result<NotesGetOutput, ToolError> {
        // `input.note_id` already matches `^N-[0-9]+$`: the generated layer refused
        // anything else with `pattern_mismatch` before this method ran.
        let not_found = || NotesError::NotFound {
            note_id: input.note_id.clone(),
        };
        let num = num(&input.note_id).ok_or_else(not_found)?;
        // A read locks the shared connection for as long as it needs it. (`?` makes a
        // failed statement an `internal_error`, whose details go to the log.)
        let c = self.db.lock().await?;
        let note = c
            .query_row("SELECT title, text FROM notes WHERE num = ?1", [num], |r| {
                Ok(NotesGetOutput {
                    title: r.get(0)?,
                    text: r.get(1)?,
                })
            })
            .optional()?;
        Ok(note.ok_or_else(not_found)?)
    }
    // ANCHOR_END: get

    // ANCHOR: search
    async fn notes_search(
        &self,
        input: NotesSearchInput,
        window: Window,
    ) -> Result<Page<NotesSearchOutput>, ToolError> {
        let words: Vec<String> = input
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        // The keyset: the page starts after the last note the agent was given (the
        // spec's `keyset: [note_id]`), so notes added or deleted meanwhile never make a
        // walk skip or repeat one.
        let after = window
            .after()
            .and_then(|key| key.first())
            .and_then(|id| id.as_str())
            .and_then(num)
            .unwrap_or(0);
        let c = self.db.lock().await?;
        let mut stmt = c.prepare("SELECT num, title, text FROM notes ORDER BY num")?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let hits: Vec<(i64, String)> = rows
            .into_iter()
            .filter(|(_, title, text)| {
                let haystack = format!("{title} {text}").to_lowercase();
                words.iter().all(|w| haystack.contains(w.as_str()))
            })
            .map(|(num, title, _)| (num, title))
            .collect();
        let total = hits.len() as u64;
        let mut rest = hits.into_iter().filter(|(num, _)| *num > after);
        let notes: Vec<NoteSummary> = rest
            .by_ref()
            .take(window.take())
            .map(|(num, title)| NoteSummary {
                note_id: format!("N-{num}"),
                title,
            })
            .collect();
        let more = rest.next().is_some();
        Ok(Page::new(NotesSearchOutput { notes }, total).with_more(more))
    }
    // ANCHOR_END: search

    // ANCHOR: rename
    async fn notes_rename(
        &self,
        input: NotesRenameInput,
        work: Work,
    ) -> Result<NotesRenameOutput, ToolError> {
        let not_found = || NotesError::NotFound {
            note_id: input.note_id.clone(),
        };
        let num = num(&input.note_id).ok_or_else(not_found)?;
        // Read and write in the call's transaction, not through `self.db.lock()`: the unit
        // of work holds that connection until this method returns (the lock is refused
        // here). Reading here also makes `previous_title`, and so the undo call, the
        // title this change replaced. The closure returns the toolset's errors with `?`.
        let previous_title: String = work.sqlite(|c| {
            let previous = c
                .query_row("SELECT title FROM notes WHERE num = ?1", [num], |r| {
                    r.get(0)
                })
                .optional()?
                .ok_or_else(not_found)?;
            c.execute(
                "UPDATE notes SET title = ?1 WHERE num = ?2",
                params![input.title, num],
            )?;
            Ok(previous)
        })?;
        Ok(NotesRenameOutput {
            note_id: input.note_id,
            title: input.title,
            previous_title,
        })
    }
    // ANCHOR_END: rename

    // ANCHOR: preview_delete
    async fn preview_notes_delete(
        &self,
        input: NotesDeleteInput,
    ) -> Result<NotesDeletePreview, ToolError> {
        // A preview changes nothing: it reads, and says what the apply would do.
        let note = self
            .notes_get(NotesGetInput {
                note_id: input.note_id.clone(),
            })
            .await?;
        Ok(NotesDeletePreview {
            summary: Some(format!(
                "Delete note {} ('{}') for good.",
                input.note_id, note.title
            )),
            title: note.title,
        })
    }
    // ANCHOR_END: preview_delete

    // ANCHOR: delete
    async fn notes_delete(
        &self,
        input: NotesDeleteInput,
        _preview: NotesDeletePreview,
        work: Work,
    ) -> Result<NotesDeleteOutput, ToolError> {
        let not_found = || NotesError::NotFound {
            note_id: input.note_id.clone(),
        };
        let num = num(&input.note_id).ok_or_else(not_found)?;
        // The deletion commits with the call's idempotency record and the preview's
        // consumption, or not at all.
        let title: String = work.sqlite(|c| {
            // None: deleted by someone else between the preview and its approval.
            Ok(c.query_row(
                "DELETE FROM notes WHERE num = ?1 RETURNING title",
                [num],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(not_found)?)
        })?;
        Ok(NotesDeleteOutput {
            note_id: input.note_id,
            title,
        })
    }
    // ANCHOR_END: delete
}
