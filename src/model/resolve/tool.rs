//! One tool against its toolset: fields, tier rules, paging, response format, examples.

use crate::diagnostics::{Diagnostic, did_you_mean};
use crate::model::fields::{FieldResolver, Place, is_portable_param_name, wire_name_problem};
use crate::model::implied::{self, RESERVED_OUTPUTS, RESERVED_PARAMS};
use crate::model::values::check_arguments;
use crate::model::{
    Content, Defaults, ErrorCode, Example, Field, Idempotency, Kind, ListProblem, NotFor, Origin,
    PageNumbers, Paging, Preview, Requirement, Selection, Text, Tool, Type, Undo, find_lists,
    keys_of,
};
use crate::spec::format::{self as raw, Effect, Tier};
use crate::spec::spanned::{Pos, Sp};

use super::example_result::check_result;
use super::{check_limits, duration, is_portable_tool_name, text};

pub(super) fn resolve_tool(
    fr: &mut FieldResolver,
    t: &raw::Tool,
    defaults: &Defaults,
    catalog: &[ErrorCode],
) -> Tool {
    let file = fr.span(Pos::default()).file;
    let name = text(file, &t.name);
    check_tool_name(fr, &t.name, "tool name");
    for a in t.deprecated_aliases.iter().flatten() {
        check_tool_name(fr, a, "alias");
    }
    let tier = t.tier.value;
    let mut params = fr.fields(t.params.as_ref(), Place::Param);
    fr.top_output = true;
    let mut output = fr.fields(Some(&t.output.value), Place::Output);
    fr.top_output = false;
    let selections = selections(fr, &t.output.value, &params, &output);
    portable_params(fr, &params);
    reserved(fr, &params, RESERVED_PARAMS, "parameter");
    reserved(fr, &output, RESERVED_OUTPUTS, "output field");

    // Paging.
    let paging = t.paging.as_ref().map(|p| {
        let span = fr.span(p.pos);
        let d = p
            .default_limit
            .as_ref()
            .map_or(defaults.default_limit, |v| v.value);
        let m = p.max_limit.as_ref().map_or(defaults.max_limit, |v| v.value);
        let mut diags = std::mem::take(fr.diags);
        check_limits(
            file,
            p.default_limit.as_ref(),
            p.max_limit.as_ref(),
            d,
            m,
            &mut diags,
        );
        *fr.diags = diags;
        let segments: Vec<&str> = p.items.value.split('.').collect();
        let lists = match find_lists(&output, &segments) {
            Ok(lists) => lists,
            Err(problem) => {
                no_list(fr, p, problem);
                Vec::new()
            }
        };
        let (path, in_variant) = keys_of(&output, &segments);
        let keyset: Vec<Text> = p.keyset.iter().flatten().map(|k| text(file, k)).collect();
        check_keyset(fr, p, lists.first().copied(), &keyset);
        // The lists of the other variants `*` names sort by the same key.
        for list in lists.iter().skip(1).filter(|_| !keyset.is_empty()) {
            check_keyset(fr, p, Some(list), &keyset);
        }
        let paging = Paging {
            items: text(file, &p.items),
            default_limit: d,
            max_limit: m,
            total: p.total.as_ref().is_none_or(|t| t.value),
            keyset,
            pages: page_numbers(fr, p, &params),
            path,
            in_variant,
            span,
        };
        if !lists.is_empty() {
            same_list_in_other_variants(fr, &paging, &output);
        }
        paging
    });

    let projection = super::projection::resolve(fr, t, &params, &mut output, paging.as_ref());
    let response_format = t.response_format.as_ref().map(|r| {
        r.default
            .as_ref()
            .map_or(raw::Verbosity::Concise, |d| d.value)
    });
    let idempotency = t.idempotency.as_ref().map(|i| {
        let ttl = i.ttl.as_ref().map_or(defaults.idempotency_ttl, |s| {
            let mut diags = std::mem::take(fr.diags);
            let d = duration(file, s, defaults.idempotency_ttl, &mut diags);
            *fr.diags = diags;
            d
        });
        if let Some(r) = i.key_optional.as_ref().filter(|r| r.value.trim().is_empty()) {
            fr.diags.push(
                Diagnostic::error("missing-reason", fr.span(r.pos), "`key_optional` needs its reason")
                    .label("empty reason")
                    .help("say in a sentence why a caller may leave the key out (its callers send none, and running twice changes nothing)"),
            );
        }
        Idempotency {
            ttl,
            key_optional: i.key_optional.as_ref().map(|r| text(file, r)),
            span: fr.span(i.pos),
        }
    });
    let preview = t.preview.as_ref().map(|p| {
        let ttl = p.ttl.as_ref().map_or(defaults.preview_ttl, |s| {
            let mut diags = std::mem::take(fr.diags);
            let d = duration(file, s, defaults.preview_ttl, &mut diags);
            *fr.diags = diags;
            d
        });
        let fields = fr.fields(p.fields.as_ref(), Place::Output);
        reserved(
            fr,
            &fields,
            &["preview_id", "expires_at", "summary"],
            "preview field",
        );
        Preview {
            ttl,
            approval: p.approval.as_ref().map_or(defaults.approval, |a| a.value),
            fields,
            span: fr.span(p.pos),
        }
    });
    check_tier(fr, t, tier);
    let (effect, effect_span) = match &t.effect {
        Some(e) => (e.value, fr.span(e.pos)),
        None if tier == Tier::ReadOnly => (Effect::Store, fr.span(t.tier.pos)),
        None => (
            defaults.effect,
            defaults.effect_span.unwrap_or_else(|| fr.span(t.tier.pos)),
        ),
    };

    // Implied parameters and outputs, always in this order.
    if let Some(p) = &paging {
        match &p.pages {
            None => {
                params.push(implied::limit_param(
                    p.span,
                    "limit",
                    p.default_limit,
                    p.max_limit,
                ));
                params.push(implied::cursor_param(p.span));
            }
            Some(n) => {
                params.push(implied::page_param(p.span, &n.page));
                params.push(implied::limit_param(
                    p.span,
                    &n.size,
                    p.default_limit,
                    p.max_limit,
                ));
            }
        }
    }
    if let (Some(default), Some(r)) = (response_format, &t.response_format) {
        let detailed = detailed_only_paths(&output);
        params.push(implied::response_format_param(
            fr.span(r.pos),
            default,
            &detailed,
        ));
    }
    if let Some(p) = &projection {
        let of = match p.path.last() {
            None => "the result".to_string(),
            Some(list) => format!("each item of {list}"),
        };
        params.push(implied::projection_param(p.span, p, &of));
    }
    if let Some(i) = &idempotency {
        params.push(implied::idempotency_key_param(
            i.span,
            i.ttl,
            i.key_optional.is_none(),
            effect,
        ));
    }
    if let Some(p) = &preview {
        params.push(implied::preview_id_param(p.span, p.ttl));
    }
    if let Some(p) = paging.as_ref().filter(|p| p.total) {
        let mut total = implied::total_output(p.span);
        // Only a result of the list's variant is a page.
        total.required = !p.in_variant;
        output.push(total);
    }
    if paging.as_ref().is_some_and(|p| p.pages.is_some()) {
        reserved(fr, &output, &["next_page"], "output field");
    }
    if let Some(p) = &paging {
        output.push(match &p.pages {
            None => implied::next_cursor_output(p.span),
            Some(n) => implied::next_page_output(p.span, &n.page),
        });
    }
    if let Some(i) = &idempotency {
        output.push(implied::replayed_output(i.span));
    }
    if let Some(p) = &preview {
        output.push(implied::applied_output(p.span));
        output.push(implied::preview_output(p.span, p.ttl, &p.fields));
    }
    // Only a result with a list or a text can be cut to the budget, so only such a tool's
    // output declares `truncated`.
    let cuts_text = output
        .iter()
        .any(|f| f.ty.kind == Kind::Content(Content::Text));
    if cuts_text || output.iter().any(|f| holds_list(&f.ty)) {
        output.push(implied::truncated_output(name.span, cuts_text));
    }

    content_only_on_top(fr, &params, &output);
    let requires = fr.requirements(t.requires.as_deref(), &params);
    let errors: Vec<Text> = t.errors.iter().flatten().map(|e| text(file, e)).collect();
    for e in &errors {
        if !catalog.iter().any(|c| c.code == e.text) {
            unknown_code(fr, e, catalog);
        }
    }
    let examples: Vec<Example> = t
        .examples
        .iter()
        .flatten()
        .map(|e| {
            let previewed = t.preview.is_some() && t.low_risk.is_none();
            resolve_example(
                fr,
                e,
                (&params, &requires, previewed),
                &output,
                &errors,
                catalog,
            )
        })
        .collect();
    examples_follow_selections(fr, &examples, &selections, &params);
    let undo = t.undo.as_ref().map(|u| Undo {
        tool: text(file, &u.tool),
        arguments: u
            .arguments
            .iter()
            .map(|(k, v)| (text(file, k), text(file, v)))
            .collect(),
        span: fr.span(u.pos),
    });
    Tool {
        name,
        title: text(file, &t.title),
        summary: text(file, &t.summary),
        returns: text(file, &t.returns),
        use_when: t.use_when.as_ref().map(|s| text(file, s)),
        not_for: t
            .not_for
            .iter()
            .flatten()
            .map(|n| NotFor {
                when: text(file, &n.when),
                use_tool: text(file, &n.use_tool),
            })
            .collect(),
        tier,
        tier_span: fr.span(t.tier.pos),
        open_world: t.open_world.as_ref().is_some_and(|o| o.value),
        // Filled in by the toolset, which knows the defaults by tier (`scopes::of_tool`).
        scopes: Vec::new(),
        scopes_span: None,
        // Filled in by the toolset, which knows its shared limit (`limits::of_tools`).
        rate_limit: None,
        // Filled in by the toolset, with the rate limit (`limits::time_limit`).
        time: None,
        effect,
        effect_span,
        output_schema: t
            .output_schema
            .as_ref()
            .map_or(defaults.output_schema, |o| o.value),
        params,
        output,
        requires,
        selections,
        errors,
        paging,
        response_format,
        projection,
        idempotency,
        preview,
        undo,
        low_risk: t.low_risk.as_ref().map(|r| text(file, r)),
        aliases: t
            .deprecated_aliases
            .iter()
            .flatten()
            .map(|a| text(file, a))
            .collect(),
        examples,
        requests: t.requests.iter().flatten().map(|r| text(file, r)).collect(),
        token_budget: t
            .token_budget
            .as_ref()
            .map_or(defaults.token_budget, |b| b.value),
        lint_allow: t
            .lint
            .iter()
            .flat_map(|l| &l.allow)
            .map(|a| (text(file, &a.rule), text(file, &a.reason)))
            .collect(),
        // Filled in by the toolset, which knows whether it forwards (`upstream::http`).
        http: None,
        // Filled in by the toolset, which knows every tool's name (`groups::assign`).
        group: None,
    }
}

