//! `--emit rust`: one Rust module per toolset, `<service>/<service>.rs`.
//!
//! The module holds the toolset's types (serde structs and enums), its error catalog, the
//! trait the user implements (one async method per tool), a server struct that implements
//! `toolspec_runtime::engine::Toolset` over it, and the static tables (validation shapes,
//! tool definitions, how each tool is served). All behaviour is in
//! `toolspec_runtime::engine::glue`; the generated code only names things and routes.
//!
//! How it is made: `context` turns the model into a template context, settling every
//! Rust name through `emit::code::escape` and reporting collisions at their spec location; the
//! embedded templates (`templates/rust/`) render it; `syn` parses the result (a template
//! bug becomes a generator diagnostic, never a user's compile error) and `prettyplease`
//! formats it. [`crate::Builder`] writes the same text to `OUT_DIR` from a build script.

mod shapes;
mod templates;
mod types;

use serde::Serialize;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::emit::GeneratedFile;
use crate::emit::code::escape::{self, ident, type_ident};
use crate::emit::code::{safe, safe_opt};
use crate::model::describe::tool_description;
use crate::model::{Model, Tier, Tool, ToolSet};
use crate::plan::schema::{self, Profile};
use crate::plan::{Annotations, Serving, detailed_only};
use shapes::{Shapes, StaticDecl};
use types::{FieldDecl, TypeDecl, Types};

/// The file of every toolset of the model: `<service>/<service>.rs`.
pub fn emit(model: &Model) -> Result<Vec<GeneratedFile>, Diagnostics> {
    let mut files = Vec::new();
    let mut diags = Diagnostics::default();
    for ts in &model.toolsets {
        match file(model, ts) {
            Ok(f) => files.push(f),
            Err(d) => diags.extend(d),
        }
    }
    if diags.has_errors() {
        Err(diags)
    } else {
        Ok(files)
    }
}

/// The file of one toolset, at its path under the output directory.
pub fn file(model: &Model, ts: &ToolSet) -> Result<GeneratedFile, Diagnostics> {
    let service = &ts.service.text;
    Ok(GeneratedFile::new(
        format!("{service}/{service}.rs"),
        render(model, ts)?,
    ))
}

/// The Rust module of one toolset, formatted, starting with its `@generated` line.
/// `model` is needed for calls across toolsets (an undo tool defined in another spec).
pub fn render(model: &Model, ts: &ToolSet) -> Result<String, Diagnostics> {
    let mut diags = Diagnostics::default();
    let ctx = context(model, ts, &mut diags);
    if diags.has_errors() {
        return Err(diags);
    }
    let fail = |what: String| {
        let mut d = Diagnostics::default();
        d.push(
            Diagnostic::error(
                "rust-template",
                ts.span,
                format!("cannot generate Rust for `{}`: {what}", ts.service.text),
            )
            .label("while generating this toolset")
            .help("this is a bug in toolspec's Rust templates (templates/rust/); please report it with this spec"),
        );
        d
    };
    let env = templates::environment().map_err(|e| fail(format!("{e:#}")))?;
    let text = env
        .get_template(templates::ENTRY)
        .and_then(|t| t.render(minijinja::Value::from(minijinja::value::Serde(&ctx))))
        .map_err(|e| fail(format!("{e:#}")))?;
    let file = syn::parse_file(&text).map_err(|e| {
        let at = e.span().start();
        let line = text.lines().nth(at.line.saturating_sub(1)).unwrap_or("");
        fail(format!(
            "the rendered code does not parse ({e}) at line {}, column {}: `{}`",
            at.line,
            at.column + 1,
            line.trim()
        ))
    })?;
    Ok(format!(
        "{}\n{}",
        header(ts),
        separate_items(&prettyplease::unparse(&file))
    ))
}

