//! The spec format, version 1: one YAML file describes one toolset.
//!
//! These structs are the single source of the format. The loader's shape check, the JSON
//! Schema that `toolspec schema` prints (and editors use to complete specs), and the format
//! reference in `docs/spec-format.md` are all derived from them, so the documentation of a
//! key cannot drift from what the loader accepts. Doc comments here are user documentation:
//! the first paragraph of each is the key's description in the reference.

use crate::spec::spanned::{Sp, SpMap};
pub use crate::spec::upstream::{AuthScheme, Http, HttpMethod, Upstream, UpstreamAuth};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// A toolspec file: one service's tools, their shared types and their error catalog.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "toolspec spec, format version 1")]
pub struct SpecFile {
    /// Format version of this file. Always `1` for now.
    pub toolspec: Sp<u32>,
    /// Service namespace, snake_case (`tickets`). Every tool name starts with it followed by `_`,
    /// so tools from several servers never collide in one host.
    pub service: Sp<String>,
    /// Human title of the toolset (`Support tickets`).
    pub title: Sp<String>,
    /// What the toolset is for, in a sentence or two. Shown at the top of the docs.
    pub description: Sp<String>,
    /// Toolset-wide defaults for paging, idempotency, previews and response size, which tools
    /// may override.
    #[serde(default)]
    pub defaults: Option<Defaults>,
    /// Shared named types (PascalCase names), reused by parameters, outputs and error details.
    /// A named type is an object with `fields`, or a constrained scalar such as a status enum.
    #[serde(default)]
    pub types: Option<SpMap<Field>>,
    /// The error catalog: codes (snake_case) this toolset's tools may return beyond the
    /// built-in ones (argument validation, cursors, idempotency, previews, internal errors),
    /// which exist in every toolset without being written.
    #[serde(default)]
    pub errors: Option<SpMap<ErrorDef>>,
    /// How many calls each caller may make to the toolset's tools, counted together: one
    /// budget shared by every tool without a `rate_limit` of its own. Said in each tool's
    /// description, kept by the generated server across every replica sharing its store,
    /// and a call past it is refused with the built-in `rate_limited`.
    #[serde(default)]
    pub rate_limit: Option<Sp<RateLimit>>,
    /// The HTTP API the tools forward to, for a toolset made from an API it does not own
    /// (`toolspec import openapi` writes it): its base URL and how requests carry the
    /// credential. Each tool then says the request it becomes in `http`.
    #[serde(default)]
    pub upstream: Option<Sp<Upstream>>,
    /// The tools, in the order agents and docs list them.
    pub tools: Sp<Vec<Tool>>,
    /// The toolset's tools in named groups, for a catalog too big to send a model whole
    /// (past 30 or so tools, models pick worse and pay for every definition on every turn).
    /// With groups, every tool belongs to exactly one. The groups marked `up_front` are
    /// loaded on every turn; the others are deferred: the Anthropic list marks their tools
    /// `defer_loading` and adds the tool search tool, the OpenAI Responses list makes each
    /// group a namespace beside `tool_search`, and the lists of providers without deferral
    /// (OpenAI Chat Completions, Gemini) hold the up-front groups only. A generated server
    /// can serve some groups and not others (`--groups`).
    #[serde(default)]
    pub groups: Option<SpMap<Group>>,
    /// How a model finds the deferred groups' tools on Anthropic: `bm25` (natural-language
    /// queries, the default) or `regex` (patterns over names and descriptions). Only read
    /// when some group is not `up_front`.
    #[serde(default)]
    pub tool_search: Option<Sp<ToolSearch>>,
    /// Lint configuration for this spec: the rule set and rules to allow or deny.
    #[serde(default)]
    pub lint: Option<LintConfig>,
}

/// A named group of the toolset's tools: what a model searches for, a provider namespaces
/// and a server may serve alone. Its name (snake_case, `pulls`) is what operators pass to
/// `--groups`; providers see it after the service (`github_pulls`). Give the tools either
/// by name (`tools`) or by a name pattern (`match`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// What the group's tools are for, in a sentence a model reads before any of them is
    /// loaded (the OpenAI namespace's description): say what they act on and the words a
    /// user would use (`Pull requests: list, read, open, review and merge them.`).
    pub description: Sp<String>,
    /// The group's tools by name.
    #[serde(default)]
    pub tools: Option<Sp<Vec<Sp<String>>>>,
    /// The group's tools by a pattern of their names, where `*` stands for any run of
    /// characters (`github_pulls_*`).
    #[serde(default, rename = "match")]
    pub pattern: Option<Sp<String>>,
    /// Load the group's tools on every turn instead of deferring them until a search finds
    /// them: for the few tools most tasks need (keep it to a handful). Default false.
    #[serde(default)]
    pub up_front: Option<Sp<bool>>,
}

