//! What an import did: operations read, tools written, facts carried, and every fact it
//! dropped, guessed or found missing, with where and why, for the person finishing the draft.

use std::fmt;

/// One thing the person should know about, at a place in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Where: `GET /pet/{petId}` and the parameter or field, or a `#/components/...` pointer.
    pub at: String,
    /// What happened and why.
    pub what: String,
}

/// The account of one import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Operations in the document.
    pub operations_in_document: usize,
    /// Operations chosen by `--include` (all when none is given).
    pub operations_chosen: usize,
    /// Tools in the draft.
    pub tools_written: usize,
    /// Facts of the document that reached the draft: each name, description, constraint,
    /// enum, default, example, format, error response and scope.
    pub facts_carried: usize,
    /// Facts the draft could not hold, and why.
    pub dropped: Vec<Note>,
    /// Operations left out, and why.
    pub skipped: Vec<Note>,
    /// What the draft guessed and a person should confirm.
    pub guessed: Vec<Note>,
    /// What the document does not say and the draft marks `TODO`.
    pub missing: Vec<Note>,
}

impl Report {
    pub(crate) fn carried(&mut self, n: usize) {
        self.facts_carried += n;
    }

    pub(crate) fn drop(&mut self, at: impl Into<String>, what: impl Into<String>) {
        self.dropped.push(Note {
            at: at.into(),
            what: what.into(),
        });
    }

    pub(crate) fn guess(&mut self, at: impl Into<String>, what: impl Into<String>) {
        self.guessed.push(Note {
            at: at.into(),
            what: what.into(),
        });
    }

    pub(crate) fn missing(&mut self, at: impl Into<String>, what: impl Into<String>) {
        self.missing.push(Note {
            at: at.into(),
            what: what.into(),
        });
    }

    pub(crate) fn skip(&mut self, at: impl Into<String>, what: impl Into<String>) {
        self.skipped.push(Note {
            at: at.into(),
            what: what.into(),
        });
    }
}

/// How many notes of one kind the summary lists before saying how many more there are.
const LISTED: usize = 20;

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "imported: {} of {} operations read, {} tools written, {} facts carried, {} dropped",
            self.operations_chosen,
            self.operations_in_document,
            self.tools_written,
            self.facts_carried,
            self.dropped.len()
        )?;
        let groups = [
            ("skipped operations", &self.skipped),
            ("dropped (the spec cannot hold them yet)", &self.dropped),
            ("guessed (confirm them)", &self.guessed),
            ("missing (marked TODO in the draft)", &self.missing),
        ];
        for (title, notes) in groups {
            if notes.is_empty() {
                continue;
            }
            writeln!(f, "{title}: {}", notes.len())?;
            for n in notes.iter().take(LISTED) {
                writeln!(f, "  {}: {}", n.at, n.what)?;
            }
            if notes.len() > LISTED {
                writeln!(f, "  ... and {} more", notes.len() - LISTED)?;
            }
        }
        Ok(())
    }
}
