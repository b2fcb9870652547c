//! What tool definitions cost in context: tokens counted with OpenAI's `o200k_base`.
//!
//! Every tool definition is sent to the model with every request, so its size is a running
//! cost and a share of the context the agent cannot use for its task. Two numbers are given
//! per tool:
//!
//! - **OpenAI estimate**: OpenAI's published estimate of what a function definition costs
//!   (gpt-4o family, `o200k_base`), applied to the tool's entry in `tools.openai.json`:
//!   7 per function plus the tokens of `name:description` (without a trailing `.`); if it has
//!   properties 3, plus per top-level property 3 and the tokens of `name:type:description`;
//!   per enum -3 once, then 3 plus the value's tokens per value; and 12 once per tools list.
//!   It reproduces the API's count on OpenAI's own example ([`openai_estimate`]).
//! - **MCP JSON**: the `o200k_base` tokens of the tool's compact MCP definition (what goes
//!   over the wire), and apart, how many of them are its output schema, which clients read
//!   and the model does not. Hosts render definitions in their own way and Claude's
//!   tokenizer is not public, so take it as an estimate for other models.
//! - **Per provider**: the `o200k_base` tokens of the compact entry each provider receives,
//!   as `generate` writes it: Anthropic's tool (its strict schema and `input_examples`
//!   included), OpenAI's function and Gemini's declaration, nested parameters and all. A
//!   toolset's totals are those of the whole list files; a tool's own figure is its entry
//!   as it would be in a list of its own (Anthropic's strict limits are per request, so in a
//!   long list a late tool may go without `strict`).
//!
//! The MCP count is split into the tool's description, its parameters' and outputs' words
//! (names, descriptions, enum values) and the rest, the schema keywords and JSON syntax.
//! Parts are counted separately, so the split is approximate; it shows where tokens go.
//!
//! [`tool_cost`] is the one function other stages call for "the definition's token cost".

pub mod deferred;
mod joined;
pub mod report;

use crate::model::{Tool, ToolSet};
use crate::plan::providers::{Prepared, anthropic, gemini, mcp, openai};
use serde::Serialize;
use serde_json::Value;
#[cfg(feature = "tokens")]
use std::sync::OnceLock;

/// The encoding every count uses.
pub const ENCODING: &str = "o200k_base";

/// Tokens added once per tools list by OpenAI's estimate.
pub const OPENAI_LIST_OVERHEAD: usize = 12;

/// The number of `o200k_base` tokens of `text`, with the `tokens` feature (the `toolspec`
/// command has it).
///
/// Without the feature, or if the embedded tables cannot be loaded (they always can in a
/// normal build; a count is never worth a panic), an estimate: one token per four bytes,
/// rounded up. So a build script that generates docs without the feature prints estimated
/// costs, and compiles no tokenizer.
pub fn count_tokens(text: &str) -> usize {
    #[cfg(feature = "tokens")]
    {
        static BPE: OnceLock<Option<tiktoken_rs::CoreBPE>> = OnceLock::new();
        if let Some(bpe) = BPE.get_or_init(|| tiktoken_rs::o200k_base().ok()) {
            return bpe.encode_ordinary(text).len();
        }
    }
    text.len().div_ceil(4)
}

/// What one tool's definition costs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCost {
    /// The tool's name.
    pub name: String,
    /// OpenAI's estimate for the tool's function definition (without the per-list 12).
    pub openai_estimate: usize,
    /// Tokens of the compact MCP definition JSON.
    pub mcp_tokens: usize,
    /// Of `mcp_tokens`: the output schema the definition publishes (read by clients, not
    /// by the model; the spec's `output_schema` sets how much).
    pub mcp_output_tokens: usize,
    /// Tokens of the compact Anthropic tool entry.
    pub anthropic_tokens: usize,
    /// Tokens of the compact OpenAI function entry.
    pub openai_tokens: usize,
    /// Tokens of the compact Gemini function declaration.
    pub gemini_tokens: usize,
    /// Of `mcp_tokens`: the tool's description.
    pub description_tokens: usize,
    /// Of `mcp_tokens`: names, descriptions and enum values of parameters and output fields.
    pub parameter_tokens: usize,
    /// Of `mcp_tokens`: everything else (schema keywords, types, annotations, JSON syntax).
    pub schema_tokens: usize,
}

