//! Dry run and undo: a preview changes nothing, apply does exactly what it showed, and a
//! reversible change comes with a call that takes it back.

use serde_json::Value;

use super::changed_state::{Ran, Start, also_from_changed_state, or_refused};
use super::{Ctx, gated, not_applicable};
use crate::failure::{Failure, show};
use crate::session::{START_MS, Session, describe_error, first_difference, set};
use crate::values::{find_key, other_arguments};
use toolspec_core::clock::format_rfc3339;

fn preview_ttl_ms(ctx: &Ctx<'_, '_>) -> Result<(u64, i64), Failure> {
    match ctx.tool.preview {
        Some(p) if gated(ctx.tool) => Ok((
            p.ttl_secs,
            i64::try_from(p.ttl_secs.saturating_mul(1000)).unwrap_or(i64::MAX),
        )),
        _ => Err(not_applicable(ctx, "is gated behind a preview")),
    }
}

/// A preview, and the arguments that apply it.
fn preview(
    ctx: &Ctx<'_, '_>,
    session: &Session<'_>,
    key: &str,
    promise: &str,
) -> Result<(Value, Value, Value), Failure> {
    let args = ctx.success_call(key);
    let preview = session.ok(ctx.tool.name, &args, promise)?;
    if preview.get("applied") != Some(&Value::Bool(false)) {
        return Err(Failure::new(promise)
            .call(ctx.tool.name, &args)
            .got(show(&preview))
            .expected("a preview: \"applied\": false, with \"preview\""));
    }
    let apply = session.apply_args(ctx.tool, &args, &preview, promise)?;
    Ok((args, preview, apply))
}

/// A preview changes nothing the read tools can see, and runs no apply.
pub(crate) fn preview_changes_nothing(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    preview_ttl_ms(ctx)?;
    let tool = ctx.tool;
    let promise = format!("a preview of {} changes nothing", tool.name);
    let session = ctx.session()?;
    let before = session.snapshot(ctx.facts);
    let (args, _, _) = preview(ctx, &session, "gauntlet-preview", &promise)?;
    let after = session.snapshot(ctx.facts);
    if let Some((call, was, now)) = first_difference(&before, &after) {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("after the preview, {call} gives {now}"))
            .expected(format!("what it gave before: {was}"))
            .fix(format!(
                "the preview method of {} must only compute what would change, never write",
                tool.name
            )));
    }
    let writes = session.writes(tool.name);
    if writes != 0 {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("the apply method ran {writes} times"))
            .expected("no apply before the preview_id comes back"));
    }
    Ok(())
}

/// Apply does what the preview said: every preview field that the result also carries
/// (under the same name, at any depth) has the same value.
pub(crate) fn apply_matches_preview(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    preview_ttl_ms(ctx)?;
    let tool = ctx.tool;
    let promise = format!(
        "applying a preview of {} does what the preview showed",
        tool.name
    );
    let session = ctx.session()?;
    apply_round(ctx, &session, &promise, Start::Fixture)?;
    also_from_changed_state(ctx, |session| {
        apply_round(ctx, session, &promise, Start::Changed)
    })
}

/// One preview and its apply, compared.
fn apply_round(
    ctx: &Ctx<'_, '_>,
    session: &Session<'_>,
    promise: &str,
    start: Start,
) -> Result<Ran, Failure> {
    let tool = ctx.tool;
    let (_, shown, apply) =
        match or_refused(preview(ctx, session, "gauntlet-apply", promise), start)? {
            Ok(made) => made,
            Err(ran) => return Ok(ran),
        };
    let done = match or_refused(session.ok(tool.name, &apply, promise), start)? {
        Ok(done) => done,
        Err(ran) => return Ok(ran),
    };
    let fields = tool.preview.map(|p| p.fields).unwrap_or_default();
    for field in fields {
        let Some(promised) = shown.pointer(&format!("/preview/{field}")) else {
            continue;
        };
        let mut found = Vec::new();
        find_key(&done, field, "", &mut found);
        if let Some((at, got)) = found.into_iter().find(|(_, v)| *v != promised) {
            return Err(Failure::new(promise)
                .call(tool.name, &apply)
                .got(format!("{at} is {}", show(got)))
                .expected(format!("{}, as preview.{field} showed", show(promised)))
                .fix(format!(
                    "{} must apply exactly the stored preview it is given, not recompute it",
                    tool.name
                )));
        }
    }
    Ok(Ran::Held)
}

/// Apply with arguments other than the previewed ones is refused with `preview_mismatch`.
pub(crate) fn changed_arguments_refused(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    preview_ttl_ms(ctx)?;
    let tool = ctx.tool;
    let promise = format!(
        "{} refuses to apply a preview with other arguments than the previewed ones",
        tool.name
    );
    let session = ctx.session()?;
    let (args, _, apply) = preview(ctx, &session, "gauntlet-changed", &promise)?;
    let Some(mut other) = other_arguments(&ctx.params, ctx.definition, &args) else {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got("no second valid set of arguments could be made from the spec")
            .expected("a parameter with another valid value"));
    };
    set(
        &mut other,
        "idempotency_key",
        Value::from("gauntlet-changed-2"),
    );
    if let Some(id) = apply.get("preview_id") {
        set(&mut other, "preview_id", id.clone());
    }
    session.refused(tool.name, &other, "preview_mismatch", &promise)?;
    no_effect(&session, ctx, &other, &promise)
}

