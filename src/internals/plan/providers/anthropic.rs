//! Anthropic Messages API tool definitions: `{"name", "description", "input_schema",
//! "strict", "input_examples"}`.
//!
//! A tool is sent with `strict: true` (grammar-constrained: Anthropic guarantees the call
//! matches the schema) when strict mode can describe it and the list stays within strict
//! mode's per-request limits ([`MAX_STRICT_TOOLS`], [`MAX_STRICT_OPTIONAL`],
//! [`MAX_STRICT_UNIONS`]), taken in spec order. Its schema is then the Anthropic strict
//! profile ([`Profile::AnthropicStrict`]): what strict mode does not keep (numeric bounds,
//! lengths, patterns, item counts above one, defaults) is said in each property's
//! description instead, the way Anthropic's SDK lowers such schemas. A tool whose keys are
//! data (a map or a free-form object: strict mode closes every object) or one past the
//! limits is sent without `strict`, with the standard schema MCP clients receive. The
//! limits are per request: a request carrying several toolsets' lists must keep their
//! strict tools within them together.
//!
//! `input_examples` are the spec's example calls that succeed, exactly as an agent passes
//! them (Anthropic reports tool-use accuracy on complex parameters rising from 72% to 90%
//! with them); each is valid against `input_schema`, as `check` and the schema tests hold.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::{Tool, ToolSearch, ToolSet};
use crate::plan::providers::Prepared;
use crate::plan::schema::{self, Profile};
use serde::Serialize;
use serde_json::Value;

/// Longest tool name Anthropic allows.
pub const MAX_NAME: usize = 64;
/// Most strict tools in one request.
pub const MAX_STRICT_TOOLS: usize = 20;
/// Most optional parameters, at any depth, across the strict tools of one request.
pub const MAX_STRICT_OPTIONAL: usize = 24;
/// Most parameters with a union type (`anyOf`), across the strict tools of one request.
pub const MAX_STRICT_UNIONS: usize = 16;

/// One entry of the Messages API `tools` array.
#[derive(Debug, Serialize)]
pub struct AnthropicTool<'a> {
    /// Tool name.
    pub name: &'a str,
    /// The description agents read.
    pub description: &'a str,
    /// Arguments schema: the Anthropic strict profile when `strict`, else the standard one;
    /// without the `Example:` words of parameters `input_examples` shows.
    pub input_schema: Value,
    /// Whether Anthropic constrains the call to `input_schema`; left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// The spec's successful example calls, left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub input_examples: Vec<&'a Value>,
    /// Withheld from the model until the tool search finds it (its group is not
    /// `up_front`); left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
}

/// One entry of the `tools` array of a toolset with groups: a tool, or the tool search tool
/// that finds the deferred ones.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Entry<'a> {
    /// The tool search tool, first in the list and never deferred.
    Search(SearchTool),
    /// One of the toolset's tools.
    Tool(AnthropicTool<'a>),
}

/// Anthropic's tool search tool (`{"type": "tool_search_tool_bm25_20251119", "name":
/// "tool_search_tool_bm25"}`, or the regex variant): run by Anthropic over the deferred
/// tools' names, descriptions and parameters, it loads the ones it finds into the context.
#[derive(Debug, Serialize)]
pub struct SearchTool {
    /// The versioned type of the tool.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Its name.
    pub name: &'static str,
}

impl SearchTool {
    /// The search tool of `search`.
    pub fn of(search: ToolSearch) -> Self {
        match search {
            ToolSearch::Bm25 => SearchTool {
                kind: "tool_search_tool_bm25_20251119",
                name: "tool_search_tool_bm25",
            },
            ToolSearch::Regex => SearchTool {
                kind: "tool_search_tool_regex_20251119",
                name: "tool_search_tool_regex",
            },
        }
    }
}

impl<'a> AnthropicTool<'a> {
    /// The entry of `p`: strict if strict mode can describe it and `budget` has room for it
    /// (which it then takes).
    fn new(p: &'a Prepared<'a>, budget: &mut StrictBudget) -> Self {
        let calls = example_calls(p.tool);
        // The calls show each parameter they pass: its `Example:` words would repeat it.
        let beside_calls = |profile| schema::input_schema_beside_calls(p.tool, profile, &calls);
        let strict = schema::open_objects(&p.tool.params)
            .is_empty()
            .then(|| beside_calls(Profile::AnthropicStrict))
            .filter(|s| budget.take(s));
        AnthropicTool {
            name: &p.tool.name.text,
            description: &p.description,
            strict: strict.is_some(),
            input_schema: strict.unwrap_or_else(|| beside_calls(Profile::Standard)),
            input_examples: calls,
            defer_loading: false,
        }
    }
}