/// What a toolset's definitions cost together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolSetCost {
    /// Service namespace.
    pub service: String,
    /// The spec file.
    pub path: String,
    /// Per tool, most expensive first (by MCP tokens, then name).
    pub tools: Vec<ToolCost>,
    /// OpenAI's estimate for the whole `tools` list (per tool, plus 12 once).
    pub openai_estimate: usize,
    /// Tokens of the compact `tools/list` result.
    pub mcp_tokens: usize,
    /// Of `mcp_tokens`: the output schemas, tool by tool.
    pub mcp_output_tokens: usize,
    /// Tokens of the compact Anthropic `tools` array.
    pub anthropic_tokens: usize,
    /// Tokens of the compact OpenAI `tools` array.
    pub openai_tokens: usize,
    /// Tokens of the compact Gemini `tools` array.
    pub gemini_tokens: usize,
    /// For a toolset that defers groups: what a model pays up front and per search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deferred: Option<deferred::DeferredCost>,
}

impl ToolCost {
    /// What the model reads of the tool, as the dearest provider sends it: the largest of
    /// the Anthropic, OpenAI and Gemini entries and the MCP definition without its output
    /// schema (which clients read, and hosts do not pass on).
    pub fn model_tokens(&self) -> usize {
        [
            self.anthropic_tokens,
            self.openai_tokens,
            self.gemini_tokens,
            self.mcp_tokens.saturating_sub(self.mcp_output_tokens),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }
}

/// The token cost of one tool's definition.
pub fn tool_cost(tool: &Tool) -> ToolCost {
    prepared_cost(&Prepared::new(tool))
}

/// [`tool_cost`] of a tool whose description and schemas are already made: every provider's
/// entry is built from the one [`Prepared`].
fn prepared_cost(p: &Prepared) -> ToolCost {
    entry_cost(p).0
}

/// One tool's compact entry in each provider's whole list, with its tokens: a list's count
/// is made from its entries' ([`joined::list_tokens`]).
struct Entries {
    mcp: (String, usize),
    anthropic: (String, usize),
    openai: (String, usize),
    gemini: (String, usize),
}

/// `(text, tokens)` of `v` in compact JSON.
fn counted<T: Serialize + ?Sized>(v: &T) -> (String, usize) {
    let text = compact(v);
    let tokens = count_tokens(&text);
    (text, tokens)
}

/// [`prepared_cost`], and the entries it counted.
fn entry_cost(p: &Prepared) -> (ToolCost, Entries) {
    let def = serde_json::to_value(mcp::McpTool::from(p)).unwrap_or_default();
    let mcp = counted(&def);
    let description_tokens = count_tokens(&p.description);
    let mut words = 0;
    for key in ["inputSchema", "outputSchema"] {
        if let Some(s) = def.get(key) {
            words += schema_words(s);
        }
    }
    let mcp_tokens = mcp.1;
    let parameter_tokens = words.min(mcp_tokens.saturating_sub(description_tokens));
    let openai_entry = serde_json::to_value(openai::OpenAiTool::from(p)).unwrap_or_default();
    let entries = Entries {
        mcp,
        anthropic: counted(&anthropic::alone(p)),
        openai: counted(&openai_entry),
        gemini: counted(&gemini::Declaration::from(p)),
    };
    let cost = ToolCost {
        name: p.tool.name.text.clone(),
        openai_estimate: openai_function_estimate(&openai_entry),
        mcp_tokens,
        mcp_output_tokens: p
            .listed_output
            .as_ref()
            .map_or(0, |o| count_tokens(&compact(o))),
        anthropic_tokens: entries.anthropic.1,
        openai_tokens: entries.openai.1,
        gemini_tokens: entries.gemini.1,
        description_tokens,
        parameter_tokens,
        schema_tokens: mcp_tokens - description_tokens.min(mcp_tokens) - parameter_tokens,
    };
    (cost, entries)
}

/// What each tool of `ts` costs, in spec order, and what each provider's whole list costs:
/// [`tool_cost`] of every tool and [`lists_cost`], with each tool's description, schemas
/// and entries made and counted once for both.
pub fn costs(ts: &ToolSet) -> (Vec<ToolCost>, ListCost) {
    let prepared: Vec<Prepared> = ts.tools.iter().map(Prepared::new).collect();
    let (tools, entries): (Vec<ToolCost>, Vec<Entries>) = prepared.iter().map(entry_cost).unzip();
    let lists = prepared_lists_cost(ts, &prepared, &tools, &entries);
    (tools, lists)
}

/// The token cost of a toolset's definitions, tools sorted most expensive first.
pub fn toolset_cost(ts: &ToolSet) -> ToolSetCost {
    let (mut tools, lists) = costs(ts);
    tools.sort_by(|a, b| b.mcp_tokens.cmp(&a.mcp_tokens).then(a.name.cmp(&b.name)));
    let mcp_output_tokens = tools.iter().map(|t| t.mcp_output_tokens).sum();
    ToolSetCost {
        service: ts.service.text.clone(),
        path: ts.path.clone(),
        tools,
        openai_estimate: lists.openai_estimate,
        mcp_tokens: lists.mcp_tokens,
        mcp_output_tokens,
        anthropic_tokens: lists.anthropic_tokens,
        openai_tokens: lists.openai_tokens,
        gemini_tokens: lists.gemini_tokens,
        deferred: lists.deferred,
    }
}

/// What each provider's whole list of a toolset costs: the totals of [`ToolSetCost`]
/// without the per-tool figures (the docs' index shows these).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ListCost {
    /// Tokens of the compact `tools/list` result.
    pub mcp_tokens: usize,
    /// Tokens of the compact Anthropic `tools` array.
    pub anthropic_tokens: usize,
    /// Tokens of the compact OpenAI `tools` array.
    pub openai_tokens: usize,
    /// OpenAI's estimate for the OpenAI list.
    pub openai_estimate: usize,
    /// Tokens of the compact Gemini `tools` array.
    pub gemini_tokens: usize,
    /// For a toolset that defers groups: what a model pays up front and per search.
    pub deferred: Option<deferred::DeferredCost>,
}

