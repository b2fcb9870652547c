//! `toolspec diff`: what changed between two versions of specs, and who it breaks.
//!
//! Two resolved models are compared tool by tool (a tool renamed with its old name kept in
//! `deprecated_aliases` is followed to its new name), then parameter by parameter, output
//! field by output field, and code by code of the error catalog. Every change is a [`Change`]
//! with a stable kind, its location (in the new spec, or in the old one for removals), and
//! whether it is breaking and for whom:
//!
//! - **callers** (agents and clients calling the tool): a call that worked before is now
//!   refused or does something else: a removed tool or parameter, a new required parameter,
//!   a narrower type, range, length, pattern or enum, a changed tier, idempotency or preview;
//! - **consumers** of results (code and agents reading what comes back): a field they read is
//!   gone or may be absent, a value they never saw can now appear (a new enum value in an
//!   output), a retryable flag they act on flipped.
//!
//! Widening an input or narrowing an output is compatible; so are new optional parameters,
//! new tools and new output fields, and changes of wording.

mod fields;
pub mod render;

use crate::diagnostics::{Diagnostics, Sources, Span};
use crate::model::{ErrorCode, Model, Tool, ToolSet, format_duration};
use fields::{Dir, compare_fields};

/// Which version of the specs a location is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The old version (removals).
    Old,
    /// The new version (everything else).
    New,
}

/// Who a breaking change breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Party {
    /// Agents and clients calling the tool: a call that worked is refused or acts differently.
    Callers,
    /// Whoever reads results: a field is gone, or a value appears they never saw.
    Consumers,
}

impl Party {
    /// `callers` or `consumers`.
    pub fn as_str(self) -> &'static str {
        match self {
            Party::Callers => "callers",
            Party::Consumers => "consumers",
        }
    }
}

/// One difference between the old and the new specs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Change {
    /// Stable kebab-case kind (`param-removed`).
    pub kind: &'static str,
    /// Who it breaks; `None` when it is compatible.
    pub breaks: Option<Party>,
    /// The tool it is about (its new name), if any.
    pub tool: Option<String>,
    /// Dotted path to what changed (`tickets_search.params.status`, `errors.not_found`).
    pub path: String,
    /// What changed, in one sentence.
    pub message: String,
    /// Why it breaks, or why it is safe.
    pub reason: String,
    /// Which version `span` points into.
    #[serde(skip)]
    pub side: Side,
    /// Where: in the new spec, or in the old one for removals.
    #[serde(skip)]
    pub span: Span,
}

impl Change {
    /// Whether it breaks anyone.
    pub fn is_breaking(&self) -> bool {
        self.breaks.is_some()
    }
}

/// Collects changes; the helpers keep the call sites short.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub(crate) items: Vec<Change>,
}

impl Changes {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        kind: &'static str,
        breaks: Option<Party>,
        tool: Option<&str>,
        path: String,
        at: (Side, Span),
        message: String,
        reason: impl Into<String>,
    ) {
        self.items.push(Change {
            kind,
            breaks,
            tool: tool.map(str::to_string),
            path,
            message,
            reason: reason.into(),
            side: at.0,
            span: at.1,
        });
    }
}

