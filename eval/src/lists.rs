//! The tool lists a run sends, and what they cost the model: the lists toolspec writes for
//! the specs' toolsets (what a user ships), or the whole lists, every tool loaded, to
//! measure what deferring groups changes.

use serde_json::Value;
use toolspec::internals::plan::providers::Prepared;
use toolspec::model::{Model, ToolSet};

use crate::wire::{Lists, Provider};

/// Which lists a run sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ToolList {
    /// The lists as toolspec writes them: for a toolset with groups, the groups not loaded
    /// up front are deferred where the provider can defer (Anthropic, OpenAI Responses) and
    /// left out where it cannot (OpenAI Chat, Gemini). For a toolset without groups, the
    /// whole list.
    #[default]
    Deferred,
    /// Every tool loaded up front, as the lists would be without groups.
    Whole,
}

impl ToolList {
    /// The name the command line and reports use.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolList::Deferred => "deferred",
            ToolList::Whole => "whole",
        }
    }
}

/// The list of a transcript or report written before runs could be sent the whole list:
/// the lists as toolspec wrote them.
pub(crate) fn unnamed() -> String {
    ToolList::Deferred.as_str().to_string()
}

/// The provider lists of `spec`'s toolsets, each joined into one list. A provider's own
/// tool that several toolsets carry (Anthropic's tool search tool, OpenAI's `tool_search`)
/// is sent once: the API refuses two tools of one name.
pub fn lists(spec: &Model, list: ToolList) -> Lists {
    let mut lists = Lists {
        anthropic: Value::Array(Vec::new()),
        openai: Value::Array(Vec::new()),
        responses: Value::Array(Vec::new()),
        gemini: Value::Array(Vec::new()),
    };
    let mut declarations = Vec::new();
    for ts in &spec.toolsets {
        for (file, items) in toolset_lists(ts, list) {
            match file {
                Provider::Anthropic => join(&mut lists.anthropic, items),
                Provider::OpenAiChat => join(&mut lists.openai, items),
                Provider::OpenAiResponses => join(&mut lists.responses, items),
                // One `functionDeclarations` tool for every toolset's functions.
                Provider::Gemini => {
                    for tool in items {
                        if let Some(d) = tool.get("functionDeclarations").and_then(Value::as_array)
                        {
                            declarations.extend(d.iter().cloned());
                        }
                    }
                }
            }
        }
    }
    lists.gemini = serde_json::json!([{"functionDeclarations": declarations}]);
    lists
}

/// Tokens of the tool list `provider` is sent for `spec`, as the model reads it before any
/// search: for a deferred list of Anthropic or Responses, the tools loaded up front and what
/// stands for the deferred ones (the search tool, each deferred namespace's name and
/// description); otherwise the whole list sent.
pub fn list_tokens(spec: &Model, provider: Provider, list: ToolList) -> u64 {
    let mut total = 0;
    for ts in &spec.toolsets {
        let deferred = (list == ToolList::Deferred && ts.defers())
            .then(|| {
                let prepared: Vec<Prepared> = ts.tools.iter().map(Prepared::new).collect();
                toolspec::internals::stats::deferred::cost(ts, &prepared)
            })
            .flatten();
        total += match (provider, deferred) {
            (Provider::Anthropic, Some(d)) => d.anthropic_up_front,
            (Provider::OpenAiResponses, Some(d)) => d.openai_up_front,
            _ => toolset_lists(ts, list)
                .into_iter()
                .filter(|(p, _)| *p == provider)
                .map(|(_, items)| {
                    let text = serde_json::to_string(&items).unwrap_or_default();
                    toolspec::internals::stats::count_tokens(&text)
                })
                .sum(),
        } as u64;
    }
    total
}

/// The provider lists toolspec writes for `ts` (without groups, for the whole list), each
/// as the provider it is for and its entries. A list toolspec does not write for the
/// toolset (one the provider would refuse) is absent.
fn toolset_lists(ts: &ToolSet, list: ToolList) -> Vec<(Provider, Vec<Value>)> {
    let ungrouped;
    let ts = match list {
        ToolList::Whole if !ts.groups.is_empty() => {
            ungrouped = without_groups(ts);
            &ungrouped
        }
        _ => ts,
    };
    let files = toolspec::internals::emit::providers::toolset_files(ts, Default::default());
    let mut out = Vec::new();
    for file in files {
        let provider = if file.path.ends_with("tools.anthropic.json") {
            Provider::Anthropic
        } else if file.path.ends_with("tools.openai.json") {
            Provider::OpenAiChat
        } else if file.path.ends_with("tools.openai-responses.json") {
            Provider::OpenAiResponses
        } else if file.path.ends_with("tools.gemini.json") {
            Provider::Gemini
        } else {
            continue;
        };
        if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(&file.contents) {
            out.push((provider, items));
        }
    }
    out
}