/// Dotted paths of the fields only detailed responses carry (`tickets.customer_email`).
pub fn detailed_only_paths(fields: &[Field]) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(fields: &[Field], prefix: &str, out: &mut Vec<String>) {
        for f in fields {
            let path = if prefix.is_empty() {
                f.name.clone()
            } else {
                format!("{prefix}.{}", f.name)
            };
            if f.detailed_only {
                out.push(path);
                continue;
            }
            let mut ty = &f.ty;
            while let Kind::Array { items, .. } = &ty.kind {
                ty = items;
            }
            if let Kind::Object { fields, .. } = &ty.kind {
                walk(fields, &path, out);
            }
        }
    }
    walk(fields, "", &mut out);
    out
}

fn check_tool_name(fr: &mut FieldResolver, name: &Sp<String>, what: &str) {
    if !is_portable_tool_name(&name.value) {
        fr.diags.push(
            Diagnostic::error("invalid-name", fr.span(name.pos), format!("{what} `{}` is not a name every provider accepts", name.value))
                .label("must match ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$")
                .help("use letters, digits, `_` and `-`, start with a letter, at most 64 characters (`tickets_search`, `list-events`): what MCP, OpenAI, Anthropic and Gemini all take"),
        );
    }
}

/// Why `paging.items` names no list, at its place, with what is there instead.
fn no_list(fr: &mut FieldResolver, p: &raw::Paging, problem: ListProblem) {
    let at = fr.span(p.items.pos);
    let items = &p.items.value;
    let d = match problem {
        ListProblem::NotAList { name, json_type } => Diagnostic::error(
            "paging-without-list",
            at,
            format!("paging items `{items}` is {json_type}, not a list"),
        )
        .label("pages are cut from a list")
        .help(format!(
            "make `{name}` an array, or point `items` at the output's array field"
        )),
        ListProblem::NoField { name, lists } => {
            let help = if lists.is_empty() {
                "add an array field to `output` for the items, or remove `paging`; a list inside an object is named by its path (`result.reviews`)".to_string()
            } else {
                format!("use one of the lists there: {}", lists.join(", "))
            };
            let what = if segments_of(items) > 1 {
                format!("paging items `{items}` has no field `{name}`")
            } else {
                format!("paging items `{items}` is not an output field")
            };
            Diagnostic::error("paging-without-list", at, what)
                .label("no such output field")
                .help(help)
        }
        ListProblem::NotAnObject { name, json_type } => Diagnostic::error(
            "paging-without-list",
            at,
            format!("paging items `{items}` goes inside `{name}`, which is {json_type}"),
        )
        .label("only objects and tagged unions have fields")
        .help("name the list by the fields that lead to it (`result.reviews`)"),
        ListProblem::NoVariant { union, variants } => Diagnostic::error(
            "paging-without-list",
            at,
            format!("paging items `{items}` must name a variant of the union `{union}`, then the list in it"),
        )
        .label("which variant holds the list?")
        .help(format!(
            "write `{union}.<variant>.<list>`, the variant one of {}, or `{union}.*.<list>` for the list of every variant that has one",
            variants.join(", ")
        )),
        ListProblem::NoVariantHolds { union, name } => Diagnostic::error(
            "paging-without-list",
            at,
            format!("paging items `{items}`: no variant of the union `{union}` has a field `{name}`"),
        )
        .label("`*` stands for the variants that hold the list")
        .help(format!(
            "give the variants that are pages a list field `{name}`, or name one variant instead of `*`"
        )),
        ListProblem::Untagged { union } => Diagnostic::error(
            "paging-without-list",
            at,
            format!("paging items `{items}` goes inside `{union}`, an untagged union"),
        )
        .label("a result cannot say which variant it is")
        .help(format!("give `{union}` a `tag`, so each result names its variant")),
    };
    fr.diags.push(d);
}

