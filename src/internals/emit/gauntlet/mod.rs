//! `--emit tests`: the gauntlet of each toolset, `<service>/<service>_gauntlet.rs`.
//!
//! The file holds data only: one `static` of `toolspec_runtime::gauntlet::Facts` (every
//! tool's examples, paging, TTLs, digests of its definition, and the list of named checks;
//! the definition itself, with every constraint, the checks read from the server under
//! test) and a `macro_rules!` that expands to one `#[test]` per check. The checks
//! themselves live in the runtime (`toolspec_runtime::gauntlet`, feature `gauntlet`), written
//! and tested once.
//!
//! Which checks a tool gets is decided here, from the model (`plan`): error-recovery
//! probes per parameter and constraint, one test per example, retry checks for idempotent
//! writes, dry-run checks for gated ones, undo for reversible ones, paging and the published
//! facts (limits, enums, bounds, TTLs) where they exist. Test names say the promise:
//! `gauntlet::tickets_search::pagination_walks_every_item_once`.
//!
//! The text is rendered from `templates/gauntlet/` with the Rust emitter's environment (the
//! same escaping filters and strict formatter) and checked to be Rust tokens (delimiters
//! balanced, literals whole); both parts keep their template's layout (prettyplease would
//! print the macro's body as one line of tokens, and formatting megabytes of facts cost
//! more than the rest of the generator). [`crate::Builder`] writes the same bytes to
//! `OUT_DIR`.

mod plan;

use serde::Serialize;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::emit::GeneratedFile;
use crate::emit::code::escape::{const_ident, ident};
use crate::emit::code::{safe, safe_opt};
use crate::model::{Model, Tier, Tool, ToolSet};
use crate::plan::{Definition, detailed_only};
use plan::ModuleCtx;

/// The templates, embedded so the binary and build scripts need no files at run time.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "gauntlet/facts.rs.j2",
        include_str!("../../../../templates/gauntlet/facts.rs.j2"),
    ),
    (
        "gauntlet/macro.rs.j2",
        include_str!("../../../../templates/gauntlet/macro.rs.j2"),
    ),
];

/// The file of one toolset, at its path under the output directory.
pub fn file(model: &Model, ts: &ToolSet) -> Result<GeneratedFile, Diagnostics> {
    let service = &ts.service.text;
    Ok(GeneratedFile::new(
        format!("{service}/{}", file_name(ts)),
        render(model, ts)?,
    ))
}

/// The file name of a toolset's gauntlet: `<service>_gauntlet.rs`.
pub fn file_name(ts: &ToolSet) -> String {
    format!("{}_gauntlet.rs", ts.service.text)
}

/// The gauntlet file of one toolset, formatted, starting with its `@generated` line.
pub fn render(model: &Model, ts: &ToolSet) -> Result<String, Diagnostics> {
    let fail = |what: String| {
        let mut d = Diagnostics::default();
        d.push(
            Diagnostic::error(
                "gauntlet-template",
                ts.span,
                format!("cannot generate the gauntlet of `{}`: {what}", ts.service.text),
            )
            .label("while generating this toolset's tests")
            .help("this is a bug in toolspec's gauntlet templates (templates/gauntlet/); please report it with this spec"),
        );
        d
    };
    let ctx = context(model, ts);
    // The Rust emitter's filters and formatter, with templates whose block tags leave no
    // blank lines (the macro template is its own output, line for line); the syntax applies
    // to templates added after it is set.
    let mut env = crate::emit::code::environment_for(&[]).map_err(|e| fail(format!("{e:#}")))?;
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
        .map_err(|e| fail(format!("{e:#}")))?;
    env.set_syntax(syntax);
    for (name, source) in TEMPLATES {
        env.add_template(name, source)
            .map_err(|e| fail(format!("{e:#}")))?;
    }
    let value = minijinja::Value::from(minijinja::value::Serde(&ctx));
    let render = |name: &str| {
        env.get_template(name)
            .and_then(|t| t.render(&value))
            .map_err(|e| fail(format!("{e:#}")))
    };
    let facts = render("gauntlet/facts.rs.j2")?;
    let macro_text = render("gauntlet/macro.rs.j2")?;
    // A lexical check: every delimiter closes and every literal is one, so no spec text can
    // break out of its literal. The files of the example specs are compiled whole by
    // tests/compile-check; parsing megabytes with syn here cost more than rendering them.
    let lex = |text: &str| {
        text.parse::<proc_macro2::TokenStream>()
            .map(|_| ())
            .map_err(|e| {
                let at = e.span().start();
                let line = text.lines().nth(at.line.saturating_sub(1)).unwrap_or("");
                fail(format!(
                    "the rendered code is not Rust tokens ({e}) at line {}, column {}: `{}`",
                    at.line,
                    at.column + 1,
                    line.trim()
                ))
            })
    };
    // Both keep their template's layout (prettyplease would print the macro's body as one
    // token stream, and formatting megabytes of facts cost more than generating them).
    lex(&facts)?;
    lex(&macro_text)?;
    Ok(format!(
        "// @generated by toolspec from the `{}` spec: its gauntlet tests. Do not edit: change the spec and regenerate.\n{}\n{}",
        ctx.service,
        facts.trim(),
        macro_text.trim_start()
    ))
}

#[derive(Debug, Serialize)]
struct Context {
    /// The service as an identifier-safe word (for comments and names).
    #[serde(serialize_with = "safe")]
    service: String,
    service_wire: String,
    #[serde(serialize_with = "safe")]
    facts: String,
    #[serde(serialize_with = "safe", rename = "macro")]
    macro_name: String,
    #[serde(serialize_with = "safe")]
    helper: String,
    tools: Vec<ToolCtx>,
    errors: Vec<ErrorCtx>,
    modules: Vec<ModuleCtx>,
}