/// The tool search tool the Anthropic list adds for the deferred groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolSearch {
    /// BM25 over the tools' names, descriptions and parameters; the model writes a
    /// natural-language query. The default.
    #[default]
    Bm25,
    /// Python regular expressions over the same text; the model writes a pattern.
    Regex,
}

impl ToolSearch {
    /// The value as the spec writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolSearch::Bm25 => "bm25",
            ToolSearch::Regex => "regex",
        }
    }
}

/// Defaults every tool of the toolset inherits unless it overrides them.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Page sizes for paginated tools. Built-in default: `default_limit: 20`, `max_limit: 100`.
    #[serde(default)]
    pub paging: Option<PagingLimits>,
    /// Idempotency settings for writes. Built-in default: `ttl: 24h`.
    #[serde(default)]
    pub idempotency: Option<IdempotencyDefaults>,
    /// Preview settings for irreversible tools. Built-in default: `ttl: 10m`.
    #[serde(default)]
    pub preview: Option<PreviewDefaults>,
    /// Where the writes' effects happen (`store`, `remote_keyed`, `remote_lookup` or
    /// `remote_unprotected`), unless a tool says otherwise. Built-in default: `store`.
    #[serde(default)]
    pub effect: Option<Sp<Effect>>,
    /// How much of each tool's output schema the MCP `tools/list` publishes (`shape`,
    /// `full` or `none`), unless a tool says otherwise. Built-in default: `shape`.
    #[serde(default)]
    pub output_schema: Option<Sp<OutputSchema>>,
    /// Largest result, in estimated tokens, a tool returns before the runtime truncates it
    /// with a note. Built-in default: `5000`.
    #[serde(default)]
    pub token_budget: Option<Sp<u32>>,
    /// What one request to the server may cost: its size and nesting. A larger or deeper
    /// request is refused before it is parsed, over HTTP and stdio alike. Built-in default:
    /// `request_bytes: 1048576`, `depth: 64`.
    #[serde(default)]
    pub limits: Option<RequestLimits>,
    /// The OAuth scopes a caller's token must grant, all of them, to list and call a tool,
    /// by tier, unless a tool names its own `scopes`. Built-in default: `read:
    /// [<service>:read]`, `write: [<service>:write]`.
    #[serde(default)]
    pub scopes: Option<ScopeDefaults>,
}

/// The scopes tools need by tier. Each list replaces its built-in default; `[]` lets any
/// authenticated caller through.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScopeDefaults {
    /// Scopes read-only tools need. Built-in default: `[<service>:read]`.
    #[serde(default)]
    pub read: Option<Sp<Vec<Sp<String>>>>,
    /// Scopes writes (reversible and irreversible) need. Built-in default:
    /// `[<service>:write]`.
    #[serde(default)]
    pub write: Option<Sp<Vec<Sp<String>>>>,
}

/// The limits on one request, enforced by the generated server before any tool runs.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestLimits {
    /// Largest request, in bytes (an HTTP body, or a line on stdio). Raise it for tools that
    /// take large text. Built-in default: `1048576`.
    #[serde(default)]
    pub request_bytes: Option<Sp<u64>>,
    /// Deepest nesting of arrays and objects in a request, counting the protocol's own
    /// three or four levels. Built-in default: `64`.
    #[serde(default)]
    pub depth: Option<Sp<u32>>,
}

/// A rate limit: at most `calls` calls per `per` for each caller (the token's subject over
/// HTTP, the local user over stdio). A caller's window opens with their first call; calls
/// past `calls` in it are refused until it ends. Counted when a tool method is about to
/// run: a preview and its apply each count; a call refused by validation, a replay from an
/// idempotency key and `tools/list` do not.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateLimit {
    /// Calls each caller may make in one window, at least 1.
    pub calls: Sp<u32>,
    /// How long a window lasts: `second`, `minute`, `hour`, `day`, or a duration of at
    /// least a second (`10s`, `5m`).
    pub per: Sp<String>,
    /// At most this many calls back to back (at most `calls`); after them, one every
    /// `per / calls`. Without it, a caller may make all `calls` at once.
    #[serde(default)]
    pub burst: Option<Sp<u32>>,
}

/// How long a tool may take, and what is usual.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeLimit {
    /// The most a call may run (`30s`, `5m`): a call still running then is stopped, a
    /// write's changes roll back, and the call answers `timeout`.
    pub limit: Sp<String>,
    /// How long a call usually takes (`2s`), at most `limit`; said in the description so
    /// an agent knows when to wait.
    #[serde(default)]
    pub usual: Option<Sp<String>>,
    /// The call may run as a task (MCP's tasks extension) for clients that support it: the
    /// client gets a task handle at once and polls for the result, which is kept for
    /// `kept`. Clients without the extension get the ordinary call. Read-only and
    /// reversible tools only: an irreversible tool's approval is asked within the call.
    #[serde(default)]
    pub task: Option<Sp<TaskTerms>>,
}

/// How a tool's calls run as tasks.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskTerms {
    /// How long a finished task's result can be read (`1h`, the default; at least `1m`).
    #[serde(default)]
    pub kept: Option<Sp<String>>,
}

