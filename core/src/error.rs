//! [`ToolError`]: the one error shape every tool returns, and constructors for the built-in
//! codes of [`crate::catalog`].
//!
//! On the wire an error is exactly
//! `{"code": "...", "message": "...", "retryable": bool, "details": {...}}`:
//! `code` for programs, `message` for the model (what was wrong and what to do next, with a
//! valid example call where it helps), `retryable` true only when the same call may succeed
//! later, and `details` with the facts the model needs to fix the call.
//!
//! The retryable flag of a built-in code is always read from the catalog, never restated here,
//! so the docs, schemas and behaviour cannot disagree.

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::catalog::{self, BuiltinError};

/// A structured tool failure, returned to the model as an `isError` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolError {
    /// Machine-readable snake_case category: a built-in code or one from the spec's catalog.
    pub code: Cow<'static, str>,
    /// What was wrong and what to do next, for the model to read.
    pub message: String,
    /// Whether the very same call may succeed if made again later.
    pub retryable: bool,
    /// Facts to fix the call: allowed values, ranges, the problems list, an incident id...
    ///
    /// Boxed so that `Result<T, ToolError>` stays small (clippy's `result_large_err`) in
    /// the implementations users write, whatever map type serde_json is built with.
    pub details: Box<Map<String, Value>>,
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ToolError {}

/// The code of [`ToolError::cancelled`]: never answered to a client (the protocol sends
/// nothing for a cancelled request), but what the runtime's own callers see.
pub const CANCELLED: &str = "cancelled";

impl ToolError {
    /// An error with a code of the spec's own catalog (`not_found`, `rate_limited`, ...).
    ///
    /// Generated code calls this with the code and retryable flag from the spec, so the
    /// flag is stated once, in the spec. `details` should be a JSON object; anything else is
    /// kept under `details.value`.
    pub fn new(
        code: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
        retryable: bool,
        details: Value,
    ) -> Self {
        let details = match details {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => Map::from_iter([("value".to_owned(), other)]),
        };
        Self {
            code: code.into(),
            message: message.into(),
            retryable,
            details: Box::new(details),
        }
    }

    /// An error with a built-in code; `retryable` comes from the catalog entry.
    pub fn builtin(entry: &BuiltinError, message: impl Into<String>, details: Value) -> Self {
        Self::new(entry.code, message, entry.retryable, details)
    }

    /// Whether this error's code is one of the runtime's built-in codes.
    pub fn is_builtin(&self) -> bool {
        catalog::find(&self.code).is_some()
    }

    /// This error as a JSON value `{"code","message","retryable","details"}`.
    pub fn to_value(&self) -> Value {
        json!({
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
            "details": self.details,
        })
    }

    /// `invalid_cursor`: the cursor was edited, made for another query or tool, or by another
    /// cursor format version. `reason` is one of `malformed`, `version`, `other_tool`,
    /// `other_query`, `tampered` and lands in `details.reason`.
    pub fn invalid_cursor(reason: &str, what_happened: &str) -> Self {
        Self::builtin(
            &catalog::INVALID_CURSOR,
            format!(
                "{what_happened} Drop `cursor` to start again from the first page, or pass the \
                 exact `next_cursor` returned by the previous page of this same query."
            ),
            json!({ "reason": reason }),
        )
    }

    /// `idempotency_key_reused`: the key was first used with other arguments.
    pub fn idempotency_key_reused(tool: &str, key: &str) -> Self {
        Self::builtin(
            &catalog::IDEMPOTENCY_KEY_REUSED,
            format!(
                "Idempotency key '{key}' was already used for a {tool} call with different \
                 arguments. Use a new idempotency key for a new operation; reuse a key only to \
                 retry exactly the same call."
            ),
            json!({ "idempotency_key": key }),
        )
    }

    /// `idempotency_in_progress`: a live lease holds the key (retryable). `retry_after_ms`
    /// is how long until that lease ends: by then the first call has answered, or it died
    /// and a retry runs the call itself.
    pub fn idempotency_in_progress(tool: &str, key: &str, retry_after_ms: i64) -> Self {
        let secs = (retry_after_ms.max(0) + 999) / 1000;
        Self::builtin(
            &catalog::IDEMPOTENCY_IN_PROGRESS,
            format!(
                "A {tool} call with idempotency key '{key}' is still running. Retry the same \
                 call with the same key in {secs} s: you get the first call's result, or, if \
                 that call died without making the change, the call runs then."
            ),
            json!({ "idempotency_key": key, "retry_after_ms": retry_after_ms.max(0) }),
        )
    }