#[derive(Debug, Serialize)]
struct ErrorCtx {
    code: String,
    retryable: bool,
}

#[derive(Debug, Serialize)]
struct ToolCtx {
    name: String,
    #[serde(serialize_with = "safe")]
    tier: String,
    /// Digests of the served definition's parts (`toolspec_runtime::engine::digest`).
    definition: Vec<String>,
    params: Vec<ParamCtx>,
    examples: Vec<ExampleCtx>,
    paging: Option<PagingCtx>,
    response_format: Option<FormatCtx>,
    /// The field list a call may pass, as one `Projection` expression.
    #[serde(serialize_with = "safe_opt")]
    projection: Option<String>,
    idempotency_ttl: Option<u64>,
    preview: Option<PreviewCtx>,
    undo_tool: Option<String>,
    /// The spec's rules over which parameters go together, as `Condition` expressions.
    #[serde(serialize_with = "safe_vec")]
    requires: Vec<String>,
    /// Output unions selected by a parameter, as `Selection` expressions.
    #[serde(serialize_with = "safe_vec")]
    selections: Vec<String>,
}

/// Code fragments made by [`crate::emit::code`], printed as they are.
fn safe_vec<S: serde::Serializer>(items: &[String], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(items.len()))?;
    for item in items {
        seq.serialize_element(&minijinja::Value::from_safe_string(item.clone()))?;
    }
    seq.end()
}

#[derive(Debug, Serialize)]
struct ParamCtx {
    name: String,
    example: String,
}

#[derive(Debug, Serialize)]
struct ExampleCtx {
    title: String,
    arguments: String,
    result: Option<String>,
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct PagingCtx {
    items: String,
    default_limit: u32,
    max_limit: u32,
    total: bool,
    keyset: bool,
    /// Page-number paging: the page and page-size parameters.
    pages: Option<(String, String)>,
}

#[derive(Debug, Serialize)]
struct FormatCtx {
    default: String,
    detailed_only: Vec<String>,
}

#[derive(Debug, Serialize)]
struct PreviewCtx {
    ttl: u64,
    fields: Vec<String>,
    host_only: bool,
}

fn context(model: &Model, ts: &ToolSet) -> Context {
    // The service name is validated snake_case; filtering again keeps names names.
    let service: String = ts
        .service
        .text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let base = ident(&format!("{service}_gauntlet"));
    Context {
        facts: const_ident(&base),
        helper: format!("__{}", base.trim_start_matches("r#")),
        macro_name: base,
        service,
        service_wire: ts.service.text.clone(),
        tools: ts
            .tools
            .iter()
            .map(|t| tool_context(model, ts, t))
            .collect(),
        errors: ts
            .errors
            .iter()
            .map(|e| ErrorCtx {
                code: e.code.clone(),
                retryable: e.retryable,
            })
            .collect(),
        modules: plan::modules(ts),
    }
}

fn tool_context(model: &Model, ts: &ToolSet, t: &Tool) -> ToolCtx {
    ToolCtx {
        name: t.name.text.clone(),
        definition: Definition::of(ts, t).digests().into(),
        tier: match t.tier {
            Tier::ReadOnly => "ReadOnly",
            Tier::Reversible => "Reversible",
            Tier::Irreversible => "Irreversible",
        }
        .into(),
        params: t
            .params
            .iter()
            .map(|f| ParamCtx {
                name: f.name.clone(),
                example: f.example.to_string(),
            })
            .collect(),
        examples: t
            .examples
            .iter()
            .map(|e| ExampleCtx {
                title: e.title.text.clone(),
                arguments: e.arguments.to_string(),
                result: e.result.as_ref().map(|r| r.to_string()),
                error: e.error.as_ref().map(|c| c.text.clone()),
            })
            .collect(),
        paging: t.paging.as_ref().map(|p| PagingCtx {
            items: p.pointer(),
            default_limit: p.default_limit,
            max_limit: p.max_limit,
            total: p.total,
            keyset: !p.keyset.is_empty(),
            pages: p.pages.as_ref().map(|n| (n.page.clone(), n.size.clone())),
        }),
        response_format: t.response_format.map(|v| FormatCtx {
            default: v.as_str().into(),
            detailed_only: detailed_only(t),
        }),
        projection: t
            .projection
            .as_ref()
            .map(crate::emit::code::projection_literal),
        idempotency_ttl: t
            .idempotency
            .as_ref()
            .filter(|_| t.is_write())
            .map(|i| i.ttl.as_secs()),
        preview: t.preview.as_ref().map(|p| PreviewCtx {
            ttl: p.ttl.as_secs(),
            fields: p.fields.iter().map(|f| f.name.clone()).collect(),
            host_only: p.approval == crate::model::Approval::Host,
        }),
        undo_tool: t
            .undo
            .as_ref()
            .filter(|u| model.tool(&u.tool.text).is_some())
            .map(|u| u.tool.text.clone()),
        requires: t
            .requires
            .iter()
            .map(|r| crate::emit::code::condition_at("::toolspec_runtime::validate", r))
            .collect(),
        selections: t
            .selections
            .iter()
            .map(|s| crate::emit::code::selection_at("::toolspec_runtime::engine::glue", s))
            .collect(),
    }
}

#[cfg(test)]
mod tests;