/// A list paged in one named variant (`result.get_reviews.reviews`) is found in a result by
/// its keys (`result/reviews`), whichever variant the result is: another variant with a
/// field of that name would have it cut to a page too. Refused, with the two ways out.
fn same_list_in_other_variants(fr: &mut FieldResolver, paging: &Paging, output: &[Field]) {
    let segments: Vec<&str> = paging.items.text.split('.').collect();
    let Some(i) = segments
        .iter()
        .zip(
            paging
                .path
                .iter()
                .map(String::as_str)
                .chain(std::iter::repeat("")),
        )
        .position(|(seg, key)| *seg != key)
        .filter(|_| paging.in_variant)
    else {
        return;
    };
    if segments[i] == "*" {
        return;
    }
    let mut every = paging.clone();
    let mut wild = segments.clone();
    wild[i] = "*";
    every.items.text = wild.join(".");
    let others: Vec<String> = every
        .variants(output)
        .into_iter()
        .filter(|v| v != segments[i])
        .collect();
    if others.is_empty() {
        return;
    }
    let list = segments.last().copied().unwrap_or_default();
    fr.diags.push(
        Diagnostic::error(
            "paging-without-list",
            paging.items.span,
            format!(
                "paging items `{}` names the `{}` variant's `{list}`, but {} also has a field `{list}`",
                paging.items.text,
                segments[i],
                ticked(&others.iter().map(String::as_str).collect::<Vec<_>>())
            ),
        )
        .label("a result is paged by its keys, whichever variant it is")
        .help(format!(
            "page every variant's `{list}` with `{}`, or rename the other field",
            every.items.text
        )),
    );
}

