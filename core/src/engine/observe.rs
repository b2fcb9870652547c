//! What one served call tells the metrics (feature `metrics`): read from its answer, the
//! way the agent sees it, so that a fact is counted exactly when the agent was told it.

use std::future::Future;

use serde_json::Value;
use tracing::Instrument;

use super::CallOutput;
use super::glue::Serve;
use crate::catalog;
use crate::error::ToolError;
use crate::shape::{self, ResponseFormat};
use crate::telemetry::{self, CallSample, PreviewOutcome};

/// Serves the call inside a `tool_call` span, then records its sample.
pub(super) async fn observed<F>(
    serve: &'static Serve,
    called_as: &'static &'static str,
    alias: Option<&'static str>,
    started: u64,
    format: ResponseFormat,
    serving: F,
) -> Result<CallOutput, ToolError>
where
    F: Future<Output = Result<Value, ToolError>>,
{
    let span = tracing::info_span!(
        "tool_call",
        tool = serve.tool,
        called_as = *called_as,
        format = format.as_str(),
        result = tracing::field::Empty,
    );
    // Without a subscriber the span is disabled, and entering it on every poll would still
    // cost a tenth of a trivial call.
    let served = if span.is_disabled() {
        serving.await
    } else {
        serving.instrument(span.clone()).await
    };
    let answered = served.map(|value| CallOutput::new(value).via_alias(alias));
    let sample = sample(serve, called_as, format, &answered);
    if !span.is_disabled() {
        span.record("result", sample.error.unwrap_or("ok"));
    }
    telemetry::record(sample, started);
    answered
}

/// The facts of one answer. The runtime's own result keys and error codes say them:
/// `replayed` (a stored outcome), `applied` (a preview applied), `truncated` (the budget
/// cut), and the idempotency and preview refusals.
fn sample(
    serve: &'static Serve,
    called_as: &'static &'static str,
    format: ResponseFormat,
    answered: &Result<CallOutput, ToolError>,
) -> CallSample {
    let mut sample = CallSample {
        tool: &serve.tool,
        called_as,
        error: None,
        elapsed: 0,
        tokens: 0,
        items: 0,
        paged: false,
        format,
        truncated: false,
        replayed: false,
        retried: false,
        preview: None,
    };
    match answered {
        Ok(out) => {
            let budgeted = serve.shape.token_budget.is_some();
            let mut applied = false;
            // One pass over the result: its size, and the keys that say what happened.
            let tokens = shape::estimate_tokens_visiting(&out.structured, |key, value| {
                if Some(key) == serve.items
                    && let Value::Array(items) = value
                {
                    sample.paged = true;
                    sample.items = u32::try_from(items.len()).unwrap_or(u32::MAX);
                }
                match key {
                    "truncated" => sample.truncated = budgeted && value.is_object(),
                    "applied" => applied = value.as_bool() == Some(true),
                    _ => {}
                }
            });
            sample.tokens = u32::try_from(tokens).unwrap_or(u32::MAX);
            sample.replayed = out.replayed;
            sample.retried = out.replayed;
            if applied && !out.replayed {
                sample.preview = Some(PreviewOutcome::Applied);
            }
        }
        Err(e) => {
            let replayed = e.details.get("replayed").and_then(Value::as_bool) == Some(true);
            let code = e.code.as_ref();
            sample.replayed = replayed;
            sample.retried = replayed
                || code == catalog::IDEMPOTENCY_IN_PROGRESS.code
                || code == catalog::IDEMPOTENCY_KEY_REUSED.code;
            sample.preview = match code {
                _ if replayed => None,
                c if c == catalog::APPROVAL_DECLINED.code => Some(PreviewOutcome::Declined),
                c if c == catalog::PREVIEW_EXPIRED.code => Some(PreviewOutcome::Expired),
                _ => None,
            };
            sample.error = Some(telemetry::error_label(&e.code));
        }
    }
    sample
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    static SEARCH: Serve = Serve::new("notes_search")
        .paged("notes", 10)
        .budget(Some(100));
    static CREATE: Serve = Serve::new("notes_create");

    fn of(serve: &'static Serve, answered: Result<Value, ToolError>) -> CallSample {
        let answered = answered.map(CallOutput::new);
        sample(serve, &serve.tool, ResponseFormat::Detailed, &answered)
    }

    #[test]
    fn a_page_gives_its_items_tokens_and_truncation() {
        let cut = json!({"notes": ["a", "b"], "truncated": {"cuts": []}});
        let s = of(&SEARCH, Ok(cut.clone()));
        assert_eq!((s.paged, s.items), (true, 2));
        assert_eq!(s.tokens as usize, shape::estimate_tokens(&cut));
        assert!(s.truncated && !s.replayed && !s.retried && s.error.is_none());
        let empty = of(&SEARCH, Ok(json!({"notes": []})));
        assert_eq!(
            (empty.paged, empty.items, empty.truncated),
            (true, 0, false)
        );
        assert!(
            !of(&CREATE, Ok(json!({"notes": []}))).paged,
            "not a paged tool"
        );
        // Only a budgeted tool's `truncated` is the runtime's note.
        assert!(!of(&CREATE, Ok(json!({"truncated": {}}))).truncated);
    }

    #[test]
    fn keys_and_previews_are_read_from_the_answer() {
        let replay = of(&CREATE, Ok(json!({"applied": true, "replayed": true})));
        assert!(replay.replayed && replay.retried);
        assert_eq!(replay.preview, None, "a replay applied nothing");
        let applied = of(&CREATE, Ok(json!({"applied": true, "replayed": false})));
        assert_eq!(applied.preview, Some(PreviewOutcome::Applied));
        assert!(!applied.retried);
        assert_eq!(of(&CREATE, Ok(json!({"applied": false}))).preview, None);

        let declined = of(
            &CREATE,
            Err(ToolError::approval_declined("notes_create", "p")),
        );
        assert_eq!(declined.preview, Some(PreviewOutcome::Declined));
        assert_eq!(declined.error, Some("approval_declined"));
        let expired = of(
            &CREATE,
            Err(ToolError::preview_expired(
                "notes_create",
                "p",
                "2026-01-01T00:00:00Z",
            )),
        );
        assert_eq!(expired.preview, Some(PreviewOutcome::Expired));
        for refused in [
            ToolError::idempotency_key_reused("notes_create", "k"),
            ToolError::idempotency_in_progress("notes_create", "k", 10),
        ] {
            let s = of(&CREATE, Err(refused));
            assert!(s.retried && !s.replayed, "{:?}", s.error);
        }
        let mut stored = ToolError::internal("x");
        stored.details.insert("replayed".into(), true.into());
        let s = of(&CREATE, Err(stored));
        assert!(s.replayed && s.retried);
    }
}