    /// `internal_error` for a write that failed before anything of it committed (the
    /// store was busy, the commit lost a race): retrying the same call can succeed, and a
    /// preview it presented is still valid. The `cause` goes to the incident hook only.
    pub fn not_applied(tool: &str, cause: impl fmt::Display) -> Self {
        let incident = log_incident(&cause.to_string());
        Self::not_applied_as(tool, Some(&incident))
    }

    /// [`ToolError::not_applied`], with the incident id to report when there is one (a
    /// failure made on purpose, by the gauntlet, has none).
    pub(crate) fn not_applied_as(tool: &str, incident: Option<&str>) -> Self {
        let (report, details) = match incident {
            Some(id) => (
                format!("; if it keeps failing, report incident {id}"),
                json!({ "incident": id, "changed": false }),
            ),
            None => (String::new(), json!({ "changed": false })),
        };
        Self::builtin(
            &catalog::INTERNAL_ERROR,
            format!(
                "{tool} failed before making the change: nothing was changed, and its preview \
                 (if any) is still valid. Retry the same call once{report}."
            ),
            details,
        )
    }

    /// `internal_error` for a write whose method ran and may have made its change at a
    /// remote service (`effect`), but whose outcome the runtime could not record (the
    /// store failed, the commit lost its lease). Unlike [`ToolError::not_applied`], it
    /// never says nothing changed; it says what a retry with the same key does for this
    /// effect, and it is retryable only where that retry cannot make the change twice
    /// (`keyed`: the call carried an idempotency key).
    pub fn outcome_unknown(
        tool: &str,
        effect: crate::effect::Effect,
        keyed: bool,
        incident: Option<&str>,
    ) -> Self {
        use crate::effect::Effect;
        let report = incident.map_or(String::new(), |id| {
            format!(" If it keeps failing, report incident {id}.")
        });
        let start = format!(
            "{tool} may have made the change at the remote service, but its result was not recorded."
        );
        let (next, retryable) = match effect {
            Effect::RemoteKeyed if keyed => (
                "Retry the same call with the same idempotency_key: the service gets the same \
                 key again and does not make the change twice.",
                true,
            ),
            Effect::RemoteLookup if keyed => (
                "Retry the same call with the same idempotency_key: the retry first checks \
                 whether the change was made, and does not make it twice.",
                true,
            ),
            _ => (
                "Check whether the change was made before calling again: a retry may make \
                 it twice.",
                false,
            ),
        };
        let mut details = json!({ "changed": "unknown" });
        if let Some(id) = incident {
            details["incident"] = id.into();
        }
        Self::new(
            catalog::INTERNAL_ERROR.code,
            format!("{start} {next}{report}"),
            retryable,
            details,
        )
    }

    /// `approval_declined`: the person declined or dismissed the preview the host showed.
    pub fn approval_declined(tool: &str, preview_id: &str) -> Self {
        Self::builtin(
            &catalog::APPROVAL_DECLINED,
            format!(
                "The person declined this {tool} change when asked to approve it; nothing was \
                 changed. Do not retry it; tell the user it was not made and ask what they want \
                 instead."
            ),
            json!({ "preview_id": preview_id }),
        )
    }

    /// `approval_unavailable`: the tool needs the host to ask the person, and this client
    /// cannot (it declared no elicitation capability).
    pub fn approval_unavailable(tool: &str) -> Self {
        Self::builtin(
            &catalog::APPROVAL_UNAVAILABLE,
            format!(
                "{tool} needs a person's approval through the host, and this client cannot ask \
                 for it (it declared no elicitation capability); nothing was changed. Tell the \
                 user this change needs a client that can ask them to approve it."
            ),
            json!({}),
        )
    }

    /// `preview_not_found`: no preview has this id.
    pub fn preview_not_found(tool: &str, preview_id: &str) -> Self {
        Self::builtin(
            &catalog::PREVIEW_NOT_FOUND,
            format!(
                "No preview '{preview_id}' exists for {tool}. Call {tool} without `preview_id` \
                 to get a fresh preview, then apply with the id it returns."
            ),
            json!({ "preview_id": preview_id }),
        )
    }

    /// `preview_expired`: the preview's time ran out; `expired_at` is RFC 3339.
    pub fn preview_expired(tool: &str, preview_id: &str, expired_at: &str) -> Self {
        Self::builtin(
            &catalog::PREVIEW_EXPIRED,
            format!(
                "Preview '{preview_id}' expired at {expired_at}. Call {tool} without \
                 `preview_id` to get a fresh preview, show it, then apply with the new id."
            ),
            json!({ "preview_id": preview_id, "expired_at": expired_at }),
        )
    }

