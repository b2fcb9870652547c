//! Writes whose change is made at a remote service (`effect: remote_...`): what a retry
//! after a lost outcome does is what the tool's words promise.
//!
//! The gauntlet cannot kill the process, but a failed commit after the method ran leaves
//! the same state a crash between the remote change and the commit does: the change may
//! have been made, and no outcome was recorded.

use serde_json::Value;

use super::{Ctx, effect_call};
use crate::failure::{Failure, show};
use crate::session::{Session, describe_error, first_difference};
use toolspec_core::ToolError;

/// Calls `args` with the next commit failing: the answer must say the change may have been
/// made (never "nothing was changed") and be retryable exactly when a retry is safe.
fn lost_outcome(
    ctx: &Ctx<'_, '_>,
    session: &Session<'_>,
    args: &Value,
    promise: &str,
    retry_is_safe: bool,
) -> Result<(), Failure> {
    session.runtime.test_hooks().fail_next_commits(1);
    let outcome = session.call(ctx.tool.name, args);
    session.runtime.test_hooks().fail_next_commits(0);
    let expected = if retry_is_safe {
        "a retryable internal_error saying the change may have been made (details.changed: \"unknown\")"
    } else {
        "an internal_error that is not retryable, saying the change may have been made and a retry may repeat it (details.changed: \"unknown\")"
    };
    match outcome {
        Err(e) if says_unknown(&e) && e.retryable == retry_is_safe => Ok(()),
        Err(e) => Err(Failure::new(promise)
            .call(ctx.tool.name, args)
            .got(describe_error(&e))
            .expected(expected)),
        Ok(out) => Err(Failure::new(promise)
            .call(ctx.tool.name, args)
            .got(format!(
                "a success although its commit failed: {}",
                show(&out.structured)
            ))
            .expected(expected)
            .fix("serve the tool through the generated server, whose engine commits the call's records")),
    }
}

fn says_unknown(e: &ToolError) -> bool {
    e.code == "internal_error"
        && e.details.get("changed").and_then(Value::as_str) == Some("unknown")
}

/// `remote_keyed` and `remote_lookup`: after an attempt whose outcome was lost, the retry
/// with the same key succeeds without making the change a second time where the read tools
/// can see it.
pub(crate) fn retry_changes_once(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let promise = format!(
        "a retry of {} after its outcome was lost does not make the change twice",
        tool.name
    );
    let session = ctx.session()?;
    let before = session.snapshot(ctx.facts);
    let args = effect_call(ctx, &session, "gauntlet-remote-retry", &promise)?;
    lost_outcome(ctx, &session, &args, &promise, true)?;
    let attempted = session.snapshot(ctx.facts);
    let retried = session.ok(tool.name, &args, &promise)?;
    let after = session.snapshot(ctx.facts);
    // Where the read tools see the first attempt's change, the retry must leave it as it
    // was: it found it (by the forwarded key, or by looking it up), it did not repeat it.
    if first_difference(&before, &attempted).is_some()
        && let Some((call, was, now)) = first_difference(&attempted, &after)
    {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!(
                "the retry ({}) changed {call} again: {was} became {now}",
                show(&retried)
            ))
            .expected("what the first attempt left: the service made the change once")
            .fix(format!(
                "{} must send remote.key() to the service as its idempotency key \
                 (remote_keyed), or, when remote.earlier_attempt() is true, look the change \
                 up by remote.key() and return it (remote_lookup)",
                tool.name
            )));
    }
    Ok(())
}

/// `remote_unprotected`: an attempt whose outcome was lost says so, and does not invite
/// the retry that may repeat the change.
pub(crate) fn retry_may_repeat(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let promise = format!(
        "{} says when a change may have been made and a retry may repeat it",
        ctx.tool.name
    );
    let session = ctx.session()?;
    let args = effect_call(ctx, &session, "gauntlet-remote-unprotected", &promise)?;
    lost_outcome(ctx, &session, &args, &promise, false)
}