/// `ts` as it would be without groups: every tool loaded, no search tool, no namespaces.
fn without_groups(ts: &ToolSet) -> ToolSet {
    let mut ts = ts.clone();
    ts.groups.clear();
    for tool in &mut ts.tools {
        tool.group = None;
    }
    ts
}

/// Appends `items` to `list`, leaving out a provider tool (an entry that is not a function
/// of the toolset: Anthropic's tool search tool, OpenAI's `tool_search`) the list already
/// holds.
fn join(list: &mut Value, items: Vec<Value>) {
    let Some(list) = list.as_array_mut() else {
        return;
    };
    for item in items {
        if is_provider_tool(&item) && list.contains(&item) {
            continue;
        }
        list.push(item);
    }
}

/// Whether `entry` is a tool the provider runs, not one of the toolset's: it has a `type`
/// that is not a function, a custom tool or a namespace.
fn is_provider_tool(entry: &Value) -> bool {
    entry
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| !matches!(t, "function" | "custom" | "namespace"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_provider_tool_is_joined_once_and_functions_all_are() {
        let mut list = json!([]);
        let search =
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"});
        join(&mut list, vec![search.clone(), json!({"name": "a_get"})]);
        join(&mut list, vec![search.clone(), json!({"name": "b_get"})]);
        assert_eq!(list, json!([search, {"name": "a_get"}, {"name": "b_get"}]));

        let mut list = json!([]);
        join(
            &mut list,
            vec![
                json!({"type": "tool_search"}),
                json!({"type": "function", "name": "a"}),
            ],
        );
        join(
            &mut list,
            vec![
                json!({"type": "tool_search"}),
                json!({"type": "function", "name": "a"}),
            ],
        );
        assert_eq!(list.as_array().map(Vec::len), Some(3));
    }

    /// Two specs with groups, as `toolspec eval` loads them together.
    fn two_catalogs() -> Model {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let loaded = toolspec::load(&[
            root.join("tests/import/drafts/petstore.yaml"),
            root.join("tests/import/catalog/github.yaml"),
        ])
        .expect("the specs read");
        assert!(!loaded.diagnostics.has_errors());
        loaded.model
    }

    fn types(list: &Value) -> Vec<&str> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("type").and_then(Value::as_str))
            .collect()
    }

    #[test]
    fn the_deferred_lists_of_two_catalogs_carry_one_search_tool_and_the_whole_none() {
        let model = two_catalogs();
        let tools: usize = model.toolsets.iter().map(|ts| ts.tools.len()).sum();
        let deferred = lists(&model, ToolList::Deferred);
        let anthropic = deferred.anthropic.as_array().map(Vec::len);
        assert_eq!(anthropic, Some(tools + 1), "every tool and one search tool");
        assert_eq!(
            types(&deferred.anthropic),
            ["tool_search_tool_bm25_20251119"]
        );
        let searches = types(&deferred.responses)
            .into_iter()
            .filter(|t| *t == "tool_search")
            .count();
        assert_eq!(searches, 1);
        let whole = lists(&model, ToolList::Whole);
        assert_eq!(whole.anthropic.as_array().map(Vec::len), Some(tools));
        assert!(types(&whole.anthropic).is_empty());
        assert!(types(&whole.responses).iter().all(|t| *t == "function"));
        assert_eq!(whole.responses.as_array().map(Vec::len), Some(tools));
        // Chat and Gemini cannot defer: the deferred lists hold the groups loaded up front.
        let up_front: usize = model
            .toolsets
            .iter()
            .map(|ts| ts.tools.iter().filter(|t| ts.up_front(t)).count())
            .sum();
        assert!(up_front < tools);
        assert_eq!(deferred.openai.as_array().map(Vec::len), Some(up_front));
        assert_eq!(whole.openai.as_array().map(Vec::len), Some(tools));
    }

    #[test]
    fn the_model_reads_fewer_tokens_up_front_from_a_deferred_list() {
        let model = two_catalogs();
        for provider in Provider::ALL {
            let deferred = list_tokens(&model, provider, ToolList::Deferred);
            let whole = list_tokens(&model, provider, ToolList::Whole);
            assert!(deferred * 2 < whole, "{provider:?}: {deferred} of {whole}");
        }
    }
}