/// The cost of each provider's whole list of `ts` (every tool, none deferred), and of the
/// deferred lists when it defers groups.
pub fn lists_cost(ts: &ToolSet) -> ListCost {
    costs(ts).1
}

/// The lists of `ts` from its tools' costs and entries (in spec order, as `prepared`).
fn prepared_lists_cost(
    ts: &ToolSet,
    prepared: &[Prepared],
    tools: &[ToolCost],
    entries: &[Entries],
) -> ListCost {
    let list = |open: &str, close: &str, pick: fn(&Entries) -> &(String, usize)| {
        let parts: Vec<(&str, usize)> = entries
            .iter()
            .map(|e| {
                let (text, tokens) = pick(e);
                (text.as_str(), *tokens)
            })
            .collect();
        joined::list_tokens(open, &parts, ",", close)
    };
    // Anthropic's strict limits are per request: in a long list a late tool may go without
    // `strict`, and so differ from its entry alone; such an entry is counted again.
    let anthropic: Vec<(String, usize)> = anthropic::whole(prepared)
        .iter()
        .zip(entries)
        .map(|(in_list, e)| {
            let text = compact(in_list);
            if text == e.anthropic.0 {
                (text, e.anthropic.1)
            } else {
                let tokens = count_tokens(&text);
                (text, tokens)
            }
        })
        .collect();
    let anthropic_parts: Vec<(&str, usize)> =
        anthropic.iter().map(|(t, n)| (t.as_str(), *n)).collect();
    let (gemini_open, gemini_close) = wrapper(&gemini::tools([]));
    let (mcp_open, mcp_close) = wrapper(&mcp::ToolsList { tools: Vec::new() });
    ListCost {
        mcp_tokens: list(&mcp_open, &mcp_close, |e| &e.mcp),
        anthropic_tokens: joined::list_tokens("[", &anthropic_parts, ",", "]"),
        openai_estimate: if tools.is_empty() {
            0
        } else {
            tools.iter().map(|t| t.openai_estimate).sum::<usize>() + OPENAI_LIST_OVERHEAD
        },
        openai_tokens: list("[", "]", |e| &e.openai),
        gemini_tokens: list(&gemini_open, &gemini_close, |e| &e.gemini),
        deferred: deferred::cost(ts, prepared),
    }
}

