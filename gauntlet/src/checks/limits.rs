//! How much each caller may do, and for how long: the call past the tool's stated rate
//! limit is refused with `rate_limited`, changes nothing, and the same call goes through
//! after the stated wait; a method finishes well within its stated time limit, and stops
//! when its call is cancelled, leaving nothing behind.

use serde_json::Value;

use super::{Ctx, effect_call, refusal_changed_nothing};
use crate::failure::{Failure, show};
use crate::session::{describe_error, set};

/// Makes the calls the limit allows at one instant (`burst`, else `calls`), each a fresh
/// call that runs the tool's method; the next is refused with `rate_limited` (retryable,
/// `details.retry_after_ms` within the window) and changes nothing; after waiting
/// `retry_after_ms` on the gauntlet's clock, the same call is not refused for the limit.
pub(crate) fn rate_limit_kept(
    ctx: &Ctx<'_, '_>,
    calls: u32,
    per_secs: u64,
    burst: Option<u32>,
) -> Result<(), Failure> {
    let tool = ctx.tool.name;
    let at_once = burst.unwrap_or(calls);
    let promise = format!(
        "{tool} runs {at_once} calls of one caller at once and refuses the next with \
         `rate_limited` until the wait it states is over (its limit: {calls} per {per_secs} s)"
    );
    let session = ctx.session()?;
    let fix = "serve the tool through the generated layer, which counts each call in the \
               runtime's store before the method runs; a store of your own must implement \
               RateStore::admit";
    for n in 0..at_once {
        let args = fresh_call(ctx, n);
        if let Err(e) = session.call(tool, &args)
            && e.code == "rate_limited"
        {
            return Err(Failure::new(&promise)
                .call(tool, &args)
                .got(format!(
                    "call {} of {at_once} refused: {}",
                    n + 1,
                    describe_error(&e)
                ))
                .expected(format!("{at_once} calls admitted before a refusal"))
                .fix(fix));
        }
    }
    let before = session.snapshot(ctx.facts);
    let writes = session.writes(tool);
    let args = fresh_call(ctx, at_once);
    let wait = match session.call(tool, &args) {
        Err(e) if e.code == "rate_limited" && e.retryable => {
            match e.details.get("retry_after_ms").and_then(Value::as_u64) {
                Some(ms) if ms > 0 && ms <= per_secs.saturating_mul(1000) => ms,
                other => {
                    return Err(Failure::new(&promise)
                        .call(tool, &args)
                        .got(format!("details.retry_after_ms {other:?}"))
                        .expected(format!(
                            "a wait in milliseconds, above 0 and at most the window ({per_secs} s)"
                        )));
                }
            }
        }
        other => {
            let got = match other {
                Ok(out) => format!("a success: {}", show(&out.structured)),
                Err(e) => describe_error(&e),
            };
            return Err(Failure::new(&promise)
                .call(tool, &args)
                .got(format!("call {} answered {got}", at_once + 1))
                .expected("error `rate_limited` with retryable: true")
                .fix(fix));
        }
    };
    refusal_changed_nothing(ctx, &session, (&before, writes), &args, &promise)?;
    session.advance_ms(i64::try_from(wait).unwrap_or(i64::MAX));
    if let Err(e) = session.call(tool, &args)
        && e.code == "rate_limited"
    {
        return Err(Failure::new(&promise)
            .call(tool, &args)
            .got(format!(
                "after waiting the {wait} ms it said, refused again: {}",
                describe_error(&e)
            ))
            .expected("the call goes through once the stated wait is over")
            .fix(fix));
    }
    Ok(())
}

/// The success call with an idempotency key of its own (the `n`th), when the tool takes
/// one: a replay of an example's key would run nothing and count nothing.
fn fresh_call(ctx: &Ctx<'_, '_>, n: u32) -> Value {
    let mut args = ctx.success_call("");
    if ctx.tool.idempotency_ttl_secs.is_some() {
        set(
            &mut args,
            "idempotency_key",
            format!("gauntlet-rate-{n}").into(),
        );
    }
    args
}

/// Times the call that makes the tool's effect (for a previewed write, its apply, after the
/// preview) on the wall clock: it must finish within a quarter of the stated limit on the
/// fixture's small data, or real calls will be stopped. A refusal is not judged here.
pub(crate) fn time_limit_kept(ctx: &Ctx<'_, '_>, limit_secs: u64) -> Result<(), Failure> {
    let tool = ctx.tool.name;
    let within = std::time::Duration::from_secs(limit_secs) / 4;
    let promise = format!(
        "{tool} finishes well within its time limit of {limit_secs} s (a quarter of it, on the fixture's data)"
    );
    let session = ctx.session()?;
    let args = effect_call(ctx, &session, "gauntlet-time", &promise)?;
    let started = std::time::Instant::now();
    let _ = session.call(tool, &args);
    let took = started.elapsed();
    if took > within {
        return Err(Failure::new(&promise)
            .call(tool, &args)
            .got(format!("the call took {} ms", took.as_millis()))
            .expected(format!("at most {} ms", within.as_millis()))
            .fix("make the method faster, or state a longer `time.limit` in the spec"));
    }
    Ok(())
}

/// Cancels the call that makes the tool's effect as soon as its method waits: a call
/// stopped that way must leave the tools' answers as they were, and the same call made
/// again at once must run (its key and preview given back, and nothing the method took
/// still held). A method that finishes without waiting has nothing to stop.
pub(crate) fn cancelled_call_leaves_nothing(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool.name;
    let promise = format!(
        "{tool}, cancelled while its method waits, changes nothing and can be made again at once"
    );
    let session = ctx.session()?;
    let args = effect_call(ctx, &session, "gauntlet-cancel", &promise)?;
    let before = session.snapshot(ctx.facts);
    match session.call_cancelled(tool, &args) {
        Err(e) if e.code == toolspec_core::error::CANCELLED => {}
        // Finished before it ever waited, or refused before it ran: nothing was stopped.
        _ => return Ok(()),
    }
    let writes = session.writes(tool);
    refusal_changed_nothing(ctx, &session, (&before, writes), &args, &promise)?;
    match session.call(tool, &args) {
        Ok(out) if out.structured.get("replayed") != Some(&Value::Bool(true)) => Ok(()),
        Ok(out) => Err(Failure::new(&promise)
            .call(tool, &args)
            .got(format!(
                "a replay of the cancelled call: {}",
                show(&out.structured)
            ))
            .expected("the call made for the first time: the cancelled one stored nothing")),
        Err(e) => Err(Failure::new(&promise)
            .call(tool, &args)
            .got(format!(
                "after the cancelled call, the same call: {}",
                describe_error(&e)
            ))
            .expected("the call made as if the cancelled one had never started")
            .fix(
                "release what the method holds when its future is dropped (a guard with Drop), \
                 or keep it in the unit of work, which rolls back",
            )),
    }
}