/// The spec's example calls that succeed, as an agent passes them.
fn example_calls(t: &Tool) -> Vec<&Value> {
    t.examples
        .iter()
        .filter(|e| e.error.is_none())
        .map(|e| &e.arguments)
        .collect()
}

/// The Messages API `tools` array for `prepared` (the tools of `ts`), in order: strict for
/// each tool strict mode can describe, while the list stays within its limits. When some
/// group of `ts` is deferred, its tools carry `defer_loading` and the tool search tool
/// comes first: every definition is still sent (Anthropic expands what a search finds from
/// the request), but the model reads only the loaded ones until it searches. Strict mode's
/// limits count deferred tools too, since its grammar is built from the whole list.
pub fn tools<'a>(ts: &ToolSet, prepared: &'a [Prepared<'a>]) -> Vec<Entry<'a>> {
    let search = ts
        .defers()
        .then(|| Entry::Search(SearchTool::of(ts.tool_search)));
    let tools = whole(prepared)
        .into_iter()
        .zip(prepared)
        .map(|(mut entry, p)| {
            entry.defer_loading = !ts.up_front(p.tool);
            Entry::Tool(entry)
        });
    search.into_iter().chain(tools).collect()
}

/// The whole `tools` array for `prepared`, none deferred: what a toolset's list costs
/// without groups.
pub fn whole<'a>(prepared: &'a [Prepared<'a>]) -> Vec<AnthropicTool<'a>> {
    let mut budget = StrictBudget::default();
    prepared
        .iter()
        .map(|p| AnthropicTool::new(p, &mut budget))
        .collect()
}

/// The entry of `p` as it would be in a list of its own (strict when it can be).
pub fn alone<'a>(p: &'a Prepared<'a>) -> AnthropicTool<'a> {
    AnthropicTool::new(p, &mut StrictBudget::default())
}

/// One tool's definition for the Messages API `tools` array, as a JSON value (strict when
/// it would be strict in a list of its own).
pub fn tool(t: &Tool) -> Value {
    let p = Prepared::new(t);
    serde_json::to_value(alone(&p)).unwrap_or(Value::Null)
}

/// What is left of strict mode's per-request limits.
#[derive(Debug, Default)]
struct StrictBudget {
    tools: usize,
    optional: usize,
    unions: usize,
}

impl StrictBudget {
    /// Whether a tool with strict input schema `s` fits what is left of the limits (then it
    /// is counted).
    fn take(&mut self, s: &Value) -> bool {
        let (optional, unions) = (optional_count(s), union_count(s));
        let fits = self.tools < MAX_STRICT_TOOLS
            && self.optional + optional <= MAX_STRICT_OPTIONAL
            && self.unions + unions <= MAX_STRICT_UNIONS;
        if fits {
            self.tools += 1;
            self.optional += optional;
            self.unions += unions;
        }
        fits
    }
}

/// Properties absent from their object's `required`, at every depth.
fn optional_count(schema: &Value) -> usize {
    let here = match (schema.get("properties"), schema.get("required")) {
        (Some(Value::Object(props)), required) => {
            let required = required.and_then(Value::as_array);
            props
                .keys()
                .filter(|k| !required.is_some_and(|r| r.iter().any(|n| n == k.as_str())))
                .count()
        }
        _ => 0,
    };
    here + children(schema).map(optional_count).sum::<usize>()
}

/// Schemas with an `anyOf`, at every depth.
fn union_count(schema: &Value) -> usize {
    usize::from(schema.get("anyOf").is_some()) + children(schema).map(union_count).sum::<usize>()
}

/// The schemas directly inside `schema`: its properties, items and branches.
fn children(schema: &Value) -> impl Iterator<Item = &Value> {
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values());
    let items = schema.get("items").into_iter();
    let branches = schema
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    props.chain(items).chain(branches)
}

/// Names Anthropic refuses: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn check(ts: &ToolSet) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for t in &ts.tools {
        if !super::name_ok(&t.name.text, MAX_NAME, &['_', '-']) {
            diags.push(
                Diagnostic::error(
                    "anthropic-invalid-name",
                    t.name.span,
                    format!("Anthropic refuses the tool name `{}`", t.name.text),
                )
                .label("not 1-64 characters of letters, digits, `_`, `-`")
                .help("rename the tool, like `service_verb` in snake_case"),
            );
        }
    }
    diags
}
