//! `--emit tests`: the gauntlet of each toolset, `<service>/<service>_gauntlet.rs`.
//!
//! The file holds data only: one `static` of `toolspec_runtime::gauntlet::Facts` (every
//! tool's parameters and constraints, examples, paging, TTLs, output schema, and the list
//! of named checks) and a `macro_rules!` that expands to one `#[test]` per check. The checks
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
//! same escaping filters and strict formatter) and parsed by `syn`; the facts are formatted
//! by `prettyplease`, the macro keeps its template's layout (prettyplease would print its
//! body as one line of tokens). [`crate::Builder`] writes the same bytes to `OUT_DIR`.

mod plan;

use serde::Serialize;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::emit::GeneratedFile;
use crate::emit::code::escape::{const_ident, ident};
use crate::emit::code::safe;
use crate::emit::schema;
use crate::model::describe::tool_description;
use crate::model::{Field, Kind, Model, Tier, Tool, ToolSet};
use crate::plan::{Annotations, detailed_only};
use plan::ModuleCtx;

/// The templates, embedded so the binary and build scripts need no files at run time.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "gauntlet/facts.rs.j2",
        include_str!("../../../templates/gauntlet/facts.rs.j2"),
    ),
    (
        "gauntlet/macro.rs.j2",
        include_str!("../../../templates/gauntlet/macro.rs.j2"),
    ),
];

/// The gauntlet file of every toolset of the model: `<service>/<service>_gauntlet.rs`.
pub fn emit(model: &Model) -> Result<Vec<GeneratedFile>, Diagnostics> {
    let mut files = Vec::new();
    let mut diags = Diagnostics::default();
    for ts in &model.toolsets {
        match render(model, ts) {
            Ok(text) => {
                let service = &ts.service.text;
                files.push(GeneratedFile::new(
                    format!("{service}/{}", file_name(ts)),
                    text,
                ));
            }
            Err(d) => diags.extend(d),
        }
    }
    if diags.has_errors() {
        Err(diags)
    } else {
        Ok(files)
    }
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
    let parse = |text: &str| {
        syn::parse_file(text).map_err(|e| {
            let at = e.span().start();
            let line = text.lines().nth(at.line.saturating_sub(1)).unwrap_or("");
            fail(format!(
                "the rendered code does not parse ({e}) at line {}, column {}: `{}`",
                at.line,
                at.column + 1,
                line.trim()
            ))
        })
    };
    let facts = parse(&facts)?;
    // prettyplease prints a macro's body as one token stream; the template's own layout is
    // kept instead, after syn has checked that it parses (as does every test's body, when
    // the macro expands).
    parse(&macro_text)?;
    Ok(format!(
        "// @generated by toolspec from the `{}` spec: its gauntlet tests. Do not edit: change the spec and regenerate.\n{}\n{}",
        ctx.service,
        prettyplease::unparse(&facts),
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
    title: String,
    description: String,
    #[serde(serialize_with = "safe")]
    tier: String,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
    aliases: Vec<String>,
    params: Vec<ParamCtx>,
    example_call: String,
    output_schema: String,
    examples: Vec<ExampleCtx>,
    paging: Option<PagingCtx>,
    response_format: Option<FormatCtx>,
    idempotency_ttl: Option<u64>,
    preview: Option<PreviewCtx>,
    undo_tool: Option<String>,
}

#[derive(Debug, Serialize)]
struct ParamCtx {
    name: String,
    json_type: String,
    required: bool,
    allowed: Vec<String>,
    /// A `Range` expression, built here from numbers.
    #[serde(serialize_with = "safe")]
    range: String,
    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<String>,
    format: Option<String>,
    default: Option<String>,
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
        tools: ts.tools.iter().map(|t| tool_context(model, t)).collect(),
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

fn tool_context(model: &Model, t: &Tool) -> ToolCtx {
    let hints = Annotations::of(t);
    ToolCtx {
        name: t.name.text.clone(),
        title: t.title.text.clone(),
        description: tool_description(t),
        tier: match t.tier {
            Tier::ReadOnly => "ReadOnly",
            Tier::Reversible => "Reversible",
            Tier::Irreversible => "Irreversible",
        }
        .into(),
        read_only: hints.read_only_hint,
        destructive: hints.destructive_hint,
        idempotent: hints.idempotent_hint,
        open_world: hints.open_world_hint,
        aliases: t.aliases.iter().map(|a| a.text.clone()).collect(),
        params: t.params.iter().map(param_context).collect(),
        example_call: t.example_call().to_string(),
        output_schema: schema::output_schema(t).to_string(),
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
            items: p.items.text.clone(),
            default_limit: p.default_limit,
            max_limit: p.max_limit,
        }),
        response_format: t.response_format.map(|v| FormatCtx {
            default: v.as_str().into(),
            detailed_only: detailed_only(t),
        }),
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
    }
}

fn param_context(f: &Field) -> ParamCtx {
    const RANGE: &str = "::toolspec_runtime::gauntlet::Range";
    const SOME: &str = "::core::option::Option::Some";
    const NONE: &str = "::core::option::Option::None";
    let int = |n: &Option<i64>| n.map_or(NONE.to_string(), |n| format!("{SOME}({n})"));
    // `{:?}` prints a float as a valid Rust float literal (`1.0`, `1e20`); a non-finite
    // bound cannot come from YAML numbers the model accepts, and is left out if it does.
    let float = |n: &Option<f64>| {
        n.filter(|n| n.is_finite())
            .map_or(NONE.to_string(), |n| format!("{SOME}({n:?})"))
    };
    let (range, min_length, max_length, allowed, pattern, format) = match &f.ty.kind {
        Kind::String(rules) => (
            format!("{RANGE}::None"),
            rules.min_length,
            rules.max_length,
            rules.enum_values.clone().unwrap_or_default(),
            rules.pattern.clone(),
            rules.format.map(|f| f.as_str().to_string()),
        ),
        Kind::Integer { minimum, maximum } => (
            format!("{RANGE}::Integer({}, {})", int(minimum), int(maximum)),
            None,
            None,
            Vec::new(),
            None,
            None,
        ),
        Kind::Number { minimum, maximum } => (
            format!("{RANGE}::Number({}, {})", float(minimum), float(maximum)),
            None,
            None,
            Vec::new(),
            None,
            None,
        ),
        Kind::Array {
            min_items,
            max_items,
            ..
        } => (
            format!("{RANGE}::None"),
            *min_items,
            *max_items,
            Vec::new(),
            None,
            None,
        ),
        Kind::Boolean | Kind::Object { .. } => {
            (format!("{RANGE}::None"), None, None, Vec::new(), None, None)
        }
    };
    ParamCtx {
        name: f.name.clone(),
        json_type: f.ty.json_type().into(),
        required: f.required,
        allowed,
        range,
        min_length,
        max_length,
        pattern,
        format,
        default: f.default.as_ref().map(|d| d.to_string()),
        example: f.example.to_string(),
    }
}

#[cfg(test)]
mod tests;
