//! Pagination: every item once, never more than `limit` a page, a `total` that adds up, the
//! published default and maximum `limit`, and cursors that cannot be forged.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::{Ctx, not_applicable};
use crate::facts::PagingFacts;
use crate::failure::{Failure, show};
use crate::session::{Session, describe_error, set, unset};
use crate::values::other_arguments;

fn paging(ctx: &Ctx<'_, '_>) -> Result<PagingFacts, Failure> {
    ctx.tool.paging.ok_or_else(|| not_applicable(ctx, "pages"))
}

/// The example queries to page through: the successful calls, first page.
fn queries(ctx: &Ctx<'_, '_>) -> Vec<Value> {
    ctx.success_calls()
        .into_iter()
        .map(|mut q| {
            unset(&mut q, "cursor");
            if let Some((page, _)) = ctx.tool.paging.and_then(|p| p.pages) {
                unset(&mut q, page);
            }
            q
        })
        .collect()
}

fn items_of<'v>(page: &'v Value, paging: &PagingFacts) -> &'v [Value] {
    toolspec_core::engine::glue::items_at(page, paging.items).map_or(&[], Vec::as_slice)
}

/// The most items a walk of a tool without `total` may return before it counts as endless.
const MAX_WALK: u64 = 100_000;

fn total_of(page: &Value) -> Option<u64> {
    page.get("total").and_then(Value::as_u64)
}

/// How to page right, for the tool's kind of paging.
fn walk_fix(paging: &PagingFacts) -> &'static str {
    if paging.pages.is_some() {
        "return the `window.limit` items that follow the first `window.offset` matches (page \
         `window.page()`), in a stable order, and the number of all matches as the page's total"
    } else if paging.keyset {
        "return the `window.limit` items that sort after `window.after()` (from the first when it \
         is None), in the keyset's order, with the number of all matches as the page's total"
    } else {
        "return the `window.limit` items that follow the first `window.offset` matches, in a \
         stable order, and the number of all matches as the page's total"
    }
}

/// Walks every page of `query` at `limit`; the items in order, and the total.
fn walk(
    ctx: &Ctx<'_, '_>,
    session: &Session<'_>,
    query: &Value,
    limit: u64,
    promise: &str,
) -> Result<(Vec<String>, u64), Failure> {
    let paging = paging(ctx)?;
    let tool = ctx.tool.name;
    let mut args = query.clone();
    set(&mut args, paging.size_param(), json!(limit));
    let mut seen: Vec<String> = Vec::new();
    let mut total = None;
    for page_no in 1.. {
        let page = session.ok(tool, &args, promise)?;
        if page_no == 1 && toolspec_core::engine::glue::items_at(&page, paging.items).is_none() {
            // A result of a tagged union's other variant: this query is not paged.
            return Ok((Vec::new(), 0));
        }
        let items = items_of(&page, &paging);
        let shown_args = args.clone();
        let fail = |got: String, expected: &str| {
            Failure::new(promise)
                .call(tool, &shown_args)
                .got(got)
                .expected(expected)
                .fix(walk_fix(&paging))
        };
        let this_total = match total_of(&page) {
            Some(t) if paging.total => t,
            None if paging.total => {
                return Err(fail(
                    format!("page {page_no} has no total: {}", show(&page)),
                    "a total",
                ));
            }
            Some(t) => {
                return Err(fail(
                    format!("page {page_no} says total {t}, and the tool declares none"),
                    "no total (`paging: {total: false}`)",
                ));
            }
            // Unknown: bounded by what the store holds, so a walk still has to end.
            None => MAX_WALK,
        };
        if paging.total && *total.get_or_insert(this_total) != this_total {
            return Err(fail(
                format!(
                    "page {page_no} says total {this_total}, page 1 said {}",
                    total.unwrap_or(0)
                ),
                "the same total on every page of one query",
            ));
        }
        if items.len() as u64 > limit {
            return Err(fail(
                format!(
                    "page {page_no} holds {} items with limit {limit}",
                    items.len()
                ),
                "at most `limit` items a page",
            ));
        }
        for item in items {
            let text = item.to_string();
            if let Some(first) = seen.iter().position(|s| *s == text) {
                return Err(fail(
                    format!(
                        "page {page_no} repeats an item already seen as item {}: {}",
                        first + 1,
                        show(item)
                    ),
                    "every item on exactly one page",
                ));
            }
            seen.push(text);
        }
        let next = match paging.pages {
            None => page
                .get("next_cursor")
                .and_then(Value::as_str)
                .map(|c| json!(c)),
            Some((param, _)) => match page.get("next_page") {
                None => None,
                Some(n) if n.as_u64() == Some(page_no + 1) => {
                    set(&mut args, param, json!(page_no + 1));
                    Some(json!(page_no + 1))
                }
                Some(n) => {
                    return Err(fail(
                        format!("page {page_no} says next_page {n}"),
                        &format!("next_page {} while more follow", page_no + 1),
                    ));
                }
            },
        };
        match next {
            Some(next) => {
                let cut = page.get("truncated").is_some();
                if items.len() as u64 != limit && !cut {
                    return Err(fail(
                        format!(
                            "page {page_no} holds {} items with limit {limit}, and more pages follow",
                            items.len()
                        ),
                        "full pages of `limit` items until the last one",
                    ));
                }
                if paging.pages.is_none() {
                    set(&mut args, "cursor", next);
                }
            }
            None => break,
        }
        if seen.len() as u64 > this_total.saturating_add(limit) {
            return Err(fail(
                format!(
                    "{} items after {page_no} pages with total {this_total}",
                    seen.len()
                ),
                "paging that ends",
            ));
        }
    }
    if !paging.total {
        return Ok((seen.clone(), seen.len() as u64));
    }
    let total = total.unwrap_or(0);
    if seen.len() as u64 != total {
        return Err(Failure::new(promise)
            .call(tool, &args)
            .got(format!(
                "walking every page at limit {limit} gave {} distinct items, total says {total}",
                seen.len()
            ))
            .expected("as many items as total, each once")
            .fix(walk_fix(&paging)));
    }
    Ok((seen, total))
}

