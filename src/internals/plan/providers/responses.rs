//! The OpenAI Responses API `tools` array: each function `{"type": "function", "name",
//! "description", "parameters", "strict"}` (the Chat Completions function one level up,
//! with the same strict profile), and for a toolset with groups, one namespace per group
//! (`{"type": "namespace", "name": "<service>_<group>", "description", "tools": [...]}`)
//! beside the hosted `{"type": "tool_search"}`.
//!
//! A group that is not `up_front` has its functions marked `defer_loading`: the model sees
//! the namespace's name and description until the search loads its functions. OpenAI
//! recommends namespaces of fewer than 10 functions (`lint` warns past that).
//!
//! A call of a namespaced function comes back as a `function_call` with its `namespace`,
//! which the client must send back unchanged with the call's output.

use crate::model::ToolSet;
use crate::plan::providers::Prepared;
use crate::plan::providers::openai::{Function, OpenAiTool};
use serde::Serialize;

/// One entry of the Responses `tools` array.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ResponsesTool<'a> {
    /// A function at the top level (a toolset without groups).
    Function(ResponsesFunction<'a>),
    /// A group's functions under its name.
    Namespace(Namespace<'a>),
    /// The hosted tool search, which loads deferred functions.
    Search(ToolSearch),
}

/// A function, as the Responses API takes it.
#[derive(Debug, Serialize)]
pub struct ResponsesFunction<'a> {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Name, description, parameters and `strict`, as for Chat Completions.
    #[serde(flatten)]
    pub function: Function<'a>,
    /// Withheld until tool search loads it; left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
}

/// A namespace: one group's functions.
#[derive(Debug, Serialize)]
pub struct Namespace<'a> {
    /// Always `"namespace"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `<service>_<group>`.
    pub name: String,
    /// The group's description.
    pub description: &'a str,
    /// Its functions, in spec order.
    pub tools: Vec<ResponsesFunction<'a>>,
}

/// `{"type": "tool_search"}`: OpenAI runs the search (`execution` defaults to the server).
#[derive(Debug, Serialize)]
pub struct ToolSearch {
    /// Always `"tool_search"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl<'a> ResponsesFunction<'a> {
    fn new(p: &'a Prepared<'a>, defer_loading: bool) -> Self {
        ResponsesFunction {
            kind: "function",
            function: OpenAiTool::from(p).function,
            defer_loading,
        }
    }
}

/// The Responses `tools` array of `ts`, whose tools `prepared` holds in order.
pub fn tools<'a>(ts: &'a ToolSet, prepared: &'a [Prepared<'a>]) -> Vec<ResponsesTool<'a>> {
    if ts.groups.is_empty() {
        return prepared
            .iter()
            .map(|p| ResponsesTool::Function(ResponsesFunction::new(p, false)))
            .collect();
    }
    let mut out: Vec<ResponsesTool> = ts
        .groups
        .iter()
        .enumerate()
        .map(|(index, g)| {
            ResponsesTool::Namespace(Namespace {
                kind: "namespace",
                name: g.namespace(&ts.service.text),
                description: &g.description.text,
                tools: prepared
                    .iter()
                    .filter(|p| p.tool.group == Some(index))
                    .map(|p| ResponsesFunction::new(p, !g.up_front))
                    .collect(),
            })
        })
        .collect();
    if ts.defers() {
        out.push(ResponsesTool::Search(ToolSearch {
            kind: "tool_search",
        }));
    }
    out
}