/// What comes before and after the entries of a list written as `empty` with none: the
/// two sides of its `[]`.
fn wrapper<T: Serialize + ?Sized>(empty: &T) -> (String, String) {
    let text = compact(empty);
    match text.split_once("[]") {
        Some((open, close)) => (format!("{open}["), format!("]{close}")),
        None => (text, String::new()),
    }
}

/// OpenAI's estimate for a whole `tools` list: each function, plus 12 once.
pub fn openai_estimate(tools: &[Value]) -> usize {
    if tools.is_empty() {
        return 0;
    }
    tools.iter().map(openai_function_estimate).sum::<usize>() + OPENAI_LIST_OVERHEAD
}

/// OpenAI's estimate for one function definition, given as a Chat Completions `tools` entry
/// (`{"type": "function", "function": {...}}`) or as the bare function object.
///
/// OpenAI's published formula counts top-level properties; the model receives nested ones
/// too (the fields of an object parameter, of a list's items, of each branch of an
/// `anyOf`), so they are counted by the same rule, one level deeper each. A type array (the
/// nullable `["string", "null"]` of strict mode) is written as Python writes a list, as the
/// formula's reference code does; a `null` in an enum is not a value and is not counted.
pub fn openai_function_estimate(entry: &Value) -> usize {
    let f = entry.get("function").unwrap_or(entry);
    let name = f.get("name").and_then(Value::as_str).unwrap_or("");
    let desc = f.get("description").and_then(Value::as_str).unwrap_or("");
    let mut n: i64 = 7 + count_tokens(&format!("{name}:{}", strip_period(desc))) as i64;
    if let Some(parameters) = f.get("parameters") {
        n += properties_estimate(parameters, 0);
    }
    n.max(0) as usize
}

/// The formula's count for the properties of `schema`, and of the schemas nested in them.
fn properties_estimate(schema: &Value, depth: usize) -> i64 {
    // Deeper than any provider accepts: stop rather than recurse on a hostile schema.
    if depth > 16 {
        return 0;
    }
    let mut n = 0;
    if let Some(props) = schema
        .get("properties")
        .and_then(Value::as_object)
        .filter(|p| !p.is_empty())
    {
        n += 3;
        for (key, p) in props {
            n += 3;
            if let Some(values) = p.get("enum").and_then(Value::as_array) {
                n -= 3;
                for v in values.iter().filter_map(Value::as_str) {
                    n += 3 + count_tokens(v) as i64;
                }
            }
            let ty = python_repr(p.get("type").unwrap_or(&Value::Null));
            let pdesc = p.get("description").and_then(Value::as_str).unwrap_or("");
            n += count_tokens(&format!("{key}:{ty}:{}", strip_period(pdesc))) as i64;
            n += nested_estimate(p, depth + 1);
        }
    }
    n
}

