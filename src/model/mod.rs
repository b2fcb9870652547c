//! The resolved model: one typed IR of every toolset, which all later stages read.
//!
//! [`resolve`] turns loaded specs into a [`Model`]: names and type references resolved,
//! defaults applied, the parameters and output fields that paging, response formats,
//! idempotency, previews and undo imply added (marked with their [`Origin`]), and every
//! semantic problem reported with the position of the YAML node it came from. Emitters, lint
//! and diff read only this; nothing after it touches YAML.

pub mod describe;
mod duration;
pub(crate) mod fields;
pub mod implied;
mod resolve;
pub mod shapes;
mod types;
pub mod upstream;
pub mod values;

pub use crate::spec::format::{
    Approval, Effect, Format, OutputSchema, Tier, ToolSearch, Verbosity,
};
pub use duration::{Duration, format_duration};
pub use resolve::{has_service_prefix, resolve, with_service_prefix};
pub use types::*;

use crate::diagnostics::Span;

/// A string from the spec and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    /// The text.
    pub text: String,
    /// Where it was written.
    pub span: Span,
}

impl Text {
    /// The text as a `&str`.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Every toolset of one run, resolved together so tools can name each other across specs.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// One per spec file, in the order given.
    pub toolsets: Vec<ToolSet>,
}

impl Model {
    /// Finds a tool by its name (not by alias) in any toolset.
    pub fn tool(&self, name: &str) -> Option<(&ToolSet, &Tool)> {
        self.toolsets
            .iter()
            .find_map(|ts| ts.tool(name).map(|t| (ts, t)))
    }

    /// Every tool of every toolset.
    pub fn tools(&self) -> impl Iterator<Item = (&ToolSet, &Tool)> {
        self.toolsets
            .iter()
            .flat_map(|ts| ts.tools.iter().map(move |t| (ts, t)))
    }
}

/// The tools of one spec file: one service namespace.
#[derive(Debug, Clone)]
pub struct ToolSet {
    /// The spec file's path as given.
    pub path: String,
    /// Where the spec starts (its first line), for problems about the whole toolset.
    pub span: Span,
    /// Service namespace (`tickets`).
    pub service: Text,
    /// Human title.
    pub title: Text,
    /// What the toolset is for.
    pub description: Text,
    /// Defaults with built-in values filled in.
    pub defaults: Defaults,
    /// Named types, in written order.
    pub types: Vec<NamedType>,
    /// The whole error catalog: the spec's codes, then the built-in ones.
    pub errors: Vec<ErrorCode>,
    /// The HTTP API the tools forward to, for a toolset made from one (`upstream`).
    pub upstream: Option<upstream::Upstream>,
    /// Tools, in written order.
    pub tools: Vec<Tool>,
    /// The tools' groups, in written order; empty when the spec has none (every tool is
    /// then loaded up front and served).
    pub groups: Vec<Group>,
    /// The tool search tool the Anthropic list adds when some group is deferred.
    pub tool_search: ToolSearch,
    /// Lint settings written in the spec.
    pub lint: LintSettings,
}

impl ToolSet {
    /// A tool of this toolset by name.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name.text == name)
    }

    /// A catalog code by name (spec or built-in).
    pub fn error(&self, code: &str) -> Option<&ErrorCode> {
        self.errors.iter().find(|e| e.code == code)
    }

    /// A named type by name.
    pub fn named_type(&self, name: &str) -> Option<&NamedType> {
        self.types.iter().find(|t| t.name == name)
    }

    /// The group `tool` belongs to, if the toolset has groups.
    pub fn group_of(&self, tool: &Tool) -> Option<&Group> {
        tool.group.and_then(|g| self.groups.get(g))
    }

    /// The tools of the group at `group` (its position in [`ToolSet::groups`]), in order.
    pub fn members(&self, group: usize) -> impl Iterator<Item = &Tool> {
        self.tools.iter().filter(move |t| t.group == Some(group))
    }

    /// Whether a model receives `tool`'s definition on every turn: always without groups,
    /// otherwise when its group is `up_front`.
    pub fn up_front(&self, tool: &Tool) -> bool {
        self.group_of(tool).is_none_or(|g| g.up_front)
    }

    /// Whether some tool waits for a search (a group that is not `up_front`).
    pub fn defers(&self) -> bool {
        self.groups.iter().any(|g| !g.up_front)
    }
}

