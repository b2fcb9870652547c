//! What the templates see: plain serializable views of the model, one per page.
//!
//! Every fact is taken from the model as-is (numbers, names, the composed description);
//! the only words added here are those that name a fact (`read-only`, `24h`). Templates
//! decide the layout, never the facts, so an overriding template cannot make a page claim
//! something the server does not do.

use super::catalog::{ErrorRow, catalog_rows, tool_error_rows};
use super::examples::{ExampleCtx, Examples};
use super::fields::{FieldRow, rows};
use crate::diagnostics::Diagnostic;
use crate::model::describe::tool_description;
use crate::model::{Model, Tool, ToolSet, format_duration};
use crate::stats::ToolCost;
use serde::Serialize;

/// The toolset as every page sees it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolsetCtx {
    /// Service namespace (`tickets`).
    pub service: String,
    /// Human title.
    pub title: String,
    /// What the toolset is for.
    pub description: String,
    /// The spec's file name (`tickets.yaml`; no directory, so pages are the same wherever
    /// they are generated).
    pub spec_file: String,
    /// The toolset's defaults.
    pub defaults: DefaultsCtx,
    /// Tools whose own settings differ from the defaults.
    pub overrides: Vec<OverrideCtx>,
    /// Every tool, in spec order.
    pub tools: Vec<ToolSummary>,
    /// The whole error catalog: spec codes, then built-in ones.
    pub errors: Vec<ErrorRow>,
    /// What each provider's list of these tools costs in context.
    pub cost: crate::stats::ListCost,
    /// The spec's groups, in order; empty without.
    pub groups: Vec<GroupCtx>,
    /// What each tool's definition costs, in spec order: counted with the lists' figures,
    /// for the tool pages.
    #[serde(skip)]
    pub tool_costs: Vec<ToolCost>,
}

/// One group of the toolset, with its page.
#[derive(Debug, Clone, Serialize)]
pub struct GroupCtx {
    /// Its name (`pulls`), what operators pass to `--groups`.
    pub name: String,
    /// The name providers see (`github_pulls`).
    pub namespace: String,
    /// What its tools are for.
    pub description: String,
    /// Whether its tools are loaded on every turn.
    pub up_front: bool,
    /// Its page, relative to the docs folder (`group-pulls.md`).
    pub page: String,
    /// Its tools, in spec order.
    pub tools: Vec<ToolSummary>,
}

/// The toolset's defaults, as the runtime applies them.
#[derive(Debug, Clone, Serialize)]
pub struct DefaultsCtx {
    /// Items per page when no `limit` is passed.
    pub default_limit: u32,
    /// Largest `limit` accepted.
    pub max_limit: u32,
    /// How long idempotency keys are kept (`24h`).
    pub idempotency_ttl: String,
    /// How long a preview can be applied (`10m`).
    pub preview_ttl: String,
    /// Largest result, in estimated tokens.
    pub token_budget: u32,
    /// Largest request, for a reader (`1048576 bytes (1 MiB)`).
    pub max_request_bytes: String,
    /// Deepest nesting of a request.
    pub max_depth: u32,
}

/// `bytes` for a reader: the exact count, and the size in KiB or MiB when it is a whole
/// number of them.
fn format_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{b} bytes ({} MiB)", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{b} bytes ({} KiB)", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// One tool's departure from the toolset defaults.
#[derive(Debug, Clone, Serialize)]
pub struct OverrideCtx {
    /// The tool.
    pub tool: String,
    /// Its page.
    pub page: String,
    /// What it sets, in words (`limit 10 by default, at most 50`).
    pub settings: Vec<String>,
}

/// A tool in the toolset's table and relations.
#[derive(Debug, Clone, Serialize)]
pub struct ToolSummary {
    /// Name.
    pub name: String,
    /// Human title.
    pub title: String,
    /// One-line summary.
    pub summary: String,
    /// `read_only`, `reversible` or `irreversible`.
    pub tier: &'static str,
    /// Its page, relative to the docs folder (`tickets_search.md`).
    pub page: String,
    /// When to pick it.
    pub use_when: Option<String>,
    /// Requests it is not for, and the tool to use instead.
    pub not_for: Vec<NotForCtx>,
    /// The tool that undoes it, if reversible.
    pub undone_by: Option<LinkCtx>,
    /// Tools whose undo call is this tool.
    pub undoes: Vec<LinkCtx>,
    /// Deprecated names still routed to it.
    pub aliases: Vec<String>,
}