fn segments_of(items: &str) -> usize {
    items.split('.').count()
}

/// The parameter names of `style: pages`, checked: page numbers take no `keyset` (a page
/// number is an offset), names are set only with `style: pages`, are portable and are
/// not a parameter the tool declares itself. A spec with `next_page` among its own outputs
/// cannot page by number either: the result's `next_page` is the runtime's.
fn page_numbers(fr: &mut FieldResolver, p: &raw::Paging, params: &[Field]) -> Option<PageNumbers> {
    let pages = p
        .style
        .as_ref()
        .filter(|s| s.value == raw::PagingStyle::Pages);
    let Some(style) = pages else {
        for named in [&p.page_param, &p.size_param].into_iter().flatten() {
            fr.diags.push(
                Diagnostic::error(
                    "paging-style",
                    fr.span(named.pos),
                    "parameter names are set only for page numbers",
                )
                .label("cursor paging takes `limit` and `cursor`")
                .help("add `style: pages` to page by number, or remove the name"),
            );
        }
        return None;
    };
    if let Some(k) = &p.keyset {
        let at = k.first().map_or(style.pos, |k| k.pos);
        fr.diags.push(
            Diagnostic::error(
                "paging-style",
                fr.span(at),
                "page numbers cannot page by a keyset",
            )
            .label("a page number is an offset")
            .help("remove `keyset`, or page by cursor (remove `style: pages`) to keep it"),
        );
    }
    let name = |v: &Option<Sp<String>>, default: &str| {
        v.as_ref().map_or((default.to_string(), style.pos), |n| {
            (n.value.clone(), n.pos)
        })
    };
    let (page, page_at) = name(&p.page_param, "page");
    let (size, size_at) = name(&p.size_param, "per_page");
    for (n, at) in [(&page, page_at), (&size, size_at)] {
        if !is_portable_param_name(n) {
            fr.diags.push(
                Diagnostic::error(
                    "invalid-name",
                    fr.span(at),
                    format!("parameter `{n}` is not portable to Anthropic"),
                )
                .label("must match ^[a-zA-Z0-9_-]{1,64}$")
                .help("use letters, digits, `_` and `-` (`page`, `perPage`)"),
            );
        } else if let Some(f) = params.iter().find(|f| f.name == *n) {
            fr.diags.push(
                Diagnostic::error(
                    "reserved-name",
                    f.span,
                    format!("`{n}` is the page-number paging's own parameter"),
                )
                .label("toolspec adds this itself")
                .help(format!(
                    "remove `{n}` from `params`: `paging` adds it with its bounds and default"
                )),
            );
        }
    }
    if page == size {
        fr.diags.push(
            Diagnostic::error(
                "paging-style",
                fr.span(size_at),
                format!("`{size}` names both the page and its size"),
            )
            .label("same name twice")
            .help("give the page number and the page size different names (`page`, `perPage`)"),
        );
    }
    Some(PageNumbers { page, size })
}

