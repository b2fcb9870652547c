//! [`Builder`]: generate a toolset's Rust server code from a build script.
//!
//! The [crate documentation](crate) walks through a whole project that uses it, from
//! `cargo new` to a served and tested toolset. In short, `build.rs`:
//!
//! ```no_run
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     toolspec::Builder::new()
//!         .spec("specs/tickets.yaml")
//!         .spec("specs/orders.yaml") // tickets' descriptions name orders_get: load it too
//!         .generate_only("tickets")
//!         .compile()?;
//!     Ok(())
//! }
//! ```
//!
//! writes `$OUT_DIR/tickets.rs` (the same bytes as `toolspec generate --emit rust` writes to
//! `generated/tickets/tickets.rs`) and `$OUT_DIR/tickets_gauntlet.rs` (the same as
//! `--emit tests`), prints one `cargo:rerun-if-changed` per spec read, rewrites a file only
//! when its bytes change, and fails the build with `toolspec check`'s report when a spec has
//! a problem.

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::diagnostics::Diagnostics;
use crate::emit::GeneratedFile;
use crate::emit::write::write_all;

/// Generates Rust server code for toolsets from a build script, in the style of
/// `prost-build`. See the [module docs](self) for the whole tutorial.
///
/// ```no_run
/// toolspec::Builder::new()
///     .spec("../../specs/tickets.yaml")
///     .spec("../../specs/orders.yaml")
///     .generate_only("tickets")
///     .out_dir(std::env::var_os("OUT_DIR").expect("run from a build script"))
///     .compile()?;
/// # Ok::<(), toolspec::BuildError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Builder {
    specs: Vec<PathBuf>,
    only: Vec<String>,
    out_dir: Option<PathBuf>,
    rerun: bool,
    runtime_path: String,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// A builder with no specs that writes to `$OUT_DIR` and prints
    /// `cargo:rerun-if-changed` lines.
    pub fn new() -> Self {
        Builder {
            specs: Vec::new(),
            only: Vec::new(),
            out_dir: None,
            rerun: true,
            runtime_path: crate::emit::code::runtime_path::DEFAULT.to_string(),
        }
    }

    /// Adds a spec file (relative paths are relative to the crate's root, where Cargo runs
    /// build scripts). All specs are resolved together, as `toolspec check` does.
    pub fn spec(mut self, path: impl AsRef<Path>) -> Self {
        self.specs.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds several spec files.
    pub fn specs<P: AsRef<Path>>(mut self, paths: impl IntoIterator<Item = P>) -> Self {
        self.specs
            .extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// Writes only the toolset of this service (call again for more). By default every
    /// loaded toolset is written; the others are still loaded, to resolve references.
    pub fn generate_only(mut self, service: impl Into<String>) -> Self {
        self.only.push(service.into());
        self
    }

    /// Writes into `dir` instead of `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` for every spec read (default `true`; turn
    /// it off outside build scripts).
    pub fn emit_rerun_if_changed(mut self, on: bool) -> Self {
        self.rerun = on;
        self
    }

    /// The path generated code names the runtime by (default `::toolspec_runtime`), for a
    /// crate that re-exports it: a framework built on toolspec, or a facade that pins the
    /// runtime's version, as prost-build's `prost_path` is for prost.
    ///
    /// ```no_run
    /// // In the facade crate's lib.rs: `pub mod runtime { pub use ::toolspec_runtime::*; }`
    /// toolspec::Builder::new()
    ///     .spec("specs/notes.yaml")
    ///     .runtime_path("::my_framework::runtime")
    ///     .compile()?;
    /// # Ok::<(), toolspec::BuildError>(())
    /// ```
    ///
    /// Only the code's paths change, never text a spec holds; the path is checked when
    /// [`compile`](Self::compile) runs (a plain Rust path: `::a::b`, `crate::rt`).
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.runtime_path = path.into();
        self
    }

    /// Loads the specs, generates the Rust module of each selected toolset as
    /// `<out_dir>/<service>.rs` and its gauntlet tests as `<out_dir>/<service>_gauntlet.rs`,
    /// and returns the paths written (or already up to date).
    pub fn compile(&self) -> Result<Vec<PathBuf>, BuildError> {
        let out = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    BuildError::Usage(
                        "OUT_DIR is not set: call compile() from a build script, or set out_dir()"
                            .into(),
                    )
                })?,
        };
        if self.specs.is_empty() {
            return Err(BuildError::Usage(
                "no spec given: add one with Builder::spec".into(),
            ));
        }
        let files = self.generate()?;
        let written = write_all(&out, &files)
            .map_err(|e| BuildError::Usage(format!("cannot write under {}: {e}", out.display())))?;
        Ok(written.into_iter().map(|(path, _)| path).collect())
    }

    /// Generates the files in memory (`<service>.rs` and `<service>_gauntlet.rs` each),
    /// printing the rerun lines.
    fn generate(&self) -> Result<Vec<GeneratedFile>, BuildError> {
        let loaded = crate::load(&self.specs);
        // One line per file actually read: a path that does not exist would make Cargo
        // rerun the script on every build, and one that was read must trigger a rerun.
        if self.rerun {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            for line in self.rerun_lines() {
                let _ = writeln!(lock, "{line}");
            }
        }
        let loaded = loaded.map_err(|e| BuildError::Usage(e.to_string()))?;
        if loaded.has_errors() {
            return Err(BuildError::Spec(loaded.render_diagnostics()));
        }
        let (model, sources) = (loaded.model, loaded.sources);
        let services: Vec<&str> = model
            .toolsets
            .iter()
            .map(|t| t.service.text.as_str())
            .collect();
        if let Some(missing) = self.only.iter().find(|s| !services.contains(&s.as_str())) {
            return Err(BuildError::Usage(format!(
                "generate_only(\"{missing}\"): no loaded spec has that service; loaded: {}",
                services.join(", ")
            )));
        }
        let runtime = crate::emit::code::runtime_path::parse(&self.runtime_path)
            .map_err(|e| BuildError::Usage(format!("runtime_path: {e}")))?;
        let mut files = Vec::new();
        let mut problems = Diagnostics::default();
        for ts in &model.toolsets {
            if !self.only.is_empty() && !self.only.contains(&ts.service.text) {
                continue;
            }
            match crate::emit::rust::render(&model, ts) {
                Ok(text) => files.push(GeneratedFile::new(format!("{}.rs", ts.service.text), text)),
                Err(d) => problems.extend(d),
            }
            // The gauntlet tests, the same bytes `toolspec generate --emit tests` writes.
            match crate::emit::gauntlet::render(&model, ts) {
                Ok(text) => files.push(GeneratedFile::new(
                    crate::emit::gauntlet::file_name(ts),
                    text,
                )),
                Err(d) => problems.extend(d),
            }
        }
        if problems.has_errors() {
            return Err(BuildError::Spec(problems.render(&sources)));
        }
        for file in &mut files {
            file.contents = crate::emit::code::runtime_path::rewrite(&file.contents, &runtime)
                .map_err(|e| BuildError::Usage(format!("{}: {e}", file.path.display())))?;
        }
        Ok(files)
    }
}

