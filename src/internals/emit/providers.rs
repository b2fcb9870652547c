//! The tool lists providers take, and the per-tool schema files, for `--emit schemas`.
//!
//! For each toolset this writes:
//!
//! ```text
//! <service>/schemas/<tool>.input.json    input schema (standard profile)
//! <service>/schemas/<tool>.output.json   output schema
//! <service>/tools.mcp.json               the MCP tools/list result: {"tools": [...]}
//! <service>/tools.anthropic.json         the Messages API `tools` array
//! <service>/tools.openai.json            the Chat Completions `tools` array, strict
//! <service>/tools.openai-responses.json  the Responses API `tools` array, strict
//! <service>/tools.gemini.json            the generateContent `tools` array (function declarations)
//! ```
//!
//! For a toolset with groups, the groups not loaded up front are deferred where the
//! provider can defer (Anthropic: `defer_loading` and the tool search tool; Responses: a
//! namespace per group and `tool_search`; MCP: `_meta["anthropic/alwaysLoad"]` on the tools
//! that must stay loaded), and left out of the lists of providers that cannot (Chat
//! Completions, Gemini), which hold the up-front groups only.
//!
//! The entries themselves, and whether a toolset fits each provider's limits, are the plan's
//! ([`crate::plan::providers`]); this module writes them.
//!
//! Every file is pretty-printed with two spaces and ends with a newline; keys keep a fixed
//! order and tools keep spec order, so the same spec gives the same bytes. A toolset that a
//! provider would refuse (too many tools, a description over OpenAI's limit) is reported as
//! a diagnostic at the spec location, and no file is produced: a broken tool list would only
//! fail later, at the provider, far from its cause.

use crate::diagnostics::Diagnostics;
use crate::emit::GeneratedFile;
use crate::model::{Model, ToolSet};
use crate::plan::providers::{Prepared, anthropic, gemini, mcp, openai, responses};
use serde::Serialize;

/// The schema files and provider lists of every toolset, and warnings.
///
/// A problem MCP itself would refuse (a tool name it cannot carry) is an error: nothing is
/// written. A provider's own limit (more than 128 tools or a description over 1,024
/// characters for OpenAI, Anthropic's and Gemini's name rules, a declaration outside
/// Gemini's schema subset) only costs that provider's list: it is not
/// written for that toolset, each reason is a warning at its place in the spec, and every
/// other file is.
pub fn emit(model: &Model) -> Result<(Vec<GeneratedFile>, Diagnostics), Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut warnings = Diagnostics::default();
    let mut files = Vec::new();
    let mut lists = Vec::new();
    for ts in &model.toolsets {
        // Each tool's description and schemas, made once for the checks and the files.
        let prepared: Vec<Prepared> = ts.tools.iter().map(Prepared::new).collect();
        errors.extend(mcp::check(ts));
        let [anthropic, openai, responses, gemini] = refused(
            [
                (anthropic::check(ts), "tools.anthropic.json"),
                (openai::check(ts), "tools.openai.json"),
                (responses_check(ts), "tools.openai-responses.json"),
                (gemini::check(ts, &prepared), "tools.gemini.json"),
            ],
            &mut warnings,
        );
        let skip = Lists {
            anthropic,
            openai,
            responses,
            gemini,
        };
        lists.push((ts, prepared, skip));
    }
    if errors.has_errors() {
        errors.sort();
        return Err(errors);
    }
    for (ts, prepared, skip) in &lists {
        files.extend(prepared_files(ts, prepared, *skip));
    }
    warnings.sort();
    Ok((files, warnings))
}

/// Which provider lists a toolset leaves out, because that provider would refuse them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lists {
    /// `tools.anthropic.json` is not written.
    pub anthropic: bool,
    /// `tools.openai.json` is not written.
    pub openai: bool,
    /// `tools.openai-responses.json` is not written.
    pub responses: bool,
    /// `tools.gemini.json` is not written.
    pub gemini: bool,
}