/// Every change from `old` to `new`: tools in the old order (removed, renamed, changed),
/// then new tools, then error catalogs.
pub fn diff(old: &Model, new: &Model) -> Vec<Change> {
    let mut out = Changes::default();
    let mut matched_new: Vec<&str> = Vec::new();
    for (_, ot) in old.tools() {
        let by_name = new.tool(&ot.name.text);
        let by_alias = || {
            new.tools()
                .find(|(_, nt)| nt.aliases.iter().any(|a| a.text == ot.name.text))
        };
        match by_name.or_else(by_alias) {
            Some((_, nt)) => {
                matched_new.push(&nt.name.text);
                if nt.name.text != ot.name.text {
                    out.push(
                        "tool-renamed",
                        None,
                        Some(&nt.name.text),
                        nt.name.text.clone(),
                        (Side::New, nt.name.span),
                        format!("`{}` was renamed `{}`", ot.name.text, nt.name.text),
                        format!(
                            "`{}` is kept as a deprecated alias, so calls by the old name still work",
                            ot.name.text
                        ),
                    );
                }
                compare_tool(ot, nt, &mut out);
            }
            None => {
                let hint = new
                    .tools()
                    .find(|(_, nt)| {
                        old.tool(&nt.name.text).is_none() && same_params(ot, nt)
                    })
                    .map(|(_, nt)| {
                        format!(
                            "; if `{}` replaces it, add `deprecated_aliases: [{}]` to `{}` to keep old calls working",
                            nt.name.text, ot.name.text, nt.name.text
                        )
                    })
                    .unwrap_or_default();
                out.push(
                    "tool-removed",
                    Some(Party::Callers),
                    None,
                    ot.name.text.clone(),
                    (Side::Old, ot.name.span),
                    format!("tool `{}` was removed", ot.name.text),
                    format!(
                        "calls to `{}` now fail with unknown_tool{hint}",
                        ot.name.text
                    ),
                );
            }
        }
    }
    for (_, nt) in new.tools() {
        if matched_new.contains(&nt.name.text.as_str()) {
            continue;
        }
        out.push(
            "tool-added",
            None,
            Some(&nt.name.text),
            nt.name.text.clone(),
            (Side::New, nt.name.span),
            format!("tool `{}` was added", nt.name.text),
            "a new tool breaks no existing call",
        );
    }
    for nts in &new.toolsets {
        if let Some(ots) = old
            .toolsets
            .iter()
            .find(|o| o.service.text == nts.service.text)
        {
            compare_catalog(ots, nts, &mut out);
        }
    }
    out.items
}

fn same_params(a: &Tool, b: &Tool) -> bool {
    let names = |t: &Tool| -> Vec<String> { t.spec_params().map(|p| p.name.clone()).collect() };
    let (x, y) = (names(a), names(b));
    !x.is_empty() && x == y
}

