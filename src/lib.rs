//! toolspec: compile one YAML spec of AI-agent tools into everything that serves them.
//!
//! One spec file describes a toolset: its tools, their parameters and results, their errors,
//! and the promises each tool makes to an agent (paging, idempotency, a preview before an
//! irreversible change, the undo call of a reversible one). toolspec checks the spec, then
//! writes from it the JSON Schemas and the MCP, Anthropic, OpenAI and Gemini tool lists, a Rust server
//! layer that enforces every promise, docs for a docs site, and a gauntlet of tests that holds
//! your implementation to the spec. You write the spec and one trait implementation.
//!
//! This page is the tutorial: from `cargo new` to an MCP server a host can run, a notes
//! server on SQLite with a read, a paged search, a reversible write and an irreversible one.
//! Its crate is `examples/tutorial` in the toolspec repository, built and tested with the
//! workspace, and every file below is included from it, so what you read here compiles and
//! passes. The user guide (`docs/guide` in the repository, an mdBook) builds the same crate
//! one tool at a time and explains each step.
//!
//! # 1. A new crate
//!
//! ```text
//! cargo new notes-server && cd notes-server
//! cargo add serde --features derive
//! cargo add serde_json
//! cargo add tokio --features rt-multi-thread,macros,io-std
//! cargo add toolspec-runtime --features mcp,sqlite
//! cargo add --build toolspec
//! cargo add --dev toolspec-runtime --features mcp,sqlite,gauntlet
//! ```
//!
//! `toolspec` runs only in the build script; the generated code needs `serde`, `serde_json`
//! and `toolspec-runtime` (feature `mcp` for the MCP adapter, `sqlite` for durable stores,
//! `gauntlet` for the generated tests).
//!
//! # 2. The spec
//!
//! `notes.yaml`, beside `Cargo.toml`. Every parameter and field has a description and an
//! example; the error catalog says what the agent should do next; the examples are run by
//! `toolspec check` against the tool's own schema and, later, by the gauntlet against your
//! code. The format's reference is `docs/spec-format.md`; `toolspec schema` prints its JSON
//! Schema for editors (the first line below points yaml-language-server at it).
//!
//! ```yaml
#![doc = include_str!("../docs/tutorial/notes.yaml")]
//! ```
//!
//! `toolspec check notes.yaml` reports every problem at once, each with
//! `file:line:column`, the line of the spec and how to fix it; `toolspec lint notes.yaml`
//! runs the tool-design rules (`toolspec rules` lists them).
//!
//! # 3. `build.rs`
//!
//! ```no_run
#![doc = include_str!("../docs/tutorial/build.rs")]
//! ```
//!
//! [`Builder`] follows prost-build: one `cargo:rerun-if-changed` per spec read, files
//! rewritten only when their bytes change, an `@generated` header. Specs that refer to each
//! other's tools are loaded together (`.spec(a).spec(b)`); `.generate_only("notes")` picks
//! the services to write. `toolspec generate notes.yaml --out generated` writes the same
//! bytes, plus the schemas, provider tool lists and docs, for a repository to check in.
//!
//! # 4. The implementation
//!
//! Include the generated module and implement its trait, one `async fn` per tool. A missing
//! tool is a compile error; a not-found is the catalog's typed error, whose message template
//! and `retryable` flag come from the spec. Reads lock the shared
//! `toolspec_runtime::sqlite::Database`; writes read and write only through their unit of
//! work (`work.sqlite(..)`), which holds that connection for the whole call (a lock taken
//! there is refused at once, naming the fix). The closure returns `Result<_, ToolError>`,
//! so `?` works on SQLite errors and on the toolset's own errors alike. `src/lib.rs`:
//!
//! ```ignore
#![doc = include_str!("../docs/tutorial/lib.rs")]
//! ```
//!
//! For a service `notes` the module holds: the spec's named types and, per tool,
//! `<Tool>Input` and `<Tool>Output` (closed sets are enums, optional fields `Option`s, fields
//! with a default plain values: defaults are filled before your code runs); `NotesError`,
//! one variant per catalog code; the trait `NotesTools`; and `NotesServer`, which implements
//! `toolspec_runtime::engine::Toolset`. Paged tools also receive a `Window` and return a
//! `Page` with the total; irreversible tools have a `preview_<tool>` method without side
//! effects and an apply method that receives the preview the user approved; reversible tools
//! get their undo call attached for them. Write methods (reversible and apply) also get a
//! `toolspec_runtime::store::Work`, the call's unit of work: make the change through it
//! (`work.sqlite(..)`, `work.outbox(..)`, or `work.on_commit(..)` for in-memory state) and it
//! commits with the call's idempotency record and approval, or not at all. Around your
//! methods the generated layer routes names and deprecated aliases, validates the arguments
//! (every problem at once, each with its JSON Pointer and the allowed values), pages with
//! tamper-evident cursors bound to the query, replays idempotency keys, asks the person
//! (through the client's elicitation) or the preview flow before an irreversible change, and
//! shapes results to the call's field list (`projection`), `response_format` and the spec's
//! token budget.
//!
//! # 5. Serve it
//!
//! `src/main.rs`:
//!
//! ```ignore
#![doc = include_str!("../docs/tutorial/main.rs")]
//! ```
//!
//! The runtime keeps its records (idempotency keys, previews, approvals) and the key that
//! signs paging cursors in the notes' own SQLite file (`Runtime::open` takes the key the
//! store keeps), so a write and its records commit in one transaction, and cursors outlive
//! a restart. `cargo run` now speaks
//! MCP on stdio (logs go to stderr: which tool, how long, which error code); `cargo run --
//! --http 127.0.0.1:8080` serves streamable HTTP at `/mcp`. Add it to a host such as Claude
//! Desktop:
//!
//! ```json
//! { "mcpServers": { "notes": { "command": "/path/to/target/release/notes-server",
//!                              "args": ["--db", "/path/to/notes.db"] } } }
//! ```
//!
//! # 6. Hold it to the spec
//!
//! The build script also wrote `notes_gauntlet.rs`: the spec's facts and a macro that
//! expands to one `#[test]` per promise (the schema served, each example, each refusal, and
//! for other tools paging, retries, previews and undo). Hand it a fixture that builds a fresh
//! implementation on throwaway state, with the runtime it is given moved onto that state's
//! database; `tests/gauntlet.rs`:
//!
//! ```ignore
#![doc = include_str!("../docs/tutorial/gauntlet.rs")]
//! ```
//!
//! `cargo test` lists `gauntlet::notes_get::example_an_unknown_id` and its siblings (93
//! checks of four tools); a failure names the promise that broke, the call that showed it,
//! what came back and what the spec expected.
//!
//! # Where to go next
//!
//! - Writes: a reversible or irreversible tool's method gets a unit of work
//!   (`toolspec_runtime::store::Work`) whose changes commit with the call's records. A tool
//!   whose change is made at a service you do not own says so with `effect:` in its spec
//!   (`remote_keyed`, `remote_lookup` or `remote_unprotected`); its method then gets a
//!   `toolspec_runtime::store::Remote`, whose `key()` is the same on every retry of one call
//!   (forward it, or store it on the change and look it up when `earlier_attempt()` says an
//!   earlier attempt may have made it), and every output promises only what that holds.
//! - Already have an HTTP API described in OpenAPI? `toolspec import openapi api.yaml
//!   --service shop --out shop.yaml` drafts the spec: every fact of
//!   the document carried, what it does not say marked `TODO`, and an `upstream`/`http`
//!   per tool, from which the generated module also holds `ShopApi`, an implementation of
//!   the trait that forwards each call to the API (runtime feature `upstream`).
//! - What a build script uses is all this crate shows: [`Builder`]; [`load()`] and
//!   [`load_texts`] with their [`Loaded`] and [`ReadError`], to check specs yourself; the
//!   [`diagnostics`] they report (file:line:column); and the [`model`], the resolved form
//!   every output reads. The stages behind the `toolspec` command (parsing, planning, the
//!   emitters, lint, diff, import, stats, eval) are in a module hidden from these docs and
//!   exempt from semver, for the `toolspec-cli` crate, a thin layer over this one (this
//!   crate compiles no command-line parser and, without the `tokens` feature, no
//!   tokenizer): use the command for them.

pub mod builder;
pub mod diagnostics;
#[doc(hidden)]
pub mod internals;
mod load;
pub mod model;
mod rust_names;

pub use builder::{BuildError, Builder};
// The stages keep their paths inside the crate (`crate::emit`), wherever they are published.
pub(crate) use internals::{emit, import, lint, plan, spec, stats};
pub use load::{Loaded, ReadError, load, load_texts};