impl Builder {
    /// `cargo:rerun-if-changed=<path>` for every spec that exists as a file, in the order
    /// given. Paths Cargo could not read back (not UTF-8, or with a line break) are left out
    /// rather than printed broken.
    fn rerun_lines(&self) -> Vec<String> {
        self.specs
            .iter()
            .filter(|p| p.is_file())
            .filter_map(|p| p.to_str())
            .filter(|t| !t.contains(['\n', '\r']))
            .map(|t| format!("cargo:rerun-if-changed={t}"))
            .collect()
    }
}

/// Why [`Builder::compile`] failed. Both `Display` and `Debug` show the full report, so a
/// build script's `main() -> Result<(), Box<dyn Error>>` prints it readably.
pub enum BuildError {
    /// The specs have problems: the rendered diagnostics, with locations and fixes.
    Spec(String),
    /// A usage or I/O problem (no specs, unreadable file, unknown service, no `OUT_DIR`).
    Usage(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Spec(report) => write!(f, "toolspec: the specs have problems:\n{report}"),
            BuildError::Usage(msg) => write!(f, "toolspec: {msg}"),
        }
    }
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BuildError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rerun_lines_name_only_files_that_exist() {
        let here = concat!(env!("CARGO_MANIFEST_DIR"), "/specs/tickets.yaml");
        let b = Builder::new()
            .spec(here)
            .spec("no/such/spec.yaml")
            .spec(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(b.rerun_lines(), [format!("cargo:rerun-if-changed={here}")]);
    }
}