/// Page size limits.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PagingLimits {
    /// Items per page when the caller passes no `limit`.
    #[serde(default)]
    pub default_limit: Option<Sp<u32>>,
    /// Largest `limit` a caller may pass; larger values are refused with `out_of_range`.
    #[serde(default)]
    pub max_limit: Option<Sp<u32>>,
}

/// Toolset-wide idempotency settings.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdempotencyDefaults {
    /// How long a key and its stored result are kept: a number and a unit, `s`, `m`, `h` or
    /// `d` (`24h`). A retry after that runs again.
    #[serde(default)]
    pub ttl: Option<Sp<String>>,
}

/// Toolset-wide preview settings.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewDefaults {
    /// How long a preview id can be applied: a number and a unit, `s`, `m`, `h` or `d` (`10m`).
    #[serde(default)]
    pub ttl: Option<Sp<String>>,
    /// Who approves irreversible changes, unless a tool says otherwise (default
    /// `host_or_preview`).
    #[serde(default)]
    pub approval: Option<Sp<Approval>>,
}

/// Who approves an irreversible tool's change. Every choice shows a preview first and
/// applies nothing until it is approved; they differ in who may approve it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    /// The person, asked by the host (MCP elicitation) when the client can ask; a client
    /// that cannot ask gets the preview and its `preview_id`, which the model shows the
    /// person and passes back to apply. The default: the tool works from every client,
    /// and the person decides wherever the host can ask.
    HostOrPreview,
    /// Only the person, asked by the host. A client that cannot ask gets
    /// `approval_unavailable` and no preview, and nothing changes: the tool cannot be used
    /// from such a client. Choose it where only a person's yes will do (money, deletion,
    /// messages to others) and the server's hosts can ask.
    Host,
    /// Always the preview flow: the model presents the preview and passes its id back to
    /// apply, with no question to the person by the host. It catches the model's mistakes,
    /// not a model that was talked into the change: it is not a security control. Choose
    /// it for servers run without a person at hand.
    Preview,
}

impl Approval {
    /// The value as the spec writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Approval::HostOrPreview => "host_or_preview",
            Approval::Host => "host",
            Approval::Preview => "preview",
        }
    }
}

/// How much of a tool's output schema the MCP `tools/list` publishes.
///
/// The model reads a tool's name, description and input schema; an output schema is read by
/// clients, which may check `structuredContent` against it, and it is often most of a list's
/// size. What the server promises does not change with it: results are checked against the
/// whole schema by the gauntlet, and the docs show every field with its words and rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputSchema {
    /// The structure a client checks results with: types, fields, which are required,
    /// enums, items, variants; no descriptions, no string or number rules, and the
    /// runtime's own blocks (`truncated`, `preview`, `undo`) as plain objects. The default.
    Shape,
    /// Everything: the structure with every field's description and rules.
    Full,
    /// No output schema: results still carry `structuredContent`, unchecked by clients. For a
    /// port whose original publishes none and whose list must stay as small.
    None,
}

impl OutputSchema {
    /// The value as the spec writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputSchema::Shape => "shape",
            OutputSchema::Full => "full",
            OutputSchema::None => "none",
        }
    }
}

/// Where a write's effect happens, and so what a retry of the call can promise.
///
/// The runtime's records (the idempotency key's outcome, the preview's consumption) live in
/// its store; a change made elsewhere cannot commit with them, so a process that dies after
/// the change and before the commit leaves a change without a record. Each value says how a
/// retry is then kept from making the change twice, and every output promises only that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// In the runtime's store: the method makes the change through its unit of work
    /// (`work`), and it commits with the call's records or not at all, so a retry never
    /// repeats it. The default.
    Store,
    /// At a remote service that honours an idempotency key: the method forwards
    /// `remote.key()`, the same on every retry of one call, and the service makes the
    /// change once per key.
    RemoteKeyed,
    /// At a remote service the method can query: the attempt is recorded before the method
    /// runs, and a retry after an unknown outcome (the process died, the commit failed) is
    /// told so (`remote.earlier_attempt()`), to look the change up by `remote.key()`
    /// instead of making it again.
    RemoteLookup,
    /// At a remote service with neither: at least once. A retry after a lost answer may
    /// make the change twice, and every output says so.
    RemoteUnprotected,
}

impl Effect {
    /// The value as the spec writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Store => "store",
            Effect::RemoteKeyed => "remote_keyed",
            Effect::RemoteLookup => "remote_lookup",
            Effect::RemoteUnprotected => "remote_unprotected",
        }
    }

    /// Whether the change happens outside the runtime's store.
    pub fn is_remote(self) -> bool {
        self != Effect::Store
    }
}

/// The type names a field's `type` may use besides the names of `types`: the JSON ones, then
/// the content types of a tool's outputs. The format's schema offers them (`examples`) and
/// its reference lists them, from this one list.
pub const BUILTIN_TYPES: &[&str] = &[
    "string",
    "integer",
    "number",
    "boolean",
    "array",
    "object",
    "map",
    "union",
    "image",
    "audio",
    "text",
    "resource_link",
];

