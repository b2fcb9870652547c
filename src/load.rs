//! The one entry point from files to a model: read, load and resolve specs together, and
//! keep what was read and every problem found.
//!
//! ```no_run
//! let loaded = toolspec::load(&["specs/tickets.yaml"])?;
//! if loaded.has_errors() {
//!     eprint!("{}", loaded.render_diagnostics());
//! }
//! println!("{} tools", loaded.model.tools().count());
//! # Ok::<(), toolspec::ReadError>(())
//! ```

use std::path::Path;

use crate::diagnostics::{Diagnostics, Sources};
use crate::model::Model;

/// Specs loaded and resolved together: the model, the texts its spans point into, and every
/// diagnostic (errors and warnings) of loading and resolving.
#[derive(Debug)]
pub struct Loaded {
    /// The resolved model: complete when there are no errors, else what could be resolved.
    pub model: Model,
    /// Every spec's text, for rendering diagnostics with snippets.
    pub sources: Sources,
    /// Every problem found, in order.
    pub diagnostics: Diagnostics,
}

impl Loaded {
    /// Whether any diagnostic is an error (then `model` must not be trusted).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.has_errors()
    }

    /// The diagnostics with their snippets, as `toolspec check` prints them.
    pub fn render_diagnostics(&self) -> String {
        self.diagnostics.render(&self.sources)
    }
}

/// A spec file that could not be read: a usage problem, not a problem in a spec.
#[derive(Debug)]
pub struct ReadError {
    /// The path as given.
    pub path: String,
    /// Why it could not be read.
    pub error: std::io::Error,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read {}: {}", self.path, self.error)
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Reads the spec files at `paths`, then loads and resolves them together
/// ([`load_texts`]). Tools of one spec may name tools of another.
pub fn load<P: AsRef<Path>>(paths: &[P]) -> Result<Loaded, ReadError> {
    let mut texts = Vec::with_capacity(paths.len());
    for path in paths {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|error| ReadError {
            path: path.display().to_string(),
            error,
        })?;
        texts.push((
            path.display().to_string(),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    Ok(load_texts(texts))
}

/// Loads and resolves spec texts (each with the name its diagnostics show) together,
/// without touching the disk.
pub fn load_texts(texts: impl IntoIterator<Item = (String, String)>) -> Loaded {
    let mut sources = Sources::default();
    let mut diagnostics = Diagnostics::default();
    let mut specs = Vec::new();
    for (name, text) in texts {
        let file = sources.add(name, text);
        if let Some(spec) = crate::spec::load(file, &sources.get(file).text, &mut diagnostics) {
            specs.push((file, spec));
        }
    }
    let model = crate::model::resolve(&specs, &sources, &mut diagnostics);
    // Two names that become one Rust identifier stop `generate`: `check` says so first.
    if !diagnostics.has_errors() {
        crate::emit::rust::check_names(&model, &mut diagnostics);
    }
    Loaded {
        model,
        sources,
        diagnostics,
    }
}