    /// `preview_used`: the preview was already applied once.
    pub fn preview_used(tool: &str, preview_id: &str) -> Self {
        Self::builtin(
            &catalog::PREVIEW_USED,
            format!(
                "Preview '{preview_id}' was already applied, so the change was made once. To \
                 make another change, call {tool} without `preview_id` for a new preview."
            ),
            json!({ "preview_id": preview_id }),
        )
    }

    /// `preview_mismatch`: the apply's arguments (or tool) differ from the previewed ones.
    pub fn preview_mismatch(tool: &str, preview_id: &str) -> Self {
        Self::builtin(
            &catalog::PREVIEW_MISMATCH,
            format!(
                "Preview '{preview_id}' was made for different arguments than this {tool} \
                 call. Apply with exactly the previewed arguments plus `preview_id`, or call \
                 {tool} without `preview_id` to preview the new arguments."
            ),
            json!({ "preview_id": preview_id }),
        )
    }

    /// `insufficient_scope`: the caller's token lacks `missing` of the scopes `required`
    /// to call `tool`. Scopes are short ASCII tokens from the spec, never caller text.
    pub fn insufficient_scope(tool: &str, required: &[&str], missing: &[&str]) -> Self {
        Self::builtin(
            &catalog::INSUFFICIENT_SCOPE,
            format!(
                "Nothing was done: {tool} needs the scopes {}, and this caller's token lacks {}. \
                 Retrying cannot help; tell the user their authorization must grant {}.",
                required.join(" "),
                missing.join(" "),
                missing.join(" ")
            ),
            json!({ "required": required, "missing": missing }),
        )
    }

    /// `rate_limited`: the caller is past `limit` on `tool`; a call after `retry_after_ms`
    /// goes through. Raised before the method ran, so nothing was done.
    pub fn rate_limited(tool: &str, limit: &crate::rate::RateLimit, retry_after_ms: u64) -> Self {
        let wait = retry_after_ms.div_ceil(1000).max(1);
        Self::builtin(
            &catalog::RATE_LIMITED,
            format!(
                "Nothing was done: {tool} allows {}, and this caller is past it. Wait {wait} s \
                 (details.retry_after_ms), then make the same call again.",
                crate::rate::words(limit)
            ),
            json!({
                "retry_after_ms": retry_after_ms,
                "calls": limit.calls,
                "per_seconds": limit.per.as_secs(),
            }),
        )
    }

    /// `timeout`: `tool` ran past its time limit `limit` and was stopped. `write` is the
    /// effect of a write (its own changes rolled back, its key free), `None` for a read or
    /// a preview, which change nothing.
    pub fn timeout(
        tool: &str,
        limit: std::time::Duration,
        write: Option<crate::effect::Effect>,
    ) -> Self {
        use crate::effect::Effect;
        let secs = limit.as_secs_f64();
        let start = format!("{tool} was stopped at its time limit of {secs} s");
        let (rest, changed) = match write {
            None => (
                "; nothing was changed. Narrow the call (fewer items, a more specific query) \
                 or make it again later.",
                "no",
            ),
            Some(Effect::Store) => (
                "; nothing was changed (its writes were rolled back) and its idempotency key \
                 is free: a retry with it runs once.",
                "no",
            ),
            Some(Effect::RemoteKeyed | Effect::RemoteLookup) => (
                ", and may have made the change at the remote service. Retry with the same \
                 idempotency_key: the retry does not make the change twice.",
                "unknown",
            ),
            Some(Effect::RemoteUnprotected) => (
                ", and may have made the change at the remote service. Check whether it was \
                 made before calling again: a retry may make it twice.",
                "unknown",
            ),
        };
        let mut e = Self::builtin(
            &catalog::TIMEOUT,
            format!("{start}{rest}"),
            json!({ "limit_ms": u64::try_from(limit.as_millis()).unwrap_or(u64::MAX), "changed": changed }),
        );
        // Nothing keeps a retry of an unprotected remote change from repeating it.
        e.retryable = write != Some(Effect::RemoteUnprotected);
        e
    }

    /// `cancelled`: the client cancelled the call to `tool` and it was stopped. Never sent
    /// over MCP (a cancelled request gets no answer); retryable, so a write's key is given
    /// back, as for any call that committed nothing.
    pub fn cancelled(tool: &str) -> Self {
        Self::new(
            CANCELLED,
            format!(
                "The client cancelled the call to {tool}; it was stopped before it committed anything."
            ),
            true,
            Value::Null,
        )
    }

    /// `unknown_tool`: no tool (or deprecated alias) has this name. `known` lists the names
    /// the server has.
    pub fn unknown_tool(name: &str, known: &[&str]) -> Self {
        let name = &crate::text::echo(name);
        Self::builtin(
            &catalog::UNKNOWN_TOOL,
            format!(
                "Unknown tool '{name}'. Available tools: {}.",
                bounded_names(known)
            ),
            json!({ "allowed": first_names(known) }),
        )
    }