/// A parameter, an output field, an error detail, or a named type.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// The type: `string`, `integer`, `number`, `boolean`, `array` (with `items`), `object`
    /// (with `fields`), `map` (keys chosen by the caller, with `values`), `union` (one of
    /// several `variants`), or the name of a type from `types`. A tool's top-level outputs
    /// may also be content, sent to the client as its own MCP content block beside the JSON
    /// result: `image` and `audio` (base64 data with its MIME type), `text` (a long text,
    /// cut to the token budget from its end) and `resource_link` (a link the client can
    /// open, also kept in the result).
    #[serde(rename = "type")]
    #[schemars(extend("examples" = BUILTIN_TYPES))]
    pub ty: Sp<String>,
    /// What the value means, for the agent. Required on parameters, output fields and
    /// error details; optional on array `items` and named types.
    #[serde(default)]
    pub description: Option<Sp<String>>,
    /// A realistic value: a parameter's is shown to the agent in its description, an output
    /// field's in the docs and their example results. Required on scalars, unless an example
    /// written above the field gives it a value its type accepts: the `example` of its object
    /// or list field, of the named type it is inside (`PullRequest: {type: object, example:
    /// {number: 42, title: ...}}`), or a success `result` of the tool; the field's example is
    /// then that value. Objects and arrays compose theirs from their fields' and items'
    /// examples when it is left out.
    #[serde(default)]
    pub example: Option<Sp<Value>>,
    /// Whether the caller must pass it (for outputs: whether it is always present). Defaults to
    /// `true`, or to `false` when a `default` is given.
    #[serde(default)]
    pub required: Option<Sp<bool>>,
    /// Value used when the caller leaves the parameter out. Implies `required: false`.
    #[serde(default)]
    pub default: Option<Sp<Value>>,
    /// The closed set of allowed values: strings on a `string` (`enum: [open, closed]`),
    /// whole numbers on an `integer` (`enum: [1, 2, 5]`). Any other value is refused with
    /// `invalid_enum`.
    #[serde(default, rename = "enum")]
    pub enum_values: Option<Sp<Vec<Sp<EnumValue>>>>,
    /// What some of the `enum` values mean, by value (`closed: Resolved, or abandoned by the
    /// customer.`; an integer's values are written as keys too, `1: Urgent.`): said beside
    /// each value wherever the values are listed.
    #[serde(default)]
    pub enum_descriptions: Option<SpMap<Sp<String>>>,
    /// Smallest allowed number (inclusive).
    #[serde(default)]
    pub minimum: Option<Sp<f64>>,
    /// Largest allowed number (inclusive).
    #[serde(default)]
    pub maximum: Option<Sp<f64>>,
    /// Fewest characters a string may have.
    #[serde(default)]
    pub min_length: Option<Sp<u64>>,
    /// Most characters a string may have.
    #[serde(default)]
    pub max_length: Option<Sp<u64>>,
    /// Regular expression a string must match (searched, as in JSON Schema: anchor it with
    /// `^...$` to match the whole value).
    #[serde(default)]
    pub pattern: Option<Sp<String>>,
    /// Well-known string format the value must have.
    #[serde(default)]
    pub format: Option<Sp<Format>>,
    /// Fewest items an array may have.
    #[serde(default)]
    pub min_items: Option<Sp<u64>>,
    /// Most items an array may have.
    #[serde(default)]
    pub max_items: Option<Sp<u64>>,
    /// The type of each item of an array.
    #[serde(default)]
    pub items: Option<Box<Field>>,
    /// The fields of an object, in order.
    #[serde(default)]
    pub fields: Option<SpMap<Field>>,
    /// Output fields only: present only in `detailed` responses of tools with
    /// `response_format`, left out of `concise` ones.
    #[serde(default)]
    pub detailed_only: Option<Sp<bool>>,
    /// Makes `null` a value of its own. On an optional parameter, `null` clears what is
    /// stored and leaving it out keeps it (an update's "remove the milestone"; the Rust
    /// type is `Clearable<T>`); on a required one, or an output field, `null` says "none".
    #[serde(default)]
    pub nullable: Option<Sp<bool>>,
    /// A map's values: the type every value has (`type: map` only).
    #[serde(default)]
    pub values: Option<Box<Field>>,
    /// A map's keys: the rules every key follows (`type: map` only). Keys are strings.
    #[serde(default)]
    pub keys: Option<Sp<MapKeys>>,
    /// Most entries a map may have (`type: map` only).
    #[serde(default)]
    pub max_entries: Option<Sp<u64>>,
    /// Rules over which of an object's fields are passed together (`type: object` with
    /// `fields` only), as a tool's `requires` are over its parameters.
    #[serde(default)]
    pub requires: Option<Vec<Sp<Requirement>>>,
    /// A union's variants, by name (`type: union` only): a value is exactly one of them.
    /// Without `tag` they must differ in JSON type (a date string, or a range object).
    #[serde(default)]
    pub variants: Option<SpMap<Field>>,
    /// A union's tag key (`type: union` only): every variant is an object, and the value's
    /// `tag` key holds the name of its variant (`kind: range`).
    #[serde(default)]
    pub tag: Option<Sp<String>>,
    /// A tagged union in a tool's output whose variant follows an enum parameter
    /// (`selected_by: method`): a call with `method: get_diff` returns the `get_diff`
    /// variant. Every value of the parameter has a variant of its name and every variant a
    /// value; the parameter is required or has a default. The server answers a result of
    /// another variant as an internal error (the implementation broke its spec).
    #[serde(default)]
    pub selected_by: Option<Sp<String>>,
}

