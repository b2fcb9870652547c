//! The MCP adapter of toolspec's runtime (feature `mcp` of `toolspec-runtime`, which
//! re-exports this crate as `toolspec_runtime::mcp`): serves any [`Toolset`] to MCP clients with
//! [rmcp](https://docs.rs/rmcp), over stdio or streamable HTTP.
//!
//! [`McpServer`] is an rmcp [`ServerHandler`](rmcp::ServerHandler) built from a toolset and
//! the server's name and version. It maps the protocol onto the engine and nothing more:
//!
//! - `tools/list` shows every [`ToolDefinition`](toolspec_core::engine::ToolDefinition) in the order
//!   of [`Toolset::definitions`], with its name, title, description, input and output schema
//!   and **all four** annotation hints set explicitly (a hint left out means "destructive"
//!   and "open world" to a client). Deprecated aliases are not listed; they stay callable.
//! - `tools/call` goes through [`Toolset::call`]. A success is a result whose
//!   `structuredContent` is the tool's structured output, with the same JSON as a text
//!   block. A [`ToolError`](toolspec_core::ToolError) is a result with `isError: true`,
//!   `structuredContent` `{code, message, retryable, details}`, its message as the first
//!   text block and the whole error as JSON in the second: the model sees every error meant
//!   for it. Only a name that is neither a tool nor an alias is a JSON-RPC error
//!   (`-32602`, invalid params), as the MCP specification asks.
//! - A call through a deprecated alias runs the tool and adds a text block telling the model
//!   the name to use, and the same fact in `_meta` under [`ALIAS_META_KEY`];
//!   `structuredContent` stays exactly what the output schema declares.
//! - An irreversible tool asks the person, not the model, when the client declared the
//!   elicitation capability (form mode): inline with `elicitation/create` on the session
//!   protocols (2025-06-18, 2025-11-25), and on the stateless 2026-07-28 protocol as an
//!   input-required result whose `requestState` is the preview id; the client asks the
//!   person and calls again with the answer (see [`toolspec_core::engine::Runtime::gated`]).
//! - Every call is logged as one line on standard error (tool, duration, `ok` or the error
//!   code); standard output is the stdio transport and carries nothing else. See
//!   [`CallLogger`] to turn it off or send it elsewhere.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use toolspec_runtime::engine::Toolset;
//! # async fn run(toolset: Arc<dyn Toolset>) -> std::io::Result<()> {
//! use toolspec_runtime::mcp::{McpServer, serve_stdio};
//!
//! let server = McpServer::new(toolset, "tickets", env!("CARGO_PKG_VERSION"))
//!     .map_err(std::io::Error::other)?;
//! serve_stdio(server).await
//! # }
//! ```
//!
//! Over HTTP every request passes an [`HttpGuard`] first: a body over 1 MiB is refused with
//! 413, nesting deeper than 64 levels with 400, a browser `Origin` that is not loopback (or
//! allowed) with 403, a body slower than 30 s with 408, a request id that an unanswered
//! request of the same session still uses with 400, all as JSON-RPC errors, before rmcp
//! parses anything; a client that takes over 10 s to send its headers is disconnected.
//! Calls of one session run concurrently, up to 64 at once; requests over 64 KiB run a few
//! at a time (half the cores), and the memory they used is given back to the system when
//! they are answered. At most 1,024 connections are served at once, each with
//! `TCP_NODELAY`.
//!
//! Over HTTP, [`serve_http`] serves the MCP endpoint at [`HTTP_PATH`] (`/mcp`) until Ctrl-C;
//! [`HttpServer`] does the same with a handle (bound address, shutdown) for tests and for
//! programs that run other things beside it.

// One audited call to the C allocator (`memory`); everything else is safe code.
// docs.rs (`--cfg docsrs`, see Cargo.toml) marks each item with the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "auth")]
pub mod auth;
mod batched;
mod convert;
mod envelope;
mod guard;
mod handler;
mod host;
mod inflight;
mod log;
mod memory;
mod serve;
mod stdio;
mod tasks;

pub use convert::{ALIAS_META_KEY, ALWAYS_LOAD_META_KEY, DefinitionError, alias_note, tool_list};
pub use guard::{Access, HttpGuard};
pub use handler::{LIST_TTL, McpServer};
pub use log::{CallLogger, CallOutcome, CallRecord, stderr_logger};
pub use serve::{
    HTTP_PATH, HttpServer, guarded_router, http_router, serve_http, serve_http_beside,
    serve_http_guarded, serve_http_with, serve_stdio, serve_stdio_guarded,
};
pub use stdio::StdioGuard;
pub use tasks::TaskLimits;

/// Re-exported so a server can name rmcp types (transports, configs) without its own
/// dependency on the exact same version.
pub use rmcp;

#[cfg(doc)]
use toolspec_core::engine::Toolset;