/// A tool named from another place, with its page when it is in the same toolset.
#[derive(Debug, Clone, Serialize)]
pub struct LinkCtx {
    /// The tool's name.
    pub tool: String,
    /// Its page in this docs folder, or `None` for a tool of another toolset (whose docs
    /// are another site).
    pub page: Option<String>,
    /// The other toolset's service, when it is not this one.
    pub service: Option<String>,
}

/// A request a tool is not for.
#[derive(Debug, Clone, Serialize)]
pub struct NotForCtx {
    /// The kind of request.
    pub when: String,
    /// The tool to use instead.
    pub instead: LinkCtx,
}

/// Everything a tool's page shows.
#[derive(Debug, Clone, Serialize)]
pub struct ToolCtx {
    /// Name, title, summary, tier, relations.
    #[serde(flatten)]
    pub summary: ToolSummary,
    /// What a successful call returns.
    pub returns: String,
    /// The full description, exactly as the agent reads it.
    pub description: String,
    /// Parameters, the spec's then the implied ones, nested ones under dotted names.
    pub params: Vec<FieldRow>,
    /// Output fields, the same way.
    pub output: Vec<FieldRow>,
    /// Every error code the tool can return.
    pub errors: Vec<ErrorRow>,
    /// Side effects and how they are made safe.
    pub safety: SafetyCtx,
    /// Paging, if the tool pages.
    pub paging: Option<PagingCtx>,
    /// Response formats, if the tool takes `response_format`.
    pub response_format: Option<ResponseFormatCtx>,
    /// Largest result in estimated tokens; bigger results are cut (`truncated`).
    pub token_budget: u32,
    /// What the tool's definition costs in the agent's context ([`crate::stats::tool_cost`]).
    pub token_cost: ToolCost,
    /// Whether a result over the budget can be cut (it holds a list or a text).
    pub cuttable: bool,
    /// Why OpenAI gets this tool without `strict: true` (empty when it is strict).
    pub openai_not_strict: Vec<String>,
    /// Worked examples.
    pub examples: Vec<ExampleCtx>,
}

/// The safety spec of a tool.
#[derive(Debug, Clone, Serialize)]
pub struct SafetyCtx {
    /// `read_only`, `reversible` or `irreversible`.
    pub tier: &'static str,
    /// Whether it reaches outside the service's own data (email, payments).
    pub open_world: bool,
    /// Idempotency, if the tool takes a key.
    pub idempotency: Option<IdempotencyCtx>,
    /// Preview, if the tool is gated.
    pub preview: Option<PreviewCtx>,
    /// The undo call, if reversible.
    pub undo: Option<UndoCtx>,
    /// Why an irreversible tool is served without a preview (`low_risk`), if it is.
    pub low_risk: Option<String>,
    /// A write's: where its change happens (`store`, `remote_keyed`...) and what a retry
    /// then does, in the phrasebook's words.
    pub effect: Option<(&'static str, &'static str)>,
    /// The OAuth scopes a caller's token must grant, all of them, over an authorized HTTP
    /// server (empty: any caller with a valid token).
    pub scopes: Vec<String>,
    /// How many calls each caller may make, in the phrasebook's sentence, if limited.
    pub rate_limit: Option<String>,
    /// How long a call may run, in the phrasebook's sentence, if limited.
    pub time: Option<String>,
}

/// How retries are made safe.
#[derive(Debug, Clone, Serialize)]
pub struct IdempotencyCtx {
    /// How long a key and its result are kept (`24h`).
    pub ttl: String,
    /// Why the key may be left out, when it may (`key_optional`).
    pub key_optional: Option<String>,
}

/// The preview an irreversible tool shows before applying.
#[derive(Debug, Clone, Serialize)]
pub struct PreviewCtx {
    /// How long a preview can be applied (`10m`).
    pub ttl: String,
    /// The fields the preview shows beside its summary.
    pub fields: Vec<FieldRow>,
    /// Who approves the change, as the spec writes it (`host_or_preview`).
    pub approval: &'static str,
    /// What that means, in the phrasebook's words.
    pub approval_explained: &'static str,
}

