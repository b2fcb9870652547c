//! Examples: every example of the spec, run against a fresh fixture, gives its outcome.

use super::{Ctx, gated, not_applicable};
use crate::failure::{Failure, show};
use crate::session::{describe_error, error_fix, parse};
use crate::values::subset;

/// Runs the example at `index`: an error example must fail with its code (and the
/// catalog's retryable flag); a success example must succeed (preview then apply for a
/// gated tool) with its `result` as a part of the real one.
pub(crate) fn example(ctx: &Ctx<'_, '_>, index: usize) -> Result<(), Failure> {
    let tool = ctx.tool;
    let Some(example) = tool.examples.get(index) else {
        return Err(not_applicable(
            ctx,
            &format!("has an example number {}", index + 1),
        ));
    };
    let promise = format!("example \"{}\" of {} holds", example.title, tool.name);
    let session = ctx.session()?;
    let args = parse(example.arguments);

    if let Some(code) = example.error {
        return match session.call(tool.name, &args) {
            Ok(out) => Err(Failure::new(promise)
                .call(tool.name, &args)
                .got(format!("a success: {}", show(&out.structured)))
                .expected(format!("error `{code}`"))
                .fix(format!(
                    "{} must refuse this call with `{code}`, as the spec's example says",
                    tool.name
                ))),
            Err(e) if e.code != code => Err(Failure::new(promise)
                .call(tool.name, &args)
                .got(describe_error(&e))
                .expected(format!("error `{code}`"))
                .fix(if e.code == "internal_error" {
                    format!(
                        "return the catalog error instead of failing: `Err(...::{}{{ .. }}.into())`",
                        heck_upper(code)
                    )
                } else {
                    error_fix(&e)
                })),
            Err(e) => {
                let retryable = ctx.facts.error(code).map(|c| c.retryable);
                if retryable.is_some_and(|r| r != e.retryable) {
                    return Err(Failure::new(promise)
                        .call(tool.name, &args)
                        .got(format!("`{code}` with retryable: {}", e.retryable))
                        .expected(format!("retryable: {}, as the catalog says", !e.retryable)));
                }
                if e.message.trim().is_empty() {
                    return Err(Failure::new(promise)
                        .call(tool.name, &args)
                        .got(format!("`{code}` with an empty message"))
                        .expected("a message saying what was wrong and what to do next"));
                }
                Ok(())
            }
        };
    }

    let (_, result) = session.succeed(tool, &args, &promise)?;
    if gated(tool) && result.get("applied") != Some(&serde_json::Value::Bool(true)) {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("after apply: {}", show(&result)))
            .expected("\"applied\": true"));
    }
    if let Some(expected) = example.result.map(parse)
        && let Err(mismatch) = subset(&expected, &result, "")
    {
        return Err(Failure::new(promise)
            .call(tool.name, &args)
            .got(format!("{mismatch}; the result was {}", show(&result)))
            .expected(format!("a result containing {expected}"))
            .fix("make the implementation (or the fixture's data) give the example's result, or correct the example in the spec"));
    }
    Ok(())
}

/// `not_found` → `NotFound`, as the generated error enum spells its variants.
fn heck_upper(code: &str) -> String {
    code.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