/// A checked group of tools (the spec's `groups`).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Its name (`pulls`), what operators pass to `--groups`; the span points at it.
    pub name: Text,
    /// What a model reads about its tools before any is loaded.
    pub description: Text,
    /// Whether its tools are loaded on every turn rather than found by a search.
    pub up_front: bool,
}

impl Group {
    /// The name providers see: the service, `_`, the group (`github_pulls`), so two
    /// servers' groups of one name stay apart in one request.
    pub fn namespace(&self, service: &str) -> String {
        format!("{service}_{}", self.name.text)
    }
}

/// A checked rate limit: at most `calls` per `per` for each caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimit {
    /// Calls per window, at least 1.
    pub calls: u32,
    /// The window, at least a second.
    pub per: Duration,
    /// At most this many back to back, at most `calls`.
    pub burst: Option<u32>,
    /// The service, when it is the toolset's budget, shared by every tool without its own.
    pub shared_by: Option<String>,
    /// Where it was written.
    pub span: Span,
}

impl RateLimit {
    /// The limit as the runtime keeps it, under `key` (the tool's name for its own limit,
    /// the service's for the shared one).
    pub fn runtime(&self, key: &'static str) -> toolspec_runtime::rate::RateLimit {
        let limit = toolspec_runtime::rate::RateLimit::new(
            key,
            self.calls,
            std::time::Duration::from_secs(self.per.as_secs()),
        );
        match self.burst {
            Some(b) => limit.with_burst(b),
            None => limit,
        }
    }

    /// The one sentence every output says the limit in (the runtime's
    /// [`toolspec_runtime::rate::sentence`]).
    pub fn sentence(&self) -> String {
        let limit = self.runtime("");
        match &self.shared_by {
            Some(service) => toolspec_runtime::rate::shared_sentence(&limit, service),
            None => toolspec_runtime::rate::sentence(&limit),
        }
    }
}

/// A checked time limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeLimit {
    /// The most a call may run.
    pub limit: Duration,
    /// What a call usually takes, at most `limit`.
    pub usual: Option<Duration>,
    /// When calls may run as tasks: how long a task's result is kept.
    pub task_kept: Option<Duration>,
    /// Where it was written.
    pub span: Span,
}

/// Toolset defaults after built-in values are applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Defaults {
    /// Items per page when no `limit` is passed.
    pub default_limit: u32,
    /// Largest `limit` accepted.
    pub max_limit: u32,
    /// How long idempotency keys are kept.
    pub idempotency_ttl: Duration,
    /// How long previews can be applied.
    pub preview_ttl: Duration,
    /// Who approves irreversible changes.
    pub approval: Approval,
    /// Where writes' effects happen, unless a tool says otherwise.
    pub effect: Effect,
    /// Where `defaults.effect` was written, if it was.
    pub effect_span: Option<Span>,
    /// How much output schema the MCP list publishes, unless a tool says otherwise.
    pub output_schema: OutputSchema,
    /// Largest result in estimated tokens.
    pub token_budget: u32,
    /// Largest request the server takes, in bytes.
    pub max_request_bytes: u64,
    /// Deepest nesting of arrays and objects in a request.
    pub max_depth: u32,
    /// Scopes read-only tools need unless they name their own (`defaults.scopes.read`,
    /// else `<service>:read`, filled in when the toolset is resolved).
    pub read_scopes: Vec<Text>,
    /// Scopes writes need unless they name their own (`defaults.scopes.write`, else
    /// `<service>:write`).
    pub write_scopes: Vec<Text>,
}

impl Defaults {
    /// The values used when a spec sets none.
    pub const BUILT_IN: Defaults = Defaults {
        default_limit: 20,
        max_limit: 100,
        idempotency_ttl: Duration::from_secs(24 * 3600),
        preview_ttl: Duration::from_secs(600),
        approval: Approval::HostOrPreview,
        effect: Effect::Store,
        effect_span: None,
        output_schema: OutputSchema::Shape,
        token_budget: 5000,
        max_request_bytes: 1 << 20,
        max_depth: 64,
        read_scopes: Vec::new(),
        write_scopes: Vec::new(),
    };
}

