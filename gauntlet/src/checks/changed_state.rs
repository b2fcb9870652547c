//! Checks run a second time from a state the check itself changed first.
//!
//! A fixture starts every session from the same state, so a result computed from that
//! state rather than read from the store passes a check that only ever starts there: a
//! reservation that always reports `previous_quantity: 0` is right while the quantity
//! really is 0. Changing the state with the tool's own call first, and then running the
//! check's calls, tells the two apart.

use serde_json::Value;

use super::Ctx;
use crate::failure::Failure;
use crate::session::{Session, first_difference, set};
use crate::values::variants;

/// How many calls are tried to change the state before the check gives up finding one
/// (each needs a fresh session).
const TRIES: usize = 4;

/// Whether the check's calls ran in the changed state, or could not (the state the first
/// call made refuses them: a ticket already closed, stock already reserved), in which case
/// another first call is tried.
pub(crate) enum Ran {
    /// The check's calls ran, and held.
    Held,
    /// The changed state refused the check's first call; nothing was checked.
    Refused,
}

/// Where a check's calls start: the fixture's state, where every call the spec's examples
/// make must succeed, or a state the check changed first, which may refuse them.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Start {
    Fixture,
    Changed,
}

/// `result`, or [`Ran::Refused`] when the call failed in a state the check changed first.
pub(crate) fn or_refused<T>(
    result: Result<T, Failure>,
    start: Start,
) -> Result<Result<T, Ran>, Failure> {
    match result {
        Ok(value) => Ok(Ok(value)),
        Err(_) if start == Start::Changed => Ok(Err(Ran::Refused)),
        Err(failure) => Err(failure),
    }
}

/// Runs `check` in a fresh session whose state a successful call of the check's own tool
/// changed first (the success call again, else a call with one argument changed), so that
/// the check starts where the fixture did not. A failure says which call changed the state.
///
/// When no such call changes what the read tools see (a tool whose change they cannot
/// show, or a state that refuses every second call), there is nothing more to check and
/// the check holds as it did from the fixture's state.
pub(crate) fn also_from_changed_state(
    ctx: &Ctx<'_, '_>,
    check: impl Fn(&Session<'_>) -> Result<Ran, Failure>,
) -> Result<(), Failure> {
    let tool = ctx.tool;
    let mut base = ctx.success_call("gauntlet-change-first");
    // A key of its own, even where the example names one: the check's own call must run
    // again, not replay this one.
    if base.get("idempotency_key").is_some() {
        set(
            &mut base,
            "idempotency_key",
            Value::from("gauntlet-change-first"),
        );
    }
    let mut firsts = vec![base.clone()];
    firsts.extend(variants(&ctx.params, ctx.definition, &base, TRIES - 1));
    for first in firsts {
        let session = ctx.session()?;
        let before = session.snapshot(ctx.facts);
        // Through a preview when the tool is gated, as an agent would.
        if session
            .succeed(tool, &first, "changing the state first")
            .is_err()
        {
            continue;
        }
        if first_difference(&before, &session.snapshot(ctx.facts)).is_none() {
            continue;
        }
        return match check(&session) {
            Ok(Ran::Held) => Ok(()),
            Ok(Ran::Refused) => continue,
            Err(failure) => Err(from_changed_state(failure, tool.name, &first)),
        };
    }
    Ok(())
}

/// `failure`, saying that its calls started from the state `first` made.
fn from_changed_state(mut failure: Failure, tool: &str, first: &Value) -> Failure {
    failure.promise = format!(
        "{}, also from a state the check changed first (with {tool} {})",
        failure.promise,
        crate::failure::show(first)
    );
    let hint = "read the state the change starts from in the store, at the time of the call; \
                a value that is right only in the fixture's starting state is not";
    failure.fix = Some(match failure.fix.take() {
        Some(fix) => format!("{fix}; {hint}"),
        None => hint.to_owned(),
    });
    failure
}