/// Parameter names, nested ones included, that a provider refuses as property keys: any
/// wire name is a usable output field, but Anthropic takes input schema keys only of
/// letters, digits, `_` and `-`. Each field is reported once, however many parameters share
/// its named type.
fn portable_params(fr: &mut FieldResolver, params: &[Field]) {
    fn walk<'f>(fields: &'f [Field], out: &mut Vec<&'f Field>) {
        for f in fields {
            if !is_portable_param_name(&f.name)
                && wire_name_problem(&f.name).is_none()
                && !out.iter().any(|o| o.span == f.span)
            {
                out.push(f);
            }
            walk_type(&f.ty, out);
        }
    }
    fn walk_type<'f>(ty: &'f Type, out: &mut Vec<&'f Field>) {
        match &ty.kind {
            Kind::Object { fields, .. } => walk(fields, out),
            Kind::Array { items, .. } => walk_type(items, out),
            Kind::Map { values, .. } => walk_type(values, out),
            Kind::Union { variants, .. } => {
                for v in variants {
                    walk_type(&v.ty, out);
                }
            }
            _ => {}
        }
    }
    let mut bad = Vec::new();
    walk(params, &mut bad);
    for f in bad {
        fr.diags.push(
            Diagnostic::error(
                "invalid-name",
                f.span,
                format!("parameter `{}` is not portable to Anthropic", f.name),
            )
            .label("must match ^[a-zA-Z0-9_-]{1,64}$")
            .help("Anthropic refuses input schema keys outside letters, digits, `_` and `-`; such names are fine for output fields, not for parameters"),
        );
    }
}

fn reserved(fr: &mut FieldResolver, fields: &[Field], names: &[&str], what: &str) {
    for f in fields {
        if names.contains(&f.name.as_str()) {
            fr.diags.push(
                Diagnostic::error("reserved-name", f.span, format!("`{}` is a reserved {what} name", f.name))
                    .label("toolspec adds this itself")
                    .help(format!(
                        "rename it; `{}` comes from the tool's paging, response_format, idempotency, preview or undo settings",
                        f.name
                    )),
            );
        }
    }
}

/// `low_risk` only on an irreversible tool without a preview, and with its reason.
fn check_low_risk(fr: &mut FieldResolver, t: &raw::Tool, tier: Tier) {
    if let Some(r) = &t.low_risk {
        let at = fr.span(r.pos);
        let problem = match tier {
            Tier::Irreversible if t.preview.is_some() => Some((
                "a low-risk tool is served without a preview, and this one has `preview`",
                "remove `preview` to serve it in one call, or remove `low_risk` to keep the preview",
            )),
            Tier::Irreversible => None,
            Tier::Reversible => Some((
                "`low_risk` is for irreversible tools; a reversible one is already served in one call",
                "remove `low_risk`",
            )),
            Tier::ReadOnly => Some((
                "`low_risk` is for irreversible tools; a read changes nothing",
                "remove `low_risk`",
            )),
        };
        if let Some((message, help)) = problem {
            fr.diags.push(
                Diagnostic::error("not-applicable", at, message)
                    .label("low_risk here")
                    .help(help),
            );
        }
        if r.value.trim().is_empty() {
            fr.diags.push(
                Diagnostic::error("missing-reason", at, "`low_risk` needs its reason")
                    .label("empty reason")
                    .help("say in a sentence why no one needs to approve the change first (it only adds, the person sees it at once)"),
            );
        }
    }
}

fn check_tier(fr: &mut FieldResolver, t: &raw::Tool, tier: Tier) {
    check_low_risk(fr, t, tier);
    let name = &t.name.value;
    let tier_span = fr.span(t.tier.pos);
    let mut need = |present: bool, code: &str, msg: String, help: &str| {
        if !present {
            fr.diags.push(
                Diagnostic::error(code, tier_span, msg)
                    .label(format!("tier `{}`", tier.as_str()))
                    .help(help.to_string()),
            );
        }
    };
    match tier {
        Tier::ReadOnly => {}
        Tier::Reversible | Tier::Irreversible => need(
            t.idempotency.is_some(),
            "write-without-idempotency",
            format!("`{name}` changes state but takes no idempotency key"),
            "add `idempotency: {}` (agents and hosts retry; a key makes a retry return the first result instead of acting twice)",
        ),
    }
    match tier {
        Tier::Irreversible => need(
            t.preview.is_some() || t.low_risk.is_some(),
            "irreversible-without-preview",
            format!("irreversible `{name}` has no preview"),
            "add `preview: {}` so the change is shown and confirmed before it is applied, or, for a change no one needs to approve first, `low_risk: <why>`",
        ),
        Tier::Reversible => need(
            t.undo.is_some(),
            "reversible-without-undo",
            format!("reversible `{name}` has no undo call"),
            "add `undo: {tool: ..., arguments: {...}}`, or make the tier `irreversible` if it cannot be undone",
        ),
        Tier::ReadOnly => {}
    }
    let misplaced: [(&str, Option<Pos>, bool); 4] = [
        (
            "idempotency",
            t.idempotency.as_ref().map(|x| x.pos),
            tier == Tier::ReadOnly,
        ),
        (
            "preview",
            t.preview.as_ref().map(|x| x.pos),
            tier == Tier::ReadOnly,
        ),
        (
            "undo",
            t.undo.as_ref().map(|x| x.pos),
            tier != Tier::Reversible,
        ),
        (
            "effect",
            t.effect.as_ref().map(|x| x.pos),
            tier == Tier::ReadOnly,
        ),
    ];
    for (key, pos, wrong) in misplaced {
        if let (Some(pos), true) = (pos, wrong) {
            let fits = match key {
                "idempotency" => "reversible and irreversible tools",
                "preview" => "irreversible and reversible tools",
                "effect" => "reversible and irreversible tools",
                _ => "reversible tools",
            };
            fr.diags.push(
                Diagnostic::error(
                    "not-applicable",
                    fr.span(pos),
                    format!("`{key}` does not apply to a `{}` tool", tier.as_str()),
                )
                .label(format!("only for {fits}"))
                .help(format!("remove `{key}`, or change the tier")),
            );
        }
    }
}

