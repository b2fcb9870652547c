//! The static facts a generated `<service>_gauntlet.rs` declares: what the spec promises
//! about each tool, and the list of checks that hold an implementation to it.
//!
//! Everything here is `const`-constructible plain data (`&'static str` JSON text, slices),
//! so a generated file is one `static` and no code. The generator decides which checks
//! apply and names them; the runtime only runs them.
//!
//! What the served [`ToolDefinition`] already says (title, description, annotations,
//! aliases, the parameters and their constraints, the example call, the schemas) is not
//! repeated: the checks read it from the server under test, and [`ToolFacts::definition`]
//! holds digests of the definition the spec gave, so a server generated from another spec
//! is caught part by part.

use toolspec_core::engine::ToolDefinition;
use toolspec_core::validate::{Field, Shape};

/// Everything one toolset's spec promises, with the checks that test it.
#[derive(Debug, Clone, Copy)]
pub struct Facts {
    /// Service namespace (`tickets`).
    pub service: &'static str,
    /// Every tool, in the spec's order.
    pub tools: &'static [ToolFacts],
    /// The error catalog: the spec's codes and the built-in ones, with their retryable flag.
    pub errors: &'static [ErrorFacts],
    /// Every check, in the order `cargo test` lists them.
    pub checks: &'static [CheckDef],
}

impl Facts {
    /// The tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&'static ToolFacts> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The check whose full name (`tickets_search::schema_matches_the_spec`) is `name`.
    pub fn check(&self, name: &str) -> Option<&'static CheckDef> {
        self.checks.iter().find(|c| c.name == name)
    }

    /// The catalog entry of `code`.
    pub fn error(&self, code: &str) -> Option<&'static ErrorFacts> {
        self.errors.iter().find(|e| e.code == code)
    }
}

/// One code of the error catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorFacts {
    /// The code.
    pub code: &'static str,
    /// Whether the catalog says retrying the same call may succeed.
    pub retryable: bool,
}

/// A tool's side-effect tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// Changes nothing.
    ReadOnly,
    /// Changes state and returns the undo call.
    Reversible,
    /// Changes state after a preview was shown and applied.
    Irreversible,
}

/// What the spec promises about one tool, besides its definition.
#[derive(Debug, Clone, Copy)]
pub struct ToolFacts {
    /// Canonical name.
    pub name: &'static str,
    /// Side-effect tier.
    pub tier: Tier,
    /// Digests of the definition generated from the spec, one per part of
    /// [`toolspec_core::engine::digest::PARTS`]: the served definition must give the same.
    pub definition: [&'static str; 10],
    /// A realistic value of each parameter, the spec's then the implied ones, as JSON text.
    /// Their constraints come from the served definition's validator table.
    pub param_examples: &'static [ParamExample],
    /// The spec's examples.
    pub examples: &'static [ExampleFacts],
    /// Paging, if the tool pages.
    pub paging: Option<PagingFacts>,
    /// Response formats, if the tool takes `response_format`.
    pub response_format: Option<ResponseFormatFacts>,
    /// The field list a call may pass, if the tool has a `projection`.
    pub projection: Option<toolspec_core::projection::Projection<'static>>,
    /// How long idempotency keys are kept, in seconds, if the tool takes one.
    pub idempotency_ttl_secs: Option<u64>,
    /// The preview, if the tool is gated behind one.
    pub preview: Option<PreviewFacts>,
    /// The tool of the undo call, if reversible.
    pub undo_tool: Option<&'static str>,
    /// The spec's rules over which parameters go together.
    pub requires: &'static [toolspec_core::validate::Condition],
    /// Output unions whose variant follows a parameter (`selected_by`).
    pub selections: &'static [toolspec_core::engine::glue::Selection],
}

impl ToolFacts {
    /// The spec's example of parameter `name`, as JSON text.
    pub fn example_of(&self, name: &str) -> Option<&'static str> {
        self.param_examples
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.example)
    }

    /// Every parameter of the served `definition`, in its order, with the spec's examples.
    pub fn params(&self, definition: &'static ToolDefinition) -> Vec<ParamFacts> {
        definition
            .input
            .fields
            .iter()
            .map(|f| ParamFacts::of(f, self.example_of(f.name).unwrap_or("null")))
            .collect()
    }
}

