//! [`Serve`]: what the generated code declares, per tool, about how the runtime serves it.

use std::time::Duration;

use serde_json::Value;

use super::super::{Confirmation, UndoSpec};
use crate::content::ContentKind;
use crate::projection::Projection;
use crate::rate::RateLimit;
use crate::shape::{ResponseFormat, ShapeSpec};
use crate::store::Effect;

/// How one tool is served, as static data in generated code (next to its
/// [`ToolDefinition`](crate::engine::ToolDefinition)). Built with the `const` methods:
///
/// ```
/// use std::time::Duration;
/// use toolspec_runtime::engine::glue::Serve;
/// static SERVE: Serve = Serve::new("tickets_create")
///     .idempotency(Duration::from_secs(86_400))
///     .preview(Duration::from_secs(600))
///     .budget(Some(4000));
/// assert_eq!(SERVE.tool, "tickets_create");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Serve {
    /// Canonical tool name: scopes cursors, idempotency keys and previews.
    pub tool: &'static str,
    /// Response shaping: detailed-only paths and the token budget.
    pub shape: ShapeSpec,
    /// The format used when the call passes no `response_format` (tools without that
    /// parameter are always served `Detailed`: nothing is stripped).
    pub response_format: ResponseFormat,
    /// Paged tools: the output field holding the page's items, or its path of object keys
    /// joined by `/` for a list inside an object or a tagged union's variant
    /// (`result/reviews`; see [`items_at`](super::items_at)).
    pub items: Option<&'static str>,
    /// Paged tools: the page size when the call passes no `limit`.
    pub default_limit: u64,
    /// Paged tools: whether results carry `total` (see [`Serve::without_total`]).
    pub total: bool,
    /// Keyset tools: the item fields whose values are each item's sort key (see
    /// [`Serve::keyset`]); empty for offset paging.
    pub keyset: &'static [&'static str],
    /// Page-number tools: the page and page-size parameters (see [`Serve::pages`]);
    /// `None` for cursors.
    pub pages: Option<(&'static str, &'static str)>,
    /// Output fields that reach the client as content blocks (see [`crate::content`]).
    pub content: &'static [(&'static str, ContentKind)],
    /// How long idempotency keys are remembered.
    pub idempotency_ttl: Duration,
    /// How long a preview may be applied.
    pub preview_ttl: Duration,
    /// Reversible tools: how to build the undo call from the result.
    pub undo: Option<UndoSpec>,
    /// Irreversible tools: who approves the change.
    pub confirmation: Confirmation,
    /// Writes: where the method's change happens (see [`Serve::effect`]).
    pub effect: Effect,
    /// Output unions whose variant follows a parameter (see [`Serve::selections`]).
    pub selections: &'static [Selection],
    /// The fields a call may choose (see [`Serve::projection`]).
    pub projection: Option<Projection<'static>>,
    /// How many calls each caller may make (see [`Serve::rate_limit`]); `None`: no limit.
    pub rate_limit: Option<RateLimit>,
    /// How long the tool's methods may run (see [`Serve::time_limit`]); `None`: no limit.
    pub time_limit: Option<Duration>,
    /// How long a task's result is kept when calls may run as tasks (see [`Serve::task`]).
    pub task_kept: Option<Duration>,
}

/// An output union whose variant follows the value of an enum parameter (`selected_by`):
/// a call with `method: get_diff` gets the `get_diff` variant, named by the union's tag.
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    /// The output field holding the union (`result`).
    pub field: &'static str,
    /// The union's tag key (`kind`).
    pub tag: &'static str,
    /// The parameter whose value names the variant (`method`).
    pub param: &'static str,
}

impl Serve {
    /// A tool served with no paging, no budget, detailed results and 24 h / 10 min TTLs.
    pub const fn new(tool: &'static str) -> Self {
        Self {
            tool,
            shape: ShapeSpec {
                detailed_only: &[],
                token_budget: None,
                takes_limit: false,
                size_param: "limit",
                by_page_number: false,
                takes_response_format: false,
                texts: &[],
            },
            response_format: ResponseFormat::Detailed,
            items: None,
            default_limit: 20,
            total: true,
            keyset: &[],
            pages: None,
            content: &[],
            idempotency_ttl: Duration::from_secs(24 * 3600),
            preview_ttl: Duration::from_secs(600),
            undo: None,
            confirmation: Confirmation::HostOrPreview,
            effect: Effect::Store,
            selections: &[],
            projection: None,
            rate_limit: None,
            time_limit: None,
            task_kept: None,
        }
    }

    /// Stops the tool's methods at `limit` ([`Runtime::within`]): the call answers
    /// `timeout`, and a write's changes roll back.
    pub const fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Lets calls run as tasks for clients that support them, their results kept for
    /// `kept` ([`crate::task`]).
    pub const fn task(mut self, kept: Duration) -> Self {
        self.task_kept = Some(kept);
        self
    }

