//! The unit of work: a write whose commit fails leaves nothing behind, and an apply that
//! failed leaves its preview usable.

use serde_json::Value;

use super::{Ctx, effect_call, gated, not_applicable, refusal_changed_nothing};
use crate::failure::{Failure, show};
use crate::session::{Session, describe_error, first_difference};

/// Runs `args` with the next commit failing; the error it must give.
fn failing(
    ctx: &Ctx<'_, '_>,
    session: &Session<'_>,
    args: &Value,
    promise: &str,
) -> Result<(), Failure> {
    session.runtime.test_hooks().fail_next_commits(1);
    let outcome = session.call(ctx.tool.name, args);
    session.runtime.test_hooks().fail_next_commits(0);
    match outcome {
        Err(e) if e.code == "internal_error" && e.retryable => Ok(()),
        Err(e) => Err(Failure::new(promise)
            .call(ctx.tool.name, args)
            .got(describe_error(&e))
            .expected("a retryable internal_error: the commit failed, nothing was changed")),
        Ok(out) => Err(Failure::new(promise)
            .call(ctx.tool.name, args)
            .got(format!("a success although its commit failed: {}", show(&out.structured)))
            .expected("a retryable internal_error")
            .fix("serve the tool through the generated server, whose engine commits the unit of work")),
    }
}

/// A write whose commit fails changes nothing the read tools can see: its effects were
/// written through the unit of work, and rolled back with it.
pub(crate) fn writes_only_through_unit_of_work(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    if !matches!(
        tool.tier,
        crate::facts::Tier::Reversible | crate::facts::Tier::Irreversible
    ) {
        return Err(not_applicable(ctx, "is a write"));
    }
    let promise = format!(
        "a {} call whose commit fails changes nothing (its writes go through the unit of work)",
        tool.name
    );
    let session = ctx.session()?;
    let before = session.snapshot(ctx.facts);
    let args = effect_call(ctx, &session, "gauntlet-unit-of-work", &promise)?;
    failing(ctx, &session, &args, &promise)?;
    let after = session.snapshot(ctx.facts);
    if let Some((call, was, now)) = first_difference(&before, &after) {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("after the failed call, {call} gives {now}"))
            .expected(format!("what it gave before: {was}"))
            .fix(format!(
                "{} must write through the Work it is handed (work.sqlite for SQL, work.outbox \
                 for other systems, work.on_commit for in-memory state), so a call that does \
                 not commit leaves nothing behind and a retry makes the change once",
                tool.name
            )));
    }
    Ok(())
}

/// An apply whose commit failed leaves the preview usable: the same apply then succeeds,
/// once, and a retry of it is a replay.
pub(crate) fn failed_apply_keeps_preview(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    if !gated(tool) {
        return Err(not_applicable(ctx, "is gated behind a preview"));
    }
    let promise = format!(
        "a failed apply of {} leaves its preview usable, and the retry applies it once",
        tool.name
    );
    let session = ctx.session()?;
    let apply = effect_call(ctx, &session, "gauntlet-failed-apply", &promise)?;
    failing(ctx, &session, &apply, &promise)?;
    let done = session.ok(tool.name, &apply, &promise)?;
    if done.get("applied") != Some(&Value::Bool(true))
        || done.get("replayed") == Some(&Value::Bool(true))
    {
        return Err(Failure::new(promise)
            .call(tool.name, &apply)
            .got(show(&done))
            .expected("the change applied now: \"applied\": true, \"replayed\": false"));
    }
    if apply.get("idempotency_key").is_some() {
        let again = session.ok(tool.name, &apply, &promise)?;
        if again.get("replayed") != Some(&Value::Bool(true)) {
            return Err(Failure::new(promise)
                .call(tool.name, &apply)
                .got(show(&again))
                .expected("a replay of the applied change: \"replayed\": true"));
        }
    }
    Ok(())
}

/// A host-only tool called by a client that cannot ask the person is refused with
/// `approval_unavailable`, and nothing changes.
pub(crate) fn host_required(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    if !tool.preview.is_some_and(|p| p.host_only) {
        return Err(not_applicable(ctx, "is approved only through the host"));
    }
    let promise = format!(
        "{} refuses a client that cannot ask the person, and changes nothing",
        tool.name
    );
    let session = ctx.session()?;
    let before = session.snapshot(ctx.facts);
    let args = ctx.success_call("gauntlet-host-required");
    let ctx_without_host = toolspec_core::engine::CallContext::new();
    match session.call_with(tool.name, &args, &ctx_without_host) {
        Err(e) if e.code == "approval_unavailable" && !e.retryable => {}
        Err(e) => {
            return Err(Failure::new(promise)
                .call(tool.name, &args)
                .got(describe_error(&e))
                .expected("error `approval_unavailable`"));
        }
        Ok(out) => {
            return Err(Failure::new(promise)
                .call(tool.name, &args)
                .got(format!("a success: {}", show(&out.structured)))
                .expected("error `approval_unavailable`"));
        }
    }
    refusal_changed_nothing(ctx, &session, (&before, 0), &args, &promise)
}
