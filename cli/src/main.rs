//! The `toolspec` command line: one module per subcommand.
//!
//! Exit codes are the same for every command: 0 when clean, 1 when a spec has errors (or
//! `--check` finds stale output), 2 for usage and I/O problems.

mod check;
mod diff;
mod eval;
mod generate;
mod import;
mod init;
mod lint;
mod rules;
mod stats;

use clap::builder::PossibleValue;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::LazyLock;
use toolspec::internals::emit::Kind;
use toolspec::internals::lint::Set;

/// Compile YAML specs of AI-agent tools into schemas, servers, docs and tests.
#[derive(Debug, Parser)]
#[command(name = "toolspec", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load, resolve and check specs; report every problem with its location.
    Check {
        /// Spec files, checked together (tools may name tools of other specs); eval tasks
        /// files (`eval: 1`) among them are checked against the specs.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
    },
    /// Lint specs: report what makes agents misuse tools (see `toolspec rules`).
    Lint {
        /// Spec files, linted together (the misroute and overlap rules compare all their tools).
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: lint::Format,
        /// Rule set for every spec, overriding each spec's `lint.set`.
        #[arg(long, value_enum)]
        set: Option<SetArg>,
    },
    /// Compare two versions of specs; list every change, breaking or compatible.
    Diff {
        /// OLD and NEW spec files; with `--against`, the specs to compare with their git version.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Compare each spec with its version at this git ref (`git show REF:path`).
        #[arg(long, value_name = "GIT_REF")]
        against: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: diff::Format,
    },
    /// List the lint rules, or print one rule's documentation.
    Rules {
        /// A rule id (`tool-name-prefix`).
        id: Option<String>,
    },
    /// Show what each tool definition costs in context, in tokens (o200k_base).
    Stats {
        /// Spec files, resolved together.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: stats::Format,
    },
    /// Print the JSON Schema of the spec format, for editors and validators.
    Schema,
    /// Evaluate whether a model picks and calls the specs' tools right: runs the tasks of
    /// `--tasks` and those the specs imply against a provider's API and the server, scores
    /// them, and writes transcripts and a report (`--dry-run` lists what a run would send).
    Eval(eval::Args),
    /// Print the JSON Schema of the eval tasks file, for editors and validators.
    TasksSchema,
    /// Make a new MCP server crate: a starter spec with one tool of each tier, its
    /// implementation on the chosen store, a main serving stdio and HTTP, and the gauntlet.
    Init {
        /// The directory to make the crate in (created; it must be absent or empty).
        #[arg(default_value = ".")]
        path: PathBuf,
        /// The crate's name (default: the directory's name); the spec's service is the
        /// name with `-` as `_`.
        #[arg(long)]
        name: Option<String>,
        /// Where the server keeps its data and its records of calls.
        #[arg(long, value_enum, default_value = "sqlite")]
        store: init::Store,
        /// Point the crate's toolspec dependencies at this checkout (relative to the new
        /// crate when relative) instead of the published crates at this command's version.
        #[arg(long, value_name = "DIR")]
        toolspec_path: Option<PathBuf>,
    },
    /// Write one docs book (mdBook) of every spec's tools: a home page, per toolset its
    /// index, tool pages and errors, and one error-code reference, cross-linked.
    Docs {
        /// Spec files, resolved together (a tool naming another toolset's links to it).
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Output directory: `mdbook build DIR` makes the site.
        #[arg(long)]
        out: PathBuf,
        /// Write nothing; list missing or stale files and exit 1 if there are any.
        #[arg(long)]
        check: bool,
        /// Directory of templates overriding the embedded ones.
        #[arg(long)]
        templates: Option<PathBuf>,
    },
    /// Draft a spec from what describes an existing API.
    Import {
        #[command(subcommand)]
        from: ImportFrom,
    },
    /// Generate outputs for specs into a directory (`DIR/<service>/...`).
    Generate {
        /// Spec files, resolved together.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Kinds of output to generate (default: all).
        #[arg(long, value_enum, value_delimiter = ',')]
        emit: Vec<KindArg>,
        /// Write nothing; list missing or stale files and exit 1 if there are any.
        #[arg(long)]
        check: bool,
        /// Directory of templates overriding the embedded ones.
        #[arg(long)]
        templates: Option<PathBuf>,
    },
}

