//! Retry: an idempotency key makes "call it again" mean "finish it once".

use std::sync::Barrier;

use serde_json::Value;

use super::{Ctx, effect_call, gated, not_applicable};
use crate::failure::{Failure, show};
use crate::session::{describe_error, without_replayed};
use crate::values::{first_diff, other_arguments};
use toolspec_core::engine::CallOutput;
use toolspec_core::error::ToolError;

/// How many callers race with one key.
const RACERS: usize = 8;

fn replay_fix(tool: &str) -> String {
    format!(
        "serve {tool} through the generated server (Runtime::idempotent / Runtime::gated), and \
         build it with the Runtime the fixture is given"
    )
}

/// The same key twice: one effect, two equivalent answers, the second marked as a replay.
pub(crate) fn runs_once(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let promise = format!(
        "calling {} twice with one idempotency_key makes one change and answers the same twice, the second marked replayed",
        tool.name
    );
    let session = ctx.session()?;
    let args = effect_call(ctx, &session, "gauntlet-retry", &promise)?;
    let first = session.call(tool.name, &args);
    let second = session.call(tool.name, &args);
    let (first, second) = match (first, second) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            return Err(Failure::new(promise)
                .call(tool.name, &args)
                .got(describe_error(&e))
                .expected("two successes"));
        }
    };
    let writes = session.writes(tool.name);
    if writes != 1 {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("the implementation's method ran {writes} times"))
            .expected("exactly one run; the retry replays the stored result")
            .fix(replay_fix(tool.name)));
    }
    if first.replayed || !second.replayed {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!(
                "replayed: {} then {}",
                first.replayed, second.replayed
            ))
            .expected("replayed: false then true"));
    }
    let (a, b) = (
        without_replayed(&first.structured),
        without_replayed(&second.structured),
    );
    if let Some((at, x, y)) = first_diff(&a, &b, "") {
        let side = |v: Option<&Value>| v.map_or_else(|| "nothing".to_owned(), show);
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!(
                "{at} is {} in the first answer, {} in the replay",
                side(x),
                side(y)
            ))
            .expected("the same result twice (apart from `replayed`)"));
    }
    Ok(())
}

/// The same key with other arguments is refused with `idempotency_key_reused`.
pub(crate) fn other_arguments_refused(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let promise = format!(
        "{} refuses an idempotency_key reused with other arguments (idempotency_key_reused, not retryable)",
        tool.name
    );
    let session = ctx.session()?;
    let args = effect_call(ctx, &session, "gauntlet-reuse", &promise)?;
    session.ok(tool.name, &args, &promise)?;
    let mut base = args.clone();
    crate::session::unset(&mut base, "preview_id");
    let Some(other) = other_arguments(&ctx.params, ctx.definition, &base) else {
        return Err(Failure::new(promise)
            .call(tool.name, &base)
            .got("no second valid set of arguments could be made from the spec")
            .expected("a parameter with another valid value")
            .fix("give the tool's parameters examples or allowed values the gauntlet can vary"));
    };
    session.refused(tool.name, &other, "idempotency_key_reused", &promise)?;
    let writes = session.writes(tool.name);
    if writes != 1 {
        return Err(Failure::new(promise)
            .call(tool.name, &other)
            .got(format!("the implementation's method ran {writes} times"))
            .expected("one run: the refused call runs nothing"));
    }
    Ok(())
}