fn unknown_code(fr: &mut FieldResolver, e: &Text, catalog: &[ErrorCode]) {
    let mut d = Diagnostic::error(
        "unknown-error-code",
        e.span,
        format!("unknown error code `{}`", e.text),
    )
    .label("not in the catalog");
    d = match did_you_mean(&e.text, catalog.iter().map(|c| c.code.as_str())) {
        Some(s) => d.help(format!("did you mean `{s}`?")),
        None => d.help(format!(
            "declare `{}` under `errors:` with its message and retryable flag",
            e.text
        )),
    };
    fr.diags.push(d);
}

fn resolve_example(
    fr: &mut FieldResolver,
    e: &raw::Example,
    (params, requires, previewed): (&[Field], &[Requirement], bool),
    output: &[Field],
    listed: &[Text],
    catalog: &[ErrorCode],
) -> Example {
    let file = fr.span(Pos::default()).file;
    let problems = check_arguments(&e.arguments.value, params, requires);
    let error = e.error.as_ref().map(|c| text(file, c));
    match &error {
        None => {
            for (path, problem) in &problems {
                let at = if path.is_empty() {
                    String::new()
                } else {
                    format!(" at {path}")
                };
                fr.diags.push(
                    Diagnostic::error("invalid-example", fr.span(e.arguments.pos), format!("example `{}` would be refused{at}: {problem}", e.title.value))
                        .label("these arguments break the tool's own schema")
                        .help("fix the arguments, or add `error:` with the code the call is expected to fail with"),
                );
            }
            if let Some(r) = &e.result {
                check_result(fr, &e.title.value, r, output);
            }
        }
        Some(code) => {
            let builtin = toolspec_runtime::catalog::find(&code.text).is_some();
            if !builtin && !listed.iter().any(|l| l.text == code.text) {
                if catalog.iter().any(|c| c.code == code.text) {
                    fr.diags.push(
                        Diagnostic::error(
                            "unlisted-error-code",
                            code.span,
                            format!(
                                "example expects `{}`, which the tool does not list in `errors`",
                                code.text
                            ),
                        )
                        .label("not one of this tool's errors")
                        .help(format!("add `{}` to the tool's `errors:`", code.text)),
                    );
                } else {
                    unknown_code(fr, code, catalog);
                }
            }
            if toolspec_runtime::catalog::is_validation(&code.text) && problems.is_empty() {
                fr.diags.push(
                    Diagnostic::error(
                        "example-does-not-fail",
                        code.span,
                        format!(
                            "example `{}` expects `{}` but its arguments are valid",
                            e.title.value, code.text
                        ),
                    )
                    .label("these arguments pass validation")
                    .help(
                        "make the arguments break the rule the example shows, or expect a success",
                    ),
                );
            }
            if let Some(r) = &e.result {
                fr.diags.push(
                    Diagnostic::error(
                        "example-outcome",
                        fr.span(r.pos),
                        format!("example `{}` has both `result` and `error`", e.title.value),
                    )
                    .label("a call either succeeds or fails")
                    .help("keep `result` for a success or `error` for a failure"),
                );
            }
        }
    }
    if let Some(p) = &e.preview {
        let why = if !previewed {
            Some("the tool has no `preview`, so no call of it answers with one")
        } else if error.is_some() {
            Some("a refused call is answered with its error, not with a preview")
        } else if !p.value.is_object() {
            Some("a preview is an object: the preview's fields and their values")
        } else {
            None
        };
        if let Some(why) = why {
            fr.diags.push(
                Diagnostic::error(
                    "example-preview",
                    fr.span(p.pos),
                    format!("example `{}` cannot show this `preview`", e.title.value),
                )
                .label(why)
                .help("remove `preview`, or give it to a successful example of a previewed tool"),
            );
        }
    }
    Example {
        title: text(file, &e.title),
        arguments: e.arguments.value.clone(),
        result: e.result.as_ref().map(|r| r.value.clone()),
        preview: e.preview.as_ref().map(|r| r.value.clone()),
        error,
        span: fr.span(e.title.pos),
    }
}