    /// `internal_error`: something failed that the model cannot fix.
    ///
    /// The model gets a generic message and `details.incident` (a random id); the real
    /// `cause` goes only to the incident hook (see [`set_incident_hook`]) together with that
    /// id, so an operator can find it and nothing internal (paths, SQL, stack traces) leaks.
    pub fn internal(cause: impl fmt::Display) -> Self {
        let incident = log_incident(&cause.to_string());
        Self::builtin(
            &catalog::INTERNAL_ERROR,
            format!(
                "The server failed unexpectedly. Retry once later; if it keeps failing, report \
                 incident {incident}."
            ),
            json!({ "incident": incident }),
        )
    }
}

impl ToolError {
    /// `internal_error` for a fault in how the server is put together (a store the method
    /// does not write to, a connection taken twice): not the call's fault, and a retry
    /// meets the same fault, so it is not retryable.
    ///
    /// `fix` goes to the incident hook, as [`ToolError::internal`]'s cause does: say what
    /// was wrong and name the call that fixes it. The gauntlet prints it in the failure of
    /// every check it breaks.
    pub fn misconfigured(fix: impl fmt::Display) -> Self {
        let incident = log_incident(&format!("{MISCONFIGURED}{fix}"));
        Self::new(
            catalog::INTERNAL_ERROR.code,
            format!(
                "The server is not set up to serve this tool; retrying will not help. Report \
                 incident {incident} to the server's operator."
            ),
            false,
            json!({ "incident": incident }),
        )
    }
}

/// How the cause of a [`ToolError::misconfigured`] incident starts: what tells it apart
/// from an implementation's failure in the incident log.
pub(crate) const MISCONFIGURED: &str = "misconfigured server: ";

#[cfg(feature = "sqlite")]
impl From<rusqlite::Error> for ToolError {
    /// A failed SQLite statement: [`ToolError::internal`], so `?` works on it in a method
    /// and inside `work.sqlite(|conn| ..)`.
    fn from(e: rusqlite::Error) -> Self {
        ToolError::internal(format!("SQLite: {e}"))
    }
}

#[cfg(feature = "postgres")]
impl From<tokio_postgres::Error> for ToolError {
    /// A failed PostgreSQL statement: [`ToolError::internal`], so `?` works on it in a
    /// method.
    fn from(e: tokio_postgres::Error) -> Self {
        ToolError::internal(format!("PostgreSQL: {e}"))
    }
}

/// Receives `(incident_id, cause)` for every [`ToolError::internal`].
pub type IncidentHook = Box<dyn Fn(&str, &str) + Send + Sync>;

static INCIDENT_HOOK: OnceLock<IncidentHook> = OnceLock::new();

/// Installs the process-wide receiver of internal failures (once; later calls return
/// `false` and change nothing). Send them to your logger or error tracker.
///
/// Without a hook, incidents are written as one line to standard error: for a stdio MCP
/// server that is the log channel (standard output carries the protocol), so nothing is lost.
pub fn set_incident_hook(hook: IncidentHook) -> bool {
    INCIDENT_HOOK.set(hook).is_ok()
}

/// Sends `cause` to the incident hook under a fresh incident id and returns the id.
pub(crate) fn log_incident(cause: &str) -> String {
    let incident = crate::random::token("inc_", 8).unwrap_or_else(|_| "inc_unknown".into());
    crate::test_hooks::remember_incident(&incident, cause);
    report_incident(&incident, cause);
    incident
}

fn report_incident(incident: &str, cause: &str) {
    match INCIDENT_HOOK.get() {
        Some(hook) => hook(incident, cause),
        None => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "toolspec incident {incident}: {cause}");
        }
    }
}

/// Most names a refusal lists: a catalog of a thousand tools would otherwise make every
/// refusal a list of a thousand names.
const MAX_NAMES_SAID: usize = 20;

/// The first [`MAX_NAMES_SAID`] of `names`, what a refusal's details list.
pub(crate) fn first_names<'a>(names: &'a [&'a str]) -> &'a [&'a str] {
    &names[..names.len().min(MAX_NAMES_SAID)]
}

/// `names` joined for a message, the first [`MAX_NAMES_SAID`] of them and how many more.
pub(crate) fn bounded_names(names: &[&str]) -> String {
    match names.len() {
        n if n <= MAX_NAMES_SAID => names.join(", "),
        n => format!(
            "{} and {} more (tools/list has them all)",
            names[..MAX_NAMES_SAID].join(", "),
            n - MAX_NAMES_SAID
        ),
    }
}