/// Concurrent calls with one key make one effect; the others get the same result, or
/// `idempotency_in_progress` and then the same result on retry.
pub(crate) fn concurrent_run_once(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let promise = format!(
        "{RACERS} concurrent calls of {} with one idempotency_key make one change",
        tool.name
    );
    let session = ctx.session()?;
    let args = effect_call(ctx, &session, "gauntlet-race", &promise)?;
    let barrier = Barrier::new(RACERS);
    let answers: Vec<Result<CallOutput, ToolError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RACERS)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    session.call(tool.name, &args)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(ToolError::internal("a concurrent call panicked")))
            })
            .collect()
    });
    let mut results = Vec::new();
    for answer in answers {
        match answer {
            Ok(out) => results.push(out),
            Err(e) if e.code == "idempotency_in_progress" && e.retryable => {
                results.push(session.call(tool.name, &args).map_err(|e| {
                    Failure::new(&promise)
                        .call(tool.name, &args)
                        .got(format!(
                            "a retry after idempotency_in_progress: {}",
                            describe_error(&e)
                        ))
                        .expected("the first call's result")
                })?);
            }
            Err(e) => {
                return Err(Failure::new(promise)
                    .call(tool.name, &args)
                    .got(describe_error(&e))
                    .expected("the result, or idempotency_in_progress (retryable) while the first call runs"));
            }
        }
    }
    let writes = session.writes(tool.name);
    if writes != 1 {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("the implementation's method ran {writes} times"))
            .expected("exactly one run")
            .fix(replay_fix(tool.name)));
    }
    let fresh = results.iter().filter(|r| !r.replayed).count();
    let first = results.first().map(|r| without_replayed(&r.structured));
    let differing = results
        .iter()
        .find(|r| Some(without_replayed(&r.structured)) != first);
    if fresh != 1 || differing.is_some() {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!(
                "{fresh} answers not marked replayed; answers {}",
                if differing.is_some() {
                    "differ"
                } else {
                    "agree"
                }
            ))
            .expected("one first answer and replays equal to it"));
    }
    Ok(())
}

/// A key is remembered for exactly its published TTL: a retry just before it replays, one
/// just after runs again.
pub(crate) fn ttl(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let Some(ttl_secs) = tool.idempotency_ttl_secs else {
        return Err(not_applicable(ctx, "takes an idempotency_key"));
    };
    let ttl_ms = i64::try_from(ttl_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
    let promise = format!(
        "{} remembers an idempotency_key for {ttl_secs} s, as its description says",
        tool.name
    );
    let session = ctx.session()?;
    let args = effect_call(ctx, &session, "gauntlet-ttl", &promise)?;
    session.ok(tool.name, &args, &promise)?;

    session.advance_ms(ttl_ms.saturating_sub(1000));
    let before = session.call(tool.name, &args);
    if !matches!(&before, Ok(out) if out.replayed) || session.writes(tool.name) != 1 {
        return Err(Failure::new(&promise)
            .call(tool.name, &args)
            .got(match &before {
                Ok(out) => format!("replayed: {} after {} s", out.replayed, ttl_secs - 1),
                Err(e) => describe_error(e),
            })
            .expected(format!("a replay 1 s before the {ttl_secs} s TTL ends"))
            .fix("keep keys at least as long as the spec's idempotency ttl (the runtime's stores do)"));
    }

    session.advance_ms(2000);
    // After the TTL the key is forgotten: the same call runs again (a gated tool needs a
    // fresh preview, since the old one was used).
    let again = if gated(tool) {
        let mut preview_args = args.clone();
        crate::session::unset(&mut preview_args, "preview_id");
        let preview = match session.call(tool.name, &preview_args) {
            Ok(out) => out.structured,
            // The preview ran again and refused with the tool's own error (the event it
            // deletes is gone): a fresh run, not a replay.
            Err(e) if toolspec_core::catalog::find(&e.code).is_none() => return Ok(()),
            Err(e) => {
                return Err(Failure::new(&promise)
                    .call(tool.name, &preview_args)
                    .got(describe_error(&e))
                    .expected("a fresh preview (the key is forgotten)"));
            }
        };
        if preview.get("applied") != Some(&Value::Bool(false)) {
            return Err(Failure::new(&promise)
                .call(tool.name, &preview_args)
                .got(format!("after the TTL: {}", show(&preview)))
                .expected("a fresh preview (the key is forgotten)"));
        }
        session.apply_args(tool, &preview_args, &preview, &promise)?
    } else {
        args.clone()
    };
    match session.call(tool.name, &again) {
        Ok(out) if !out.replayed && session.writes(tool.name) == 2 => Ok(()),
        // The method ran again and refused with its own error (a second identical reaction
        // is `already_reacted`): a fresh run, not a replay.
        Err(e)
            if toolspec_core::catalog::find(&e.code).is_none()
                && session.writes(tool.name) == 2 =>
        {
            Ok(())
        }
        other => Err(Failure::new(promise)
            .call(tool.name, &again)
            .got(match other {
                Ok(out) => format!(
                    "replayed: {} with {} runs, 1 s after the TTL",
                    out.replayed,
                    session.writes(tool.name)
                ),
                Err(e) => describe_error(&e),
            })
            .expected(format!("a fresh run 1 s after the {ttl_secs} s TTL"))
            .fix("forget keys after the spec's idempotency ttl, as its description promises")),
    }
}
