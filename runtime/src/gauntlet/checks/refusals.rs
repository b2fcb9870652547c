//! Error recovery: a bad value is refused in a way an agent can act on, and the valid call
//! the message suggests really works.

use serde_json::{Map, Value, json};

use super::{Ctx, not_applicable};
use crate::gauntlet::facts::{ParamFacts, Range, Violation};
use crate::gauntlet::failure::{Failure, show};
use crate::gauntlet::session::{describe_error, set, unset};
use crate::gauntlet::values::{bad_value, suggested_call};
use crate::problem::escape_pointer;

/// A call whose `param` is broken as `violation` says is refused with the right code,
/// `retryable: false`, the allowed facts in `details`, a message naming the parameter, and a
/// valid call in the message that succeeds on a fresh fixture.
pub(crate) fn refused(ctx: &Ctx<'_, '_>, name: &str, violation: Violation) -> Result<(), Failure> {
    let tool = ctx.tool;
    let Some(param) = ctx.param(name).copied() else {
        return Err(not_applicable(ctx, &format!("has a parameter `{name}`")));
    };
    let code = violation.code();
    let what = describe(&param, violation);
    let promise = format!(
        "{} refuses {what} with `{code}`, says what is allowed, and shows a valid call",
        tool.name
    );
    let mut args = ctx.base_call();
    if violation == Violation::Missing {
        unset(&mut args, name);
    } else {
        let Some(bad) = bad_value(&param, violation, args.get(name)) else {
            return Err(not_applicable(ctx, &format!("can be given {what}")));
        };
        set(&mut args, name, bad);
    }
    let path = format!("/{}", escape_pointer(name));
    let facts = move |problem: &Map<String, Value>| allowed_facts(&param, violation, problem);
    expect_refusal(ctx, &args, code, &path, name, &promise, &facts)
}

/// An argument the tool does not take is refused with `unknown_argument`, listing the
/// parameters it does take.
pub(crate) fn unknown_argument(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let tool = ctx.tool;
    let name = "gauntlet_unknown_argument";
    let promise = format!(
        "{} refuses an argument it does not take with `unknown_argument`, listing its parameters",
        tool.name
    );
    let mut args = ctx.base_call();
    set(&mut args, name, json!(true));
    let allowed: Vec<&str> = ctx.params.iter().map(|p| p.name).collect();
    let facts = |problem: &Map<String, Value>| {
        let expected = json!(allowed);
        match problem.get("allowed") {
            Some(got) if *got == expected => Ok(()),
            got => Err(format!(
                "details.allowed {}, expected {expected}",
                shown(got)
            )),
        }
    };
    expect_refusal(
        ctx,
        &args,
        "unknown_argument",
        &format!("/{name}"),
        name,
        &promise,
        &facts,
    )
}

/// Checks the facts one problem carries; `Err` says what is missing or wrong.
type FactCheck<'a> = dyn Fn(&Map<String, Value>) -> Result<(), String> + 'a;

