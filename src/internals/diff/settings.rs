//! Comparing a tool's settings (paging, response format, idempotency, preview, token budget)
//! and a toolset's error catalog.

use super::{Changes, Party, Side, fields};
use crate::model::{ErrorCode, Requirement, Tool, ToolSet, Verbosity, describe, format_duration};

/// Rules over which parameters go together: a new rule refuses calls that worked
/// (tightening), a removed one accepts calls that were refused.
fn compare_requires(o: &Tool, n: &Tool, out: &mut Changes) {
    let name = n.name.text.as_str();
    let same = |a: &Requirement, b: &Requirement| {
        let names =
            |r: &Requirement| -> Vec<String> { r.names().iter().map(|t| t.text.clone()).collect() };
        std::mem::discriminant(a) == std::mem::discriminant(b) && names(a) == names(b)
    };
    compare_when(o, n, out);
    let plain = |r: &&Requirement| !matches!(r, Requirement::When { .. });
    for r in n.requires.iter().filter(plain) {
        if !o.requires.iter().any(|x| same(x, r)) {
            let at = r.names().first().map_or(n.name.span, |t| t.span);
            out.push(
                "requirement-added",
                Some(Party::Callers),
                Some(name),
                format!("{name}.requires"),
                (Side::New, at),
                format!(
                    "`{name}` has a new rule: {}",
                    describe::requirement_sentence(r)
                ),
                "calls that break it are refused before the tool runs",
            );
        }
    }
    for r in o.requires.iter().filter(plain) {
        if !n.requires.iter().any(|x| same(x, r)) {
            let at = r.names().first().map_or(o.name.span, |t| t.span);
            out.push(
                "requirement-removed",
                None,
                Some(name),
                format!("{name}.requires"),
                (Side::Old, at),
                format!(
                    "`{name}` dropped the rule: {}",
                    describe::requirement_sentence(r)
                ),
                "calls that followed it work as before",
            );
        }
    }
}

/// One parameter's part in the `when` rules of a tool: the enum parameter, the parameter,
/// whether it is needed (else allowed), and for which values.
struct WhenAtom<'a> {
    field: &'a str,
    param: &'a crate::model::Text,
    needed: bool,
    values: Vec<&'a str>,
}

fn when_atoms(t: &Tool) -> Vec<WhenAtom<'_>> {
    let mut out = Vec::new();
    for r in &t.requires {
        if let Requirement::When {
            field,
            values,
            needs,
            allows,
            ..
        } = r
        {
            let values: Vec<&str> = values.iter().map(|v| v.text.as_str()).collect();
            for (list, needed) in [(needs, true), (allows, false)] {
                out.extend(list.iter().map(|p| WhenAtom {
                    field: &field.text,
                    param: p,
                    needed,
                    values: values.clone(),
                }));
            }
        }
    }
    out
}

