//! What a toolset that defers groups costs a model: up front (before any search) and per
//! search, beside the whole list, for the two providers that defer.
//!
//! - **Anthropic**: deferred tools are left out of the prompt until the tool search tool
//!   finds them. Up front: the tools loaded up front and the search tool's own entry.
//!   A search loads up to 5 tools by default; its cost is 5 deferred tools of average
//!   size (fewer when fewer are deferred).
//! - **OpenAI Responses**: before a search the model sees each deferred namespace's name
//!   and description. Up front: the namespaces loaded up front whole, the deferred ones as
//!   name and description, and `tool_search`. A search loads a namespace; its cost is one
//!   deferred group's functions, on average.
//!
//! The search tools' own instructions, which the providers add to the prompt, are not
//! published and not counted.

use super::{compact, count_tokens};
use crate::model::ToolSet;
use crate::plan::providers::{Prepared, anthropic, responses};
use serde::Serialize;
use serde_json::json;

/// How many tools an Anthropic tool search returns by default.
pub const ANTHROPIC_RESULTS: usize = 5;

/// The cost of a toolset's deferred lists; see the module's words for what each counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DeferredCost {
    /// Tools loaded up front.
    pub tools_up_front: usize,
    /// Tools deferred.
    pub tools_deferred: usize,
    /// Tokens of the Anthropic list a model reads before it searches.
    pub anthropic_up_front: usize,
    /// Tokens one Anthropic search adds: [`ANTHROPIC_RESULTS`] deferred tools of average size.
    pub anthropic_per_search: usize,
    /// Tokens of the Responses list a model reads before it searches.
    pub openai_up_front: usize,
    /// Tokens one Responses search adds: one deferred group's functions, on average.
    pub openai_per_search: usize,
}

/// The deferred cost of `ts` (whose tools `prepared` holds in order), or `None` when it
/// defers nothing.
pub fn cost(ts: &ToolSet, prepared: &[Prepared]) -> Option<DeferredCost> {
    if !ts.defers() {
        return None;
    }
    let anthropic_list = anthropic::tools(ts, prepared);
    let (mut up_front, mut deferred) = (0, Vec::new());
    for entry in &anthropic_list {
        let tokens = count_tokens(&compact(entry));
        match entry {
            anthropic::Entry::Tool(t) if t.defer_loading => deferred.push(tokens),
            _ => up_front += tokens,
        }
    }
    let results = ANTHROPIC_RESULTS.min(deferred.len());
    let anthropic_per_search = deferred.iter().sum::<usize>() * results / deferred.len().max(1);

    let (mut openai_up_front, mut groups) = (0, Vec::new());
    for entry in responses::tools(ts, prepared) {
        match &entry {
            responses::ResponsesTool::Namespace(n) if n.tools.iter().any(|f| f.defer_loading) => {
                let shell =
                    json!({"type": "namespace", "name": n.name, "description": n.description});
                openai_up_front += count_tokens(&compact(&shell));
                groups.push(count_tokens(&compact(&n.tools)));
            }
            _ => openai_up_front += count_tokens(&compact(&entry)),
        }
    }
    Some(DeferredCost {
        tools_up_front: prepared.iter().filter(|p| ts.up_front(p.tool)).count(),
        tools_deferred: deferred.len(),
        anthropic_up_front: up_front,
        anthropic_per_search,
        openai_up_front,
        openai_per_search: groups.iter().sum::<usize>() / groups.len().max(1),
    })
}
