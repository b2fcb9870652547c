//! The serving kinds: a read, a paged read (offset, keyset or page number), a reversible
//! write, an irreversible write behind its preview.

use super::shaping::{items_at, keep_page, result_of, shape_result, str_arg};
use super::{Page, Serve, Window, output};
use std::future::Future;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::super::{CallContext, Gate, Runtime, attach_undo};
use crate::error::ToolError;
use crate::fingerprint::fingerprint;
use crate::store::Work;

/// Serves a read-only tool: the method on the typed input ([`accept`](fn@super::accept)) once the call is
/// within its rate limit, shaping.
pub async fn read<I, O, F, Fut>(
    rt: &Runtime,
    serve: &Serve,
    input: I,
    args: &Value,
    run: F,
) -> Result<Value, ToolError>
where
    O: Serialize,
    F: FnOnce(I) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
{
    rt.admit(serve.tool, serve.rate_limit.as_ref()).await?;
    let ran = rt
        .within(serve.tool, serve.time_limit, None, run(input))
        .await?;
    let mut result = result_of(serve, args, &ran)?;
    shape_result(serve, args, &mut result);
    Ok(result)
}

/// Serves a paged read: the `cursor` becomes the [`Window`]'s offset (refused with
/// `invalid_cursor` unless it was issued for this tool and these arguments), the method
/// returns its [`Page`], the result is shaped, then `total` and `next_cursor` are added.
///
/// Items beyond `limit` are dropped and come on the next page. The arguments are
/// fingerprinted only when a cursor is read or written, so one-page answers skip the hash.
pub async fn paged<I, O, F, Fut>(
    rt: &Runtime,
    serve: &Serve,
    input: I,
    args: &Value,
    run: F,
) -> Result<Value, ToolError>
where
    O: Serialize,
    F: FnOnce(I, Window) -> Fut,
    Fut: Future<Output = Result<Page<O>, ToolError>>,
{
    let Some(items) = serve.items else {
        return Err(ToolError::internal(format!(
            "{} is served as paged without an items field",
            serve.tool
        )));
    };
    if let Some((page, size)) = serve.pages {
        rt.admit(serve.tool, serve.rate_limit.as_ref()).await?;
        let paged = by_page_number(serve, items, (page, size), input, args, run);
        return rt.within(serve.tool, serve.time_limit, None, paged).await;
    }
    let limit = args
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(serve.default_limit);
    let mut fp = None;
    let (offset, after) = match str_arg(args, "cursor") {
        None => (0, None),
        Some(cursor) => {
            let f = fingerprint(args);
            let found = if serve.keyset.is_empty() {
                (rt.cursor_offset(serve.tool, &f, Some(cursor))?, None)
            } else {
                let (offset, position) = rt.cursor_position(serve.tool, &f, cursor)?;
                (offset, Some(position))
            };
            fp = Some(f);
            found
        }
    };
    let window = Window {
        offset,
        limit,
        after,
    };
    // Counted once the cursor was accepted: a refused cursor ran nothing.
    rt.admit(serve.tool, serve.rate_limit.as_ref()).await?;
    let page = rt
        .within(serve.tool, serve.time_limit, None, run(input, window))
        .await?;
    let mut result = result_of(serve, args, &page.result)?;
    let given = keep_page(&mut result, items, limit);
    shape_result(serve, args, &mut result);
    let Some(returned) = items_at(&result, items).map(|a| a.len() as u64) else {
        // Another variant of a tagged union than the one holding the list: not a page.
        return Ok(result);
    };
    // Runtime::page issues a cursor exactly when this holds; otherwise it ignores the
    // fingerprint, so an empty one saves hashing the arguments.
    let more = returned > 0
        && match (page.has_more, serve.keyset.is_empty()) {
            (Some(more), _) => more || returned < given,
            (None, true) => offset.saturating_add(returned) < page.total,
            // By position, offset and total do not tell: items added or removed before the
            // position count in `total`, not in what is left. A full page may have more
            // after it (at worst the next page is empty); fewer items than asked for, all
            // kept, were the last.
            (None, false) => page.more_after.unwrap_or(given >= limit) || returned < given,
        };
    // A tool declared without a total never shows one, even from `Page::new`.
    let has_more = if serve.total {
        page.has_more
    } else {
        Some(more)
    };
    let fp = match (fp, more) {
        (Some(f), _) => f,
        (None, true) => fingerprint(args),
        (None, false) => String::new(),
    };
    if !serve.keyset.is_empty() {
        let total = has_more.is_none().then_some(page.total);
        rt.page_after(serve, &fp, &mut result, offset, total, more)?;
        return Ok(result);
    }
    match has_more {
        None => rt.page(serve.tool, &fp, &mut result, items, offset, page.total),
        Some(_) => rt.page_until(serve.tool, &fp, &mut result, items, offset, more),
    }
    Ok(result)
}

