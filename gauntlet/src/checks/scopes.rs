//! Who may call: a caller whose token lacks one of the tool's scopes is refused before
//! anything runs, and one granted them all is not.

use std::sync::Arc;

use serde_json::json;

use super::{Ctx, not_applicable, refusal_changed_nothing};
use crate::failure::{Failure, show};
use crate::session::describe_error;
use toolspec_core::caller::Caller;
use toolspec_core::engine::CallContext;

/// The issuer the gauntlet's callers come from: a reserved name (RFC 2606), no real issuer.
const ISSUER: &str = "https://gauntlet.invalid";

/// For each scope the tool needs, a caller granted every other one is refused with
/// `insufficient_scope` (not retryable, `details.missing` naming exactly that scope), and
/// nothing changes; a caller granted them all is not refused for its scopes.
pub(crate) fn scopes_required(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let needed = ctx.definition.scopes;
    if needed.is_empty() {
        return Err(not_applicable(ctx, "needs a scope"));
    }
    let promise = format!(
        "{} refuses a caller whose token lacks one of its scopes ({}), and changes nothing",
        tool.name,
        needed.join(" ")
    );
    let session = ctx.session()?;
    let args = ctx.success_call("gauntlet-scopes");
    let as_caller = |scopes: Vec<&str>| {
        CallContext::new().with_caller(Arc::new(
            Caller::new(ISSUER, "gauntlet-caller").with_scopes(scopes),
        ))
    };
    let before = session.snapshot(ctx.facts);
    for lacking in needed {
        let granted: Vec<&str> = needed.iter().copied().filter(|s| s != lacking).collect();
        let got = match session.call_with(tool.name, &args, &as_caller(granted)) {
            Err(e)
                if e.code == "insufficient_scope"
                    && !e.retryable
                    && e.details.get("missing") == Some(&json!([lacking])) =>
            {
                continue;
            }
            Err(e) => describe_error(&e),
            Ok(out) => format!("a success: {}", show(&out.structured)),
        };
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(got)
            .expected(format!(
                "error `insufficient_scope` with details.missing [{lacking:?}]"
            ))
            .fix("serve the tool through the generated layer, which checks the caller's scopes before the method runs"));
    }
    refusal_changed_nothing(ctx, &session, (&before, 0), &args, &promise)?;
    if let Err(e) = session.call_with(tool.name, &args, &as_caller(needed.to_vec()))
        && e.code == "insufficient_scope"
    {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(describe_error(&e))
            .expected(format!(
                "no `insufficient_scope` for a caller granted {}",
                needed.join(" ")
            ))
            .fix(format!(
                "{} must need exactly the scopes of its spec",
                tool.name
            )));
    }
    Ok(())
}
