//! A success example's `result`: the result the docs show for it must be one the tool's
//! output schema allows.
//!
//! A spec writes a result in part, the fields the example is about; the docs show it laid
//! over the value composed from the output fields' examples ([`lay_over`]). Laid over the
//! wrong variant of a tagged union, a partial gives a value no server can return (one
//! variant's fields under another's tag), and agents learn from that example. So `check`
//! composes the result exactly as the docs do and judges it with the runtime's validator:
//! a partial union value goes over the variant its tag selects (so one without its tag is
//! the first variant's), a value is refused where its type does not allow it, and only
//! output fields may appear.

use crate::diagnostics::Diagnostic;
use crate::model::fields::FieldResolver;
use crate::model::values::{check_value, compose_example, lay_over};
use crate::model::{Field, Kind, Origin, Type};
use crate::spec::spanned::Sp;
use serde_json::Value;

/// Reports every way the result composed from example `title`'s partial `result` breaks
/// the tool's `output`.
pub(super) fn check_result(
    fr: &mut FieldResolver,
    title: &str,
    result: &Sp<Value>,
    output: &[Field],
) {
    for (at, problem) in problems(&result.value, output) {
        fr.diags.push(
            Diagnostic::error(
                "invalid-example-result",
                fr.span(result.pos),
                format!("the result of example `{title}` breaks the output schema at {at}: {problem}"),
            )
            .label("this, laid over the output fields' examples, is not a valid result")
            .help(
                "write only output fields with values their types allow, and give a union value its tag: a partial value goes over the example of the variant its tag selects",
            ),
        );
    }
}

/// Every (JSON Pointer, problem in the runtime's words) of the result `partial` composes
/// to, judged against the tool's output fields.
fn problems(partial: &Value, output: &[Field]) -> Vec<(String, String)> {
    let spec = Type::of(Kind::Object {
        fields: output
            .iter()
            .filter(|f| f.origin == Origin::Spec)
            .cloned()
            .collect(),
        open: false,
        requires: Vec::new(),
    });
    let Value::Object(result) = lay_over(&compose_example(&spec), partial, &spec) else {
        return vec![(
            "/".into(),
            "a result is an object of output fields".to_string(),
        )];
    };
    let mut out = Vec::new();
    for (key, value) in &result {
        let Some(f) = output.iter().find(|f| f.name == *key) else {
            let names: Vec<&str> = output.iter().map(|f| f.name.as_str()).collect();
            out.push((
                format!("/{key}"),
                format!(
                    "`{key}` is not an output field; the output has: {}",
                    names.join(", ")
                ),
            ));
            continue;
        };
        if f.nullable && value.is_null() {
            continue;
        }
        for (below, problem) in check_value(value, &f.ty, key) {
            out.push((format!("/{key}{below}"), problem));
        }
    }
    out
}