/// The undo call of a reversible tool.
#[derive(Debug, Clone, Serialize)]
pub struct UndoCtx {
    /// The tool to call.
    pub tool: LinkCtx,
    /// Its arguments and where in this tool's result each comes from.
    pub arguments: Vec<UndoArgCtx>,
    /// Whether the undo call carries an idempotency key derived from this call's.
    pub keyed: bool,
    /// Whether the undo tool is previewed: the undo call answers with a preview of the
    /// revert, and reverts only once that preview is applied.
    pub previewed: bool,
}

/// One argument of an undo call.
#[derive(Debug, Clone, Serialize)]
pub struct UndoArgCtx {
    /// The undo tool's parameter.
    pub param: String,
    /// Dotted path into this tool's result.
    pub from: String,
}

/// Paging settings.
#[derive(Debug, Clone, Serialize)]
pub struct PagingCtx {
    /// Output field holding the page's items.
    pub items: String,
    /// Items per page by default.
    pub default_limit: u32,
    /// Largest `limit`.
    pub max_limit: u32,
    /// Whether results carry `total`.
    pub total: bool,
    /// Keyset paging's sort key fields; empty for offset paging.
    pub keyset: Vec<String>,
    /// Page-number paging's page and page-size parameters; `None` for cursors.
    pub pages: Option<(String, String)>,
    /// The union variants whose results are pages, when the list is inside a union (the
    /// others' results are not); empty otherwise.
    pub variants: Vec<String>,
}

/// Response formats.
#[derive(Debug, Clone, Serialize)]
pub struct ResponseFormatCtx {
    /// `concise` or `detailed`.
    pub default: &'static str,
    /// Dotted paths of the fields only detailed responses carry.
    pub detailed_only: Vec<String>,
}

/// The page of one tool: its toolset and itself.
#[derive(Debug, Clone, Serialize)]
pub struct ToolPage {
    /// The toolset ([`ToolsetCtx`]), made into a template value once per toolset: every
    /// page shares it instead of carrying (and serializing) a copy, which made the pages
    /// of a toolset cost the square of its tools.
    pub toolset: minijinja::Value,
    /// The tool.
    pub tool: ToolCtx,
}

/// The page name of a tool (`tickets_search.md`).
pub fn page_of(tool: &str) -> String {
    format!("{tool}.md")
}

/// The rows of a tool's output fields. A tool without `response_format` always sends its
/// detailed-only fields: no row of it says "detailed only".
fn output_rows(tool: &Tool) -> Vec<FieldRow> {
    let mut out = rows(&tool.output);
    // A union selected by a parameter: which variant each value gives.
    for sel in &tool.selections {
        let values = tool.param(&sel.param.text).and_then(|p| match &p.ty.kind {
            crate::model::Kind::String(r) => r.enum_values.clone(),
            _ => None,
        });
        if let (Some(row), Some(values)) = (
            out.iter_mut().find(|r| r.depth == 0 && r.name == sel.field),
            values,
        ) {
            let words =
                crate::model::describe::selection_words(sel, &values, super::filters::code_span);
            let mut parts: Vec<String> = Vec::new();
            if !row.constraints.is_empty() {
                parts.push(std::mem::take(&mut row.constraints));
            }
            parts.extend(words);
            row.constraints = parts.join("; ");
        }
    }
    if tool.response_format.is_none() {
        out.iter_mut().for_each(|r| r.detailed_only = false);
    }
    // A projected field: whether a call that names no fields gets it.
    if let Some(p) = &tool.projection {
        for r in out.iter_mut().filter(|r| r.projected.is_some()) {
            let field = r.name.rsplit('.').next().unwrap_or_default();
            let by_default = p.sent_by_default(field);
            r.projected = Some(match (by_default, r.required) {
                (true, true) => format!("always unless `{}` leaves it out", p.param),
                (true, false) => format!("sometimes, unless `{}` leaves it out", p.param),
                (false, true) => format!("only when `{}` names it", p.param),
                (false, false) => format!("sometimes, when `{}` names it", p.param),
            });
        }
    }
    // A preview answer carries only `applied` and `preview`: the other fields come with
    // the applied result, so no row of them says "always".
    if tool.preview.is_some() && tool.low_risk.is_none() {
        for r in out
            .iter_mut()
            .filter(|r| r.depth == 0 && r.origin != "preview")
        {
            r.when = Some("`applied` is true".into());
        }
    }
    out
}