/// Content types (`image`, `audio`, `text`, `resource_link`) become blocks of a result of
/// their own, so they exist only as the tool's top-level output fields.
fn content_only_on_top(fr: &mut FieldResolver<'_>, params: &[Field], output: &[Field]) {
    /// The first content type in `ty` or nested in it.
    fn content(ty: &Type) -> Option<Content> {
        match ty.kind {
            Kind::Content(c) => Some(c),
            _ => ty.children().into_iter().find_map(content),
        }
    }
    let mut misplaced: Vec<(&Field, Content, &str)> = Vec::new();
    for f in params {
        if let Some(c) = content(&f.ty) {
            misplaced.push((f, c, "a parameter"));
        }
    }
    for f in output {
        if let Some(c) = f.ty.children().into_iter().find_map(content) {
            misplaced.push((f, c, "inside an output field"));
        }
    }
    for (f, c, place) in misplaced {
        fr.diags.push(
            Diagnostic::error(
                "content-not-on-top",
                f.span,
                format!(
                    "`{}` holds {} `{}`, which cannot be {place}",
                    f.name,
                    if c == Content::Image || c == Content::Audio { "an" } else { "a" },
                    c.as_str()
                ),
            )
            .label("content goes in a block of the result")
            .help("make it a top-level output field of its own; clients show each as an image, audio, text or link block"),
        );
    }
}

/// Whether a value of `ty` can hold a list the budget may cut: a list, or an object, map or
/// union that holds one, or free-form JSON (which may).
fn holds_list(ty: &Type) -> bool {
    ty.any(&|t| match &t.kind {
        Kind::Array { .. } => true,
        Kind::Object { fields, open, .. } => *open && fields.is_empty(),
        _ => false,
    })
}