/// What OpenAI would refuse in the Responses list of `ts`: any function's own limits, and
/// the count of functions when none is deferred (whether deferred functions count toward
/// the 128 is not documented; a toolset that defers is not held to it).
fn responses_check(ts: &ToolSet) -> Diagnostics {
    if ts.defers() {
        openai::check_tools(ts)
    } else {
        openai::check(ts)
    }
}

/// Which of the lists each set of problems refuses; the problems become warnings that say
/// which files are not written. One problem that refuses two lists (a description over
/// OpenAI's limit refuses both of its lists) is said once, naming both.
fn refused<const N: usize>(
    found: [(Diagnostics, &str); N],
    warnings: &mut Diagnostics,
) -> [bool; N] {
    let mut merged: Vec<(crate::diagnostics::Diagnostic, Vec<&str>)> = Vec::new();
    let mut out = [false; N];
    for (i, (diags, file)) in found.into_iter().enumerate() {
        for d in diags {
            out[i] = true;
            let same = merged
                .iter()
                .position(|(m, _)| m.code == d.code && m.span == d.span && m.message == d.message);
            match same {
                Some(at) => merged[at].1.push(file),
                None => merged.push((d, vec![file])),
            }
        }
    }
    for (mut d, files) in merged {
        d.severity = crate::diagnostics::Severity::Warning;
        let verb = if files.len() == 1 { "is" } else { "are" };
        d.message = format!(
            "{} ({} {verb} not written for this toolset)",
            d.message,
            files.join(" and ")
        );
        warnings.push(d);
    }
    out
}

/// The files of one toolset without the provider lists `skip` names, without checking
/// provider limits (see [`emit`]).
pub fn toolset_files(ts: &ToolSet, skip: Lists) -> Vec<GeneratedFile> {
    let prepared: Vec<Prepared> = ts.tools.iter().map(Prepared::new).collect();
    prepared_files(ts, &prepared, skip)
}

/// [`toolset_files`] of `ts`, whose tools are `tools` (in spec order).
fn prepared_files(ts: &ToolSet, tools: &[Prepared], skip: Lists) -> Vec<GeneratedFile> {
    let service = &ts.service.text;
    let mut files = Vec::with_capacity(tools.len() * 2 + 3);
    for p in tools {
        let name = &p.tool.name.text;
        files.push(GeneratedFile::new(
            format!("{service}/schemas/{name}.input.json"),
            pretty(&p.input),
        ));
        files.push(GeneratedFile::new(
            format!("{service}/schemas/{name}.output.json"),
            pretty(&p.output),
        ));
    }
    files.push(GeneratedFile::new(
        format!("{service}/tools.mcp.json"),
        pretty(&mcp::ToolsList {
            tools: tools.iter().map(|p| mcp::McpTool::of(ts, p)).collect(),
        }),
    ));
    if !skip.anthropic {
        files.push(GeneratedFile::new(
            format!("{service}/tools.anthropic.json"),
            pretty(&anthropic::tools(ts, tools)),
        ));
    }
    // The providers without deferred loading take the tools loaded up front.
    let up_front = || tools.iter().filter(|p| ts.up_front(p.tool));
    if !skip.openai {
        files.push(GeneratedFile::new(
            format!("{service}/tools.openai.json"),
            pretty(&up_front().map(openai::OpenAiTool::from).collect::<Vec<_>>()),
        ));
    }
    if !skip.responses {
        files.push(GeneratedFile::new(
            format!("{service}/tools.openai-responses.json"),
            pretty(&responses::tools(ts, tools)),
        ));
    }
    if !skip.gemini {
        files.push(GeneratedFile::new(
            format!("{service}/tools.gemini.json"),
            pretty(&gemini::tools(up_front())),
        ));
    }
    files
}

/// JSON as every generated file holds it: two-space indentation and a final newline.
pub fn pretty<T: Serialize + ?Sized>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".to_string());
    s.push('\n');
    s
}
