//! Output and facts: results keep the output schema and the concise promise, and every
//! allowed value and published bound is really accepted.

use serde_json::{Value, json};

use super::{Ctx, not_applicable};
use crate::failure::{Failure, show};
use crate::session::{describe_error, parse, set};
use crate::values::{bound_values, present_at};

/// The calls whose results are checked: each success call, in each response format.
fn variants(ctx: &Ctx<'_, '_>) -> Vec<Value> {
    let mut calls = Vec::new();
    for (i, call) in ctx.success_calls().into_iter().enumerate() {
        let mut call = call;
        if ctx.tool.idempotency_ttl_secs.is_some() && call.get("idempotency_key").is_none() {
            set(
                &mut call,
                "idempotency_key",
                json!(format!("gauntlet-output-{i}")),
            );
        }
        if ctx.tool.response_format.is_some() {
            for format in ["concise", "detailed"] {
                let mut c = call.clone();
                set(&mut c, "response_format", json!(format));
                calls.push(c);
            }
        } else {
            calls.push(call);
        }
    }
    calls
}

/// Every successful result (previews and applies alike) validates against the tool's
/// output schema.
pub(crate) fn matches_schema(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let promise = format!("every result of {} matches its output schema", tool.name);
    let schema = parse(ctx.definition.output_schema);
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .map_err(|e| {
            Failure::new(&promise)
                .got(format!("the output schema does not compile: {e}"))
                .expected("a valid JSON Schema")
                .fix("regenerate the gauntlet file from the spec")
        })?;
    for args in variants(ctx) {
        let session = ctx.session()?;
        let (preview, result) = session.succeed(tool, &args, &promise)?;
        for value in preview.iter().chain([&result]) {
            let errors: Vec<String> = validator
                .iter_errors(value)
                .map(|e| {
                    let at = e.instance_path().to_string();
                    format!("{}: {e}", if at.is_empty() { "/".into() } else { at })
                })
                .collect();
            if !errors.is_empty() {
                return Err(Failure::new(promise)
                    .call(tool.name, &args)
                    .got(format!("{} in {}", errors.join("; "), show(value)))
                    .expected("a result valid against the output schema")
                    .fix("return the spec's fields with the spec's types and constraints (an enum value, a format, a length)"));
            }
        }
    }
    Ok(())
}

/// Concise results hold none of the fields the spec marks detailed-only.
pub(crate) fn concise_omits_detailed(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let Some(formats) = tool.response_format else {
        return Err(not_applicable(ctx, "takes response_format"));
    };
    let promise = format!(
        "concise results of {} leave out {}",
        tool.name,
        formats.detailed_only.join(", ")
    );
    for mut args in ctx.success_calls() {
        set(&mut args, "response_format", json!("concise"));
        let session = ctx.session()?;
        let (_, result) = session.succeed(tool, &args, &promise)?;
        if let Some(at) = formats
            .detailed_only
            .iter()
            .find_map(|path| present_at(&result, path))
        {
            return Err(Failure::new(promise)
                .call(tool.name, &args)
                .got(format!("{at} is present in {}", show(&result)))
                .expected("no detailed-only field in a concise result")
                .fix("shape results with the generated server (it strips detailed-only fields)"));
        }
    }
    Ok(())
}

/// A call naming one projected field (the first not in `always`) gets exactly what the
/// same call asking for every field gets, less the other projected fields: nothing the
/// spec lets the caller leave out comes back, and nothing asked for goes missing.
pub(crate) fn projection_keeps_what_was_asked(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let Some(p) = tool.projection else {
        return Err(not_applicable(ctx, "has a projection"));
    };
    let Some(one) = p.fields.iter().find(|f| !p.always.contains(f)) else {
        return Err(not_applicable(ctx, "has a field outside `always`"));
    };
    let promise = format!(
        "{} with {}: [{one:?}] returns only {one} and the fields that always come",
        tool.name, p.param
    );
    let session = ctx.session()?;
    for call in ctx.success_calls() {
        let mut every = call.clone();
        set(&mut every, p.param, json!(p.fields));
        let mut asked = call;
        set(&mut asked, p.param, json!([one]));
        let (_, mut whole) = session.succeed(tool, &every, &promise)?;
        let (_, mut got) = session.succeed(tool, &asked, &promise)?;
        // A cut to the budget depends on the size, and a cursor on the arguments.
        if whole.get("truncated").is_some() || got.get("truncated").is_some() {
            continue;
        }
        for r in [&mut whole, &mut got] {
            if let Some(m) = r.as_object_mut() {
                m.remove("next_cursor");
            }
        }
        let mut want = whole.clone();
        p.apply(&asked, &mut want);
        if got != want {
            return Err(Failure::new(promise)
                .call(tool.name, &asked)
                .got(show(&got))
                .expected(format!("{} (every field's result, projected)", show(&want)))
                .fix("serve the tool through the generated layer, which projects results, and return every field from the method"));
        }
    }
    Ok(())
}