/// The toolset view shared by every page of `ts`.
pub fn toolset(model: &Model, ts: &ToolSet, combined: bool) -> ToolsetCtx {
    let d = &ts.defaults;
    let tools: Vec<ToolSummary> = ts
        .tools
        .iter()
        .map(|t| summary(model, ts, t, combined))
        .collect();
    let (tool_costs, cost) = crate::stats::costs(ts);
    ToolsetCtx {
        service: ts.service.text.clone(),
        title: ts.title.text.clone(),
        description: ts.description.text.clone(),
        spec_file: std::path::Path::new(&ts.path)
            .file_name()
            .map_or_else(|| ts.path.clone(), |n| n.to_string_lossy().into_owned()),
        defaults: DefaultsCtx {
            default_limit: d.default_limit,
            max_limit: d.max_limit,
            idempotency_ttl: format_duration(d.idempotency_ttl),
            preview_ttl: format_duration(d.preview_ttl),
            token_budget: d.token_budget,
            max_request_bytes: format_bytes(d.max_request_bytes),
            max_depth: d.max_depth,
        },
        overrides: ts.tools.iter().filter_map(|t| overrides(ts, t)).collect(),
        tools: tools.clone(),
        errors: catalog_rows(ts),
        cost,
        tool_costs,
        groups: ts
            .groups
            .iter()
            .enumerate()
            .map(|(index, g)| GroupCtx {
                name: g.name.text.clone(),
                namespace: g.namespace(&ts.service.text),
                description: g.description.text.clone(),
                up_front: g.up_front,
                page: group_page(&g.name.text),
                tools: ts
                    .tools
                    .iter()
                    .zip(&tools)
                    .filter(|(t, _)| t.group == Some(index))
                    .map(|(_, s)| s.clone())
                    .collect(),
            })
            .collect(),
    }
}

/// The page of the group `name`, relative to the docs folder.
pub fn group_page(name: &str) -> String {
    format!("group-{name}.md")
}

/// The page view of `tool`, whose definition costs `token_cost` ([`crate::stats::costs`]), with any
/// spec example the docs cannot show truthfully reported.
pub fn tool_page(
    model: &Model,
    ts: &ToolSet,
    toolset: &minijinja::Value,
    tool: &Tool,
    token_cost: ToolCost,
    combined: bool,
) -> (ToolPage, Vec<Diagnostic>) {
    let (examples, diags) = Examples::new(model, ts, tool).build();
    let page = ToolPage {
        toolset: toolset.clone(),
        tool: ToolCtx {
            summary: summary(model, ts, tool, combined),
            returns: tool.returns.text.clone(),
            description: tool_description(tool),
            params: rows(&tool.params),
            output: output_rows(tool),
            errors: tool_error_rows(ts, tool),
            safety: safety(model, ts, tool, combined),
            paging: tool.paging.as_ref().map(|p| PagingCtx {
                items: p.items.text.clone(),
                default_limit: p.default_limit,
                max_limit: p.max_limit,
                total: p.total,
                keyset: p.keyset.iter().map(|k| k.text.clone()).collect(),
                pages: p.pages.as_ref().map(|n| (n.page.clone(), n.size.clone())),
                variants: p.variants(&tool.output),
            }),
            response_format: tool.response_format.map(|v| ResponseFormatCtx {
                default: v.as_str(),
                detailed_only: rows(&tool.output)
                    .into_iter()
                    .filter(|r| r.detailed_only)
                    .map(|r| r.name)
                    // Only the outermost field of a detailed-only subtree is worth naming.
                    .fold(Vec::<String>::new(), |mut acc, name| {
                        if !acc.iter().any(|p| name.starts_with(&format!("{p}."))) {
                            acc.push(name);
                        }
                        acc
                    }),
            }),
            token_budget: tool.token_budget,
            token_cost,
            openai_not_strict: crate::plan::schema::strict_blockers(&tool.params),
            cuttable: tool.output_field("truncated").is_some(),
            examples,
        },
    };
    (page, diags)
}

/// A tool named on a page of `ts`: a link to its page when it has one in the same book
/// (in a combined book, a tool of another toolset is one folder over).
fn link(model: &Model, ts: &ToolSet, name: &str, combined: bool) -> LinkCtx {
    let other = model
        .tool(name)
        .map(|(owner, _)| owner.service.text.clone())
        .filter(|s| *s != ts.service.text);
    LinkCtx {
        tool: name.to_string(),
        page: match &other {
            None if ts.tool(name).is_some() => Some(page_of(name)),
            Some(service) if combined => Some(format!("../{service}/{}", page_of(name))),
            _ => None,
        },
        service: other,
    }
}

