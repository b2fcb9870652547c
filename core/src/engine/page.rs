//! The window a paged tool's method is asked for ([`Window`]) and the page it answers
//! ([`Page`]): the two types of the serving contract a server's own code names.

use serde_json::Value;

/// The slice of results a paged tool's method is asked for.
///
/// An offset tool (the default) returns the `limit` items after the first `offset` ones. A
/// keyset tool (`paging: {keyset: [...]}`) returns the `limit` items that sort after
/// [`Window::after`], the sort key of the last item the agent was given, so that a walk
/// neither skips nor repeats items while others insert or delete; `offset` then only counts
/// the items returned before, for `total`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// How many matching items come before this page (0 for the first page).
    pub offset: u64,
    /// The most items to return (the call's `limit`, or the tool's default).
    pub limit: u64,
    /// Keyset tools: the values of the sort key fields (in the spec's order) of the last item
    /// of the previous page; `None` on the first page, and always for offset tools.
    pub after: Option<Vec<Value>>,
}

impl Window {
    /// `offset` as a `usize`, for `iter().skip(..)` (saturates on 32-bit targets).
    pub fn skip(&self) -> usize {
        usize::try_from(self.offset).unwrap_or(usize::MAX)
    }

    /// `limit` as a `usize`, for `iter().take(..)`.
    pub fn take(&self) -> usize {
        usize::try_from(self.limit).unwrap_or(usize::MAX)
    }

    /// Keyset tools: the sort key the page starts after ([`Window::after`]).
    pub fn after(&self) -> Option<&[Value]> {
        self.after.as_deref()
    }

    /// The page number this window is, from 1: the call's page for page-number paging
    /// (`paging: {style: pages}`, where `offset` is `(page - 1) * limit`), and for offset
    /// paging the page the offset falls in, for a backend that takes page numbers.
    pub fn page(&self) -> u64 {
        (self.offset / self.limit.max(1)).saturating_add(1)
    }
}

/// What a paged tool's method returns: its typed result holding this page's items, and how
/// many items match the whole query ([`Page::new`]) or, for a backend that cannot count
/// them (`paging: {total: false}`), whether more follow ([`Page::more`]). The glue adds
/// `total` (when known) and `next_cursor` from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The result, whose items field holds at most [`Window::limit`] items.
    pub result: T,
    /// Items matching the query across all pages (0 when made by [`Page::more`]).
    pub total: u64,
    /// Set by [`Page::more`]: whether items follow this page; `None`: `total` says it.
    pub has_more: Option<bool>,
    /// Set by [`Page::with_more`], for keyset paging with a `total`: whether items sort
    /// after this page. `None`: a full page is taken to have more (the walk may end on an
    /// empty page, but never skips one).
    pub more_after: Option<bool>,
}

impl<T> Page<T> {
    /// A page of `result` out of `total` matching items.
    pub fn new(result: T, total: u64) -> Self {
        Self {
            result,
            total,
            has_more: None,
            more_after: None,
        }
    }

    /// Keyset paging: says whether items sort after this page (fetch `limit + 1` and look),
    /// so that the last page carries no `next_cursor`. With offsets, `total` says it.
    pub fn with_more(mut self, more: bool) -> Self {
        self.more_after = Some(more);
        self
    }

    /// A page of `result` from a backend that knows only whether items follow it (fetch
    /// `limit + 1` and look). The result then carries no `total`.
    pub fn more(result: T, has_more: bool) -> Self {
        Self {
            result,
            total: 0,
            has_more: Some(has_more),
            more_after: None,
        }
    }
}
