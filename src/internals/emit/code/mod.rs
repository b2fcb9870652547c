//! Writing Rust source from templates, for every emitter that writes Rust (the server
//! layer, the gauntlet tests): identifiers and literals escaped ([`escape`]), and the
//! template environment whose formatter prints nothing that was not escaped.
//!
//! Two rules keep spec text from breaking the generated code:
//! - the only filters that print spec text are `lit` (a Rust string literal) and `doc`
//!   (`#[doc = "..."]` attributes), both from [`escape`], which return *safe* values;
//! - the formatter refuses to print any string that is not safe (identifiers and type
//!   expressions are passed through [`safe`]), and undefined values are errors.
//!
//! So a template that prints spec text unescaped fails to render, in every test, instead
//! of producing code that breaks on the first hostile spec.

pub mod escape;
pub mod runtime_path;

use minijinja::value::{Value, ValueKind};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, UndefinedBehavior};
use serde::{Serialize, Serializer};

use crate::model::{Requirement, Text};

/// A string printed as it is: an identifier or code fragment already made by [`escape`].
pub(crate) fn safe<S: Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
    Value::from_safe_string(text.to_string()).serialize(s)
}

/// [`safe`] for an optional string (`None` stays `none`).
pub(crate) fn safe_opt<S: Serializer>(text: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match text {
        Some(t) => safe(t, s),
        None => s.serialize_none(),
    }
}

/// [`safe`] for a list of strings.
pub(crate) fn safe_vec<S: Serializer>(texts: &[String], s: S) -> Result<S::Ok, S::Error> {
    let values: Vec<Value> = texts
        .iter()
        .map(|t| Value::from_safe_string(t.clone()))
        .collect();
    values.serialize(s)
}

/// An environment with `templates`, the escaping filters and the strict formatter: what
/// every emitter of Rust source renders with (the server code, the gauntlet tests).
pub(crate) fn environment_for(
    templates: &'static [(&'static str, &'static str)],
) -> Result<Environment<'static>, Error> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    // A custom auto-escape mode makes minijinja mark what a macro renders as safe: every
    // piece of it already went through the formatter below, so it may be printed as is.
    // (Set before templates are added: each template takes its mode when added.)
    env.set_auto_escape_callback(|_| AutoEscape::Custom("rust".into()));
    for (name, source) in templates {
        env.add_template(name, source)?;
    }
    env.add_filter("lit", |text: &str| {
        Value::from_safe_string(escape::lit(text))
    });
    env.add_filter("doc", |text: &str| {
        Value::from_safe_string(escape::doc(text))
    });
    env.remove_filter("safe");
    env.set_formatter(|out, _state, value| {
        let text = match value.kind() {
            // Rust spells booleans in lower case; minijinja's display is Python's.
            ValueKind::Bool => value.is_true().to_string(),
            ValueKind::Number => value.to_string(),
            _ if value.is_safe() => value.to_string(),
            _ => {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                        "refusing to print {value:?} unescaped: pipe spec text through `|lit` \
                         or `|doc`, or pass identifiers as escaped `Safe` values"
                    ),
                ));
            }
        };
        out.write_str(&text).map_err(Error::from)
    });
    Ok(env)
}

/// The `Condition` expression of a rule, with `validate` at the path `v`
/// (`::toolspec_runtime::validate` where the module is not imported).
pub(crate) fn condition_at(v: &str, r: &Requirement) -> String {
    let names = |list: &[Text]| -> String {
        let lits: Vec<String> = list.iter().map(|n| escape::lit(&n.text)).collect();
        format!("&[{}]", lits.join(", "))
    };
    match r {
        Requirement::ExactlyOne(n) => format!("{v}::Condition::ExactlyOne({})", names(n)),
        Requirement::AtLeastOne(n) => format!("{v}::Condition::AtLeastOne({})", names(n)),
        Requirement::AllOrNone(n) => format!("{v}::Condition::AllOrNone({})", names(n)),
        Requirement::Requires { field, needs } => format!(
            "{v}::Condition::Requires {{ field: {}, needs: {} }}",
            escape::lit(&field.text),
            names(needs)
        ),
        Requirement::When {
            field,
            values,
            by_default,
            needs,
            allows,
        } => format!(
            "{v}::Condition::When {{ field: {}, values: {}, by_default: {by_default}, needs: {}, allows: {} }}",
            escape::lit(&field.text),
            names(values),
            names(needs),
            names(allows)
        ),
    }
}

/// The `Selection` expression of an output union selected by a parameter, with `glue` at
/// the path `g` (`::toolspec_runtime::engine::glue` where the module is not imported).
pub(crate) fn selection_at(g: &str, s: &crate::model::Selection) -> String {
    format!(
        "{g}::Selection {{ field: {}, tag: {}, param: {} }}",
        escape::lit(&s.field),
        escape::lit(&s.tag),
        escape::lit(&s.param.text)
    )
}

/// A tool's projection as a `toolspec_runtime::projection::Projection` expression: the
/// server layer's `Serve` and the gauntlet's facts state it in this one form.
pub(crate) fn projection_literal(p: &crate::model::Projection) -> String {
    let list = |names: &[String]| {
        let each: Vec<String> = names.iter().map(|n| escape::lit(n)).collect();
        format!("&[{}]", each.join(", "))
    };
    format!(
        "::toolspec_runtime::projection::Projection {{ param: {}, objects: {}, fields: {}, always: {}, default: {} }}",
        escape::lit(&p.param),
        escape::lit(&p.objects_path()),
        list(&p.fields),
        list(&p.always),
        match &p.default {
            None => "::core::option::Option::None".to_string(),
            Some(d) => format!("::core::option::Option::Some({})", list(d)),
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(source: &'static str, ctx: Value) -> Result<String, Error> {
        let env = environment_for(&[("t", "")])?;
        env.render_str(source, ctx)
    }

    #[test]
    fn spec_text_prints_only_through_an_escaping_filter() {
        let ctx = minijinja::context! { text => "a\"#b */", flag => true, n => 3 };
        let err = render("{{ text }}", ctx.clone()).unwrap_err();
        assert!(err.to_string().contains("refusing to print"), "{err}");
        assert!(
            render("{{ text|safe }}", ctx.clone()).is_err(),
            "no way around it"
        );
        assert_eq!(
            render("{{ text|lit }} {{ flag }} {{ n }}", ctx.clone()).unwrap(),
            "r##\"a\"#b */\"## true 3"
        );
        assert_eq!(
            render("{{ text|doc }}", ctx.clone()).unwrap(),
            "#[doc = r#\" a\"\\#b */\"#]"
        );
        assert!(
            render("{{ missing|lit }}", ctx.clone()).is_err(),
            "undefined is an error"
        );
        // What a macro renders went through the formatter already.
        assert_eq!(
            render(
                "{% macro m(v) %}x{{ v|lit }}{% endmacro %}{{ m(text) }}",
                ctx
            )
            .unwrap(),
            "xr##\"a\"#b */\"##"
        );
    }
}
