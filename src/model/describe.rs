//! The tool description an agent reads, composed from the spec's structured parts.
//!
//! This is the one place where facts about a tool (what it returns, when not to use it,
//! its page limits, tier, idempotency and preview behaviour) become words. The MCP, Anthropic
//! and OpenAI tool lists, the docs and the Rust definitions all call [`tool_description`], so
//! they cannot say different things, and the numbers in it are the ones the runtime enforces.

use crate::model::{Approval, Tool, format_duration};
use crate::spec::format::Tier;

/// The full description of a tool, as every output shows it.
pub fn tool_description(tool: &Tool) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.push(sentence(&tool.summary.text));
    parts.push(sentence(&format!(
        "Returns {}",
        lower_first(&tool.returns.text)
    )));
    if let Some(when) = &tool.use_when {
        parts.push(sentence(&format!("Use when {}", lower_first(&when.text))));
    }
    for nf in &tool.not_for {
        parts.push(format!(
            "Not for {}: call {} instead.",
            trim_period(&lower_first(&nf.when.text)),
            nf.use_tool.text
        ));
    }
    if let Some(p) = &tool.paging {
        parts.push(format!(
            "Pages: limit defaults to {} (max {}); pass next_cursor back as cursor for more; total counts all matches.",
            p.default_limit, p.max_limit
        ));
    }
    if let Some(default) = tool.response_format {
        parts.push(format!(
            "response_format: concise (fewer fields) or detailed; default {}.",
            default.as_str()
        ));
    }
    parts.push(tier_sentence(tool));
    if let Some(i) = &tool.idempotency {
        parts.push(format!(
            "Pass a new idempotency_key per change and reuse it on retry: a repeat with the same key and arguments returns the first result (replayed: true) for {}; other arguments with that key are refused.",
            format_duration(i.ttl)
        ));
    }
    parts.join(" ")
}

fn tier_sentence(tool: &Tool) -> String {
    match tool.tier {
        Tier::ReadOnly => "Read-only.".to_string(),
        Tier::Reversible => {
            "Reversible: the result's undo is the exact call that reverts it.".to_string()
        }
        Tier::Irreversible => match &tool.preview {
            Some(p) if p.approval == Approval::Host => {
                format!("Irreversible. {}", approval_explained(p.approval))
            }
            Some(p) => format!(
                "Irreversible: without preview_id it only previews the change (applied: false) and returns a preview_id valid {}; show the preview to the user, then call again with the same arguments and that preview_id to apply it once. {}",
                format_duration(p.ttl),
                approval_explained(p.approval)
            ),
            None => "Irreversible.".to_string(),
        },
    }
}

/// Who approves an irreversible change, in the words every output uses: the tool
/// descriptions, the docs' safety section and `toolspec check`.
pub fn approval_explained(approval: Approval) -> &'static str {
    match approval {
        Approval::HostOrPreview => {
            "When the client can ask the user (MCP elicitation), the user approves it there and it is made in that call; a no changes nothing (approval_declined: do not retry). Without that, the preview step catches mistakes but is not the user's approval."
        }
        Approval::Host => {
            "The user approves it through the client (MCP elicitation), and it is made in that call only on their yes; a no changes nothing (approval_declined: do not retry), and a client that cannot ask gets approval_unavailable."
        }
        Approval::Preview => {
            "The preview step catches mistakes but is not the user's approval: show the preview and apply only what they agreed to."
        }
    }
}

fn sentence(s: &str) -> String {
    let s = s.trim();
    if s.ends_with(['.', '!', '?']) {
        s.to_string()
    } else {
        format!("{s}.")
    }
}

fn trim_period(s: &str) -> &str {
    s.trim().trim_end_matches('.')
}

/// Lower-cases the first letter unless the first word looks like a name or an acronym
/// (`Ticket` becomes `ticket`; `SSO` and `T-1000` stay).
fn lower_first(s: &str) -> String {
    let s = s.trim();
    let first_word = s.split_whitespace().next().unwrap_or("");
    let keep = first_word
        .chars()
        .skip(1)
        .any(|c| c.is_uppercase() || !c.is_alphabetic());
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if !keep => c.to_lowercase().chain(chars).collect(),
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_plain_words_only() {
        assert_eq!(lower_first("Matching tickets"), "matching tickets");
        assert_eq!(lower_first("SSO tickets"), "SSO tickets");
        assert_eq!(sentence("Ends here"), "Ends here.");
        assert_eq!(sentence("Ends here."), "Ends here.");
    }
}