/// Puts a blank line between top-level items, which prettyplease writes back to back.
///
/// A top-level item ends on a line at column 0 that is `}` or ends with `;` (not a comment
/// or attribute); string literals never span lines (newlines in them are escaped), so
/// this cannot touch a literal.
fn separate_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + code.len() / 16);
    let mut ended = false;
    let mut prev = "";
    for line in code.lines() {
        let imports = prev.starts_with("use ") && line.starts_with("use ");
        if ended && !imports && !line.is_empty() && !line.starts_with([' ', '}', ')', ']']) {
            out.push('\n');
        }
        prev = line;
        ended = !line.starts_with([' ', '/', '#']) && (line == "}" || line.ends_with(';'));
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The first line of every generated file.
fn header(ts: &ToolSet) -> String {
    // The service name is validated snake_case; filtering again keeps a comment a comment.
    let service: String = ts
        .service
        .text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    format!(
        "// @generated by toolspec from the `{service}` spec. Do not edit: change the spec and regenerate."
    )
}

#[derive(Debug, Serialize)]
struct Context {
    #[serde(serialize_with = "safe")]
    trait_name: String,
    #[serde(serialize_with = "safe")]
    server: String,
    #[serde(serialize_with = "safe")]
    error_enum: String,
    types: Vec<TypeDecl>,
    errors: Vec<ErrorCtx>,
    tools: Vec<ToolCtx>,
    statics: Vec<StaticDecl>,
    /// Some tool reads the call's context (gated tools ask its host): the dispatcher names
    /// it `ctx`, else `_ctx`.
    uses_ctx: bool,
    /// The spec's request limits (`defaults.limits`).
    max_request_bytes: u64,
    max_depth: u32,
}

#[derive(Debug, Serialize)]
struct ErrorCtx {
    #[serde(serialize_with = "safe")]
    name: String,
    code: String,
    message: String,
    retryable: bool,
    doc: String,
    fields: Vec<FieldDecl>,
}

#[derive(Debug, Serialize)]
struct ToolCtx {
    wire: String,
    title: String,
    description: String,
    #[serde(serialize_with = "safe")]
    kind: String,
    #[serde(serialize_with = "safe")]
    method: String,
    #[serde(serialize_with = "safe_opt")]
    preview_method: Option<String>,
    #[serde(serialize_with = "safe")]
    input: String,
    #[serde(serialize_with = "safe")]
    output: String,
    #[serde(serialize_with = "safe_opt")]
    preview: Option<String>,
    input_schema: String,
    output_schema: String,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
    aliases: Vec<String>,
    #[serde(serialize_with = "safe")]
    input_shape: String,
    example_call: String,
    items: Option<String>,
    default_limit: u32,
    #[serde(serialize_with = "safe_opt")]
    response_format: Option<String>,
    detailed_only: Vec<String>,
    token_budget: u32,
    idempotency_ttl: Option<u64>,
    preview_ttl: Option<u64>,
    /// `Confirmation` variant of an irreversible tool whose approval is not the default.
    #[serde(serialize_with = "safe_opt")]
    approval: Option<String>,
    undo: Option<UndoCtx>,
}

#[derive(Debug, Serialize)]
struct UndoCtx {
    tool: String,
    arguments: Vec<UndoArg>,
    takes_key: bool,
}

#[derive(Debug, Serialize)]
struct UndoArg {
    name: String,
    pointer: String,
}

/// The template context of one toolset. Every identifier is settled here; collisions and
/// unsupported combinations go to `diags`.
fn context(model: &Model, ts: &ToolSet, diags: &mut Diagnostics) -> Context {
    let service = &ts.service.text;
    let mut statics_diags = Diagnostics::default();
    let mut shapes = Shapes::new(&mut statics_diags);
    let mut tools = Vec::new();
    let (types, errors, trait_name, server, error_enum) = {
        let mut types = Types::new(diags);
        for nt in &ts.types {
            types.register_named(&nt.name, nt.span);
        }
        let trait_name = types.claim(
            &type_ident(&format!("{service}_tools")),
            "the toolset's trait",
            ts.span,
        );
        let server = types.claim(
            &type_ident(&format!("{service}_server")),
            "the toolset's server",
            ts.span,
        );
        let own_errors: Vec<_> = ts.errors.iter().filter(|e| !e.builtin).collect();
        let error_enum = if own_errors.is_empty() {
            String::new()
        } else {
            types.claim(
                &type_ident(&format!("{service}_error")),
                "the toolset's error enum",
                ts.span,
            )
        };
        let mut tool_names = Vec::new();
        for t in &ts.tools {
            let at = t.name.span;
            let n = &t.name.text;
            let input = types.claim(
                &type_ident(&format!("{n}_input")),
                &format!("the input of `{n}`"),
                at,
            );
            let output = types.claim(
                &type_ident(&format!("{n}_output")),
                &format!("the output of `{n}`"),
                at,
            );
            let preview = (t.tier == Tier::Irreversible).then(|| {
                types.claim(
                    &type_ident(&format!("{n}_preview")),
                    &format!("the preview of `{n}`"),
                    at,
                )
            });
            tool_names.push((input, output, preview));
        }
        for nt in &ts.types {
            types.declare_named(&nt.name, &nt.ty);
        }
        let mut methods: Vec<(String, String)> = Vec::new();
        for (t, (input, output, preview)) in ts.tools.iter().zip(tool_names) {
            types.declare_struct(
                &input,
                &format!("Arguments of the {} tool.", t.name.text),
                &t.params,
            );
            types.declare_struct(
                &output,
                &format!("Result of the {} tool.", t.name.text),
                &t.output,
            );
            if let (Some(p), Some(spec)) = (&preview, &t.preview) {
                let doc = format!(
                    "What the {} tool would change, shown before it is applied.",
                    t.name.text
                );
                types.declare_struct(p, &doc, &spec.fields);
                add_summary(&mut types.decls, p);
            }
            let method = claim_method(&mut methods, &ident(&t.name.text), t, types.diags());
            let preview_method = preview.as_ref().map(|_| {
                claim_method(
                    &mut methods,
                    &ident(&format!("preview_{}", t.name.text)),
                    t,
                    types.diags(),
                )
            });
            if let Some(d) = unsupported(t) {
                types.diags().push(d);
            }
            tools.push(tool_context(
                model,
                t,
                method,
                preview_method,
                (input, output, preview),
                &mut shapes,
            ));
        }
        let mut errors = Vec::new();
        for e in own_errors {
            let name = type_ident(&e.code);
            let fields = types.fields(&format!("{error_enum} {name}"), &e.details);
            errors.push(ErrorCtx {
                name,
                code: e.code.clone(),
                message: e.message.clone(),
                retryable: e.retryable,
                doc: e.when.clone().unwrap_or_else(|| e.message.clone()),
                fields,
            });
        }
        (types.decls, errors, trait_name, server, error_enum)
    };
    let statics = shapes.statics;
    diags.extend(statics_diags);
    let uses_ctx = tools.iter().any(|t| t.kind == "gated");
    Context {
        trait_name,
        server,
        error_enum,
        types,
        errors,
        tools,
        statics,
        uses_ctx,
        max_request_bytes: ts.defaults.max_request_bytes,
        max_depth: ts.defaults.max_depth,
    }
}

/// Claims a trait method name; two tools whose methods spell the same are a diagnostic.
fn claim_method(
    methods: &mut Vec<(String, String)>,
    name: &str,
    t: &Tool,
    diags: &mut Diagnostics,
) -> String {
    if let Some((_, first)) = methods.iter().find(|(m, _)| m == name) {
        diags.push(
            Diagnostic::error(
                "rust-name-collision",
                t.name.span,
                format!(
                    "tool `{}` needs the trait method `{name}`, already used by `{first}`",
                    t.name.text
                ),
            )
            .label("same Rust method name")
            .help("rename one of the tools so their snake_case names differ"),
        );
    } else {
        methods.push((name.to_string(), t.name.text.clone()));
    }
    name.to_string()
}

/// The preview struct also carries the optional `summary` the runtime shows.
fn add_summary(decls: &mut [TypeDecl], preview: &str) {
    if let Some(d) = decls.iter_mut().find(|d| d.name == preview) {
        d.fields.push(FieldDecl {
            name: "summary".into(),
            wire: "summary".into(),
            doc: "One sentence on what applying would do, shown to the user; a generic one is used when left out.".into(),
            ty: "::core::option::Option<::std::string::String>".into(),
            optional: true,
            rename: false,
        });
    }
}

/// Combinations the Rust server does not serve.
fn unsupported(t: &Tool) -> Option<Diagnostic> {
    let span = t.paging.as_ref().map(|p| p.span)?;
    (t.tier != Tier::ReadOnly).then(|| {
        Diagnostic::error(
            "rust-unsupported",
            span,
            format!(
                "`{}` is a {} tool with paging; the Rust server pages read-only tools only",
                t.name.text,
                t.tier.as_str()
            ),
        )
        .label("paging on a write")
        .help("remove `paging`, or split the listing into a read-only tool")
    })
}

fn tool_context(
    model: &Model,
    t: &Tool,
    method: String,
    preview_method: Option<String>,
    (input, output, preview): (String, String, Option<String>),
    shapes: &mut Shapes<'_>,
) -> ToolCtx {
    let kind = Serving::of(t).as_str();
    let hints = Annotations::of(t);
    let input_shape = shapes.input(&t.name.text, &t.params);
    let detailed_only = detailed_only(t);
    ToolCtx {
        wire: t.name.text.clone(),
        title: t.title.text.clone(),
        description: tool_description(t),
        kind: kind.into(),
        method,
        preview_method,
        input,
        output,
        preview,
        input_schema: schema::input_schema(t, Profile::Standard).to_string(),
        output_schema: schema::output_schema(t).to_string(),
        read_only: hints.read_only_hint,
        destructive: hints.destructive_hint,
        idempotent: hints.idempotent_hint,
        open_world: hints.open_world_hint,
        aliases: t.aliases.iter().map(|a| a.text.clone()).collect(),
        input_shape,
        example_call: t.example_call().to_string(),
        items: t.paging.as_ref().map(|p| p.items.text.clone()),
        default_limit: t.paging.as_ref().map_or(0, |p| p.default_limit),
        response_format: t.response_format.map(|v| {
            match v {
                crate::model::Verbosity::Concise => "Concise",
                crate::model::Verbosity::Detailed => "Detailed",
            }
            .to_string()
        }),
        detailed_only: if t.response_format.is_some() {
            detailed_only
        } else {
            Vec::new()
        },
        token_budget: t.token_budget,
        idempotency_ttl: t.idempotency.as_ref().map(|i| i.ttl.as_secs()),
        preview_ttl: t.preview.as_ref().map(|p| p.ttl.as_secs()),
        approval: t.preview.as_ref().and_then(|p| match p.approval {
            crate::model::Approval::HostOrPreview => None,
            crate::model::Approval::Host => Some("Host".to_owned()),
            crate::model::Approval::Preview => Some("Preview".to_owned()),
        }),
        undo: t.undo.as_ref().map(|u| UndoCtx {
            tool: u.tool.text.clone(),
            arguments: u
                .arguments
                .iter()
                .map(|(name, path)| UndoArg {
                    name: name.text.clone(),
                    pointer: path
                        .text
                        .split('.')
                        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
                        .collect(),
                })
                .collect(),
            takes_key: model
                .tool(&u.tool.text)
                .is_some_and(|(_, target)| target.param("idempotency_key").is_some()),
        }),
    }
}
