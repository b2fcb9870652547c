//! `toolspec init [PATH] [--name NAME] [--store memory|sqlite|postgres] [--toolspec-path DIR]`:
//! a new MCP server crate, in the conventions of `cargo new`.
//!
//! The crate is made from the files of `cli/templates/init/`, embedded in the binary, with
//! only plain `{{placeholder}}` substitution (see [`template`]): what a user reads in a
//! template is the Rust, TOML or YAML they get.

mod name;
mod template;

use super::Outcome;
use clap::ValueEnum;
use std::path::{Component, Path};
use template::{Source, Values};

/// Where the made crate keeps its items and the server's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Store {
    /// Process memory: nothing survives a restart (for trying things out).
    Memory,
    /// One SQLite file beside the server (the default).
    Sqlite,
    /// A PostgreSQL database, shared by every replica of the server.
    Postgres,
}

impl Store {
    /// The name `--store` takes.
    fn as_str(self) -> &'static str {
        match self {
            Store::Memory => "memory",
            Store::Sqlite => "sqlite",
            Store::Postgres => "postgres",
        }
    }

    /// How the store is said in prose.
    fn label(self) -> &'static str {
        match self {
            Store::Memory => "in memory",
            Store::Sqlite => "on SQLite",
            Store::Postgres => "on PostgreSQL",
        }
    }
}

/// What `toolspec init` was asked for.
#[derive(Debug)]
pub struct Request<'a> {
    /// The directory to make the crate in (made if absent; `.` when not given).
    pub path: Option<&'a Path>,
    /// The crate name, when not the directory's name.
    pub name: Option<&'a str>,
    /// The store the implementation is written on.
    pub store: Store,
    /// A toolspec checkout for the dependencies to point at, as written in Cargo.toml
    /// (relative to the new crate when relative); when not given, they are the published
    /// crates at this command's version.
    pub toolspec_path: Option<&'a Path>,
}

/// Makes the crate `request` asks for, then says what it made and what to run next.
pub fn run(request: &Request<'_>) -> Outcome {
    match make(request) {
        Ok(()) => Outcome::Clean,
        Err(message) => {
            eprintln!("error: {message}");
            Outcome::Usage
        }
    }
}

fn make(request: &Request<'_>) -> Result<(), String> {
    let path = request.path.unwrap_or(Path::new("."));
    let crate_name = match request.name {
        Some(name) => name::check(name).map_err(|e| format!("{e}"))?,
        None => {
            let last = last_component(path)?;
            name::check(&last).map_err(|e| {
                format!(
                    "{e}\n  (the crate name comes from the directory's name; pass \
                     `--name NAME` to choose another)"
                )
            })?
        }
    };
    refuse_non_empty(path)?;
    let source = match request.toolspec_path {
        Some(dir) => Source::Checkout(
            dir.to_str()
                .ok_or_else(|| format!("--toolspec-path {}: not UTF-8", dir.display()))?
                .replace('\\', "/"),
        ),
        None => Source::this_version(),
    };
    let values = Values::new(&crate_name, request.store, &source);
    let mut files = template::render(request.store, &values);
    if let Source::Version(_) = source {
        // No checkout to point the spec's editor at: the crate gets the schema itself.
        files.push((
            template::SCHEMA_FILE.to_string(),
            toolspec::internals::spec::format_schema_text() + "\n",
        ));
    }
    for (relative, text) in &files {
        let target = path.join(relative);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(&target, text)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    // A wrong path is not fatal (the checkout may come later), but the build will fail.
    if let (Some(dir), Source::Checkout(shown)) = (request.toolspec_path, &source)
        && !path.join(dir).join("runtime").join("Cargo.toml").is_file()
    {
        eprintln!(
            "warning: no toolspec checkout at {shown} (seen from {}): the crate \
             builds once one is there, or once Cargo.toml's `path = ...` lines point at one",
            path.display()
        );
    }
    report(path, &crate_name, request.store, &values, &files);
    Ok(())
}

/// The directory's own name, for the crate name: `.` and `..` resolved against the
/// current directory.
fn last_component(path: &Path) -> Result<String, String> {
    let named = match path.components().next_back() {
        Some(Component::Normal(name)) => Some(name.to_owned()),
        _ => std::env::current_dir()
            .ok()
            .map(|cwd| cwd.join(path))
            .and_then(|p| p.canonicalize().ok())
            .and_then(|p| p.file_name().map(ToOwned::to_owned)),
    };
    let named = named.ok_or_else(|| {
        format!(
            "{} has no name to call the crate by; pass `--name NAME`",
            path.display()
        )
    })?;
    named.into_string().map_err(|n| {
        format!(
            "the directory name {} is not UTF-8; pass `--name NAME`",
            n.to_string_lossy()
        )
    })
}

/// An error unless `path` is absent or an empty directory.
fn refuse_non_empty(path: &Path) -> Result<(), String> {
    match std::fs::read_dir(path) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(format!(
                    "destination `{}` already exists and is not empty\n  help: choose a \
                     new directory (`toolspec init NEW_DIR`), or empty this one first",
                    path.display()
                ));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if path.exists() => Err(format!(
            "destination `{}` exists and is not a directory\n  help: choose a new \
             directory (`toolspec init NEW_DIR`)",
            path.display()
        )),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// What was made, and what to run next, as `cargo new` says it.
fn report(
    path: &Path,
    crate_name: &str,
    store: Store,
    values: &Values,
    files: &[(String, String)],
) {
    println!(
        "    Created server crate `{crate_name}` ({}) in {}",
        store.label(),
        path.display()
    );
    for (relative, _) in files {
        println!("      {relative}");
    }
    println!();
    println!("Next steps:");
    let cd = if path == Path::new(".") {
        String::new()
    } else {
        format!("cd {} && ", path.display())
    };
    if store == Store::Postgres {
        println!("  export DATABASE_URL=postgres://USER@HOST:PORT/DB");
    }
    println!("  {cd}cargo test && cargo run");
    println!(
        "Then edit {}.yaml (`toolspec check` and `toolspec lint` it) and src/lib.rs; README.md says more.",
        values.service
    );
}