/// Apply with a preview that was already applied is refused with `preview_used`.
pub(crate) fn used_preview_refused(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    preview_ttl_ms(ctx)?;
    let tool = ctx.tool;
    let promise = format!("{} applies a preview at most once", tool.name);
    let session = ctx.session()?;
    let (_, _, apply) = preview(ctx, &session, "gauntlet-used", &promise)?;
    session.ok(tool.name, &apply, &promise)?;
    let mut again = apply.clone();
    set(
        &mut again,
        "idempotency_key",
        Value::from("gauntlet-used-2"),
    );
    session.refused(tool.name, &again, "preview_used", &promise)?;
    let writes = session.writes(tool.name);
    if writes != 1 {
        return Err(Failure::new(promise)
            .call(tool.name, &again)
            .got(format!("the apply method ran {writes} times"))
            .expected("once"));
    }
    Ok(())
}

/// Apply after the preview's TTL is refused with `preview_expired`.
pub(crate) fn expired_preview_refused(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let (ttl_secs, ttl_ms) = preview_ttl_ms(ctx)?;
    let tool = ctx.tool;
    let promise = format!(
        "{} refuses a preview {ttl_secs} s after it was made, as its description says",
        tool.name
    );
    let session = ctx.session()?;
    let (_, _, apply) = preview(ctx, &session, "gauntlet-expired", &promise)?;
    session.advance_ms(ttl_ms.saturating_add(1000));
    session.refused(tool.name, &apply, "preview_expired", &promise)?;
    no_effect(&session, ctx, &apply, &promise)
}

/// A preview can be applied until just before its TTL, and says when it expires.
pub(crate) fn preview_ttl(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let (ttl_secs, ttl_ms) = preview_ttl_ms(ctx)?;
    let tool = ctx.tool;
    let promise = format!(
        "a preview of {} stays valid for {ttl_secs} s, as its description says",
        tool.name
    );
    let session = ctx.session()?;
    let (args, shown, apply) = preview(ctx, &session, "gauntlet-preview-ttl", &promise)?;
    let expires = format_rfc3339(START_MS.saturating_add(ttl_ms));
    let said = shown.pointer("/preview/expires_at").and_then(Value::as_str);
    if said != Some(expires.as_str()) {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("preview.expires_at {said:?}"))
            .expected(format!(
                "{expires}: {ttl_secs} s after the preview was made"
            )));
    }
    session.advance_ms(ttl_ms.saturating_sub(1000));
    session.ok(tool.name, &apply, &promise).map(|_| ())
}

fn no_effect(
    session: &Session<'_>,
    ctx: &Ctx<'_, '_>,
    args: &Value,
    promise: &str,
) -> Result<(), Failure> {
    let writes = session.writes(ctx.tool.name);
    if writes == 0 {
        return Ok(());
    }
    Err(Failure::new(promise)
        .call(ctx.tool.name, args)
        .got(format!("the apply method ran {writes} times"))
        .expected("no apply for a refused preview"))
}

/// The undo call a reversible tool returns is valid against its tool's schema and brings
/// back what the read tools saw before the change.
pub(crate) fn undo_restores(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let Some(undo_tool) = tool.undo_tool else {
        return Err(not_applicable(ctx, "returns an undo call"));
    };
    let promise = format!(
        "the undo call {} returns restores the state from before the change",
        tool.name
    );
    let session = ctx.session()?;
    undo_round(ctx, &session, undo_tool, &promise, Start::Fixture)?;
    also_from_changed_state(ctx, |session| {
        undo_round(ctx, session, undo_tool, &promise, Start::Changed)
    })
}

/// One change and its undo, from the state `session` is in: the read tools must see what
/// they saw before the change.
fn undo_round(
    ctx: &Ctx<'_, '_>,
    session: &Session<'_>,
    undo_tool: &str,
    promise: &str,
    start: Start,
) -> Result<Ran, Failure> {
    let tool = ctx.tool;
    let before = session.snapshot(ctx.facts);
    let args = ctx.success_call("gauntlet-undo");
    // A previewed reversible tool is applied through its preview; the undo comes with the
    // applied result.
    let (_, done) = match or_refused(session.succeed(tool, &args, promise), start)? {
        Ok(made) => made,
        Err(ran) => return Ok(ran),
    };
    let undo = done.get("undo").cloned().unwrap_or(Value::Null);
    let (Some(name), Some(undo_args)) = (
        undo.get("tool").and_then(Value::as_str),
        undo.get("arguments").cloned(),
    ) else {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("undo: {}", show(&undo)))
            .expected(format!(
                "\"undo\": {{\"tool\": \"{undo_tool}\", \"arguments\": {{...}}}}"
            )));
    };
    if name != undo_tool {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("undo.tool {name}"))
            .expected(format!("undo.tool {undo_tool}, as the spec says")));
    }
    let Some(definition) = session.definition(undo_tool) else {
        return Err(not_applicable(
            ctx,
            "has an undo tool served by the same toolset",
        ));
    };
    if let Err(e) = definition.prepare(undo_args.clone()) {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!(
                "an undo call its schema refuses: {}",
                describe_error(&e)
            ))
            .expected(format!("arguments valid for {undo_tool}"))
            .fix(format!(
                "the result of {} must hold valid values where the spec's undo arguments point",
                tool.name
            )));
    }
    // An undo tool that previews is applied through its preview, as an agent would.
    match ctx.facts.tool(undo_tool) {
        Some(undo_facts) => {
            session.succeed(undo_facts, &undo_args, promise)?;
        }
        None => {
            session.ok(undo_tool, &undo_args, promise)?;
        }
    }
    let after = session.snapshot(ctx.facts);
    if let Some((call, was, now)) = first_difference(&before, &after) {
        return Err(Failure::new(promise)
            .call(undo_tool, &undo_args)
            .got(format!("after the change and its undo, {call} gives {now}"))
            .expected(format!("what it gave before the change: {was}"))
            .fix(format!(
                "{} must report the values that restore the old state (e.g. the previous status) where the undo arguments point",
                tool.name
            )));
    }
    Ok(Ran::Held)
}
