//! The transport-neutral entry point: tool definitions, the [`Toolset`] trait that generated
//! code implements, and the [`Runtime`] whose helpers that code calls around the user's
//! methods. The MCP adapter (and tests) drive a toolset only through this module.

mod approval;
pub mod digest;
mod extras;
mod gate;
#[doc(hidden)]
pub mod glue;
#[cfg(feature = "metrics")]
mod observe;
mod page;
mod runtime;
mod served;
mod write;

pub use crate::text::for_person;
pub use approval::{APPROVAL_PENDING, ApprovalRequest, Confirmation, Host, HostAnswer};
pub use extras::{UndoSpec, attach_undo, undo_key};
pub use gate::Gate;
pub use page::{Page, Window};
pub use runtime::{DEFAULT_LEASE, Runtime};
pub use served::{Served, ServedError};
pub use write::CallLimits;

use std::future::Future;

use serde_json::Value;

use crate::error::ToolError;
use crate::validate::ObjectShape;

pub use crate::future::BoxFuture;

/// MCP tool annotations, from the tool's tier.
///
/// `tools/list` states only the hints that say something ([`Annotations::stated`]): MCP
/// gives each hint a default, always the cautious one (not read-only, destructive, not
/// idempotent, open world), so a hint left out reads as caution, never as safety.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    /// The tool changes nothing (`readOnlyHint`).
    pub read_only: bool,
    /// The change may destroy or overwrite data (`destructiveHint`).
    pub destructive: bool,
    /// Repeating the same call has no further effect (`idempotentHint`).
    pub idempotent: bool,
    /// The tool reaches systems outside the server's own data (`openWorldHint`).
    pub open_world: bool,
}

/// One of MCP's four tool hints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// `readOnlyHint`.
    ReadOnly,
    /// `destructiveHint`.
    Destructive,
    /// `idempotentHint`.
    Idempotent,
    /// `openWorldHint`.
    OpenWorld,
}

impl Hint {
    /// The hint's key in MCP's `annotations` (`readOnlyHint`).
    pub fn mcp_name(self) -> &'static str {
        match self {
            Hint::ReadOnly => "readOnlyHint",
            Hint::Destructive => "destructiveHint",
            Hint::Idempotent => "idempotentHint",
            Hint::OpenWorld => "openWorldHint",
        }
    }
}

impl Annotations {
    /// The hints `tools/list` states, in MCP's order, leaving out each that equals MCP's
    /// default, with one exception: a write always states `destructiveHint`, whose default
    /// (`true`) a careless client could read as `false`, and which a person relies on most.
    /// A read-only tool states no `destructiveHint` or `idempotentHint`: MCP gives them
    /// meaning only when `readOnlyHint` is false.
    pub fn stated(&self) -> Vec<(Hint, bool)> {
        let mut out = Vec::with_capacity(3);
        if self.read_only {
            out.push((Hint::ReadOnly, true));
        } else {
            out.push((Hint::Destructive, self.destructive));
            if self.idempotent {
                out.push((Hint::Idempotent, true));
            }
        }
        if !self.open_world {
            out.push((Hint::OpenWorld, false));
        }
        out
    }
}

/// Everything static about one tool, as generated code declares it in a `static` array.
#[derive(Debug, Clone, Copy)]
pub struct ToolDefinition {
    /// Canonical name, `<service>_<verb>` (`tickets_search`).
    pub name: &'static str,
    /// Human title.
    pub title: &'static str,
    /// The description the model reads (composed by the generator from the spec's facts).
    pub description: &'static str,
    /// JSON Schema of the arguments, as JSON text.
    pub input_schema: &'static str,
    /// JSON Schema of the structured result, as JSON text: every field with its words and
    /// rules, the contract the gauntlet holds results to.
    pub output_schema: &'static str,
    /// What `tools/list` publishes of it (the spec's `output_schema` level), as JSON text;
    /// empty for none.
    pub listed_output_schema: &'static str,
    /// MCP annotations.
    pub annotations: Annotations,
    /// Old names still answered; calls through them report `called_as_alias`.
    pub deprecated_aliases: &'static [&'static str],
    /// The OAuth scopes a caller's token must grant, all of them, to list and call this
    /// tool; empty = any authenticated caller. Only callers with a token are held to them
    /// (the local user over stdio has none and is never refused); never listed to the model.
    pub scopes: &'static [&'static str],
    /// The argument shape the validator checks.
    pub input: &'static ObjectShape,
    /// A valid call as JSON text, from the spec's examples; ends every validation message.
    pub example_call: &'static str,
    /// The group it belongs to, when the spec has groups.
    pub group: Option<&'static ToolGroup>,
}