/// Lint settings written in a spec.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LintSettings {
    /// Rule set name, if given.
    pub set: Option<Text>,
    /// Rules turned off.
    pub allow: Vec<Text>,
    /// Rules turned on as errors.
    pub deny: Vec<Text>,
}

/// One tool, resolved.
#[derive(Debug, Clone)]
pub struct Tool {
    /// Its name (`tickets_search`); the span points at the name.
    pub name: Text,
    /// Human title.
    pub title: Text,
    /// One-line summary.
    pub summary: Text,
    /// What a successful call returns.
    pub returns: Text,
    /// When to pick it.
    pub use_when: Option<Text>,
    /// Requests it is not for, with the tool to use instead.
    pub not_for: Vec<NotFor>,
    /// Side-effect tier.
    pub tier: Tier,
    /// Where the tier was written.
    pub tier_span: Span,
    /// Whether it reaches outside the service's own data.
    pub open_world: bool,
    /// The scopes a caller's token must grant, all of them, to list and call it: its own
    /// `scopes`, else the toolset's default for its tier. Empty: any authenticated caller.
    pub scopes: Vec<Text>,
    /// Where the tool named its own `scopes`, if it did.
    pub scopes_span: Option<Span>,
    /// How many calls each caller may make: its own `rate_limit`, else the toolset's shared
    /// one; `None`: no limit.
    pub rate_limit: Option<RateLimit>,
    /// How long a call may run, and what is usual; `None`: no limit.
    pub time: Option<TimeLimit>,
    /// Where a write's effect happens, which decides what a retry can promise
    /// ([`Effect::Store`] for reads, which have none).
    pub effect: Effect,
    /// Where the effect was written (the tool's `effect`, else the toolset's default), or
    /// the tier's span when it was not.
    pub effect_span: Span,
    /// How much of its output schema the MCP list publishes.
    pub output_schema: OutputSchema,
    /// Every parameter in the order agents see them: the spec's, then the implied ones.
    pub params: Vec<Field>,
    /// Every output field: the spec's, then the implied ones.
    pub output: Vec<Field>,
    /// Rules over which parameters are passed together.
    pub requires: Vec<Requirement>,
    /// Output unions whose variant follows a parameter.
    pub selections: Vec<Selection>,
    /// Catalog codes the spec lists for it.
    pub errors: Vec<Text>,
    /// Paging settings, if paginated.
    pub paging: Option<Paging>,
    /// Default response format, if the tool takes `response_format`.
    pub response_format: Option<Verbosity>,
    /// Field projection, if the caller chooses which fields come back.
    pub projection: Option<Projection>,
    /// Idempotency settings, if it takes a key.
    pub idempotency: Option<Idempotency>,
    /// Preview settings, if irreversible.
    pub preview: Option<Preview>,
    /// The undo call, if reversible.
    pub undo: Option<Undo>,
    /// Why an irreversible tool needs no preview (`low_risk`), if it says so.
    pub low_risk: Option<Text>,
    /// Deprecated names still routed to it.
    pub aliases: Vec<Text>,
    /// Example calls and outcomes.
    pub examples: Vec<Example>,
    /// Requests that should route to it (for the misroute lint).
    pub requests: Vec<Text>,
    /// Largest result in estimated tokens.
    pub token_budget: u32,
    /// Lint rules allowed on this tool, each with its reason.
    pub lint_allow: Vec<(Text, Text)>,
    /// The request a call becomes, for a toolset with `upstream` (`http`).
    pub http: Option<upstream::HttpCall>,
    /// The position in its toolset's [`ToolSet::groups`] of the group it belongs to; `None`
    /// when the toolset has no groups.
    pub group: Option<usize>,
}

impl Tool {
    /// The valid call every refusal of this tool ends with ("a valid call: {...}"): the
    /// arguments of its first example expected to succeed, else every required parameter
    /// set to its example. Generated servers, the gauntlet and the docs all show this one.
    pub fn example_call(&self) -> serde_json::Value {
        if let Some(e) = self.examples.iter().find(|e| e.error.is_none()) {
            return e.arguments.clone();
        }
        serde_json::Value::Object(
            self.params
                .iter()
                .filter(|f| f.required)
                .map(|f| (f.name.clone(), f.example.clone()))
                .collect(),
        )
    }

