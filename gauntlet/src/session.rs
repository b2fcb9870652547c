//! A [`Session`]: one fresh implementation from the fixture, on a runtime whose clock the
//! gauntlet moves, with helpers that turn every unexpected answer into a [`Failure`].

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::Executor;
use super::facts::{Facts, Tier, ToolFacts};
use super::failure::{Failure, clip, show};
use toolspec_core::clock::ManualClock;
use toolspec_core::engine::{CallContext, CallOutput, Runtime, ToolDefinition, Toolset};
use toolspec_core::error::ToolError;

/// Where every session's clock starts: 2026-01-01T00:00:00Z, a fixed instant so that
/// previews and keys expire at the same times on every run.
pub(crate) const START_MS: i64 = 1_767_225_600_000;

/// Runs `fut` to completion on `exec`; `None` when the executor returned without doing so.
pub(crate) fn block<T>(exec: &Executor<'_>, fut: impl Future<Output = T>) -> Option<T> {
    let mut out = None;
    exec(Box::pin(async {
        out = Some(fut.await);
    }));
    out
}

/// One fresh implementation and the runtime it was built with.
pub(crate) struct Session<'g> {
    pub(crate) server: Box<dyn Toolset>,
    pub(crate) runtime: Runtime,
    pub(crate) clock: Arc<ManualClock>,
    pub(crate) exec: &'g Executor<'g>,
    /// The tools only a person may approve (`approval: host`), which the gauntlet calls
    /// with [`PlayedHost`].
    pub(crate) host_only: Vec<&'static str>,
    pub(crate) host: Arc<PlayedHost>,
}

/// The person, as the gauntlet plays them for host-only tools, in two rounds like the
/// 2026-07-28 protocol: the first call of a preview is answered later (the session shows
/// it as the preview flow would), and the call that names the preview it was shown
/// approves it. So every preview check holds host-only tools to the same promises.
#[derive(Default)]
pub(crate) struct PlayedHost {
    shown: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl toolspec_core::engine::Host for PlayedHost {
    fn name(&self) -> String {
        "host:gauntlet".into()
    }

    fn ask<'a>(
        &'a self,
        request: &'a toolspec_core::engine::ApprovalRequest,
    ) -> toolspec_core::engine::BoxFuture<'a, toolspec_core::engine::HostAnswer> {
        let mut shown = self.shown.lock().unwrap_or_else(|p| p.into_inner());
        let answer = if shown.contains(&request.preview_id) {
            toolspec_core::engine::HostAnswer::Accept
        } else {
            shown.insert(request.preview_id.clone());
            toolspec_core::engine::HostAnswer::Later
        };
        Box::pin(std::future::ready(answer))
    }
}