/// What `toolspec import` reads.
#[derive(Debug, Subcommand)]
enum ImportFrom {
    /// An OpenAPI 3.0 or 3.1 document (YAML or JSON): one tool per chosen operation, every
    /// fact the spec can hold carried over, the rest reported; the draft passes `check`.
    Openapi {
        /// The document.
        file: PathBuf,
        /// The draft's service namespace (snake_case): tools are `<service>_<resource>_<verb>`.
        #[arg(long)]
        service: String,
        /// Operations to import (all when left out): `tag:NAME`, `path:/PREFIX` (`*` matches
        /// anything), `operation:ID`, or a bare tag or operationId. Repeat or separate by commas.
        #[arg(long, value_delimiter = ',')]
        include: Vec<String>,
        /// Write the draft here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replace `--out` if it exists.
        #[arg(long)]
        force: bool,
    },
}

/// `--emit`'s values: the library's [`Kind`]s, named and explained by the library.
#[derive(Debug, Clone, Copy)]
struct KindArg(Kind);

impl ValueEnum for KindArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: LazyLock<Vec<KindArg>> =
            LazyLock::new(|| Kind::ALL.iter().map(|&k| KindArg(k)).collect());
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.as_str()).help(self.0.about()))
    }
}

/// `--set`'s values: the library's lint [`Set`]s.
#[derive(Debug, Clone, Copy)]
struct SetArg(Set);

impl ValueEnum for SetArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: LazyLock<Vec<SetArg>> =
            LazyLock::new(|| Set::ALL.iter().map(|&s| SetArg(s)).collect());
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.as_str()).help(self.0.about()))
    }
}

/// The specs at `paths`, read, loaded and resolved together; `None` (after saying why on
/// standard error) when one cannot be read, which every command answers with exit code 2.
fn load(paths: &[PathBuf]) -> Option<toolspec::Loaded> {
    match toolspec::load(paths) {
        Ok(loaded) => Some(loaded),
        Err(e) => {
            eprintln!("error: {e}");
            None
        }
    }
}

/// Outcome of a command, mapped to the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing wrong.
    Clean,
    /// A spec has errors, or generated output is stale.
    Failed,
    /// Bad usage or an I/O error.
    Usage,
}

impl From<Outcome> for ExitCode {
    fn from(o: Outcome) -> ExitCode {
        ExitCode::from(match o {
            Outcome::Clean => 0,
            Outcome::Failed => 1,
            Outcome::Usage => 2,
        })
    }
}

/// Runs the command line and returns the process exit code.
fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // `toolspec check ... | head` closes the pipe early: end quietly, as every Unix tool
    // does, rather than panic in `println!` (Rust ignores SIGPIPE by default). Not for
    // `eval`, which writes to the server it starts: a server that exits would kill it
    // instead of being reported.
    #[cfg(unix)]
    if !matches!(cli.command, Command::Eval(_)) {
        // SAFETY: restoring the default action of one signal, before any thread exists.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    let outcome = match cli.command {
        Command::Check { specs } => check::run(&specs),
        Command::Import {
            from:
                ImportFrom::Openapi {
                    file,
                    service,
                    include,
                    out,
                    force,
                },
        } => import::openapi(&file, &service, &include, out.as_ref(), force),
        Command::Generate {
            specs,
            out,
            emit,
            check,
            templates,
        } => {
            let options = toolspec::internals::emit::Options { templates };
            let emit: Vec<Kind> = emit.into_iter().map(|k| k.0).collect();
            generate::run(&specs, &out, &emit, check, &options)
        }
        Command::Docs {
            specs,
            out,
            check,
            templates,
        } => generate::docs(
            &specs,
            &out,
            check,
            &toolspec::internals::emit::Options { templates },
        ),
        Command::Lint { specs, format, set } => lint::run(&specs, format, set.map(|s| s.0)),
        Command::Rules { id } => rules::run(id.as_deref()),
        Command::Diff {
            files,
            against,
            format,
        } => diff::run(&files, against.as_deref(), format),
        Command::Stats { specs, format } => stats::run(&specs, format),
        Command::Init {
            path,
            name,
            store,
            toolspec_path,
        } => init::run(&init::Request {
            path: Some(&path),
            name: name.as_deref(),
            store,
            toolspec_path: toolspec_path.as_deref(),
        }),
        Command::Schema => {
            println!("{}", toolspec::internals::spec::format_schema_text());
            Outcome::Clean
        }
        Command::Eval(args) => eval::run(args),
        Command::TasksSchema => {
            println!("{}", toolspec::internals::eval::tasks_schema_text());
            Outcome::Clean
        }
    };
    outcome.into()
}