    /// A parameter by name.
    pub fn param(&self, name: &str) -> Option<&Field> {
        self.params.iter().find(|f| f.name == name)
    }

    /// An output field by name.
    pub fn output_field(&self, name: &str) -> Option<&Field> {
        self.output.iter().find(|f| f.name == name)
    }

    /// An output field by dotted path (`previous.summary`), through nested objects.
    pub fn output_path(&self, path: &str) -> Option<&Field> {
        let mut fields = self.output.as_slice();
        let mut found = None;
        for part in path.split('.') {
            let f = fields.iter().find(|f| f.name == part)?;
            found = Some(f);
            fields = match &f.ty.kind {
                Kind::Object { fields, .. } => fields,
                _ => &[],
            };
        }
        found
    }

    /// The parameters written in the spec (not the implied ones).
    pub fn spec_params(&self) -> impl Iterator<Item = &Field> {
        self.params.iter().filter(|f| f.origin == Origin::Spec)
    }

    /// The output fields written in the spec (not the implied ones).
    pub fn spec_output(&self) -> impl Iterator<Item = &Field> {
        self.output.iter().filter(|f| f.origin == Origin::Spec)
    }

    /// Whether the tool changes state.
    pub fn is_write(&self) -> bool {
        self.tier != Tier::ReadOnly
    }
}

/// A request a tool is not for and the tool to use instead.
#[derive(Debug, Clone, PartialEq)]
pub struct NotFor {
    /// The kind of request.
    pub when: Text,
    /// The tool to use instead.
    pub use_tool: Text,
}

/// Paging settings of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Paging {
    /// Output field holding the page's items.
    pub items: Text,
    /// Items per page by default.
    pub default_limit: u32,
    /// Largest `limit`.
    pub max_limit: u32,
    /// Whether the result carries `total` (the backend counts every match); `false`: the
    /// method only says whether more items follow.
    pub total: bool,
    /// The items' sort key fields for keyset paging; empty for offset paging.
    pub keyset: Vec<Text>,
    /// `style: pages`: the names of the page-number and page-size parameters; `None` for
    /// cursor paging.
    pub pages: Option<PageNumbers>,
    /// The JSON keys from the result down to the list (`[reviews]`, `[result, reviews]`):
    /// `items` without the variant names it passes through.
    pub path: Vec<String>,
    /// Whether the list is inside one variant of a tagged union: results of the other
    /// variants hold no list, so they carry no `total` or next page.
    pub in_variant: bool,
    /// Where paging was declared.
    pub span: Span,
}

/// Field projection of a read-only tool (`projection`): the objects it projects and which
/// of their fields a call that asks for none gets.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// The parameter listing the fields asked for (`fields`).
    pub param: String,
    /// The JSON keys from the result down to the projected list (`[events]`); empty when
    /// the result's own fields are projected.
    pub path: Vec<String>,
    /// Every field of the projected objects, in order: the parameter's values.
    pub fields: Vec<String>,
    /// The fields every result keeps.
    pub always: Vec<String>,
    /// The fields a call that names none gets besides `always`; `None` for every field.
    pub default: Option<Vec<String>>,
    /// Where `projection` was written.
    pub span: Span,
}

impl Projection {
    /// Where the projected objects are, as the runtime's shaping paths write it: object
    /// keys joined by `/`, `*` for every item (`events/*`); empty for the result itself.
    pub fn objects_path(&self) -> String {
        if self.path.is_empty() {
            String::new()
        } else {
            format!("{}/*", self.path.join("/"))
        }
    }