impl Session<'_> {
    /// Calls `tool` with `args` as a client would.
    pub(crate) fn call(&self, tool: &str, args: &Value) -> Result<CallOutput, ToolError> {
        if !self.host_only.contains(&tool) {
            return self.call_with(tool, args, &CallContext::new());
        }
        let ctx = CallContext::new().with_host(self.host.clone());
        match self.call_with(tool, args, &ctx) {
            // The first round: the preview the person is being shown.
            Err(e) if e.code == toolspec_core::engine::APPROVAL_PENDING => {
                let preview = e.details.get("preview").cloned().unwrap_or_default();
                Ok(CallOutput::new(
                    serde_json::json!({"applied": false, "preview": preview}),
                ))
            }
            other => other,
        }
    }

    /// Calls `tool` with `args` as a client that cancels the call as soon as it waits (its
    /// first `Pending`): what `notifications/cancelled` does to a call that is under way.
    pub(crate) fn call_cancelled(&self, tool: &str, args: &Value) -> Result<CallOutput, ToolError> {
        let ctx = if self.host_only.contains(&tool) {
            CallContext::new().with_host(self.host.clone())
        } else {
            CallContext::new()
        };
        let cancel = toolspec_core::cancel::Cancel::new();
        let call = self.server.call(tool, args.clone(), &ctx);
        let mut call = std::pin::pin!(toolspec_core::cancel::scope(cancel.clone(), call));
        let cancelling = std::future::poll_fn(move |cx| {
            let polled = call.as_mut().poll(cx);
            if polled.is_pending() && !cancel.is_cancelled() {
                // Wakes what the runtime waits on: the call is polled again and stops.
                cancel.cancel();
            }
            polled
        });
        block(self.exec, cancelling).unwrap_or_else(|| {
            Err(ToolError::internal(
                "the gauntlet's executor returned before the call finished",
            ))
        })
    }

    /// Calls `tool` with `args` in `ctx`, as a client would.
    pub(crate) fn call_with(
        &self,
        tool: &str,
        args: &Value,
        ctx: &CallContext,
    ) -> Result<CallOutput, ToolError> {
        let call = self.server.call(tool, args.clone(), ctx);
        block(
            self.exec,
            toolspec_core::caller::scope(ctx.caller.clone(), call),
        )
        .unwrap_or_else(|| {
            Err(ToolError::internal(
                "the gauntlet's executor returned before the call finished",
            ))
        })
    }

    /// Calls and expects a success; anything else fails `promise`.
    pub(crate) fn ok(&self, tool: &str, args: &Value, promise: &str) -> Result<Value, Failure> {
        match self.call(tool, args) {
            Ok(out) => Ok(out.structured),
            Err(e) => Err(Failure::new(promise)
                .call(tool, args)
                .got(describe_error(&e))
                .expected("a successful result")
                .fix(error_fix(&e))),
        }
    }

    /// Calls and expects an error with `code`; anything else fails `promise`.
    pub(crate) fn refused(
        &self,
        tool: &str,
        args: &Value,
        code: &str,
        promise: &str,
    ) -> Result<ToolError, Failure> {
        match self.call(tool, args) {
            Ok(out) => Err(Failure::new(promise)
                .call(tool, args)
                .got(format!("a success: {}", show(&out.structured)))
                .expected(format!("error `{code}`"))),
            Err(e) if e.code == code => {
                if e.retryable
                    != toolspec_core::catalog::find_any(code).is_some_and(|b| b.retryable)
                {
                    return Err(Failure::new(promise)
                        .call(tool, args)
                        .got(format!("`{code}` with retryable: {}", e.retryable))
                        .expected(format!("`{code}` with retryable: {}", !e.retryable)));
                }
                Ok(e)
            }
            Err(e) => Err(Failure::new(promise)
                .call(tool, args)
                .got(describe_error(&e))
                .expected(format!("error `{code}`"))
                .fix(error_fix(&e))),
        }
    }

    /// A success of `tool`, applied if the tool is gated: the preview first, then the apply
    /// with its id. Returns `(preview result, final result)`.
    pub(crate) fn succeed(
        &self,
        tool: &ToolFacts,
        args: &Value,
        promise: &str,
    ) -> Result<(Option<Value>, Value), Failure> {
        let first = self.ok(tool.name, args, promise)?;
        if tool.preview.is_none() {
            return Ok((None, first));
        }
        let apply = self.apply_args(tool, args, &first, promise)?;
        let done = self.ok(tool.name, &apply, promise)?;
        Ok((Some(first), done))
    }

    /// `args` plus the `preview_id` of `preview` (the result of a preview call).
    pub(crate) fn apply_args(
        &self,
        tool: &ToolFacts,
        args: &Value,
        preview: &Value,
        promise: &str,
    ) -> Result<Value, Failure> {
        let Some(id) = preview
            .pointer("/preview/preview_id")
            .and_then(Value::as_str)
        else {
            return Err(Failure::new(promise)
                .call(tool.name, args)
                .got(format!("no preview.preview_id in {}", show(preview)))
                .expected("a preview: {\"applied\": false, \"preview\": {\"preview_id\": ...}}")
                .fix("serve irreversible tools through the generated server, which gates them"));
        };
        let mut apply = args.clone();
        set(&mut apply, "preview_id", Value::from(id));
        Ok(apply)
    }

    /// Effects of `tool` so far: runs of its method, or applies.
    pub(crate) fn writes(&self, tool: &str) -> u64 {
        self.runtime.test_hooks().invocations(tool).writes
    }

    /// Moves the session's clock by `ms`.
    pub(crate) fn advance_ms(&self, ms: i64) {
        self.clock.advance_ms(ms);
    }

    /// The served definition of `tool`.
    pub(crate) fn definition(&self, tool: &str) -> Option<&'static ToolDefinition> {
        self.server.definitions().iter().find(|d| d.name == tool)
    }

    /// What the read tools see now: every read-only tool's successful examples, called.
    pub(crate) fn snapshot(&self, facts: &Facts) -> Vec<(String, Value)> {
        let mut seen = Vec::new();
        for tool in facts.tools.iter().filter(|t| t.tier == Tier::ReadOnly) {
            for example in tool.examples.iter().filter(|e| e.error.is_none()) {
                let args = parse(example.arguments);
                let label = format!("{} {}", tool.name, clip(&args.to_string(), 200));
                let answer = match self.call(tool.name, &args) {
                    Ok(out) => out.structured,
                    Err(e) => e.to_value(),
                };
                seen.push((label, answer));
            }
        }
        seen
    }
}

