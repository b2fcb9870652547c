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

mod forward;
mod shapes;
mod templates;
mod types;

use serde::Serialize;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::emit::GeneratedFile;
use crate::emit::code::escape::{self, ident, type_ident};
use crate::emit::code::{safe, safe_opt};
use crate::model::{Content, Field, Kind, Model, Tier, Tool, ToolSet};
use crate::plan::{Definition, Serving, detailed_only};
use shapes::{Shapes, StaticDecl};
use types::{FieldDecl, TypeDecl, Types};

/// The file of one toolset, at its path under the output directory.
pub fn file(model: &Model, ts: &ToolSet) -> Result<GeneratedFile, Diagnostics> {
    let service = &ts.service.text;
    Ok(GeneratedFile::new(
        format!("{service}/{service}.rs"),
        render(model, ts)?,
    ))
}

/// Reports what would stop the Rust code of `model` from being generated (two spec names
/// that become one Rust identifier) into `diags`, so that loading a spec (`check`, a build
/// script) finds it before `generate` does.
pub fn check_names(model: &Model, diags: &mut Diagnostics) {
    for ts in &model.toolsets {
        let _ = context(model, ts, diags);
    }
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
        .map_err(|e| {
            // The include's own error is the cause: say it, not only "could not render".
            let mut what = format!("{e:#}");
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                what.push_str(&format!(": {c}"));
                cause = c.source();
            }
            fail(what)
        })?;
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
    /// The forwarding implementation, for a toolset with `upstream`.
    forward: Option<forward::ForwardCtx>,
    /// The spec's request limits (`defaults.limits`).
    max_request_bytes: u64,
    max_depth: u32,
    /// The spec's groups, in order; empty without.
    groups: Vec<GroupCtx>,
}

/// One of the spec's groups, as the `GROUPS` table declares it.
#[derive(Debug, Serialize)]
struct GroupCtx {
    name: String,
    description: String,
    up_front: bool,
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
    /// Its group's position in `GROUPS`.
    group: Option<usize>,
    title: String,
    description: String,
    #[serde(serialize_with = "safe")]
    kind: String,
    /// `read_only`, `reversible` or `irreversible`: a previewed tool (`kind` `gated`) may
    /// be either of the last two, and its docs say which.
    tier: &'static str,
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
    listed_output_schema: String,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
    aliases: Vec<String>,
    /// The scopes a caller's token must grant (rendered through `lit`).
    scopes: Vec<String>,
    #[serde(serialize_with = "safe")]
    input_shape: String,
    example_call: String,
    items: Option<String>,
    default_limit: u32,
    counts_total: bool,
    /// Page-number paging: the page and page-size parameters (wire names).
    pages: Option<PagesCtx>,
    /// Keyset paging: the items' sort key fields (wire names); empty for offset paging.
    keyset: Vec<String>,
    /// The sort key fields for the trait's docs (`` `ticket_id` ``): the Rust names of
    /// the fields (identifiers, whatever the wire names hold).
    #[serde(serialize_with = "safe")]
    keyset_words: String,
    /// Output fields sent as content blocks, with their `ContentKind` variant.
    content: Vec<ContentCtx>,
    /// Text outputs cut to the budget.
    texts: Vec<String>,
    #[serde(serialize_with = "safe_opt")]
    response_format: Option<String>,
    detailed_only: Vec<String>,
    /// The field list a call may pass (`projection`), as one `Projection` expression.
    #[serde(serialize_with = "safe_opt")]
    projection: Option<String>,
    token_budget: u32,
    idempotency_ttl: Option<u64>,
    preview_ttl: Option<u64>,
    /// `Confirmation` variant of an irreversible tool whose approval is not the default.
    #[serde(serialize_with = "safe_opt")]
    approval: Option<String>,
    undo: Option<UndoCtx>,
    /// Where a write's change happens, as the spec writes it (`store`, `remote_keyed`...).
    #[serde(serialize_with = "safe")]
    effect: &'static str,
    /// The runtime's `Effect` variant of a remote write (`RemoteKeyed`); `None` for the
    /// store, the default. A remote write's method is handed a `Remote`, not a `Work`.
    #[serde(serialize_with = "safe_opt")]
    remote: Option<String>,
    /// Output unions selected by a parameter, as one `&[glue::Selection {..}]` expression;
    /// `None` when there are none.
    #[serde(serialize_with = "safe_opt")]
    selections: Option<String>,
    /// How many calls each caller may make, if limited.
    rate_limit: Option<RateCtx>,
    /// How long its methods may run, in seconds, if limited.
    time_limit_secs: Option<u64>,
    /// How long a task's result is kept, in seconds, when calls may run as tasks.
    task_kept_secs: Option<u64>,
}

/// A rate limit as the `Serve` table holds it.
#[derive(Debug, Serialize)]
struct RateCtx {
    /// What the counts are kept under (rendered through `lit`): the tool's name, or
    /// `<service>.*` for the toolset's shared limit.
    key: String,
    calls: u32,
    per_secs: u64,
    burst: Option<u32>,
}

/// The parameters of page-number paging, as their wire names (rendered through `lit`).
#[derive(Debug, Serialize)]
struct PagesCtx {
    page: String,
    size: String,
}