/// One value of an `enum`: a string, or a whole number. Which one a field's values must be
/// is its type's to say, checked when the field is resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EnumValue {
    /// A string (`open`, or `'1'` quoted).
    Text(String),
    /// A whole number (`1`, unquoted).
    Integer(i64),
}

impl std::fmt::Display for EnumValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EnumValue::Text(s) => f.write_str(s),
            EnumValue::Integer(n) => write!(f, "{n}"),
        }
    }
}

impl<'de> Deserialize<'de> for EnumValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = EnumValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a whole number")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<EnumValue, E> {
                Ok(EnumValue::Text(v.to_owned()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<EnumValue, E> {
                Ok(EnumValue::Integer(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<EnumValue, E> {
                i64::try_from(v).map(EnumValue::Integer).map_err(|_| {
                    E::invalid_value(serde::de::Unexpected::Unsigned(v), &"a 64-bit integer")
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for EnumValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EnumValue".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["string", "integer"] })
    }
}

/// The rules every key of a map follows.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MapKeys {
    /// Fewest characters a key may have.
    #[serde(default)]
    pub min_length: Option<Sp<u64>>,
    /// Most characters a key may have.
    #[serde(default)]
    pub max_length: Option<Sp<u64>>,
    /// Regular expression every key must match (searched: anchor it with `^...$`).
    #[serde(default)]
    pub pattern: Option<Sp<String>>,
}

/// String formats a value can be checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// An email address (`a@example.com`).
    Email,
    /// An RFC 3339 timestamp (`2026-11-30T09:00:00Z`).
    DateTime,
    /// An RFC 3339 full date (`2026-11-30`).
    Date,
    /// An absolute URI (`https://example.com/a`).
    Uri,
    /// A UUID (`0b7e4f5a-3c1d-4e2f-9a8b-7c6d5e4f3a2b`).
    Uuid,
}

/// One code of the error catalog.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorDef {
    /// The message the agent reads, with `{placeholders}` filled from the error's `details`.
    /// Say what was wrong and what to do next (`No ticket {ticket_id}. Find the id with
    /// tickets_search.`).
    pub message: Sp<String>,
    /// Whether the same call can succeed if made again later (`rate_limited`: true,
    /// `not_found`: false). Agents decide whether to retry from this flag alone.
    pub retryable: Sp<bool>,
    /// When the error happens, for the docs.
    #[serde(default)]
    pub when: Option<Sp<String>>,
    /// What the error's `details` carry: the missing piece the agent needs to recover.
    #[serde(default)]
    pub details: Option<SpMap<Field>>,
}

/// A tool: one action an agent can take.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// `<service>_<verb>` or `<service>_<resource>_<verb>`, snake_case (`tickets_search`).
    /// Letters, digits, `_` and `-`, starting with a letter, at most 64 characters, so a port
    /// keeps its original's name (`list-events`); Rust names derive from it (`list_events`).
    pub name: Sp<String>,
    /// Human title (`Search tickets`).
    pub title: Sp<String>,
    /// One line: what the tool does (`Search support tickets by free text.`).
    pub summary: Sp<String>,
    /// What a successful call returns (`Matching tickets, best match first, with the total.`).
    pub returns: Sp<String>,
    /// When an agent should pick this tool, as a clause that reads after "Use when"
    /// (`the user asks about past or current customer issues.`).
    #[serde(default)]
    pub use_when: Option<Sp<String>>,
    /// Requests this tool is not for, each naming the tool to use instead.
    #[serde(default)]
    pub not_for: Option<Vec<NotFor>>,
    /// Side-effect tier: `read_only`, `reversible` (returns an undo call) or `irreversible`
    /// (preview first, then apply).
    pub tier: Sp<Tier>,
    /// Whether the tool reaches outside the service's own data (sends email, calls a third
    /// party). Sets MCP's `openWorldHint`. Default `false`.
    #[serde(default)]
    pub open_world: Option<Sp<bool>>,
    /// The OAuth scopes a caller's token must grant, all of them, to list and call this tool
    /// over an authorized server (RFC 6749 scope tokens: no spaces, quotes or backslashes).
    /// Replaces the toolset's `defaults.scopes` for its tier (`<service>:read` for
    /// read-only tools, `<service>:write` for writes); `[]` lets any authenticated caller
    /// through. Never shown to the model.
    #[serde(default)]
    pub scopes: Option<Sp<Vec<Sp<String>>>>,
    /// How many calls each caller may make to this tool, counted for it alone; replaces the
    /// toolset's shared `rate_limit`. Said in the description; a call past it is refused
    /// with `rate_limited` before the tool runs.
    #[serde(default)]
    pub rate_limit: Option<Sp<RateLimit>>,
    /// How long the tool may take: the generated server stops a call still running at
    /// `limit` (a write's changes roll back) and answers the built-in `timeout`; `usual`
    /// says what to expect. Both are said in the description.
    #[serde(default)]
    pub time: Option<Sp<TimeLimit>>,
    /// The parameters, in order. Paging, response format, idempotency and preview parameters
    /// are added from the settings below and must not be written here.
    #[serde(default)]
    pub params: Option<SpMap<Field>>,
    /// The fields of a successful result, in order. Paging, replay, preview and undo fields
    /// are added from the settings below.
    pub output: Sp<SpMap<Field>>,
    /// Rules over which parameters are passed together, each checked by the server before
    /// the tool runs and stated in the description (`Pass exactly one of date, range.`).
    #[serde(default)]
    pub requires: Option<Vec<Sp<Requirement>>>,
    /// Codes from the catalog this tool may return (built-in codes need not be listed).
    #[serde(default)]
    pub errors: Option<Vec<Sp<String>>>,
    /// Makes the tool paginated: adds `limit` and `cursor` parameters and `total` and
    /// `next_cursor` outputs.
    #[serde(default)]
    pub paging: Option<Sp<Paging>>,
    /// Adds a `response_format` parameter (`concise` or `detailed`); fields marked
    /// `detailed_only` are left out of concise results.
    #[serde(default)]
    pub response_format: Option<Sp<ResponseFormat>>,
    /// Lets a read-only tool's caller choose which output fields come back: adds a
    /// parameter (`fields` unless `param` says otherwise) listing output field names. The
    /// method still returns every field; the generated layer drops the ones not asked for.
    #[serde(default)]
    pub projection: Option<Sp<Projection>>,
    /// Makes a write safe to retry: adds an `idempotency_key` parameter; a repeat with the
    /// same key and arguments returns the stored result marked `replayed`.
    #[serde(default)]
    pub idempotency: Option<Sp<Idempotency>>,
    /// Gates a write: a call without `preview_id` returns what would change and a preview
    /// id; the call with that id and the same arguments applies it once. Required on an
    /// irreversible tool (unless `low_risk`); on a reversible one, for a change whose side
    /// effects an undo cannot recall (the guests it emails), the applied result carries
    /// its undo as usual.
    #[serde(default)]
    pub preview: Option<Sp<Preview>>,
    /// Where a write's effect happens (defaults to the toolset's `defaults.effect`, else
    /// `store`): in the runtime's store (`store`), or at a remote service that honours a
    /// forwarded key (`remote_keyed`), that the method can query for an earlier attempt
    /// (`remote_lookup`), or neither (`remote_unprotected`, at least once). Descriptions
    /// promise only what then holds.
    #[serde(default)]
    pub effect: Option<Sp<Effect>>,
    /// How much of the output schema the MCP `tools/list` publishes for this tool (defaults
    /// to the toolset's `defaults.output_schema`, else `shape`). The server checks its
    /// results against the whole schema either way, and the docs show all of it.
    #[serde(default)]
    pub output_schema: Option<Sp<OutputSchema>>,
    /// For an irreversible tool whose change a person need not approve first (posting a
    /// chat message, adding a reaction): the reason, in a sentence, which docs and lint
    /// show. The tool is then served in one call, without a preview, and hosts are told it
    /// only adds (`destructiveHint: false`); it still cannot be undone through the toolset.
    #[serde(default)]
    pub low_risk: Option<Sp<String>>,
    /// For reversible tools: the call that undoes this one, built from the result.
    #[serde(default)]
    pub undo: Option<Sp<Undo>>,
    /// Old names of this tool, still routed to it; the result tells the agent the new name.
    #[serde(default)]
    pub deprecated_aliases: Option<Vec<Sp<String>>>,
    /// Calls and their expected outcome. Used in descriptions, docs and the gauntlet.
    #[serde(default)]
    pub examples: Option<Vec<Example>>,
    /// Requests a user would make that should route to this tool (`find tickets about the
    /// login loop`). The misroute lint checks each lands closer to this tool than any other.
    #[serde(default)]
    pub requests: Option<Vec<Sp<String>>>,
    /// Overrides the toolset's `token_budget` for this tool's results.
    #[serde(default)]
    pub token_budget: Option<Sp<u32>>,
    /// The HTTP request a call becomes, for a toolset with `upstream`: method, path and
    /// where each parameter goes.
    #[serde(default)]
    pub http: Option<Sp<Http>>,
    /// Lint allowances for this tool only, each with its reason.
    #[serde(default)]
    pub lint: Option<ToolLint>,
}

/// One rule over which parameters are passed together: write exactly one of
/// `exactly_one_of`, `at_least_one_of`, `all_or_none`, `if_given` with `needs`, or `when`
/// with `needs`, `allows` or both.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// Exactly one of these parameters (`[date, range]`: one, not both, not neither).
    #[serde(default)]
    pub exactly_one_of: Option<Vec<Sp<String>>>,
    /// At least one of these (an update that changes something: `[title, body, milestone]`).
    #[serde(default)]
    pub at_least_one_of: Option<Vec<Sp<String>>>,
    /// All of these or none (`[start, end]` of a window).
    #[serde(default)]
    pub all_or_none: Option<Vec<Sp<String>>>,
    /// A parameter that may only be passed together with `needs` (`thread_ts`).
    #[serde(default)]
    pub if_given: Option<Sp<String>>,
    /// With `if_given`: the parameters it needs (`[channel]`). With `when`: the parameters
    /// required while the enum parameter holds that value (`[line]`).
    #[serde(default)]
    pub needs: Option<Vec<Sp<String>>>,
    /// A rule that holds for some values of one enum parameter: the parameter and its value,
    /// or a list of its values (`{ subject_type: LINE }`, `{ method: [get_diff, get_files] }`).
    /// Write it with `needs` (required for those values), `allows` (taken only for those
    /// values, refused for the others) or both. A parameter left out holds its default.
    #[serde(default)]
    pub when: Option<SpMap<Sp<Value>>>,
    /// With `when`: the parameters taken only while the enum parameter holds one of its
    /// values, and refused for every other value (`[after]` when `method` is
    /// `get_review_comments`).
    #[serde(default)]
    pub allows: Option<Vec<Sp<String>>>,
}

/// A request the tool is not for, and the tool to use instead.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotFor {
    /// The kind of request (`order status`).
    pub when: Sp<String>,
    /// The tool to call instead (`orders_get`). Must exist in the specs checked together.
    #[serde(rename = "use")]
    pub use_tool: Sp<String>,
}