/// `when` rules, parameter by parameter: needed for more values, or allowed for fewer (a
/// parameter newly limited counts as allowed for none of the values it had), refuses calls
/// that worked; the reverse accepts calls that were refused.
fn compare_when(o: &Tool, n: &Tool, out: &mut Changes) {
    let name = n.name.text.as_str();
    let (old, new) = (when_atoms(o), when_atoms(n));
    let find = |atoms: &'_ [WhenAtom<'_>], a: &WhenAtom<'_>| -> Option<Vec<String>> {
        atoms
            .iter()
            .find(|x| x.field == a.field && x.param.text == a.param.text && x.needed == a.needed)
            .map(|x| x.values.iter().map(|v| v.to_string()).collect())
    };
    for (atoms, others, side) in [(&new, &old, Side::New), (&old, &new, Side::Old)] {
        for a in atoms.iter() {
            let other = find(others, a);
            // The values this side names that the other does not.
            let only_here: Vec<&str> = a
                .values
                .iter()
                .copied()
                .filter(|v| other.as_ref().is_none_or(|b| !b.iter().any(|x| x == v)))
                .collect();
            let (p, f) = (&a.param.text, a.field);
            let list = |vs: &[&str]| vs.join(" or ");
            let change = match (side, a.needed, other.is_some()) {
                // Needed for values it was not.
                (Side::New, true, _) if !only_here.is_empty() => Some((
                    true,
                    format!("{p} is now needed when {f} is {}", list(&only_here)),
                )),
                // Newly limited to some values.
                (Side::New, false, false) => Some((
                    true,
                    format!("{p} is now taken only when {f} is {}", list(&a.values)),
                )),
                // Allowed for more values.
                (Side::New, false, true) if !only_here.is_empty() => Some((
                    false,
                    format!("{p} is now taken also when {f} is {}", list(&only_here)),
                )),
                // Needed for fewer values.
                (Side::Old, true, _) if !only_here.is_empty() => Some((
                    false,
                    format!("{p} is no longer needed when {f} is {}", list(&only_here)),
                )),
                // No longer limited.
                (Side::Old, false, false) => Some((
                    false,
                    format!("{p} is no longer limited to {f} being {}", list(&a.values)),
                )),
                // Allowed for fewer values.
                (Side::Old, false, true) if !only_here.is_empty() => Some((
                    true,
                    format!("{p} is no longer taken when {f} is {}", list(&only_here)),
                )),
                _ => None,
            };
            let Some((tighter, what)) = change else {
                continue;
            };
            let rule = format!("{name}.requires.{p}");
            if tighter {
                out.push(
                    "requirement-added",
                    Some(Party::Callers),
                    Some(name),
                    rule,
                    (side, a.param.span),
                    format!("`{name}` has a tighter rule: {what}"),
                    "calls that break it are refused before the tool runs",
                );
            } else {
                out.push(
                    "requirement-removed",
                    None,
                    Some(name),
                    rule,
                    (side, a.param.span),
                    format!("`{name}` loosened a rule: {what}"),
                    "calls that followed it work as before",
                );
            }
        }
    }
}