fn compare_tool(o: &Tool, n: &Tool, out: &mut Changes) {
    let name = n.name.text.as_str();
    let at_new = (Side::New, n.name.span);
    for alias in &o.aliases {
        if alias.text != name && !n.aliases.iter().any(|a| a.text == alias.text) {
            out.push(
                "alias-removed",
                Some(Party::Callers),
                Some(name),
                format!("{name}.deprecated_aliases.{}", alias.text),
                (Side::Old, alias.span),
                format!("deprecated alias `{}` of `{name}` was removed", alias.text),
                format!(
                    "calls by the old name `{}` now fail with unknown_tool",
                    alias.text
                ),
            );
        }
    }
    for alias in &n.aliases {
        if alias.text != o.name.text && !o.aliases.iter().any(|a| a.text == alias.text) {
            out.push(
                "alias-added",
                None,
                Some(name),
                format!("{name}.deprecated_aliases.{}", alias.text),
                (Side::New, alias.span),
                format!("`{name}` also answers to `{}`", alias.text),
                "an extra name breaks no call",
            );
        }
    }
    if o.tier != n.tier {
        let why = match n.tier {
            crate::spec::format::Tier::Irreversible => {
                "a call now only previews the change; it applies only when called again with the preview_id"
            }
            crate::spec::format::Tier::Reversible => {
                "results now carry an undo call, and hosts may gate or auto-approve the tool differently"
            }
            crate::spec::format::Tier::ReadOnly => {
                "writes stop: calls that relied on the change being made no longer make it"
            }
        };
        out.push(
            "tier-changed",
            Some(Party::Callers),
            Some(name),
            format!("{name}.tier"),
            (Side::New, n.tier_span),
            format!(
                "`{name}` changed tier from `{}` to `{}`",
                o.tier.as_str(),
                n.tier.as_str()
            ),
            why,
        );
    }
    compare_settings(o, n, out);
    if o.open_world != n.open_world {
        out.push(
            "open-world-changed",
            None,
            Some(name),
            format!("{name}.open_world"),
            at_new,
            format!(
                "`{name}` now says open_world: {} (was {})",
                n.open_world, o.open_world
            ),
            "a hint to hosts; calls and results are unchanged",
        );
    }
    for (what, a, b, span) in [
        ("title", &o.title.text, &n.title.text, n.title.span),
        ("summary", &o.summary.text, &n.summary.text, n.summary.span),
        ("returns", &o.returns.text, &n.returns.text, n.returns.span),
    ] {
        if a != b {
            out.push(
                "description-changed",
                None,
                Some(name),
                format!("{name}.{what}"),
                (Side::New, span),
                format!("the {what} of `{name}` was reworded"),
                "wording only; agents may route differently, calls still work",
            );
        }
    }
    let ouse = o.use_when.as_ref().map(|u| u.text.as_str());
    let nuse = n.use_when.as_ref().map(|u| u.text.as_str());
    if ouse != nuse {
        let span = n.use_when.as_ref().map_or(n.name.span, |u| u.span);
        out.push(
            "description-changed",
            None,
            Some(name),
            format!("{name}.use_when"),
            (Side::New, span),
            format!("`use_when` of `{name}` changed"),
            "wording only; agents may route differently, calls still work",
        );
    }
    for code in &o.errors {
        if !n.errors.iter().any(|c| c.text == code.text) {
            out.push(
                "error-unlisted",
                None,
                Some(name),
                format!("{name}.errors.{}", code.text),
                (Side::Old, code.span),
                format!("`{name}` no longer lists `{}`", code.text),
                "handling a code that no longer comes breaks nothing",
            );
        }
    }
    for code in &n.errors {
        if !o.errors.iter().any(|c| c.text == code.text) {
            out.push(
                "error-listed",
                None,
                Some(name),
                format!("{name}.errors.{}", code.text),
                (Side::New, code.span),
                format!("`{name}` may now return `{}`", code.text),
                "errors come with a message and a retryable flag that tell the agent what to do",
            );
        }
    }
    let op: Vec<_> = o.spec_params().cloned().collect();
    let np: Vec<_> = n.spec_params().cloned().collect();
    compare_fields(&op, &np, Dir::Input, name, &format!("{name}.params"), out);
    let oo: Vec<_> = o.spec_output().cloned().collect();
    let no: Vec<_> = n.spec_output().cloned().collect();
    let hidden = n.response_format == Some(crate::model::Verbosity::Concise);
    fields::compare_outputs(&oo, &no, hidden, name, &format!("{name}.output"), out);
}