/// The nested schemas of one property: its own properties, its items', its branches'.
fn nested_estimate(p: &Value, depth: usize) -> i64 {
    let mut n = properties_estimate(p, depth);
    if let Some(items) = p.get("items") {
        n += nested_estimate(items, depth + 1);
    }
    for branch in p
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        n += nested_estimate(branch, depth + 1);
    }
    n
}

/// Tokens of the words inside a schema: property names, descriptions and enum values.
fn schema_words(schema: &Value) -> usize {
    let mut n = 0;
    if let Some(d) = schema.get("description").and_then(Value::as_str) {
        n += count_tokens(d);
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        n += values
            .iter()
            .filter_map(Value::as_str)
            .map(count_tokens)
            .sum::<usize>();
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (k, v) in props {
            n += count_tokens(k) + schema_words(v);
        }
    }
    if let Some(items) = schema.get("items") {
        n += schema_words(items);
    }
    n
}

fn strip_period(s: &str) -> &str {
    s.strip_suffix('.').unwrap_or(s)
}

/// How Python's `str()` writes a JSON type: `string`, or `['string', 'null']` for a list.
fn python_repr(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|i| match i {
                    Value::String(s) => format!("'{s}'"),
                    other => other.to_string(),
                })
                .collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Null => "None".into(),
        other => other.to_string(),
    }
}

/// Compact JSON of an entry or a list, as every count takes it.
fn compact<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// OpenAI's estimate for chat messages (gpt-4o): 3 per message plus its values' tokens,
    /// plus 3 to prime the reply.
    fn messages_estimate(messages: &[Value]) -> usize {
        let mut n = 3;
        for m in messages {
            n += 3;
            for v in m.as_object().into_iter().flat_map(|o| o.values()) {
                n += count_tokens(v.as_str().unwrap_or(""));
            }
        }
        n
    }

    /// OpenAI's cookbook example, for which the API reports 101 prompt tokens on gpt-4o.
    #[test]
    fn reproduces_openai_weather_example() {
        let tools = [json!({
            "type": "function",
            "function": {
                "name": "get_current_weather",
                "description": "Get the current weather in a given location",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                        "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}
                    },
                    "required": ["location"]
                }
            }
        })];
        let messages = [
            json!({"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."}),
            json!({"role": "user", "content": "What's the weather like in San Francisco?"}),
        ];
        assert_eq!(openai_estimate(&tools) + messages_estimate(&messages), 101);
    }

    #[test]
    fn nested_parameters_count_by_the_same_rule_as_top_level_ones() {
        let flat = json!({"name": "f", "description": "d", "parameters": {"type": "object",
            "properties": {"address": {"type": "object", "description": "Where."}}}});
        let nested = json!({"name": "f", "description": "d", "parameters": {"type": "object",
            "properties": {"address": {"type": "object", "description": "Where.",
                "properties": {"city": {"type": "string", "description": "The city."}}}}}});
        let in_items = json!({"name": "f", "description": "d", "parameters": {"type": "object",
            "properties": {"address": {"type": "array", "description": "Where.",
                "items": {"type": "object", "properties": {"city": {"type": "string", "description": "The city."}}}}}}});
        let line = format!("city:{}:The city", python_repr(&json!("string")));
        // The nested block (3), the property (3), its line.
        let city = 3 + 3 + count_tokens(&line);
        assert_eq!(
            openai_function_estimate(&nested),
            openai_function_estimate(&flat) + city
        );
        assert!(openai_function_estimate(&in_items) > openai_function_estimate(&flat));
    }

    #[test]
    fn counts_tokens_with_o200k() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("hello world"), 2);
    }

    #[test]
    fn writes_type_lists_as_python_does() {
        assert_eq!(
            python_repr(&json!(["string", "null"])),
            "['string', 'null']"
        );
        assert_eq!(python_repr(&json!("integer")), "integer");
    }
}
