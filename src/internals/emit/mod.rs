//! Emitters: pure functions from the [`Model`] to files in memory, one module per kind.
//!
//! Nothing here touches the disk; [`mod@write`] does, and only when bytes change. Every emitter
//! is deterministic: the same model gives the same bytes, in the same order, on any machine.

pub(crate) mod code;
pub mod docs;
pub mod gauntlet;
mod parallel;
pub mod providers;
pub mod rust;
pub mod write;

use crate::diagnostics::Diagnostics;
use crate::model::Model;
use std::path::PathBuf;

/// One output file, its path relative to the output directory.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct GeneratedFile {
    /// Path under the output directory, `/`-separated (`tickets/schemas/tickets_get.input.json`).
    pub path: PathBuf,
    /// The full contents.
    pub contents: String,
}

impl GeneratedFile {
    /// A file at `path` with `contents`.
    pub fn new(path: impl Into<PathBuf>, contents: impl Into<String>) -> Self {
        GeneratedFile {
            path: path.into(),
            contents: contents.into(),
        }
    }
}

/// The kinds of output `toolspec generate --emit` can produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// JSON Schemas per tool and the MCP, Anthropic and OpenAI tool lists.
    Schemas,
    /// Documentation pages per toolset (Markdown for mdbook): `<service>/docs/`.
    Docs,
    /// Rust server code per toolset: `<service>/<service>.rs` (types, trait, dispatcher).
    Rust,
    /// Gauntlet tests per toolset: `<service>/<service>_gauntlet.rs`, the spec's facts and a
    /// macro (`<service>_gauntlet!(fixture)`) expanding to one `#[test]` per promise.
    Tests,
}

impl Kind {
    /// Every kind, in the order they are generated.
    pub const ALL: &'static [Kind] = &[Kind::Schemas, Kind::Docs, Kind::Rust, Kind::Tests];

    /// The name `--emit` takes (`schemas`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Schemas => "schemas",
            Kind::Docs => "docs",
            Kind::Rust => "rust",
            Kind::Tests => "tests",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.as_str() == name)
    }

    /// What this kind writes, in a line (for `--help`).
    pub fn about(self) -> &'static str {
        match self {
            Kind::Schemas => "JSON Schemas per tool and the MCP, Anthropic and OpenAI tool lists",
            Kind::Docs => "documentation pages per toolset (Markdown for mdbook)",
            Kind::Rust => "Rust server code per toolset (types, trait, dispatcher)",
            Kind::Tests => "gauntlet tests per toolset",
        }
    }
}

/// Options shared by the emitters.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A directory whose templates override the embedded ones (docs).
    pub templates: Option<PathBuf>,
}

/// What [`generate`] made: the files, sorted by path, and warnings about what it left out
/// (a provider's list that provider would refuse).
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// Every file, sorted by path.
    pub files: Vec<GeneratedFile>,
    /// Problems that cost one output, not the run, at their place in the spec.
    pub warnings: Diagnostics,
}

/// Generates every file of the requested kinds for every toolset of the model.
///
/// Problems an emitter finds (a tool MCP cannot carry, a broken template) are returned as
/// diagnostics at the spec location instead of a broken file. A provider's limit only costs
/// that provider's list, with a warning ([`providers::emit`]).
pub fn generate(
    model: &Model,
    kinds: &[Kind],
    options: &Options,
) -> Result<Generated, Diagnostics> {
    /// One unit of work: a whole output kind, or one toolset's Rust or tests (the two
    /// heavy, per-toolset outputs), so many toolsets spread over the cores.
    enum Job {
        Schemas,
        Docs(usize),
        Rust(usize),
        Tests(usize),
    }
    let mut jobs = Vec::new();
    for kind in kinds {
        match kind {
            Kind::Schemas => jobs.push(Job::Schemas),
            Kind::Docs => jobs.extend((0..model.toolsets.len()).map(Job::Docs)),
            Kind::Rust => jobs.extend((0..model.toolsets.len()).map(Job::Rust)),
            Kind::Tests => jobs.extend((0..model.toolsets.len()).map(Job::Tests)),
        }
    }
    /// What a job gives: files with their warnings, or one toolset's docs pages, which
    /// are finished together (a broken template is reported once, not per toolset).
    enum Done {
        Files(Result<(Vec<GeneratedFile>, Diagnostics), Diagnostics>),
        Pages(docs::Pages),
    }
    // Handed out heaviest first (a toolset's docs, then its Rust, then its tests, the
    // schemas of all last), so that with one large toolset the threads finish together
    // rather than one waiting on the docs; the results are put back in the jobs' order.
    let heavy_first = |job: &Job| match job {
        Job::Docs(_) => 0,
        Job::Rust(_) => 1,
        Job::Tests(_) => 2,
        Job::Schemas => 3,
    };
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| heavy_first(&jobs[i]));
    let book = docs::Book::new(options);
    let ran = parallel::map(&order, |&i| match jobs[i] {
        Job::Schemas => Done::Files(providers::emit(model)),
        Job::Docs(i) => Done::Pages(book.toolset(model, &model.toolsets[i])),
        Job::Rust(i) => Done::Files(
            rust::file(model, &model.toolsets[i]).map(|f| (vec![f], Diagnostics::default())),
        ),
        Job::Tests(i) => Done::Files(
            gauntlet::file(model, &model.toolsets[i]).map(|f| (vec![f], Diagnostics::default())),
        ),
    });
    let mut done: Vec<(usize, Done)> = order.into_iter().zip(ran).collect();
    done.sort_by_key(|(i, _)| *i);
    let mut diags = Diagnostics::default();
    let mut warnings = Diagnostics::default();
    let mut files = Vec::new();
    let mut pages = Vec::new();
    for (_, result) in done {
        match result {
            Done::Files(Ok((f, w))) => {
                files.extend(f);
                warnings.extend(w);
            }
            Done::Files(Err(d)) => diags.extend(d),
            Done::Pages(p) => pages.push(p),
        }
    }
    if !pages.is_empty() {
        match book.finish(pages) {
            Ok(f) => files.extend(f),
            Err(d) => diags.extend(d),
        }
    }
    if diags.has_errors() {
        return Err(diags);
    }
    files.sort();
    Ok(Generated { files, warnings })
}