/// The shared body of the refusal checks.
fn expect_refusal(
    ctx: &Ctx<'_, '_>,
    args: &Value,
    code: &str,
    path: &str,
    name: &str,
    promise: &str,
    facts: &FactCheck<'_>,
) -> Result<(), Failure> {
    let tool = ctx.tool;
    let session = ctx.session()?;
    let fail = |got: String, expected: String| {
        Failure::new(promise)
            .call(tool.name, args)
            .got(got)
            .expected(expected)
    };
    let err = match session.call(tool.name, args) {
        Ok(out) => {
            return Err(fail(
                format!("a success: {}", show(&out.structured)),
                format!("error `{code}` at {path}"),
            )
            .fix("validate every call against the tool's shape (the generated server does) before running it"));
        }
        Err(e) => e,
    };
    let problems: Vec<&Map<String, Value>> = err
        .details
        .get("problems")
        .and_then(Value::as_array)
        .map(|p| p.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default();
    let Some(problem) = problems.iter().find(|p| {
        p.get("code").and_then(Value::as_str) == Some(code)
            && p.get("path").and_then(Value::as_str) == Some(path)
    }) else {
        return Err(fail(
            describe_error(&err),
            format!("error `{code}` with a problem at {path} in details.problems"),
        ));
    };
    let top = if problems.len() == 1 {
        code
    } else {
        "invalid_arguments"
    };
    if err.code != top {
        return Err(fail(describe_error(&err), format!("error `{top}`")));
    }
    if err.retryable {
        return Err(fail(
            "retryable: true".into(),
            "retryable: false (the same call can never succeed)".into(),
        ));
    }
    if let Err(why) = facts(problem) {
        return Err(fail(why, "details that say what is allowed".into()));
    }
    if !err.message.contains(name) {
        return Err(fail(
            format!("the message \"{}\"", err.message),
            format!("a message that names `{name}`"),
        ));
    }
    let Some(suggested) = suggested_call(&err.message) else {
        return Err(fail(
            format!("the message \"{}\"", err.message),
            "a message ending with \"Example of a valid call: {...}\"".into(),
        ));
    };
    let fresh = ctx.session()?;
    if let Err(e) = fresh.call(tool.name, &suggested) {
        return Err(Failure::new(promise)
            .call(tool.name, &suggested)
            .got(format!("the suggested valid call failed: {}", describe_error(&e)))
            .expected("the call the error message suggests succeeds")
            .fix("make the spec's first successful example work on the fixture (it is the call every validation message suggests)"));
    }
    Ok(())
}

/// What `violation` of `param` is, in words.
fn describe(param: &ParamFacts, violation: Violation) -> String {
    let n = param.name;
    match violation {
        Violation::Missing => format!("a call without the required `{n}`"),
        Violation::WrongType => format!("`{n}` that is not {}", param.json_type),
        Violation::NotAllowed => format!("`{n}` outside its allowed values"),
        Violation::BelowMinimum => format!("`{n}` below its minimum"),
        Violation::AboveMaximum => format!("`{n}` above its maximum"),
        Violation::TooShort => format!("`{n}` shorter than allowed"),
        Violation::TooLong => format!("`{n}` longer than allowed"),
        Violation::PatternMismatch => format!("`{n}` not matching its pattern"),
        Violation::WrongFormat => format!("`{n}` not in its format"),
    }
}

fn shown(v: Option<&Value>) -> String {
    v.map_or("absent".into(), show)
}

/// The facts a problem of this kind must carry, compared with the spec's.
fn allowed_facts(
    param: &ParamFacts,
    violation: Violation,
    problem: &Map<String, Value>,
) -> Result<(), String> {
    let want = |key: &str, expected: Value| -> Result<(), String> {
        let got = problem.get(key);
        let equal = match (got, &expected) {
            (Some(Value::Number(a)), Value::Number(b)) => a.as_f64() == b.as_f64(),
            (Some(a), b) => a == b,
            (None, _) => false,
        };
        if equal {
            Ok(())
        } else {
            Err(format!("details.{key} {}, expected {expected}", shown(got)))
        }
    };
    let (lo, hi) = if param.json_type == "array" {
        ("min_items", "max_items")
    } else {
        ("min_length", "max_length")
    };
    match violation {
        Violation::Missing | Violation::WrongType => want("expected", json!(param.json_type)),
        Violation::NotAllowed => want("allowed", json!(param.allowed)),
        Violation::BelowMinimum | Violation::AboveMaximum => {
            let (min, max) = match param.range {
                Range::Integer(a, b) => (a.map(Value::from), b.map(Value::from)),
                Range::Number(a, b) => (a.map(|n| json!(n)), b.map(|n| json!(n))),
                Range::None => (None, None),
            };
            if let Some(min) = min {
                want("minimum", min)?;
            }
            if let Some(max) = max {
                want("maximum", max)?;
            }
            Ok(())
        }
        Violation::TooShort | Violation::TooLong => {
            if let Some(min) = param.min_length {
                want(lo, json!(min))?;
            }
            if let Some(max) = param.max_length {
                want(hi, json!(max))?;
            }
            Ok(())
        }
        Violation::PatternMismatch => want("pattern", json!(param.pattern)),
        Violation::WrongFormat => want("format", json!(param.format)),
    }
}
