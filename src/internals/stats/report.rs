//! Rendering token costs: a table for people, JSON for tools.

use crate::stats::{ENCODING, ToolSetCost};
use serde_json::json;
use std::fmt::Write as _;

/// A table per toolset, most expensive tool first: what each provider receives side by side
/// (MCP with its output schema's share, Anthropic, OpenAI with its published estimate,
/// Gemini), then the share of each
/// tool's MCP tokens that is its description, its parameters' words and schema keywords.
pub fn human(sets: &[ToolSetCost]) -> String {
    const HEAD: [&str; 9] = [
        "MCP",
        "MCP output",
        "Anthropic",
        "OpenAI",
        "OpenAI est",
        "Gemini",
        "description",
        "parameters",
        "schema",
    ];
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
        let row = |out: &mut String, name: &str, cells: [String; 9]| {
            let _ = write!(out, "  {name:<width$}");
            for (cell, head) in cells.iter().zip(HEAD) {
                let _ = write!(out, "  {cell:>w$}", w = head.len().max(5));
            }
            out.push('\n');
        };
        row(&mut out, "tool", HEAD.map(str::to_string));
        for t in &ts.tools {
            row(
                &mut out,
                &t.name,
                [
                    t.mcp_tokens.to_string(),
                    t.mcp_output_tokens.to_string(),
                    t.anthropic_tokens.to_string(),
                    t.openai_tokens.to_string(),
                    t.openai_estimate.to_string(),
                    t.gemini_tokens.to_string(),
                    pct(t.description_tokens, t.mcp_tokens),
                    pct(t.parameter_tokens, t.mcp_tokens),
                    pct(t.schema_tokens, t.mcp_tokens),
                ],
            );
        }
        let sum = |f: fn(&crate::stats::ToolCost) -> usize| ts.tools.iter().map(f).sum::<usize>();
        let tool_total = sum(|t| t.mcp_tokens);
        row(
            &mut out,
            "whole list",
            [
                ts.mcp_tokens.to_string(),
                ts.mcp_output_tokens.to_string(),
                ts.anthropic_tokens.to_string(),
                ts.openai_tokens.to_string(),
                ts.openai_estimate.to_string(),
                ts.gemini_tokens.to_string(),
                pct(sum(|t| t.description_tokens), tool_total),
                pct(sum(|t| t.parameter_tokens), tool_total),
                pct(sum(|t| t.schema_tokens), tool_total),
            ],
        );
        if let Some(d) = &ts.deferred {
            let _ = writeln!(
                out,
                "  with groups deferred: {} tool{} up front, {} deferred\n    \
                 Anthropic: {} up front ({} of the whole list), a search adds {}\n    \
                 OpenAI Responses: {} up front ({} of the whole list), a search adds {}",
                d.tools_up_front,
                if d.tools_up_front == 1 { "" } else { "s" },
                d.tools_deferred,
                d.anthropic_up_front,
                pct(d.anthropic_up_front, ts.anthropic_tokens),
                d.anthropic_per_search,
                d.openai_up_front,
                pct(d.openai_up_front, ts.openai_tokens),
                d.openai_per_search,
            );
        }
    }
    let _ = writeln!(
        out,
        "\nTokens of {ENCODING}, of the compact JSON each provider receives: the MCP tools/list \
         definition (MCP output: of it, the output schema, which clients read and the model \
         does not), the Anthropic, OpenAI and Gemini entries as tools.*.json hold them (whole \
         list: every tool, none deferred). OpenAI est: OpenAI's published estimate for \
         function definitions (the whole list adds 12). Other models' tokenizers differ: an \
         estimate. The last three columns split MCP approximately. With groups deferred: \
         what a model reads before it searches, and what one search loads (Anthropic: 5 \
         tools, OpenAI: one group, of average size); the search tools' own instructions are \
         not published and not counted."
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
