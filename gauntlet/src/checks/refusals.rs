//! Error recovery: a bad value is refused in a way an agent can act on, and the valid call
//! the message suggests really works.

use serde_json::{Map, Value, json};

use super::{Ctx, keeping_rules, not_applicable};
use crate::facts::{ParamFacts, Range, Violation};
use crate::failure::{Failure, show};
use crate::session::{describe_error, parse, set, unset};
use crate::values::{bad_value, suggested_call};
use toolspec_core::for_adapters::escape_pointer;

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

/// Each rule over which parameters go together refuses a call that breaks it: built from
/// the first successful example, with the rule's parameters set to their examples or left
/// out, and answered with the rule's code (`conflicting_arguments` for two of an
/// exactly-one set, `argument_not_applicable` for a parameter passed with a value of the
/// enum its `when` rule does not name, else `missing_argument`), alone or among the call's
/// problems. A `when` rule's call that keeps it (the value, with what it needs and allows)
/// must not be refused by validation.
pub(crate) fn requirements_enforced(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    use toolspec_core::validate::Condition;
    let tool = ctx.tool;
    if tool.requires.is_empty() {
        return Err(not_applicable(
            ctx,
            "has rules over which parameters go together",
        ));
    }
    let promise = format!(
        "{} refuses calls that break its rules over which parameters go together",
        tool.name
    );
    let with = |args: &mut Value, names: &[&str]| {
        for n in names {
            let example = tool.example_of(n).map_or(Value::Null, parse);
            set(args, n, example);
        }
    };
    let without = |args: &mut Value, names: &[&str]| {
        for n in names {
            unset(args, n);
        }
    };
    for rule in tool.requires {
        let mut probes: Vec<(Value, &str)> = Vec::new();
        // Calls that keep the rule, which must not be refused by validation.
        let mut accepted: Vec<Value> = Vec::new();
        let base = ctx.success_call("gauntlet-rules");
        match rule {
            Condition::ExactlyOne(names) => {
                let mut both = base.clone();
                with(&mut both, names);
                probes.push((both, "conflicting_arguments"));
                let mut none = base.clone();
                without(&mut none, names);
                probes.push((none, "missing_argument"));
            }
            Condition::AtLeastOne(names) => {
                let mut none = base.clone();
                without(&mut none, names);
                probes.push((none, "missing_argument"));
            }
            Condition::AllOrNone(names) => {
                let mut part = base.clone();
                without(&mut part, names);
                with(&mut part, &names[..1]);
                probes.push((part, "missing_argument"));
            }
            Condition::Requires { field, needs } => {
                let mut alone = base.clone();
                without(&mut alone, needs);
                with(&mut alone, &[field]);
                probes.push((alone, "missing_argument"));
            }
            Condition::When {
                field,
                values,
                needs,
                allows,
                ..
            } => {
                let keeping = |v: &str| keeping_rules(ctx, &base, field, v);
                let Some(v) = values.first() else { continue };
                accepted.push(keeping(v));
                if !needs.is_empty() {
                    let mut lacking = keeping(v);
                    without(&mut lacking, needs);
                    probes.push((lacking, "missing_argument"));
                }
                // A value the rule does not name, from the enum the validator holds.
                let other = ctx
                    .param(field)
                    .and_then(|p| p.allowed.iter().find(|a| !values.contains(a)));
                if let (Some(other), false) = (other, allows.is_empty()) {
                    let mut extra = keeping(other);
                    with(&mut extra, allows);
                    probes.push((extra, "argument_not_applicable"));
                }
            }
        }
        for args in accepted {
            let session = ctx.session()?;
            if let Err(e) = session.call(tool.name, &args)
                && toolspec_core::catalog::is_validation(&e.code)
            {
                return Err(Failure::new(&promise)
                    .call(tool.name, &args)
                    .got(describe_error(&e))
                    .expected(format!("the call accepted: it keeps the rule {rule:?}"))
                    .fix("serve the definition generated from the spec: its validator refuses only calls that break the rule"));
            }
        }
        for (args, code) in probes {
            let session = ctx.session()?;
            match session.call(tool.name, &args) {
                Err(e) if e.code == code => {}
                Err(e)
                    if e.code == "invalid_arguments"
                        && e.details
                            .get("problems")
                            .and_then(Value::as_array)
                            .is_some_and(|ps| ps.iter().any(|p| p["code"] == code)) => {}
                other => {
                    return Err(Failure::new(&promise)
                        .call(tool.name, &args)
                        .got(match other {
                            Ok(out) => format!("a success: {}", show(&out.structured)),
                            Err(e) => describe_error(&e),
                        })
                        .expected(format!("error `{code}` from the rule {rule:?}"))
                        .fix("serve the definition generated from the spec: its validator holds the rule"));
                }
            }
        }
    }
    Ok(())
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
        Violation::NotAllowed => want("allowed", Value::Array(param.allowed_values())),
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