/// Side-effect tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Reads only; safe to call any time.
    ReadOnly,
    /// Changes state and returns the exact call that undoes it.
    Reversible,
    /// Changes state for good (sends, charges, deletes, publishes): preview, then apply.
    Irreversible,
}

/// Paging settings of a tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Paging {
    /// The output field (an array) that holds the page's items, or its dotted path through
    /// objects and tagged-union variants (`result.get_reviews.reviews`). `*` in a variant's
    /// place (`result.*.items`) pages the list of that name in every variant that has one,
    /// for a multiplexed tool whose methods return different lists; results of the other
    /// variants are not pages.
    pub items: Sp<String>,
    /// Items per page when the caller passes no `limit` (defaults to the toolset's).
    #[serde(default)]
    pub default_limit: Option<Sp<u32>>,
    /// Largest `limit` accepted (defaults to the toolset's).
    #[serde(default)]
    pub max_limit: Option<Sp<u32>>,
    /// Whether the backend can count every match. `false` for one that only knows whether
    /// more items follow: the result has no `total`, and the method returns
    /// `Page::more(result, has_more)`. Default `true`.
    #[serde(default)]
    pub total: Option<Sp<bool>>,
    /// Page by position instead of offset: the item fields (top-level fields of the items,
    /// scalars, unique together) that are each item's sort key, in the order the method
    /// returns items (`[ticket_id]`, `[created_at, id]`). The next cursor carries the last
    /// returned item's key and the method gets it as `Window::after`, so a walk neither
    /// skips nor repeats items while others insert or delete. Without it, cursors carry an
    /// offset, for a backend that can only skip.
    #[serde(default)]
    pub keyset: Option<Vec<Sp<String>>>,
    /// How a caller asks for the next page: `cursor` (the default, and the recommendation:
    /// an opaque `next_cursor` bound to the query, which a model cannot get wrong) or
    /// `pages`, page numbers from 1 and a page size, for a port that keeps a
    /// `page`/`per_page` wire ("jump to page 3"). The method gets the same `Window`
    /// (`offset` is `(page - 1) * size`, `Window::page()` the number) and the result says
    /// `next_page` while more follow.
    #[serde(default)]
    pub style: Option<Sp<PagingStyle>>,
    /// `style: pages`: the name of the page-number parameter (default `page`).
    #[serde(default)]
    pub page_param: Option<Sp<String>>,
    /// `style: pages`: the name of the page-size parameter (default `per_page`; GitHub's
    /// is `perPage`). Its default and maximum are `default_limit` and `max_limit`.
    #[serde(default)]
    pub size_param: Option<Sp<String>>,
}

