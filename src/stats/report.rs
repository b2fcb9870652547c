//! Rendering token costs: a table for people, JSON for tools.

use crate::stats::{ENCODING, ToolSetCost};
use serde_json::json;
use std::fmt::Write as _;

/// A table per toolset, most expensive tool first, with the share of each tool's MCP tokens
/// that is its description, its parameters' words and schema keywords.
pub fn human(sets: &[ToolSetCost]) -> String {
    let mut out = String::new();
    for (i, ts) in sets.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let n = ts.tools.len();
        let _ = writeln!(
            out,
            "{} ({}): {n} tool{}",
            ts.service,
            ts.path,
            if n == 1 { "" } else { "s" }
        );
        let width = ts
            .tools
            .iter()
            .map(|t| t.name.len())
            .chain([12])
            .max()
            .unwrap_or(12);
        let _ = writeln!(
            out,
            "  {:<width$}  {:>10}  {:>8}  {:>11}  {:>10}  {:>6}",
            "tool", "OpenAI est", "MCP JSON", "description", "parameters", "schema"
        );
        for t in &ts.tools {
            let _ = writeln!(
                out,
                "  {:<width$}  {:>10}  {:>8}  {:>11}  {:>10}  {:>6}",
                t.name,
                t.openai_estimate,
                t.mcp_tokens,
                pct(t.description_tokens, t.mcp_tokens),
                pct(t.parameter_tokens, t.mcp_tokens),
                pct(t.schema_tokens, t.mcp_tokens),
            );
        }
        let sum = |f: fn(&crate::stats::ToolCost) -> usize| ts.tools.iter().map(f).sum::<usize>();
        let tool_total = sum(|t| t.mcp_tokens);
        let _ = writeln!(
            out,
            "  {:<width$}  {:>10}  {:>8}  {:>11}  {:>10}  {:>6}",
            "whole list",
            ts.openai_estimate,
            ts.mcp_tokens,
            pct(sum(|t| t.description_tokens), tool_total),
            pct(sum(|t| t.parameter_tokens), tool_total),
            pct(sum(|t| t.schema_tokens), tool_total),
        );
    }
    let _ = writeln!(
        out,
        "\nTokens of {ENCODING}. OpenAI est: OpenAI's published estimate for function definitions \
         (tools.openai.json; the whole list adds 12). MCP JSON: the compact tools/list definition \
         (other models' tokenizers differ: an estimate). Shares split MCP JSON approximately."
    );
    out
}

/// The same figures as JSON: `{"encoding", "toolsets": [...]}`, newline-terminated.
pub fn json(sets: &[ToolSetCost]) -> String {
    let v = json!({ "encoding": ENCODING, "toolsets": sets });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{}%", (part * 100 + whole / 2) / whole)
}
