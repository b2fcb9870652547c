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

mod constraints;
mod fields;
mod forward;
mod groups;
mod projection;
mod rate;
pub mod render;
mod scopes;
mod settings;

use crate::diagnostics::{Diagnostics, Sources, Span};
use crate::model::{Model, Tool};
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
            settings::compare_catalog(ots, nts, &mut out);
            settings::compare_limits(ots, nts, &mut out);
            groups::compare_groups(ots, nts, &mut out);
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
    settings::compare_settings(o, n, out);
    scopes::compare_scopes(o, n, out);
    rate::compare_rate_limit(o, n, out);
    forward::compare_http(o, n, out);
    projection::compare_projection(o, n, out);
    projection::compare_output_schema(o, n, out);
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