#[derive(Debug, Serialize)]
struct ContentCtx {
    field: String,
    #[serde(serialize_with = "safe")]
    kind: &'static str,
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
    let (types, errors, trait_name, server, error_enum, forward) = {
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
            let preview = t.preview.is_some().then(|| {
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
                ts,
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
        let forward = ts.upstream.as_ref().and_then(|_| {
            let name = types.claim(
                &type_ident(&format!("{service}_api")),
                "the toolset's forwarding implementation",
                ts.span,
            );
            forward::context(ts, name, types.diags())
        });
        (types.decls, errors, trait_name, server, error_enum, forward)
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
        forward,
        max_request_bytes: ts.defaults.max_request_bytes,
        max_depth: ts.defaults.max_depth,
        groups: ts
            .groups
            .iter()
            .map(|g| GroupCtx {
                name: g.name.text.clone(),
                description: g.description.text.clone(),
                up_front: g.up_front,
            })
            .collect(),
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

/// The tool's top-level output fields that reach the client as content blocks.
fn content_fields(t: &Tool) -> impl Iterator<Item = (&Field, Content)> {
    t.spec_output().filter_map(|f| match f.ty.kind {
        Kind::Content(c) => Some((f, c)),
        _ => None,
    })
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
            clearable: false,
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
    ts: &ToolSet,
    t: &Tool,
    method: String,
    preview_method: Option<String>,
    (input, output, preview): (String, String, Option<String>),
    shapes: &mut Shapes<'_>,
) -> ToolCtx {
    let kind = Serving::of(t).as_str();
    // What the definition says comes from the plan, which the gauntlet digests too.
    let served = Definition::of(ts, t);
    let hints = served.annotations;
    let input_shape = shapes.input(&t.name.text, &t.params, &t.requires);
    let detailed_only = detailed_only(t);
    ToolCtx {
        wire: t.name.text.clone(),
        group: t.group,
        title: served.title,
        description: served.description,
        kind: kind.into(),
        tier: t.tier.as_str(),
        method,
        preview_method,
        input,
        output,
        preview,
        input_schema: served.input_schema,
        output_schema: served.output_schema,
        listed_output_schema: served.listed_output_schema,
        read_only: hints.read_only_hint,
        destructive: hints.destructive_hint,
        idempotent: hints.idempotent_hint,
        open_world: hints.open_world_hint,
        aliases: served.aliases,
        scopes: served.scopes,
        input_shape,
        example_call: served.example_call,
        items: t.paging.as_ref().map(|p| p.pointer()),
        default_limit: t.paging.as_ref().map_or(0, |p| p.default_limit),
        counts_total: t.paging.as_ref().is_none_or(|p| p.total),
        pages: t
            .paging
            .as_ref()
            .and_then(|p| p.pages.as_ref())
            .map(|n| PagesCtx {
                page: n.page.clone(),
                size: n.size.clone(),
            }),
        keyset: t
            .paging
            .iter()
            .flat_map(|p| p.keyset.iter().map(|k| k.text.clone()))
            .collect(),
        keyset_words: t
            .paging
            .iter()
            .flat_map(|p| p.keyset.iter().map(|k| format!("`{}`", ident(&k.text))))
            .collect::<Vec<_>>()
            .join(", "),
        content: content_fields(t)
            .map(|(f, c)| ContentCtx {
                field: f.name.clone(),
                kind: match c {
                    Content::Image | Content::Audio => "Media",
                    Content::Text => "Text",
                    Content::ResourceLink => "Link",
                },
            })
            .collect(),
        texts: content_fields(t)
            .filter(|(_, c)| *c == Content::Text)
            .map(|(f, _)| f.name.clone())
            .collect(),
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
        projection: t
            .projection
            .as_ref()
            .map(crate::emit::code::projection_literal),
        token_budget: t.token_budget,
        idempotency_ttl: t.idempotency.as_ref().map(|i| i.ttl.as_secs()),
        preview_ttl: t.preview.as_ref().map(|p| p.ttl.as_secs()),
        approval: t.preview.as_ref().and_then(|p| match p.approval {
            crate::model::Approval::HostOrPreview => None,
            crate::model::Approval::Host => Some("Host".to_owned()),
            crate::model::Approval::Preview => Some("Preview".to_owned()),
        }),
        effect: t.effect.as_str(),
        remote: match t.effect {
            crate::model::Effect::Store => None,
            crate::model::Effect::RemoteKeyed => Some("RemoteKeyed".to_owned()),
            crate::model::Effect::RemoteLookup => Some("RemoteLookup".to_owned()),
            crate::model::Effect::RemoteUnprotected => Some("RemoteUnprotected".to_owned()),
        },
        time_limit_secs: t.time.as_ref().map(|l| l.limit.as_secs()),
        task_kept_secs: t
            .time
            .as_ref()
            .and_then(|l| l.task_kept)
            .map(|kept| kept.as_secs()),
        rate_limit: t.rate_limit.as_ref().map(|l| RateCtx {
            key: match &l.shared_by {
                Some(service) => format!("{service}.*"),
                None => t.name.text.clone(),
            },
            calls: l.calls,
            per_secs: l.per.as_secs(),
            burst: l.burst,
        }),
        selections: (!t.selections.is_empty()).then(|| {
            let each: Vec<String> = t
                .selections
                .iter()
                .map(|s| crate::emit::code::selection_at("glue", s))
                .collect();
            format!("&[{}]", each.join(", "))
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