    /// Removes from `result` what the runtime removes for a call with `arguments`: the
    /// projected fields it did not ask for (see `toolspec_runtime::projection`).
    pub fn apply(&self, arguments: &serde_json::Value, result: &mut serde_json::Value) {
        fn strs(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        let (fields, always) = (strs(&self.fields), strs(&self.always));
        let default = self.default.as_deref().map(strs);
        let objects = self.objects_path();
        toolspec_runtime::projection::Projection {
            param: &self.param,
            objects: &objects,
            fields: &fields,
            always: &always,
            default: default.as_deref(),
        }
        .apply(arguments, result);
    }

    /// Whether a call that passes no field list gets `field`.
    pub fn sent_by_default(&self, field: &str) -> bool {
        self.always.iter().any(|a| a == field)
            || self
                .default
                .as_ref()
                .is_none_or(|d| d.iter().any(|x| x == field))
    }
}

/// The parameters of page-number paging (`paging: {style: pages}`).
#[derive(Debug, Clone, PartialEq)]
pub struct PageNumbers {
    /// The page-number parameter (`page`), from 1.
    pub page: String,
    /// The page-size parameter (`per_page`, `perPage`).
    pub size: String,
}

impl Paging {
    /// The list's place in a result as the runtime reads it: keys joined by `/`
    /// (`result/reviews`); field names hold no `/`.
    pub fn pointer(&self) -> String {
        self.path.join("/")
    }

    /// The paged list's field among `output`, following `items` down objects and the
    /// variants of tagged unions (`result.get_reviews.reviews`); of `result.*.items`, the
    /// first variant's.
    pub fn list<'f>(&self, output: &'f [Field]) -> Option<&'f Field> {
        let segments: Vec<&str> = self.items.text.split('.').collect();
        find_list(output, &segments).ok()
    }

    /// The variants of a tagged union whose results are pages (`[get_reviews]` for
    /// `result.get_reviews.reviews`, every variant holding `items` for `result.*.items`), at
    /// the first union the path goes through; empty when it goes through none.
    pub fn variants(&self, output: &[Field]) -> Vec<String> {
        let segments: Vec<&str> = self.items.text.split('.').collect();
        let mut level = output;
        for (i, seg) in segments.iter().enumerate() {
            let Some(f) = level.iter().find(|f| f.name == *seg) else {
                return Vec::new();
            };
            match &f.ty.kind {
                Kind::Object { fields, .. } => level = fields,
                Kind::Union { variants, .. } => {
                    let (Some(v), Some(next)) = (segments.get(i + 1), segments.get(i + 2)) else {
                        return Vec::new();
                    };
                    return variants
                        .iter()
                        .filter(|x| *v == "*" || x.name == *v)
                        .filter(|x| match &x.ty.kind {
                            Kind::Object { fields, .. } => fields.iter().any(|f| f.name == *next),
                            _ => false,
                        })
                        .map(|x| x.name.clone())
                        .collect();
                }
                _ => return Vec::new(),
            }
        }
        Vec::new()
    }

    /// Whether the output field at the dotted `path` (variant names included) is a paged
    /// list: `items` itself, or one of the lists its `*` stands for.
    pub fn names(&self, path: &str) -> bool {
        let (ours, theirs) = (self.items.text.split('.'), path.split('.'));
        ours.clone().count() == theirs.clone().count()
            && ours.zip(theirs).all(|(a, b)| a == "*" || a == b)
    }

    /// The name of the page-size parameter: `limit`, or the `size_param` of page numbers.
    pub fn size_param(&self) -> &str {
        self.pages.as_ref().map_or("limit", |p| p.size.as_str())
    }
}

/// A rule over which parameters are passed together.
#[derive(Debug, Clone, PartialEq)]
pub enum Requirement {
    /// Exactly one of these.
    ExactlyOne(Vec<Text>),
    /// At least one of these.
    AtLeastOne(Vec<Text>),
    /// All of these or none.
    AllOrNone(Vec<Text>),
    /// `field` only together with `needs`.
    Requires {
        /// The parameter that needs others.
        field: Text,
        /// The parameters it needs.
        needs: Vec<Text>,
    },
    /// Rules for some values of the enum parameter `field` (`when: { method: get_diff }`):
    /// while it holds one of `values`, `needs` are required; while it holds another,
    /// `allows` are refused.
    When {
        /// The enum parameter the rule looks at.
        field: Text,
        /// The values it is about, each one of the enum's.
        values: Vec<Text>,
        /// Whether `field` left out holds one of `values` (its default is one of them).
        by_default: bool,
        /// Parameters required for those values.
        needs: Vec<Text>,
        /// Parameters taken only for those values.
        allows: Vec<Text>,
    },
}