/// A group of a toolset's tools, as the spec's `groups` declares it: what an operator
/// serves alone (`--groups`, [`Served`]) and what a host may load only on a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolGroup {
    /// Its name (`pulls`).
    pub name: &'static str,
    /// What its tools are for, as a model reads it.
    pub description: &'static str,
    /// Whether its tools are loaded on every turn: `tools/list` then marks them
    /// `_meta["anthropic/alwaysLoad"]`, so hosts that defer tools keep these loaded.
    pub up_front: bool,
}

impl ToolDefinition {
    /// Validates a call's arguments and fills defaults ([`crate::validate::prepare`]).
    pub fn prepare(&self, arguments: Value) -> Result<Value, ToolError> {
        crate::validate::prepare(self.input, self.example_call, arguments)
    }
}

/// The position in `definitions` of the tool called `name` (by canonical name or deprecated
/// alias) and, when reached through an alias, its canonical name: the one router, which the
/// generated dispatcher ([`glue::route`]) and the MCP adapter ([`find_tool`]) both use.
pub fn locate_tool(
    definitions: &'static [ToolDefinition],
    name: &str,
) -> Option<(usize, Option<&'static str>)> {
    if let Some(i) = definitions.iter().position(|d| d.name == name) {
        return Some((i, None));
    }
    definitions
        .iter()
        .position(|d| d.deprecated_aliases.contains(&name))
        .map(|i| (i, Some(definitions[i].name)))
}

/// The tool called `name` (by canonical name or deprecated alias) and, when reached through
/// an alias, its canonical name ([`locate_tool`]).
pub fn find_tool(
    definitions: &'static [ToolDefinition],
    name: &str,
) -> Option<(&'static ToolDefinition, Option<&'static str>)> {
    locate_tool(definitions, name).map(|(i, alias)| (&definitions[i], alias))
}

/// The `unknown_tool` error for `name`, listing the canonical names of `definitions`.
/// (Over MCP an unknown tool is a protocol error; the adapter checks [`find_tool`] first.)
pub fn unknown_tool(definitions: &[ToolDefinition], name: &str) -> ToolError {
    let known: Vec<&str> = definitions.iter().map(|d| d.name).collect();
    ToolError::unknown_tool(name, &known)
}

/// Per-call facts from the transport.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct CallContext {
    /// The transport's request id, for logs.
    pub request_id: Option<String>,
    /// The client session, when the transport has one.
    pub session_id: Option<String>,
    /// The host, when it can ask the person to approve a change (an MCP client that
    /// declared elicitation): irreversible tools then ask the person, not the model.
    pub host: Option<std::sync::Arc<dyn Host>>,
    /// Who calls, when the transport authenticated them (HTTP with authorization); `None`
    /// for the local user (stdio, direct calls). The adapter runs the call in this caller's
    /// [`crate::caller::scope`].
    pub caller: Option<std::sync::Arc<crate::caller::Caller>>,
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("request_id", &self.request_id)
            .field("session_id", &self.session_id)
            .field("host", &self.host.as_ref().map(|h| h.name()))
            .field("caller", &self.caller.as_ref().map(|c| c.tag()))
            .finish()
    }
}

impl CallContext {
    /// A context with no transport facts (tests, direct calls).
    pub fn new() -> Self {
        Self::default()
    }

    /// The same context with `host` able to ask the person.
    pub fn with_host(mut self, host: std::sync::Arc<dyn Host>) -> Self {
        self.host = Some(host);
        self
    }

    /// The same context for `caller` (see [`CallContext::caller`]).
    pub fn with_caller(mut self, caller: std::sync::Arc<crate::caller::Caller>) -> Self {
        self.caller = Some(caller);
        self
    }
}

