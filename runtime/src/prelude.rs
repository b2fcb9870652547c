//! What a server's own code writes against: `use toolspec_runtime::prelude::*;`.
//!
//! The generated module gives you a trait to implement and a server to build; implementing
//! it takes these. Everything else in this crate is for generated code and transports.
//!
//! | name | what it is for |
//! |---|---|
//! | [`ToolError`] | an error meant for the model (the spec's catalog errors are built for you) |
//! | [`Window`], [`Page`] | a paged tool's method gets the window to read and returns a page |
//! | [`Clearable`] | an optional field whose `null` clears: keep, clear or set |
//! | [`Work`] | a write method's unit of work: its effects commit with the call's records |
//! | [`Remote`] | a write whose change happens at a remote service (`effect: remote_keyed` or `remote_lookup`): the key to forward, whether an earlier attempt may have made it |
//! | [`Runtime`], [`CursorKey`] | what the generated server is built around: stores, cursor signing |
//! | `Database`, `SqliteStore` | (feature `sqlite`) your SQLite file, shared with the runtime's records |
//! | `PostgresStore` | (feature `postgres`) your PostgreSQL database, shared with the runtime's records by every replica |
//! | [`Store`] | what a runtime keeps its records in, for a fixture that moves a runtime onto yours |
//! | `McpServer`, `serve_stdio`, `serve_http`, `HttpServer`, `HttpGuard`, `StdioGuard` | (feature `mcp`) serving the toolset |

pub use toolspec_core::prelude::*;
#[cfg(feature = "mcp")]
pub use toolspec_mcp::{HttpGuard, HttpServer, McpServer, StdioGuard, serve_http, serve_stdio};