/// How a caller asks for the next page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PagingStyle {
    /// `limit` and an opaque `cursor`; results carry `next_cursor` while more follow.
    Cursor,
    /// A page number from 1 and a page size, named by `page_param` and `size_param`;
    /// results carry `next_page` while more follow.
    Pages,
}

/// Response format settings of a tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResponseFormat {
    /// Format used when the caller passes none. Default `concise`.
    #[serde(default)]
    pub default: Option<Sp<Verbosity>>,
}

/// How much of a result to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verbosity {
    /// Leaves out fields marked `detailed_only`.
    Concise,
    /// Every field.
    Detailed,
}

/// Field projection settings of a read-only tool: which output fields a call asks for.
///
/// Each projected object (the result itself, or each item of the list `items` names)
/// keeps the `always` fields, then the fields the call names in the parameter, or, when it
/// names none, the `default` ones. The parameter's values are the projected object's field
/// names as they are on the wire, `always` ones included (asking for one is harmless). The
/// output schema marks the other fields optional; the Rust type keeps them as written, so
/// the method fills every field and never has to know what was asked.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Projection {
    /// The parameter's name (default `fields`).
    #[serde(default)]
    pub param: Option<Sp<String>>,
    /// The output list whose items are projected, as `paging.items` names one (`events`,
    /// `page.events`); without it, the result's own fields are.
    #[serde(default)]
    pub items: Option<Sp<String>>,
    /// Fields every result keeps, asked for or not: the ids a caller needs to act on an
    /// item, a paged list, a keyset's sort fields.
    #[serde(default)]
    pub always: Option<Vec<Sp<String>>>,
    /// Fields a call that names none gets besides `always` (default: every field). `[]`
    /// returns only the `always` ones unless the call asks for more.
    #[serde(default)]
    pub default: Option<Vec<Sp<String>>>,
}