/// The spec's example value of one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamExample {
    /// The parameter.
    pub name: &'static str,
    /// A realistic value, as JSON text.
    pub example: &'static str,
}

/// One parameter as the checks see it: a served validator [`Field`] (the one form of its
/// constraints), flattened for the probes, with the spec's example.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamFacts {
    /// Its name.
    pub name: &'static str,
    /// JSON type: `string`, `integer`, `number`, `boolean`, `array` or `object`.
    pub json_type: &'static str,
    /// Whether a call must pass it.
    pub required: bool,
    /// Whether `null` is one of its values (it clears, or says "none").
    pub nullable: bool,
    /// The closed set of values of a string, if any (empty: any).
    pub allowed: &'static [&'static str],
    /// The closed set of values of an integer, if any (empty: any).
    pub allowed_integers: &'static [i64],
    /// Numeric bounds.
    pub range: Range,
    /// Fewest characters (when `json_type` is `string`) or items (`array`).
    pub min_length: Option<u64>,
    /// Most characters (when `json_type` is `string`) or items (`array`).
    pub max_length: Option<u64>,
    /// Regular expression a string must contain a match of.
    pub pattern: Option<&'static str>,
    /// Well-known string format (`email`, `date-time`, ...).
    pub format: Option<&'static str>,
    /// The default, as JSON text.
    pub default: Option<&'static str>,
    /// A realistic value, as JSON text.
    pub example: &'static str,
}

impl ParamFacts {
    /// The facts of a validator field, with its example.
    pub fn of(field: &'static Field, example: &'static str) -> Self {
        let mut facts = Self {
            name: field.name,
            json_type: match field.shape {
                // A free-form object is `Any` to the validator.
                Shape::Any => "object",
                ref other => other.type_name(),
            },
            required: field.required,
            nullable: field.nullable,
            allowed: &[],
            allowed_integers: &[],
            range: Range::None,
            min_length: None,
            max_length: None,
            pattern: None,
            format: None,
            default: field.default,
            example,
        };
        match field.shape {
            Shape::String(s) => {
                facts.allowed = s.allowed;
                facts.min_length = s.min_length;
                facts.max_length = s.max_length;
                facts.pattern = s.pattern.map(|p| p.source());
                facts.format = s.format.map(|f| f.name());
            }
            Shape::Integer {
                minimum,
                maximum,
                allowed,
            } => {
                facts.allowed_integers = allowed;
                facts.range = Range::Integer(minimum, maximum);
            }
            Shape::Number { minimum, maximum } => facts.range = Range::Number(minimum, maximum),
            Shape::Array(a) => {
                facts.min_length = a.min_items;
                facts.max_length = a.max_items;
            }
            Shape::Boolean | Shape::Object(_) | Shape::Map(_) | Shape::Union(_) | Shape::Any => {}
        }
        facts
    }
}

impl ParamFacts {
    /// The closed set of values, strings or whole numbers, as JSON (empty: any), in the
    /// spec's order: what `enum` and `details.allowed` list.
    pub fn allowed_values(&self) -> Vec<serde_json::Value> {
        let strings = self.allowed.iter().map(|v| serde_json::Value::from(*v));
        let integers = self
            .allowed_integers
            .iter()
            .map(|v| serde_json::Value::from(*v));
        strings.chain(integers).collect()
    }
}

/// Inclusive numeric bounds of a parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Range {
    /// Not a number, or unbounded.
    None,
    /// A whole number.
    Integer(Option<i64>, Option<i64>),
    /// Any number.
    Number(Option<f64>, Option<f64>),
}

/// One example of the spec and its expected outcome.
#[derive(Debug, Clone, Copy)]
pub struct ExampleFacts {
    /// What it shows.
    pub title: &'static str,
    /// The arguments, as JSON text.
    pub arguments: &'static str,
    /// For a success: a part of the result that must match, as JSON text.
    pub result: Option<&'static str>,
    /// For a failure: the expected error code.
    pub error: Option<&'static str>,
}