/// `keyset` names top-level scalar fields of the paged items that every item has: each
/// item's sort key is read from them to make the next cursor.
fn check_keyset(fr: &mut FieldResolver, p: &raw::Paging, list: Option<&Field>, keyset: &[Text]) {
    if p.keyset.as_ref().is_some_and(Vec::is_empty) {
        fr.diags.push(
            Diagnostic::error(
                "invalid-keyset",
                fr.span(p.items.pos),
                "`keyset` lists no field",
            )
            .label("paging without a sort key")
            .help("name the item fields that sort the pages (`keyset: [id]`), or remove `keyset` to page by offset"),
        );
        return;
    }
    let item_fields = list.and_then(|f| match &f.ty.kind {
        Kind::Array { items, .. } => match &items.kind {
            Kind::Object { fields, .. } => Some(fields.as_slice()),
            _ => None,
        },
        _ => None,
    });
    let Some(item_fields) = item_fields else {
        if let Some(first) = keyset.first() {
            fr.diags.push(
                Diagnostic::error(
                    "invalid-keyset",
                    first.span,
                    format!(
                        "`keyset` needs the items of `{}` to be objects",
                        p.items.value
                    ),
                )
                .label("no item fields to sort by")
                .help(
                    "make the items objects with an id field, or remove `keyset` to page by offset",
                ),
            );
        }
        return;
    };
    let mut seen = std::collections::BTreeSet::new();
    for k in keyset {
        if !seen.insert(k.text.as_str()) {
            fr.diags.push(
                Diagnostic::error(
                    "invalid-keyset",
                    k.span,
                    format!("`{}` is listed twice", k.text),
                )
                .label("listed before")
                .help("name each sort key field once"),
            );
            continue;
        }
        let problem = match item_fields.iter().find(|f| f.name == k.text) {
            None => Some(format!(
                "no item field `{}`; the items have: {}",
                k.text,
                item_fields
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Some(f) if !f.required || f.nullable || f.detailed_only => Some(format!(
                "`{}` is not in every item (optional, nullable or detailed-only)",
                k.text
            )),
            Some(f)
                if !matches!(
                    f.ty.kind,
                    Kind::String(_) | Kind::Integer { .. } | Kind::Number { .. }
                ) =>
            {
                Some(format!(
                    "`{}` is {}, not a string or a number",
                    k.text,
                    f.ty.json_type()
                ))
            }
            Some(_) => None,
        };
        if let Some(message) = problem {
            fr.diags.push(
                Diagnostic::error("invalid-keyset", k.span, message)
                    .label("not a sort key field")
                    .help("name required string or number fields of the items that sort them, like their id"),
            );
        }
    }
}

/// The output unions whose variant follows a parameter (`selected_by`): the parameter is a
/// required (or defaulted) enum of the tool, the union is tagged, and its variants are the
/// enum's values, each once. A selection written wrong is reported and left out.
fn selections(
    fr: &mut FieldResolver,
    raw_output: &crate::spec::spanned::SpMap<raw::Field>,
    params: &[Field],
    output: &[Field],
) -> Vec<Selection> {
    let mut out = Vec::new();
    for (name, f) in raw_output.iter() {
        let Some(by) = &f.selected_by else { continue };
        let at = fr.span(by.pos);
        let error = |message: String, label: &str, help: String| {
            Diagnostic::error("invalid-selection", at, message)
                .label(label.to_string())
                .help(help)
        };
        let Some(field) = output.iter().find(|o| o.name == name.value) else {
            continue;
        };
        let (variants, tag) = match &field.ty.kind {
            Kind::Union {
                variants,
                tag: Some(tag),
            } => (variants, tag),
            _ => {
                fr.diags.push(error(
                    format!(
                        "`{}` is not a tagged union, so no parameter can select its variant",
                        name.value
                    ),
                    "not a union with `tag`",
                    format!(
                        "make `{}` a `type: union` with a `tag` and one variant per value of `{}`",
                        name.value, by.value
                    ),
                ));
                continue;
            }
        };
        let Some(param) = params
            .iter()
            .find(|p| p.name == by.value && p.origin == Origin::Spec)
        else {
            let known = params
                .iter()
                .filter(|p| p.origin == Origin::Spec)
                .map(|p| p.name.as_str());
            let help = match did_you_mean(&by.value, known) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "name an enum parameter of this tool".to_string(),
            };
            fr.diags.push(
                Diagnostic::error(
                    "unknown-parameter",
                    at,
                    format!("`{}` is not a parameter of this tool", by.value),
                )
                .label("no such parameter")
                .help(help),
            );
            continue;
        };
        if let Kind::Integer {
            enum_values: Some(_),
            ..
        } = &param.ty.kind
        {
            fr.diags.push(error(
                format!(
                    "`{}` is an integer enum, and a variant is named by a string",
                    by.value
                ),
                "a union follows a string enum parameter",
                format!(
                    "make `{}` a string enum whose values are the variants' names",
                    by.value
                ),
            ));
            continue;
        }
        let Kind::String(crate::model::StringRules {
            enum_values: Some(values),
            ..
        }) = &param.ty.kind
        else {
            fr.diags.push(error(
                format!(
                    "`{}` is not an enum, so its value cannot name a variant",
                    by.value
                ),
                "a union follows an enum parameter",
                format!(
                    "give `{}` an `enum` whose values are the variants' names",
                    by.value
                ),
            ));
            continue;
        };
        if !param.required && param.default.is_none() {
            fr.diags.push(error(
                format!(
                    "`{}` may be left out with no default, and then no variant is chosen",
                    by.value
                ),
                "optional without a default",
                format!("make `{}` required, or give it a `default`", by.value),
            ));
            continue;
        }
        let missing: Vec<&str> = values
            .iter()
            .filter(|v| !variants.iter().any(|x| &x.name == *v))
            .map(String::as_str)
            .collect();
        let extra: Vec<&str> = variants
            .iter()
            .filter(|x| !values.contains(&x.name))
            .map(|x| x.name.as_str())
            .collect();
        if !missing.is_empty() || !extra.is_empty() {
            let mut parts = Vec::new();
            if !missing.is_empty() {
                parts.push(format!("no variant for {}", ticked(&missing)));
            }
            if !extra.is_empty() {
                parts.push(format!(
                    "variants {} that `{}` never holds",
                    ticked(&extra),
                    by.value
                ));
            }
            fr.diags.push(error(
                format!(
                    "`{}`'s variants are not the values of `{}`: {}",
                    name.value,
                    by.value,
                    parts.join("; ")
                ),
                "one variant per value",
                format!(
                    "name one variant after each value of `{}` ({}), and no other",
                    by.value,
                    ticked(&values.iter().map(String::as_str).collect::<Vec<_>>())
                ),
            ));
            continue;
        }
        out.push(Selection {
            field: name.value.clone(),
            tag: tag.clone(),
            param: Text {
                text: by.value.clone(),
                span: at,
            },
        });
    }
    out
}

/// `` `a`, `b` ``.
fn ticked(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An example's result holds the variant its arguments select: the server would answer any
/// other as an internal error, so the spec would show a result that cannot happen.
fn examples_follow_selections(
    fr: &mut FieldResolver,
    examples: &[Example],
    selections: &[Selection],
    params: &[Field],
) {
    for e in examples {
        let Some(result) = &e.result else { continue };
        for s in selections {
            let want = e.arguments.get(&s.param.text).cloned().or_else(|| {
                params
                    .iter()
                    .find(|p| p.name == s.param.text)
                    .and_then(|p| p.default.clone())
            });
            let got = result.get(&s.field).and_then(|u| u.get(&s.tag));
            if let (Some(got), Some(want)) = (got, &want)
                && got != want
            {
                fr.diags.push(
                    Diagnostic::error(
                        "invalid-example-result",
                        e.span,
                        format!(
                            "this result's `{}` is the {} variant, but the call's `{}` selects {}",
                            s.field, got, s.param.text, want
                        ),
                    )
                    .label("a result this call cannot get")
                    .help(format!(
                        "give the result `{}: {{ {}: {} }}`, or change the call's `{}`",
                        s.field, s.tag, want, s.param.text
                    )),
                );
            }
        }
    }
}