    /// The limits a call of this tool is held to.
    pub fn limits(&self) -> super::super::write::CallLimits<'_> {
        super::super::write::CallLimits {
            rate: self.rate_limit.as_ref(),
            time: self.time_limit,
        }
    }

    /// Limits how many calls each caller may make ([`crate::rate`]): a call past it is
    /// refused with `rate_limited` before the tool's method runs, and nothing is done.
    pub const fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// Takes a field list (`projection`): results keep the fields the call names, and the
    /// projection's `always` ones (see [`crate::projection`]).
    pub const fn projection(mut self, projection: Projection<'static>) -> Self {
        self.projection = Some(projection);
        self
    }

    /// Output unions whose variant follows a parameter: a result whose variant is not the
    /// one the call's value names is the implementation breaking its spec, answered as an
    /// `internal_error` (the agent's call was fine) before a write commits.
    pub const fn selections(mut self, selections: &'static [Selection]) -> Self {
        self.selections = selections;
        self
    }

    /// Where a write's change happens (default [`Effect::Store`]): for a remote effect the
    /// method is handed a [`crate::store::Remote`], and a call whose method ran but whose
    /// outcome was not recorded says the change may have been made.
    pub const fn effect(mut self, effect: Effect) -> Self {
        self.effect = effect;
        self
    }

    /// Who approves an irreversible tool's change (default [`Confirmation::HostOrPreview`]: the
    /// person through the host when the client can ask, else the preview flow).
    pub const fn confirmation(mut self, confirmation: Confirmation) -> Self {
        self.confirmation = confirmation;
        self
    }

    /// Pages the output field `items`, `default_limit` items when no `limit` is passed.
    pub const fn paged(mut self, items: &'static str, default_limit: u64) -> Self {
        self.items = Some(items);
        self.default_limit = default_limit;
        self.shape.takes_limit = true;
        self
    }

    /// These output fields reach the client as content blocks: images and audio and text
    /// taken out of the structured result, resource links copied (see [`crate::content`]).
    pub const fn content(mut self, fields: &'static [(&'static str, ContentKind)]) -> Self {
        self.content = fields;
        self
    }

    /// These top-level text fields are cut from their end when a result is over the token
    /// budget and no list is left to cut (see [`crate::shape`]).
    pub const fn cut_texts(mut self, fields: &'static [&'static str]) -> Self {
        self.shape.texts = fields;
        self
    }

    /// Pages by position rather than offset: each item's `fields` (top-level fields of the
    /// items, unique together, the order the method returns items in) are its sort key, the
    /// next cursor carries the last returned item's, and the method is handed it as
    /// [`Window::after`].
    pub const fn keyset(mut self, fields: &'static [&'static str]) -> Self {
        self.keyset = fields;
        self
    }

    /// Pages by number rather than cursor: the call passes the page number (from 1) as
    /// `page` and the page size as `size` (a port's `page` and `perPage`); the method gets
    /// the same [`Window`] (`offset` is `(page - 1) * size`), and results carry `next_page`
    /// while more follow. Cursors stay the better wire: a page number can skip or repeat
    /// items when others change the list between calls.
    pub const fn pages(mut self, page: &'static str, size: &'static str) -> Self {
        self.pages = Some((page, size));
        self.shape.size_param = size;
        self.shape.by_page_number = true;
        self
    }

    /// Pages without a `total`, for a backend that only knows whether more items follow:
    /// results never carry one, whichever [`Page`] constructor the method uses.
    pub const fn without_total(mut self) -> Self {
        self.total = false;
        self
    }

    /// Takes `response_format` with this default; `detailed_only` paths (object keys
    /// separated by `/`, `*` for every item of a list) are removed from concise results.
    pub const fn response_format(
        mut self,
        default: ResponseFormat,
        detailed_only: &'static [&'static str],
    ) -> Self {
        self.response_format = default;
        self.shape.detailed_only = detailed_only;
        self.shape.takes_response_format = true;
        self
    }

    /// The format a call with these arguments is served in: its `response_format`, else the
    /// default (`Detailed` for a tool without the parameter).
    pub fn format(&self, args: &Value) -> ResponseFormat {
        if self.shape.takes_response_format {
            ResponseFormat::from_arguments(args, self.response_format)
        } else {
            ResponseFormat::Detailed
        }
    }

    /// Cuts results to about `tokens` estimated tokens (see [`crate::shape`]).
    pub const fn budget(mut self, tokens: Option<usize>) -> Self {
        self.shape.token_budget = tokens;
        self
    }

    /// How long idempotency keys are remembered.
    pub const fn idempotency(mut self, ttl: Duration) -> Self {
        self.idempotency_ttl = ttl;
        self
    }

    /// How long a preview may be applied.
    pub const fn preview(mut self, ttl: Duration) -> Self {
        self.preview_ttl = ttl;
        self
    }

    /// The undo call attached to every result.
    pub const fn undo(mut self, undo: UndoSpec) -> Self {
        self.undo = Some(undo);
        self
    }
}