impl Requirement {
    /// Every parameter the rule names.
    pub fn names(&self) -> Vec<&Text> {
        match self {
            Requirement::ExactlyOne(n) | Requirement::AtLeastOne(n) | Requirement::AllOrNone(n) => {
                n.iter().collect()
            }
            Requirement::Requires { field, needs } => {
                std::iter::once(field).chain(needs.iter()).collect()
            }
            Requirement::When {
                field,
                needs,
                allows,
                ..
            } => std::iter::once(field)
                .chain(needs.iter())
                .chain(allows.iter())
                .collect(),
        }
    }
}

/// An output union whose variant follows an enum parameter (`selected_by: method`).
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The top-level output field holding the union.
    pub field: String,
    /// The union's tag key.
    pub tag: String,
    /// The parameter whose value names the variant; where `selected_by` was written.
    pub param: Text,
}

/// Idempotency settings of a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Idempotency {
    /// How long keys are kept.
    pub ttl: Duration,
    /// Why `idempotency_key` may be left out (`key_optional`); `None`: it is required.
    pub key_optional: Option<Text>,
    /// Where it was declared.
    pub span: Span,
}

/// Preview settings of an irreversible tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    /// How long a preview can be applied.
    pub ttl: Duration,
    /// Who approves the change.
    pub approval: Approval,
    /// Fields the preview shows beside its summary.
    pub fields: Vec<Field>,
    /// Where it was declared.
    pub span: Span,
}

/// The call that undoes a reversible tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Undo {
    /// The tool to call.
    pub tool: Text,
    /// (parameter of that tool, dotted path into this tool's result).
    pub arguments: Vec<(Text, Text)>,
    /// Where it was declared.
    pub span: Span,
}

/// An example call and its expected outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// What it shows.
    pub title: Text,
    /// The arguments as an agent passes them.
    pub arguments: serde_json::Value,
    /// Expected result (or part of it), for a success.
    pub result: Option<serde_json::Value>,
    /// What the preview shows (or part of it), for a success of a previewed tool.
    pub preview: Option<serde_json::Value>,
    /// Expected error code, for a failure.
    pub error: Option<Text>,
    /// Where the example starts.
    pub span: Span,
}

/// One code of a toolset's error catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorCode {
    /// snake_case code.
    pub code: String,
    /// Message template with `{placeholders}` from `details`.
    pub message: String,
    /// Whether retrying the same call can succeed.
    pub retryable: bool,
    /// When it happens.
    pub when: Option<String>,
    /// What `details` carry.
    pub details: Vec<Field>,
    /// Whether the runtime defines it (every toolset has these).
    pub builtin: bool,
    /// Where it was declared (the spec's top for built-in codes).
    pub span: Span,
}

/// Why `paging.items` finds no list: the dotted prefix where the walk stopped and what it
/// found there.
#[derive(Debug, Clone, PartialEq)]
pub enum ListProblem {
    /// No field of this name at `at` (the lists there, to suggest).
    NoField {
        /// The name looked for.
        name: String,
        /// The list fields at that level.
        lists: Vec<String>,
    },
    /// The path ends at a field that is not a list.
    NotAList {
        /// The field's name.
        name: String,
        /// Its JSON type.
        json_type: &'static str,
    },
    /// A step into a field that has no fields (a scalar, a list, a map).
    NotAnObject {
        /// The field's name.
        name: String,
        /// Its JSON type.
        json_type: &'static str,
    },
    /// A tagged union's variant is missing or is the path's last step.
    NoVariant {
        /// The union field's name.
        union: String,
        /// Its variants.
        variants: Vec<String>,
    },
    /// `<union>.*.<name>`: no variant of the union has a field of that name.
    NoVariantHolds {
        /// The union field's name.
        union: String,
        /// The field looked for in its variants.
        name: String,
    },
    /// An untagged union, whose results cannot say which variant they are.
    Untagged {
        /// The union field's name.
        union: String,
    },
}

/// Follows `segments` (`paging.items` split at `.`) from `fields` to a list field: object
/// fields by name, a tagged union by the name of one of its variants. The first list of
/// [`find_lists`].
pub fn find_list<'f>(fields: &'f [Field], segments: &[&str]) -> Result<&'f Field, ListProblem> {
    find_lists(fields, segments).map(|lists| lists[0])
}