/// Paging, response format, idempotency, preview and token budget.
fn compare_settings(o: &Tool, n: &Tool, out: &mut Changes) {
    let name = n.name.text.as_str();
    let at_new = (Side::New, n.name.span);
    let at_old = (Side::Old, o.name.span);
    match (&o.paging, &n.paging) {
        (None, Some(p)) => out.push(
            "paging-added",
            Some(Party::Consumers),
            Some(name),
            format!("{name}.paging"),
            (Side::New, p.span),
            format!("`{name}` is now paginated"),
            format!(
                "a call returns only the first {} items; readers that expected every item must follow next_cursor",
                p.default_limit
            ),
        ),
        (Some(_), None) => out.push(
            "paging-removed",
            Some(Party::Callers),
            Some(name),
            format!("{name}.paging"),
            at_old,
            format!("`{name}` is no longer paginated"),
            "calls that pass limit or cursor are refused with unknown_argument, and results lose total and next_cursor",
        ),
        (Some(a), Some(b)) => {
            if b.max_limit < a.max_limit {
                out.push(
                    "page-limit-lowered",
                    Some(Party::Callers),
                    Some(name),
                    format!("{name}.paging.max_limit"),
                    (Side::New, b.span),
                    format!(
                        "`{name}` accepts at most {} items per page (was {})",
                        b.max_limit, a.max_limit
                    ),
                    format!(
                        "a call with a limit above {} is refused with out_of_range",
                        b.max_limit
                    ),
                );
            } else if b.max_limit > a.max_limit {
                out.push(
                    "page-limit-raised",
                    None,
                    Some(name),
                    format!("{name}.paging.max_limit"),
                    (Side::New, b.span),
                    format!(
                        "`{name}` accepts up to {} items per page (was {})",
                        b.max_limit, a.max_limit
                    ),
                    "every limit accepted before is still accepted",
                );
            }
            if a.default_limit != b.default_limit {
                out.push(
                    "page-default-changed",
                    None,
                    Some(name),
                    format!("{name}.paging.default_limit"),
                    (Side::New, b.span),
                    format!(
                        "`{name}` returns {} items per page by default (was {})",
                        b.default_limit, a.default_limit
                    ),
                    "readers follow next_cursor for the rest either way",
                );
            }
        }
        (None, None) => {}
    }
    match (o.response_format, n.response_format) {
        (None, Some(d)) => {
            let hides =
                d == crate::model::Verbosity::Concise && fields::has_detailed_only(&n.output);
            out.push(
                "response-format-added",
                hides.then_some(Party::Consumers),
                Some(name),
                format!("{name}.response_format"),
                at_new,
                format!(
                    "`{name}` now takes response_format (default {})",
                    d.as_str()
                ),
                if hides {
                    "concise results, the default, leave out the fields marked detailed_only"
                } else {
                    "a new optional argument; results by default are as before"
                },
            );
        }
        (Some(_), None) => out.push(
            "response-format-removed",
            Some(Party::Callers),
            Some(name),
            format!("{name}.response_format"),
            at_old,
            format!("`{name}` no longer takes response_format"),
            "calls that pass response_format are refused with unknown_argument",
        ),
        (Some(a), Some(b)) if a != b => out.push(
            "response-format-default-changed",
            (b == crate::model::Verbosity::Concise).then_some(Party::Consumers),
            Some(name),
            format!("{name}.response_format"),
            at_new,
            format!(
                "`{name}` now answers {} by default (was {})",
                b.as_str(),
                a.as_str()
            ),
            if b == crate::model::Verbosity::Concise {
                "calls without response_format lose the detailed_only fields"
            } else {
                "calls without response_format get more fields than before"
            },
        ),
        _ => {}
    }
    match (&o.idempotency, &n.idempotency) {
        (None, Some(i)) => out.push(
            "idempotency-added",
            Some(Party::Callers),
            Some(name),
            format!("{name}.idempotency"),
            (Side::New, i.span),
            format!("`{name}` now requires an idempotency_key"),
            "calls without idempotency_key are refused with missing_argument",
        ),
        (Some(_), None) => out.push(
            "idempotency-removed",
            Some(Party::Callers),
            Some(name),
            format!("{name}.idempotency"),
            at_old,
            format!("`{name}` no longer takes an idempotency_key"),
            "calls that pass idempotency_key are refused with unknown_argument, and retries are no longer deduplicated",
        ),
        (Some(a), Some(b)) if b.ttl < a.ttl => out.push(
            "idempotency-ttl-shortened",
            Some(Party::Callers),
            Some(name),
            format!("{name}.idempotency.ttl"),
            (Side::New, b.span),
            format!(
                "`{name}` keeps idempotency keys for {} (was {})",
                format_duration(b.ttl),
                format_duration(a.ttl)
            ),
            "a retry later than the new window acts a second time",
        ),
        _ => {}
    }
    match (&o.preview, &n.preview) {
        (None, Some(p)) => out.push(
            "preview-added",
            Some(Party::Callers),
            Some(name),
            format!("{name}.preview"),
            (Side::New, p.span),
            format!("`{name}` now previews before it applies"),
            "a call without preview_id only previews; callers must call again with the preview_id to apply",
        ),
        (Some(_), None) => out.push(
            "preview-removed",
            Some(Party::Callers),
            Some(name),
            format!("{name}.preview"),
            at_old,
            format!("`{name}` no longer previews"),
            "the first call now applies the change at once; calls that pass preview_id are refused",
        ),
        (Some(a), Some(b)) if b.ttl < a.ttl => out.push(
            "preview-ttl-shortened",
            Some(Party::Callers),
            Some(name),
            format!("{name}.preview.ttl"),
            (Side::New, b.span),
            format!(
                "previews of `{name}` expire after {} (was {})",
                format_duration(b.ttl),
                format_duration(a.ttl)
            ),
            "applying a preview later than the new window fails with preview_expired",
        ),
        _ => {}
    }
    if n.token_budget < o.token_budget {
        out.push(
            "token-budget-lowered",
            Some(Party::Consumers),
            Some(name),
            format!("{name}.token_budget"),
            at_new,
            format!(
                "results of `{name}` are cut at {} tokens (was {})",
                n.token_budget, o.token_budget
            ),
            "results between the two budgets are now truncated",
        );
    }
}