/// How many matches a query may have for the walk at one item a page.
const SINGLE_WALK_MAX: usize = 100;

/// Walking every page of each example query returns every item once, within the limit, as
/// many as `total` says; walking at the maximum limit, and at one item a page, gives the
/// same items.
pub(crate) fn walk_every_item_once(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let paging = paging(ctx)?;
    let tool = ctx.tool.name;
    let promise = format!(
        "walking every page of a {tool} query returns each matching item exactly once, as many as total says"
    );
    let session = ctx.session()?;
    for query in queries(ctx) {
        let limit = query
            .get("limit")
            .and_then(Value::as_u64)
            .unwrap_or(paging.default_limit);
        let (small, _) = walk(ctx, &session, &query, limit, &promise)?;
        let (large, _) = walk(ctx, &session, &query, paging.max_limit, &promise)?;
        let mut sizes = vec![(limit, small)];
        // At one item a page, every boundary between two items is a page boundary: a page
        // that starts one item early or late shows there, even when the fixture's matches
        // fit in one page of the example's limit. Bounded, as it costs a call per item.
        if limit > 1 && large.len() <= SINGLE_WALK_MAX {
            let (single, _) = walk(ctx, &session, &query, 1, &promise)?;
            sizes.push((1, single));
        }
        let b: BTreeSet<&String> = large.iter().collect();
        for (size, items) in &sizes {
            let a: BTreeSet<&String> = items.iter().collect();
            if a != b {
                let missing = a.symmetric_difference(&b).next().map_or("", |s| s.as_str());
                return Err(Failure::new(promise)
                    .call(tool, &query)
                    .got(format!(
                        "pages of {size} and pages of {} hold different items, e.g. {missing}",
                        paging.max_limit
                    ))
                    .expected("the same items whatever the page size")
                    .fix(walk_fix(&paging)));
            }
        }
    }
    Ok(())
}

/// Without `limit`, a page holds the published default number of items (fewer only when
/// fewer match).
pub(crate) fn default_limit(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let paging = paging(ctx)?;
    let tool = ctx.tool.name;
    let promise = format!(
        "without limit, a page of {tool} holds {} items (the default its description states) when as many match",
        paging.default_limit
    );
    let session = ctx.session()?;
    for mut query in queries(ctx) {
        unset(&mut query, paging.size_param());
        page_size(
            &session,
            tool,
            &query,
            &paging,
            paging.default_limit,
            &promise,
        )?;
    }
    Ok(())
}