/// Every list `segments` names, never none: one, or, where a tagged union's variant is
/// written `*` (`result.*.items`), the list of each variant that has a field by the next
/// name. Those lists sit at the same JSON keys, so the runtime finds the page of any of
/// them at one pointer; a variant without that field holds no page.
pub fn find_lists<'f>(
    fields: &'f [Field],
    segments: &[&str],
) -> Result<Vec<&'f Field>, ListProblem> {
    let Some((first, rest)) = segments.split_first() else {
        return Err(ListProblem::NoField {
            name: String::new(),
            lists: Vec::new(),
        });
    };
    let Some(f) = fields.iter().find(|f| f.name == *first) else {
        return Err(ListProblem::NoField {
            name: (*first).to_string(),
            lists: fields
                .iter()
                .filter(|f| matches!(f.ty.kind, Kind::Array { .. }))
                .map(|f| f.name.clone())
                .collect(),
        });
    };
    if rest.is_empty() {
        return match f.ty.kind {
            Kind::Array { .. } => Ok(vec![f]),
            _ => Err(ListProblem::NotAList {
                name: f.name.clone(),
                json_type: f.ty.json_type(),
            }),
        };
    }
    match &f.ty.kind {
        Kind::Object {
            fields,
            open: false,
            ..
        } => find_lists(fields, rest),
        Kind::Union {
            variants,
            tag: Some(_),
        } => {
            let no_variant = || ListProblem::NoVariant {
                union: f.name.clone(),
                variants: variants.iter().map(|v| v.name.clone()).collect(),
            };
            let inner = &rest[1..];
            if inner.is_empty() {
                return Err(no_variant());
            }
            if rest[0] == "*" {
                // Every variant whose fields hold the next name; each must lead to a list.
                let mut lists = Vec::new();
                for v in variants {
                    if let Kind::Object { fields, .. } = &v.ty.kind
                        && fields.iter().any(|x| x.name == inner[0])
                    {
                        lists.extend(find_lists(fields, inner)?);
                    }
                }
                return if lists.is_empty() {
                    Err(ListProblem::NoVariantHolds {
                        union: f.name.clone(),
                        name: inner[0].to_string(),
                    })
                } else {
                    Ok(lists)
                };
            }
            match variants.iter().find(|v| v.name == rest[0]) {
                Some(v) => match &v.ty.kind {
                    Kind::Object { fields, .. } => find_lists(fields, inner),
                    _ => Err(ListProblem::NotAnObject {
                        name: v.name.clone(),
                        json_type: v.ty.json_type(),
                    }),
                },
                None => Err(no_variant()),
            }
        }
        Kind::Union { tag: None, .. } => Err(ListProblem::Untagged {
            union: f.name.clone(),
        }),
        _ => Err(ListProblem::NotAnObject {
            name: f.name.clone(),
            json_type: f.ty.json_type(),
        }),
    }
}

/// The JSON keys of `segments` from `fields`: the segments without the variant names
/// (a tagged union's variant, or its `*`, is not a key of its value), and whether one was
/// passed.
pub fn keys_of(fields: &[Field], segments: &[&str]) -> (Vec<String>, bool) {
    let mut keys = Vec::new();
    let mut in_variant = false;
    let mut level = fields;
    let mut i = 0;
    while let Some(seg) = segments.get(i) {
        keys.push((*seg).to_string());
        let Some(f) = level.iter().find(|f| f.name == *seg) else {
            break;
        };
        match &f.ty.kind {
            Kind::Object { fields, .. } => level = fields,
            Kind::Union { variants, .. } => {
                in_variant = true;
                i += 1;
                // `*`: the variants holding the next name hold it at the same keys; the
                // first of them leads the walk on.
                let next = segments.get(i + 1).copied();
                let holds = |x: &&Field| match &x.ty.kind {
                    Kind::Object { fields, .. } => {
                        fields.iter().any(|f| Some(f.name.as_str()) == next)
                    }
                    _ => false,
                };
                let variant = match segments.get(i) {
                    Some(&"*") => variants.iter().find(holds),
                    Some(v) => variants.iter().find(|x| x.name == *v),
                    None => None,
                };
                match variant.map(|v| &v.ty.kind) {
                    Some(Kind::Object { fields, .. }) => level = fields,
                    _ => break,
                }
            }
            _ => {}
        }
        i += 1;
    }
    (keys, in_variant)
}