/// Compares two snapshots; the first difference as `(call, before, after)`, where
/// `before` and `after` name the JSON Pointer that changed and its two values.
pub(crate) fn first_difference(
    before: &[(String, Value)],
    after: &[(String, Value)],
) -> Option<(String, String, String)> {
    before.iter().zip(after).find_map(|((label, a), (_, b))| {
        let (at, was, now) = super::values::first_diff(a, b, "")?;
        let at = if at.is_empty() {
            "the result".to_owned()
        } else {
            at
        };
        let side = |v: Option<&Value>| v.map_or_else(|| "nothing".to_owned(), show);
        Some((
            label.clone(),
            format!("{at} = {}", side(was)),
            format!("{at} = {}", side(now)),
        ))
    })
}

/// JSON text from the facts (generated from valid JSON; `null` if it is not).
pub(crate) fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// Sets `key` of an object value (other values are left alone).
pub(crate) fn set(args: &mut Value, key: &str, value: Value) {
    if let Value::Object(map) = args {
        map.insert(key.to_owned(), value);
    }
}

/// Removes `key` from an object value.
pub(crate) fn unset(args: &mut Value, key: &str) {
    if let Value::Object(map) = args {
        map.remove(key);
    }
}

/// A result without its `replayed` flag, to compare a first answer with its replay.
pub(crate) fn without_replayed(value: &Value) -> Value {
    let mut v = value.clone();
    unset(&mut v, "replayed");
    v
}

/// How an error reads in a failure.
pub(crate) fn describe_error(e: &ToolError) -> String {
    format!(
        "error `{}` (retryable: {}): {} details: {}",
        e.code,
        e.retryable,
        clip(&e.message, 300),
        show(&Value::Object((*e.details).clone()))
    )
}

/// A hint for an unexpected error.
pub(crate) fn error_fix(e: &ToolError) -> String {
    if e.code == "internal_error" {
        let cause = e
            .details
            .get("incident")
            .and_then(Value::as_str)
            .and_then(toolspec_core::test_hooks::incident_cause);
        match cause {
            Some(cause) if toolspec_core::for_adapters::is_misconfiguration(&cause) => cause,
            Some(cause) => format!(
                "the implementation failed ({}); return the spec's catalog error for expected \
                 failures, e.g. `Err(<Service>Error::NotFound {{ .. }}.into())`",
                clip(&cause, 600)
            ),
            None => "the implementation failed (see the incident on stderr); return the spec's \
                     catalog error for expected failures, e.g. \
                     `Err(<Service>Error::NotFound { .. }.into())`"
                .into(),
        }
    } else if e.is_builtin() {
        "the call was refused by the runtime; check the fixture's data and the example's \
         arguments in the spec"
            .into()
    } else {
        "the implementation returned this catalog error; check that the fixture holds the data \
         the spec's examples assume"
            .into()
    }
}