/// `limit` = the published maximum is served in full; one more is refused with
/// `out_of_range` naming the maximum.
pub(crate) fn max_limit(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    let paging = paging(ctx)?;
    let tool = ctx.tool.name;
    let max = paging.max_limit;
    let promise = format!(
        "{tool} serves limit up to {max} (the maximum its description states) and refuses {}",
        max + 1
    );
    let session = ctx.session()?;
    for mut query in queries(ctx) {
        set(&mut query, paging.size_param(), json!(max));
        page_size(&session, tool, &query, &paging, max, &promise)?;
        set(&mut query, paging.size_param(), json!(max + 1));
        let e = session.refused(tool, &query, "out_of_range", &promise)?;
        if e.details.get("maximum").and_then(Value::as_u64) != Some(max) {
            return Err(Failure::new(promise)
                .call(tool, &query)
                .got(describe_error(&e))
                .expected(format!("details.maximum {max}")));
        }
    }
    Ok(())
}

/// The first page of `query` holds `min(expected, total)` items.
fn page_size(
    session: &Session<'_>,
    tool: &str,
    query: &Value,
    paging: &PagingFacts,
    expected: u64,
    promise: &str,
) -> Result<(), Failure> {
    let page = session.ok(tool, query, promise)?;
    let n = items_of(&page, paging).len() as u64;
    let total = total_of(&page).unwrap_or(n);
    let want = expected.min(total);
    if n == want || page.get("truncated").is_some() {
        return Ok(());
    }
    Err(Failure::new(promise)
        .call(tool, query)
        .got(format!("{n} items, total {total}"))
        .expected(format!("{want} items"))
        .fix(
            "take `window.limit` items (the runtime passes the call's limit or the spec's default)",
        ))
}

/// A tampered cursor, a cursor of another query and a made-up one are refused with
/// `invalid_cursor`.
pub(crate) fn forged_cursor_refused(ctx: &Ctx<'_, '_>) -> Result<(), Failure> {
    if let Some((page, _)) = paging(ctx)?.pages {
        return page_zero_refused(ctx, page);
    }
    let tool = ctx.tool;
    let promise = format!(
        "{} refuses a cursor it did not issue for the same query (invalid_cursor)",
        tool.name
    );
    let session = ctx.session()?;
    let mut query = queries(ctx)
        .into_iter()
        .next()
        .unwrap_or_else(|| ctx.base_call());
    set(&mut query, "limit", json!(1));
    let page = session.ok(tool.name, &query, &promise)?;
    let mut forged = vec!["c1.not-a-real-cursor".to_owned()];
    let real = page.get("next_cursor").and_then(Value::as_str);
    if let Some(real) = real {
        // Flip one character in the middle (the MAC covers every byte).
        let mut chars: Vec<char> = real.chars().collect();
        let mid = chars.len() / 2;
        if let Some(c) = chars.get_mut(mid) {
            *c = if *c == 'A' { 'B' } else { 'A' };
        }
        forged.push(chars.into_iter().collect());
    }
    for cursor in forged {
        let mut args = query.clone();
        set(&mut args, "cursor", json!(cursor));
        session.refused(tool.name, &args, "invalid_cursor", &promise)?;
    }
    if let Some(real) = real
        && let Some(mut other) = other_arguments(&ctx.params, ctx.definition, &query)
    {
        set(&mut other, "cursor", json!(real));
        session.refused(tool.name, &other, "invalid_cursor", &promise)?;
    }
    Ok(())
}

/// Page numbers: there is no cursor to forge, but a page before the first is refused with
/// `out_of_range` (pages count from 1), and so is a page of a fraction.
fn page_zero_refused(ctx: &Ctx<'_, '_>, page: &str) -> Result<(), Failure> {
    let tool = ctx.tool.name;
    let promise = format!("{tool} refuses {page} 0: pages count from 1 (out_of_range)");
    let session = ctx.session()?;
    let mut query = queries(ctx)
        .into_iter()
        .next()
        .unwrap_or_else(|| ctx.base_call());
    set(&mut query, page, json!(0));
    session.refused(tool, &query, "out_of_range", &promise)?;
    Ok(())
}