/// Idempotency settings of a write tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Idempotency {
    /// How long the key and its result are kept (defaults to the toolset's), e.g. `24h`.
    #[serde(default)]
    pub ttl: Option<Sp<String>>,
    /// Makes `idempotency_key` optional, for a low-risk write whose existing callers send
    /// none: the reason, in a sentence (docs show it). A call with a key is still run at
    /// most once; a call without one runs every time it is sent, retries included.
    #[serde(default)]
    pub key_optional: Option<Sp<String>>,
}

/// Preview settings of an irreversible tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Preview {
    /// How long a preview can be applied (defaults to the toolset's), e.g. `10m`.
    #[serde(default)]
    pub ttl: Option<Sp<String>>,
    /// What the preview shows beside its `summary`: the fields of the change that would be
    /// made. A field with the same name in `output` must get the same value when applied.
    #[serde(default)]
    pub fields: Option<SpMap<Field>>,
    /// Who approves the change (defaults to the toolset's `defaults.preview.approval`).
    #[serde(default)]
    pub approval: Option<Sp<Approval>>,
}

/// The call that undoes a reversible tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Undo {
    /// The tool to call (often this one).
    pub tool: Sp<String>,
    /// Its arguments, each taken from the result by a dotted path into the output
    /// (`ticket.ticket_id`, `previous_status`).
    pub arguments: SpMap<Sp<String>>,
}

/// An example call and its expected outcome.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// What the example shows (`Open tickets about the login loop`).
    pub title: Sp<String>,
    /// The arguments, exactly as an agent passes them.
    pub arguments: Sp<Value>,
    /// The expected result when the call succeeds, or only the fields the example is about:
    /// it is laid over the output fields' examples (objects key by key, each list item over
    /// the items' example, a tagged union's value over the variant its tag selects) and must
    /// then pass the output schema. The scalar output fields it gives a value need no
    /// `example` of their own.
    #[serde(default)]
    pub result: Option<Sp<Value>>,
    /// For a previewed tool: what its preview shows for this call (or part of it), such as
    /// the `summary` or the name of the record a delete would remove. The docs compute what
    /// they can from the call and its result; write here what only the server would know.
    #[serde(default)]
    pub preview: Option<Sp<Value>>,
    /// The expected error code when the call fails.
    #[serde(default)]
    pub error: Option<Sp<String>>,
}

/// Lint configuration of a spec.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintConfig {
    /// Rule set: `minimal`, `recommended` (default) or `strict`.
    #[serde(default)]
    pub set: Option<Sp<String>>,
    /// Rule ids to turn off for the whole spec.
    #[serde(default)]
    pub allow: Option<Vec<Sp<String>>>,
    /// Rule ids to turn on as errors.
    #[serde(default)]
    pub deny: Option<Vec<Sp<String>>>,
}

/// Lint allowances on one tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolLint {
    /// Rules not to apply to this tool, each with the reason.
    pub allow: Vec<Allowance>,
}

/// One allowed rule and why.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Allowance {
    /// The rule id (`tool-description-length`).
    pub rule: Sp<String>,
    /// Why the rule does not apply here. Required.
    pub reason: Sp<String>,
}
