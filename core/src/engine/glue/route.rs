//! Routing a call to its tool (canonical name or deprecated alias) and answering it.

use super::Serve;
use std::future::Future;
use std::time::Duration;

use serde_json::Value;

use super::super::{BoxFuture, CallOutput, Runtime, ToolDefinition, unknown_tool};
use crate::error::ToolError;
#[cfg(feature = "metrics")]
use crate::shape::ResponseFormat;

/// The index in `definitions` of the tool called `name` (canonical name or deprecated
/// alias) and, when reached through an alias, its canonical name; else `unknown_tool`.
pub fn route(
    definitions: &'static [ToolDefinition],
    name: &str,
) -> Result<(usize, Option<&'static str>), ToolError> {
    super::super::locate_tool(definitions, name).ok_or_else(|| unknown_tool(definitions, name))
}

/// How long a task's result is kept for calls of `tool` (canonical name), when they may
/// run as tasks: what a generated toolset's [`Toolset::task_kept`](crate::engine::Toolset::task_kept) answers.
pub fn task_kept(
    definitions: &'static [ToolDefinition],
    serve: &'static [Serve],
    tool: &str,
) -> Option<Duration> {
    let (index, _) = super::super::locate_tool(definitions, tool)?;
    serve.get(index)?.task_kept
}

/// One call the dispatcher serves: the tool, the name the client used, and (with feature
/// `metrics`) when it started and the response format it asked for, so that [`answer`] can
/// record it ([`crate::telemetry`]).
///
/// Made before the arguments move into the serving future: it reads only
/// `response_format` from them, never keeps them.
#[derive(Debug, Clone, Copy)]
pub struct Call {
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    serve: &'static Serve,
    /// The tool's name or the deprecated alias the client used: a reference to the
    /// definition's own field, so that the metrics can key by its address.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    called_as: &'static &'static str,
    /// The canonical name, when `called_as` is a deprecated alias.
    alias: Option<&'static str>,
    /// The cycle-counter reading at the start and the format served, when recording.
    #[cfg(feature = "metrics")]
    recording: Option<(u64, ResponseFormat)>,
}

impl Call {
    /// Starts serving `called` (the tool's name or one of its deprecated aliases, as
    /// [`route`] found it) with `arguments`.
    pub fn new(
        rt: &Runtime,
        definition: &'static ToolDefinition,
        serve: &'static Serve,
        called: &str,
        arguments: &Value,
    ) -> Self {
        let alias = definition
            .deprecated_aliases
            .iter()
            .find(|a| called != definition.name && **a == called);
        let called_as = alias.unwrap_or(&definition.name);
        let alias = alias.map(|_| definition.name);
        #[cfg(feature = "metrics")]
        if let Some(tool) = alias {
            crate::telemetry::deprecated_alias(called_as, tool);
        }
        #[cfg(feature = "metrics")]
        let recording = rt
            .metrics
            .then(|| (crate::telemetry::now(), serve.format(arguments)));
        #[cfg(not(feature = "metrics"))]
        let _ = (rt, arguments);
        Self {
            serve,
            called_as,
            alias,
            #[cfg(feature = "metrics")]
            recording,
        }
    }
}

/// Boxes one tool's serving future as the dispatcher's answer, marking a call that came
/// through a deprecated alias and, with feature `metrics`, recording the call (a
/// `tool_call` span around it, then one sample: see [`crate::telemetry`]).
///
/// The dispatcher boxes each tool's future on its own arm instead of one future over all
/// arms: a boxed `async` block is as large as its largest arm (an irreversible tool's is
/// kilobytes), and every call would pay to allocate and move that much.
pub fn answer<'a, F>(call: Call, serving: F) -> BoxFuture<'a, Result<CallOutput, ToolError>>
where
    F: Future<Output = Result<Value, ToolError>> + Send + 'a,
{
    // Two futures boxed apart, not one with a branch: the serving future (kilobytes for a
    // write) is then moved once, not into a second state machine inside the first.
    #[cfg(feature = "metrics")]
    if let Some((started, format)) = call.recording {
        return Box::pin(super::super::observe::observed(
            call.serve,
            call.called_as,
            call.alias,
            started,
            format,
            serving,
        ));
    }
    Box::pin(async move { Ok(CallOutput::new(serving.await?).via_alias(call.alias)) })
}

/// The dispatcher's answer to a call it refuses before serving it (an unknown tool).
pub fn refused<'a>(error: ToolError) -> BoxFuture<'a, Result<CallOutput, ToolError>> {
    Box::pin(std::future::ready(Err(error)))
}

/// The error for an index [`route`] cannot have returned: a bug in generated code.
pub fn unroutable(name: &str) -> ToolError {
    ToolError::internal(format!("generated dispatcher has no arm for tool {name}"))
}