/// [`paged`] for page-number paging: the page (from 1, validated by the input schema)
/// and size become the [`Window`], and the result gets `total` (when known) and
/// `next_page` while items follow. The next page starts after this whole page: items the
/// budget cut are not on it, and the `truncated` note says to ask for smaller pages.
async fn by_page_number<I, O, F, Fut>(
    serve: &Serve,
    items: &str,
    (page, size): (&str, &str),
    input: I,
    args: &Value,
    run: F,
) -> Result<Value, ToolError>
where
    O: Serialize,
    F: FnOnce(I, Window) -> Fut,
    Fut: Future<Output = Result<Page<O>, ToolError>>,
{
    let limit = args
        .get(size)
        .and_then(Value::as_u64)
        .unwrap_or(serve.default_limit)
        .max(1);
    let number = args.get(page).and_then(Value::as_u64).unwrap_or(1).max(1);
    let offset = (number - 1).saturating_mul(limit);
    let window = Window {
        offset,
        limit,
        after: None,
    };
    let page = run(input, window).await?;
    let mut result = output(&page.result)?;
    let given = keep_page(&mut result, items, limit);
    shape_result(serve, args, &mut result);
    if items_at(&result, items).is_none() {
        // Another variant of a tagged union than the one holding the list: not a page.
        return Ok(result);
    }
    let kept = given.min(limit);
    let more = kept > 0
        && match page.has_more {
            Some(more) => more || given > limit,
            None => offset.saturating_add(kept) < page.total,
        };
    let Value::Object(map) = &mut result else {
        return Ok(result);
    };
    if serve.total && page.has_more.is_none() {
        map.insert("total".into(), page.total.into());
    }
    if more {
        map.insert("next_page".into(), number.saturating_add(1).into());
    } else {
        map.remove("next_page");
    }
    Ok(result)
}

/// Serves a reversible write in a unit of work ([`Work`]: write through it, and the change
/// commits with the key's record or not at all): at most once per `idempotency_key` (a
/// retry replays the stored result), with the undo call attached inside the stored result
/// so a replay carries the very same undo; then shaping.
pub async fn reversible<I, O, F, Fut>(
    rt: &Runtime,
    serve: &Serve,
    input: I,
    args: &Value,
    run: F,
) -> Result<Value, ToolError>
where
    O: Serialize,
    F: FnOnce(I, Work) -> Fut,
    Fut: Future<Output = Result<O, ToolError>>,
{
    let key = str_arg(args, "idempotency_key");
    let fp = fingerprint(args);
    let undo = serve.undo;
    let mut result = rt
        .idempotent_within(
            serve.effect,
            serve.limits(),
            serve.tool,
            key,
            &fp,
            serve.idempotency_ttl,
            |work| async move {
                let mut value = result_of(serve, args, &run(input, work).await?)?;
                if let Some(undo) = &undo {
                    attach_undo(&mut value, undo, key)?;
                }
                Ok(value)
            },
        )
        .await?;
    shape_result(serve, args, &mut result);
    Ok(result)
}

/// Serves a previewed write (irreversible, or reversible with `preview`, whose applied
/// result then carries its undo call): without `preview_id` the `preview` method runs (it must
/// not change anything) and its typed preview is stored and shown; with `preview_id` the
/// stored preview is checked against these arguments and handed, typed, to `apply`, once
/// in a unit of work (see [`Runtime::gated`]); when `ctx` has a host that can ask the
/// person, they approve it instead of the model. Idempotency keys are honoured on both
/// paths.
pub async fn gated<I, P, O, PF, PFut, AF, AFut>(
    rt: &Runtime,
    serve: &Serve,
    ctx: &CallContext,
    input: I,
    args: &Value,
    preview: PF,
    apply: AF,
) -> Result<Value, ToolError>
where
    I: Clone,
    P: Serialize + DeserializeOwned,
    O: Serialize,
    PF: FnOnce(I) -> PFut,
    PFut: Future<Output = Result<P, ToolError>>,
    AF: FnOnce(I, P, Work) -> AFut,
    AFut: Future<Output = Result<O, ToolError>>,
{
    let fp = fingerprint(args);
    let gate = Gate {
        tool: serve.tool,
        fingerprint: &fp,
        preview_id: str_arg(args, "preview_id"),
        idempotency_key: str_arg(args, "idempotency_key"),
        idempotency_ttl: serve.idempotency_ttl,
        preview_ttl: serve.preview_ttl,
        confirmation: serve.confirmation,
        effect: serve.effect,
        host: ctx.host.as_deref(),
        limits: serve.limits(),
    };
    let for_preview = input.clone();
    let (undo, key) = (serve.undo, str_arg(args, "idempotency_key"));
    let mut result = rt
        .gated(
            gate,
            move || async move { output(&preview(for_preview).await?) },
            move |stored, work| async move {
                let shown: P = serde_json::from_value(stored)
                    .map_err(|e| ToolError::internal(format!("stored preview: {e}")))?;
                let mut value = result_of(serve, args, &apply(input, shown, work).await?)?;
                // A reversible tool with a preview: the applied result carries its undo,
                // stored with it so a replay carries the very same one.
                if let Some(undo) = &undo {
                    attach_undo(&mut value, undo, key)?;
                }
                Ok(value)
            },
        )
        .await?;
    shape_result(serve, args, &mut result);
    Ok(result)
}