/// `value` for `param` in the base call is accepted: no validation error about it, and no
/// internal error.
fn accepted(ctx: &Ctx<'_, '_>, param: &str, value: Value, promise: &str) -> Result<(), Failure> {
    let tool = ctx.tool;
    let mut args = super::call_taking(ctx, &ctx.base_call(), param);
    set(&mut args, param, value);
    let session = ctx.session()?;
    let call = session.call(tool.name, &args);
    let Err(e) = call else {
        return Ok(());
    };
    let path = format!("/{param}");
    let about_param = e.details.get("path").and_then(Value::as_str) == Some(path.as_str())
        || e.details
            .get("problems")
            .and_then(Value::as_array)
            .is_some_and(|ps| {
                ps.iter()
                    .any(|p| p.get("path").and_then(Value::as_str) == Some(path.as_str()))
            });
    if (toolspec_core::catalog::is_validation(&e.code) && about_param) || e.code == "internal_error"
    {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(describe_error(&e))
            .expected(format!("`{param}` accepted, as the spec allows it"))
            .fix(format!(
                "handle every value the spec allows for `{param}` (or narrow the spec to what the implementation does)"
            )));
    }
    Ok(())
}

/// Every value of an enum parameter is accepted.
pub(crate) fn allowed_values_accepted(ctx: &Ctx<'_, '_>, name: &str) -> Result<(), Failure> {
    let Some(param) = ctx.param(name) else {
        return Err(not_applicable(ctx, &format!("has a parameter `{name}`")));
    };
    let values = param.allowed_values();
    let listed: Vec<String> = values
        .iter()
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
        .collect();
    let promise = format!(
        "{} accepts every value its description lists for `{name}`: {}",
        ctx.tool.name,
        listed.join(", ")
    );
    for value in values {
        accepted(ctx, name, value, &promise)?;
    }
    Ok(())
}

/// The published bounds of a parameter (minimum, maximum, shortest, longest) are accepted.
pub(crate) fn bounds_accepted(ctx: &Ctx<'_, '_>, name: &str) -> Result<(), Failure> {
    let Some(param) = ctx.param(name) else {
        return Err(not_applicable(ctx, &format!("has a parameter `{name}`")));
    };
    let base = ctx.base_call();
    let values = bound_values(param, base.get(name));
    let promise = format!(
        "{} accepts `{name}` at the bounds its description states",
        ctx.tool.name
    );
    for value in values {
        accepted(ctx, name, value, &promise)?;
    }
    Ok(())
}

/// Each output union `selected_by` a parameter holds the variant the call names: the
/// result of every successful example, and of a call for each value of the parameter (the
/// first example's arguments with that value and what the `when` rules ask for it). A call
/// for a value the fixture cannot serve (a domain error) proves nothing and is skipped; an
/// `internal_error` is the server catching the implementation returning another variant.
pub(crate) fn selections_followed(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    if tool.selections.is_empty() {
        return Err(not_applicable(
            ctx,
            "has an output union selected by a parameter",
        ));
    }
    for s in tool.selections {
        let promise = format!(
            "{}'s `{}` holds the variant its `{}` names",
            tool.name, s.field, s.param
        );
        let mut calls = ctx.success_calls();
        let base = ctx.success_call("gauntlet-selection");
        let values = ctx.param(s.param).map_or(&[][..], |p| p.allowed);
        for v in values {
            if !calls
                .iter()
                .any(|c| c.get(s.param).and_then(Value::as_str) == Some(v))
            {
                calls.push(super::keeping_rules(ctx, &base, s.param, v));
            }
        }
        for (i, mut args) in calls.into_iter().enumerate() {
            if tool.idempotency_ttl_secs.is_some() {
                set(
                    &mut args,
                    "idempotency_key",
                    json!(format!("gauntlet-selection-{i}")),
                );
            }
            let session = ctx.session()?;
            let first = match session.call(tool.name, &args) {
                Ok(out) => out.structured,
                Err(e) if e.code == "internal_error" => {
                    return Err(Failure::new(&promise)
                        .call(tool.name, &args)
                        .got(describe_error(&e))
                        .expected(format!("the `{}` variant the call's `{}` names", s.field, s.param))
                        .fix(format!("return the variant named by `{}`: the server refuses any other as an internal error", s.param)));
                }
                Err(_) => continue,
            };
            let result = if tool.preview.is_some() {
                let apply = session.apply_args(tool, &args, &first, &promise)?;
                match session.call(tool.name, &apply) {
                    Ok(out) => out.structured,
                    Err(_) => continue,
                }
            } else {
                first
            };
            let want = args.get(s.param).and_then(Value::as_str).or_else(|| {
                ctx.param(s.param)
                    .and_then(|p| p.default)
                    .map(|d| d.trim_matches('"'))
            });
            let got = result
                .get(s.field)
                .and_then(|u| u.get(s.tag))
                .and_then(Value::as_str);
            if result.get(s.field).is_some_and(|u| !u.is_null()) && got != want {
                return Err(Failure::new(&promise)
                    .call(tool.name, &args)
                    .got(format!("a result: {}", show(&result)))
                    .expected(format!(
                        "`{}.{}` = {:?}",
                        s.field,
                        s.tag,
                        want.unwrap_or_default()
                    ))
                    .fix("serve the tool through the generated server, which checks the variant"));
            }
        }
    }
    Ok(())
}