fn summary(model: &Model, ts: &ToolSet, tool: &Tool, combined: bool) -> ToolSummary {
    let name = tool.name.text.as_str();
    ToolSummary {
        name: name.to_string(),
        title: tool.title.text.clone(),
        summary: tool.summary.text.clone(),
        tier: tool.tier.as_str(),
        page: page_of(name),
        use_when: tool.use_when.as_ref().map(|w| w.text.clone()),
        not_for: tool
            .not_for
            .iter()
            .map(|nf| NotForCtx {
                when: nf.when.text.clone(),
                instead: link(model, ts, &nf.use_tool.text, combined),
            })
            .collect(),
        undone_by: tool
            .undo
            .as_ref()
            .map(|u| link(model, ts, &u.tool.text, combined)),
        undoes: model
            .tools()
            .filter(|(_, t)| t.undo.as_ref().is_some_and(|u| u.tool.text == name))
            .map(|(_, t)| link(model, ts, &t.name.text, combined))
            .collect(),
        aliases: tool.aliases.iter().map(|a| a.text.clone()).collect(),
    }
}

fn safety(model: &Model, ts: &ToolSet, tool: &Tool, combined: bool) -> SafetyCtx {
    SafetyCtx {
        tier: tool.tier.as_str(),
        open_world: tool.open_world,
        scopes: tool.scopes.iter().map(|s| s.text.clone()).collect(),
        rate_limit: tool.rate_limit.as_ref().map(|l| l.sentence()),
        time: tool.time.as_ref().map(|time| {
            let said = crate::model::describe::time_sentence(time);
            match crate::model::describe::task_sentence(time) {
                Some(task) => format!("{said} {task}"),
                None => said,
            }
        }),
        low_risk: tool.low_risk.as_ref().map(|r| r.text.clone()),
        effect: (tool.tier != crate::model::Tier::ReadOnly).then(|| {
            (
                tool.effect.as_str(),
                crate::model::describe::effect_explained(tool.effect),
            )
        }),
        idempotency: tool.idempotency.as_ref().map(|i| IdempotencyCtx {
            ttl: format_duration(i.ttl),
            key_optional: i.key_optional.as_ref().map(|r| r.text.clone()),
        }),
        preview: tool.preview.as_ref().map(|p| PreviewCtx {
            ttl: format_duration(p.ttl),
            fields: rows(&p.fields),
            approval: p.approval.as_str(),
            approval_explained: crate::model::describe::approval_explained(p.approval),
        }),
        undo: tool.undo.as_ref().map(|u| UndoCtx {
            tool: link(model, ts, &u.tool.text, combined),
            arguments: u
                .arguments
                .iter()
                .map(|(param, from)| UndoArgCtx {
                    param: param.text.clone(),
                    from: from.text.clone(),
                })
                .collect(),
            keyed: tool.idempotency.is_some()
                && model
                    .tool(&u.tool.text)
                    .is_some_and(|(_, t)| t.idempotency.is_some()),
            previewed: model
                .tool(&u.tool.text)
                .is_some_and(|(_, t)| t.preview.is_some() && t.low_risk.is_none()),
        }),
    }
}

fn overrides(ts: &ToolSet, tool: &Tool) -> Option<OverrideCtx> {
    let d = &ts.defaults;
    let mut settings = Vec::new();
    if let Some(p) = &tool.paging
        && (p.default_limit, p.max_limit) != (d.default_limit, d.max_limit)
    {
        settings.push(format!(
            "limit {} by default, at most {}",
            p.default_limit, p.max_limit
        ));
    }
    if let Some(i) = &tool.idempotency
        && i.ttl != d.idempotency_ttl
    {
        settings.push(format!("idempotency keys kept {}", format_duration(i.ttl)));
    }
    if let Some(p) = &tool.preview
        && p.ttl != d.preview_ttl
    {
        settings.push(format!("previews valid {}", format_duration(p.ttl)));
    }
    if tool.token_budget != d.token_budget {
        settings.push(format!("token budget {}", tool.token_budget));
    }
    (!settings.is_empty()).then(|| OverrideCtx {
        tool: tool.name.text.clone(),
        page: page_of(&tool.name.text),
        settings,
    })
}