/// How a tool pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagingFacts {
    /// The output field holding a page's items, or its path of keys joined by `/`
    /// (`result/reviews`).
    pub items: &'static str,
    /// Items per page when no `limit` is passed.
    pub default_limit: u64,
    /// The largest `limit` accepted.
    pub max_limit: u64,
    /// Whether pages carry `total` (`false`: the backend only knows whether more follow).
    pub total: bool,
    /// Whether pages are cut by position (`keyset`) rather than offset.
    pub keyset: bool,
    /// Page-number paging: the page and page-size parameters (`("page", "perPage")`);
    /// `None`: `limit` and `cursor`.
    pub pages: Option<(&'static str, &'static str)>,
}

impl PagingFacts {
    /// The page-size parameter: `limit`, or page numbers' own.
    pub fn size_param(&self) -> &'static str {
        self.pages.map_or("limit", |(_, size)| size)
    }
}

/// A tool's response formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseFormatFacts {
    /// `concise` or `detailed`.
    pub default: &'static str,
    /// Paths concise results leave out: keys joined by `/`, `*` for every item of a list.
    pub detailed_only: &'static [&'static str],
}

/// A tool's preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviewFacts {
    /// How long a preview may be applied, in seconds.
    pub ttl_secs: u64,
    /// The spec's own preview fields (besides `preview_id`, `expires_at`, `summary`).
    pub fields: &'static [&'static str],
    /// Only the person may approve (`approval: host`): the gauntlet plays the host, asked in
    /// two rounds like the 2026-07-28 protocol, so the preview checks apply unchanged.
    pub host_only: bool,
}

/// One named check of one tool: a `#[test]` in generated code, an outcome in a report.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckDef {
    /// `<tool>::<test name>`, as `cargo test` lists it under `gauntlet::`.
    pub name: &'static str,
    /// The tool it checks.
    pub tool: &'static str,
    /// What it checks.
    pub check: Check,
}