/// Paging, response format, idempotency, preview and token budget.
pub(super) fn compare_settings(o: &Tool, n: &Tool, out: &mut Changes) {
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
            let style = |p: &crate::model::Paging| match &p.pages {
                None => "cursor (limit, cursor, next_cursor)".to_string(),
                Some(n) => format!("page number ({}, {}, next_page)", n.page, n.size),
            };
            if a.pages != b.pages {
                out.push(
                    "paging-style-changed",
                    Some(Party::Callers),
                    Some(name),
                    format!("{name}.paging.style"),
                    (Side::New, b.span),
                    format!("`{name}` now pages by {} (was {})", style(b), style(a)),
                    "calls that pass the old paging parameters are refused with unknown_argument, and readers of the old next page field find none",
                );
            }
            if a.path != b.path {
                out.push(
                    "paging-items-moved",
                    Some(Party::Consumers),
                    Some(name),
                    format!("{name}.paging.items"),
                    (Side::New, b.span),
                    format!(
                        "`{name}` pages `{}` (was `{}`)",
                        b.items.text, a.items.text
                    ),
                    "the other list is no longer cut to pages: readers that walked it get it whole, and the new one a page at a time",
                );
            }
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
            let hides = d == Verbosity::Concise && fields::has_detailed_only(&n.output);
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
            (b == Verbosity::Concise).then_some(Party::Consumers),
            Some(name),
            format!("{name}.response_format"),
            at_new,
            format!(
                "`{name}` now answers {} by default (was {})",
                b.as_str(),
                a.as_str()
            ),
            if b == Verbosity::Concise {
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
    if let (Some(a), Some(b)) = (&o.paging, &n.paging)
        && a.total != b.total
    {
        let (code, party, what, why) = if a.total {
            (
                "paging-total-removed",
                Some(Party::Consumers),
                format!("pages of `{name}` no longer carry `total`"),
                "readers of `total` find nothing there; next_cursor alone says whether more follow",
            )
        } else {
            (
                "paging-total-added",
                None,
                format!("pages of `{name}` now carry `total`"),
                "readers that do not know it ignore it",
            )
        };
        out.push(
            code,
            party,
            Some(name),
            format!("{name}.paging.total"),
            (Side::New, b.span),
            what,
            why,
        );
    }
    if let (Some(a), Some(b)) = (&o.paging, &n.paging) {
        let key = |p: &crate::model::Paging| -> Vec<String> {
            p.keyset.iter().map(|k| k.text.clone()).collect()
        };
        if key(a) != key(b) {
            let how = |k: &[String]| {
                if k.is_empty() {
                    "by offset".to_string()
                } else {
                    format!("by position ({})", k.join(", "))
                }
            };
            out.push(
                "paging-keyset-changed",
                Some(Party::Callers),
                Some(name),
                format!("{name}.paging.keyset"),
                (Side::New, b.span),
                format!(
                    "pages of `{name}` were cut {}, now {}",
                    how(&key(a)),
                    how(&key(b))
                ),
                "a next_cursor the old server issued is refused (invalid_cursor): an agent in the middle of a walk starts it again",
            );
        }
    }
    compare_requires(o, n, out);
    compare_effect(o, n, out);
    match (&o.low_risk, &n.low_risk) {
        (None, Some(r)) => out.push(
            "low-risk-declared",
            Some(Party::Callers),
            Some(name),
            format!("{name}.low_risk"),
            (Side::New, r.span),
            format!("`{name}` is now served in one call, without a preview"),
            "the first call now makes the change; calls that pass preview_id are refused",
        ),
        (Some(_), None) => out.push(
            "low-risk-withdrawn",
            Some(Party::Callers),
            Some(name),
            format!("{name}.low_risk"),
            at_new,
            format!("`{name}` is no longer low risk"),
            "a call that made the change now only previews it; callers must apply with the preview_id",
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

/// Lowered request limits (`defaults.limits`) refuse requests that used to be served.
pub(super) fn compare_limits(o: &ToolSet, n: &ToolSet, out: &mut Changes) {
    let (od, nd) = (&o.defaults, &n.defaults);
    let at = (Side::New, n.service.span);
    if nd.max_request_bytes < od.max_request_bytes {
        out.push(
            "request-limit-lowered",
            Some(Party::Callers),
            None,
            "defaults.limits.request_bytes".to_owned(),
            at,
            format!(
                "`{}` takes requests of at most {} bytes (was {})",
                n.service.text, nd.max_request_bytes, od.max_request_bytes
            ),
            "calls between the two sizes are now refused before any tool runs",
        );
    }
    if nd.max_depth < od.max_depth {
        out.push(
            "request-limit-lowered",
            Some(Party::Callers),
            None,
            "defaults.limits.depth".to_owned(),
            at,
            format!(
                "`{}` takes requests nested at most {} levels (was {})",
                n.service.text, nd.max_depth, od.max_depth
            ),
            "calls nested between the two depths are now refused before any tool runs",
        );
    }
}

pub(super) fn compare_catalog(o: &ToolSet, n: &ToolSet, out: &mut Changes) {
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

/// A write's `effect` decides what a retry can do: one that protects retries less than
/// before breaks the callers who relied on retrying.
fn compare_effect(o: &Tool, n: &Tool, out: &mut Changes) {
    use crate::model::Effect;
    if o.effect == n.effect || n.tier == crate::model::Tier::ReadOnly {
        return;
    }
    // How safe a retry is: the store and a forwarded key or a look-up never repeat the
    // change; an unprotected remote change may.
    let safe = |e: Effect| e != Effect::RemoteUnprotected;
    let name = &n.name.text;
    let weaker = safe(o.effect) && !safe(n.effect);
    out.push(
        "effect-changed",
        weaker.then_some(Party::Callers),
        Some(name),
        format!("{name}.effect"),
        (Side::New, n.effect_span),
        format!(
            "`{name}`'s effect is now `{}`, was `{}`",
            n.effect.as_str(),
            o.effect.as_str()
        ),
        if weaker {
            "a retry after an error or no answer, which never made the change twice, now may"
        } else {
            "what a retry promises changed; the words of the tool say the new promise"
        },
    );
}