fn compare_catalog(o: &ToolSet, n: &ToolSet, out: &mut Changes) {
    let specs = |ts: &ToolSet| -> Vec<ErrorCode> {
        ts.errors.iter().filter(|e| !e.builtin).cloned().collect()
    };
    let (oe, ne) = (specs(o), specs(n));
    for e in &oe {
        match ne.iter().find(|x| x.code == e.code) {
            None => out.push(
                "error-removed",
                None,
                None,
                format!("errors.{}", e.code),
                (Side::Old, e.span),
                format!(
                    "error code `{}` was removed from `{}`",
                    e.code, n.service.text
                ),
                "no tool returns it any more; handling it breaks nothing",
            ),
            Some(x) => {
                if x.retryable != e.retryable {
                    out.push(
                        "error-retryable-changed",
                        Some(Party::Consumers),
                        None,
                        format!("errors.{}", e.code),
                        (Side::New, x.span),
                        format!(
                            "`{}` is now retryable: {} (was {})",
                            e.code, x.retryable, e.retryable
                        ),
                        if x.retryable {
                            "agents that gave up on it will now retry the same call"
                        } else {
                            "agents that retried it will now give up"
                        },
                    );
                }
                if x.message != e.message {
                    out.push(
                        "error-message-changed",
                        None,
                        None,
                        format!("errors.{}.message", e.code),
                        (Side::New, x.span),
                        format!("the message of `{}` was reworded", e.code),
                        "wording only; the code and flag are what programs read",
                    );
                }
                fields::compare_outputs(
                    &e.details,
                    &x.details,
                    false,
                    "",
                    &format!("errors.{}.details", e.code),
                    out,
                );
            }
        }
    }
    for x in &ne {
        if !oe.iter().any(|e| e.code == x.code) {
            out.push(
                "error-added",
                None,
                None,
                format!("errors.{}", x.code),
                (Side::New, x.span),
                format!("error code `{}` was added to `{}`", x.code, n.service.text),
                "a new code breaks nothing until a tool lists it",
            );
        }
    }
}

/// Loads and resolves the specs of one side, given as (path as shown, text): the specs of a
/// side are resolved together, each side into its own [`Sources`].
///
/// A reference to a tool of a spec that is not given (`unknown-tool`) is not an error here,
/// so that two versions of one file can be compared on their own; `check` reports it.
pub fn load(specs: &[(String, String)]) -> Result<(Model, Sources), (Sources, Diagnostics)> {
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let mut loaded = Vec::new();
    for (path, text) in specs {
        let file = sources.add(path.clone(), text.clone());
        if let Some(spec) = crate::spec::load(file, text, &mut diags) {
            loaded.push((file, spec));
        }
    }
    let model = crate::model::resolve(&loaded, &sources, &mut diags);
    let mut kept = Diagnostics::default();
    for d in diags {
        if d.code != "unknown-tool" {
            kept.push(d);
        }
    }
    if kept.has_errors() {
        Err((sources, kept))
    } else {
        Ok((model, sources))
    }
}
