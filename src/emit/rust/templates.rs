//! The embedded templates and the minijinja environment that renders them.
//!
//! Two rules keep spec text from breaking the generated code:
//! - the only filters that print spec text are `lit` (a Rust string literal) and `doc`
//!   (`#[doc = "..."]` attributes), both from [`super::escape`], which return *safe* values;
//! - the formatter refuses to print any string that is not safe (identifiers and type
//!   expressions come safe from [`super::Safe`]), and undefined values are errors.
//!
//! So a template that prints spec text unescaped fails to render, in every test, instead
//! of producing code that breaks on the first hostile spec.

use minijinja::value::{Value, ValueKind};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, UndefinedBehavior};

use super::escape;

/// The templates, embedded so the binary and build scripts need no files at run time.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "rust/toolset.rs.j2",
        include_str!("../../../templates/rust/toolset.rs.j2"),
    ),
    (
        "rust/types.rs.j2",
        include_str!("../../../templates/rust/types.rs.j2"),
    ),
    (
        "rust/errors.rs.j2",
        include_str!("../../../templates/rust/errors.rs.j2"),
    ),
    (
        "rust/trait.rs.j2",
        include_str!("../../../templates/rust/trait.rs.j2"),
    ),
    (
        "rust/server.rs.j2",
        include_str!("../../../templates/rust/server.rs.j2"),
    ),
    (
        "rust/tables.rs.j2",
        include_str!("../../../templates/rust/tables.rs.j2"),
    ),
];

/// The entry template.
pub const ENTRY: &str = "rust/toolset.rs.j2";

/// An environment with the Rust templates, the escaping filters and the strict formatter.
pub fn environment() -> Result<Environment<'static>, Error> {
    environment_for(TEMPLATES)
}

/// An environment with `templates`, the escaping filters and the strict formatter: what
/// every emitter of Rust source renders with (the server code, the gauntlet tests).
pub fn environment_for(
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