/// A successful call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutput {
    /// The structured result (valid against the tool's output schema).
    pub structured: Value,
    /// Whether this is the stored result of an earlier call with the same idempotency key.
    pub replayed: bool,
    /// When called by a deprecated alias: the canonical name to use instead.
    pub called_as_alias: Option<&'static str>,
    /// Content blocks beside the structured result, in MCP's shape (`{"type": "image",
    /// ...}`): the images, audio, text and resource links of the tool's content fields
    /// ([`crate::content`]).
    pub content: Vec<Value>,
}

impl CallOutput {
    /// Wraps a result; `replayed` is read from its `replayed` key, and content blocks the
    /// glue set aside ([`crate::content::CONTENT_KEY`]) are taken out into `content`.
    pub fn new(mut structured: Value) -> Self {
        let replayed = structured.get("replayed").and_then(Value::as_bool) == Some(true);
        let content = match structured
            .as_object_mut()
            .and_then(|m| m.remove(crate::content::CONTENT_KEY))
        {
            Some(Value::Array(blocks)) => blocks,
            _ => Vec::new(),
        };
        Self {
            structured,
            replayed,
            called_as_alias: None,
            content,
        }
    }

    /// Records that the call came through a deprecated alias of `canonical`.
    pub fn via_alias(mut self, canonical: Option<&'static str>) -> Self {
        self.called_as_alias = canonical;
        self
    }
}

/// A set of tools: what generated code implements over the user's trait, and what the MCP
/// adapter serves. Object safe: hold it as `Arc<dyn Toolset>`.
pub trait Toolset: Send + Sync {
    /// Every tool, in the deterministic order tools/list shows them.
    fn definitions(&self) -> &'static [ToolDefinition];

    /// Runs the tool `name` (canonical or deprecated alias) with raw `arguments`.
    /// Every failure meant for the model is a [`ToolError`]; an unknown name is
    /// `unknown_tool`.
    fn call<'a>(
        &'a self,
        name: &'a str,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallOutput, ToolError>>;

    /// What one request to this toolset's server may cost; generated toolsets return the
    /// spec's `defaults.limits`. The MCP transports enforce it before any tool runs.
    fn limits(&self) -> Limits {
        Limits::DEFAULT
    }

    /// The runtime whose store keeps this toolset's tasks ([`crate::task`]); generated
    /// toolsets return theirs. `None`: no call runs as a task.
    fn task_runtime(&self) -> Option<&Runtime> {
        None
    }

    /// How long a task's result is kept when calls of `tool` (canonical name) may run as
    /// tasks (the spec's `time: { task: ... }`); `None`: always the ordinary call.
    fn task_kept(&self, tool: &str) -> Option<std::time::Duration> {
        let _ = tool;
        None
    }
}

/// Runs `main` with `side` polled beside it until `main` ends (or `side` does first, after
/// which only `main` is polled): `main`'s output. For a heartbeat that lives as long as the
/// work it speaks for.
pub(crate) async fn alongside<F: Future, S: Future<Output = ()>>(main: F, side: S) -> F::Output {
    let mut main = std::pin::pin!(main);
    let mut side = std::pin::pin!(side);
    let mut beside = true;
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(out) = main.as_mut().poll(cx) {
            return std::task::Poll::Ready(out);
        }
        if beside && side.as_mut().poll(cx).is_ready() {
            beside = false;
        }
        std::task::Poll::Pending
    })
    .await
}

/// The limits on one request, enforced by a transport before the request is parsed: a
/// larger or deeper one is refused with a JSON-RPC error that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest request in bytes: an HTTP body, or one line on stdio.
    pub max_request_bytes: usize,
    /// Deepest nesting of arrays and objects in a request (the protocol's envelope takes
    /// three or four levels).
    pub max_depth: usize,
}

impl Limits {
    /// 1 MiB and 64 levels: a tool call with a large text argument fits, a hostile request
    /// costs little, and no nesting comes near a stack's limits.
    pub const DEFAULT: Limits = Limits {
        max_request_bytes: 1 << 20,
        max_depth: 64,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