/// What a check tests. See [the crate docs](crate) for what each one calls and expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The served definition matches the spec: name, description, parameters, required,
    /// enums, bounds, annotations, aliases, output schema; the validator enforces the same.
    Schema,
    /// The example at this index gives the outcome the spec says.
    Example(usize),
    /// A call with one bad value of `param` is refused with the right code, the allowed
    /// facts in `details`, a message naming `param`, and a valid call that works.
    Refused {
        /// The parameter made invalid.
        param: &'static str,
        /// How.
        violation: Violation,
    },
    /// An argument the tool does not take is refused, listing the allowed ones.
    UnknownArgument,
    /// Each of the spec's rules over which parameters go together refuses a call that
    /// breaks it, with the rule's code.
    RequirementsEnforced,
    /// Each output union selected by a parameter holds the variant the call's value names:
    /// every successful example, and a call for each value of the parameter.
    SelectionsFollowed,
    /// The same idempotency key twice: one effect, two equivalent answers, the second a replay.
    RetryRunsOnce,
    /// The same key with other arguments is refused.
    RetryWithOtherArgumentsRefused,
    /// Concurrent calls with one key make one effect.
    ConcurrentRetriesRunOnce,
    /// A key is remembered for exactly the published TTL.
    IdempotencyTtl,
    /// A preview changes nothing the read tools can see, and runs no apply.
    PreviewChangesNothing,
    /// Apply does what the preview showed: shared fields have equal values.
    ApplyMatchesPreview,
    /// Apply with arguments other than the previewed ones is refused.
    ApplyChangedArgumentsRefused,
    /// Apply with an already applied preview is refused.
    ApplyUsedPreviewRefused,
    /// Apply after the preview's TTL is refused.
    ApplyExpiredPreviewRefused,
    /// A preview can be applied until just before its published TTL, and says when it expires.
    PreviewTtl,
    /// The undo call a reversible tool returns is valid and restores the prior state.
    UndoRestores,
    /// A write whose commit fails changes nothing the read tools can see: the method wrote
    /// through its unit of work.
    WritesOnlyThroughUnitOfWork,
    /// An apply whose commit failed leaves the preview usable; the retry applies it once.
    FailedApplyKeepsPreview,
    /// A write whose change is made at a remote service that dedupes a forwarded key or can
    /// be queried (`remote_keyed`, `remote_lookup`): after an attempt whose outcome was lost,
    /// the retry does not make the change a second time.
    RemoteRetryChangesOnce,
    /// A write whose change is made at an unprotected remote service: an attempt whose
    /// outcome was lost says the change may have been made, and that a retry may repeat it.
    RemoteRetryMayRepeat,
    /// A host-only tool called by a client that cannot ask the person is refused with
    /// `approval_unavailable`, and nothing changes.
    HostRequired,
    /// For each scope the tool needs, a caller whose token grants every other one is
    /// refused with `insufficient_scope` and nothing changes; one granted all is not.
    ScopesRequired,
    /// The calls one caller may make at once run; the next is refused with `rate_limited`
    /// (retryable, with `details.retry_after_ms` within the window) and changes nothing;
    /// after that wait the call goes through.
    RateLimitKept {
        /// Calls per window, as the description says.
        calls: u32,
        /// The window, in seconds.
        per_secs: u64,
        /// At most this many back to back, if the limit has a burst.
        burst: Option<u32>,
    },
    /// Each successful example (or the base call) finishes well within the tool's time
    /// limit on the fixture's data: a method that needs most of its limit there will be
    /// stopped on real data.
    TimeLimitKept {
        /// The limit, in seconds, as the description says.
        limit_secs: u64,
    },
    /// The call that makes the tool's effect, cancelled while its method waits, leaves the
    /// tools' answers as they were, and the same call made again at once runs: the method
    /// holds nothing after its future is dropped. For tools that say they take time.
    CancelledCallLeavesNothing,
    /// Walking every page returns every item once, within the limit, matching `total`.
    PagesWalkEveryItemOnce,
    /// A forged or foreign cursor is refused.
    ForgedCursorRefused,
    /// Without `limit`, a page holds the published default number of items.
    DefaultLimit,
    /// `limit` = the published maximum is served in full; one more is refused.
    MaxLimit,
    /// Every success validates against the output schema.
    OutputMatchesSchema,
    /// Concise results carry no detailed-only field.
    ConciseOmitsDetailedOnly,
    /// A call naming one field of the projection gets the whole result's projected
    /// objects with only that field and the `always` ones.
    ProjectionKeepsWhatWasAsked,
    /// Every allowed value of `param` is accepted.
    AllowedValuesAccepted {
        /// The enum parameter.
        param: &'static str,
    },
    /// The published bounds of `param` are themselves accepted.
    BoundsAccepted {
        /// The bounded parameter.
        param: &'static str,
    },
}

/// One way to make a parameter invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Violation {
    /// Left out though required: `missing_argument`.
    Missing,
    /// A value of another JSON type: `invalid_type`.
    WrongType,
    /// A value outside the closed set: `invalid_enum`.
    NotAllowed,
    /// One below the minimum: `out_of_range`.
    BelowMinimum,
    /// One above the maximum: `out_of_range`.
    AboveMaximum,
    /// One character (or item) short: `invalid_length`.
    TooShort,
    /// One character (or item) too many: `invalid_length`.
    TooLong,
    /// A string the pattern does not match: `pattern_mismatch`.
    PatternMismatch,
    /// A string not in the format: `invalid_format`.
    WrongFormat,
}

impl Violation {
    /// The error code the runtime answers with.
    pub fn code(self) -> &'static str {
        match self {
            Violation::Missing => "missing_argument",
            Violation::WrongType => "invalid_type",
            Violation::NotAllowed => "invalid_enum",
            Violation::BelowMinimum | Violation::AboveMaximum => "out_of_range",
            Violation::TooShort | Violation::TooLong => "invalid_length",
            Violation::PatternMismatch => "pattern_mismatch",
            Violation::WrongFormat => "invalid_format",
        }
    }
}
