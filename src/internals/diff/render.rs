//! Printing a diff: one block per change for people, one JSON document for CI.

use super::{Change, Party, Side};
use crate::diagnostics::Sources;
use serde_json::json;
use std::fmt::Write as _;

/// `path:line:column` of a change, in the version it points into.
pub fn location(c: &Change, old: &Sources, new: &Sources) -> (String, u32, u32) {
    let sources = match c.side {
        Side::Old => old,
        Side::New => new,
    };
    let path = if c.span.file < sources.len() {
        sources.path(c.span.file).to_string()
    } else {
        String::new()
    };
    (path, c.span.pos.line, c.span.pos.column)
}

fn breaking_count(changes: &[Change], party: Party) -> usize {
    changes.iter().filter(|c| c.breaks == Some(party)).count()
}

/// One line per change (`path:line:col: breaking (callers) [kind] message`), its reason
/// indented below, then a summary line.
pub fn human(changes: &[Change], old: &Sources, new: &Sources) -> String {
    let mut out = String::new();
    for c in changes {
        let (path, line, col) = location(c, old, new);
        let class = match c.breaks {
            Some(p) => format!("breaking ({})", p.as_str()),
            None => "compatible".to_string(),
        };
        let _ = writeln!(
            out,
            "{path}:{line}:{col}: {class} [{}] {}",
            c.kind, c.message
        );
        let _ = writeln!(out, "    {}", c.reason);
    }
    let breaking = changes.iter().filter(|c| c.is_breaking()).count();
    let compatible = changes.len() - breaking;
    if changes.is_empty() {
        out.push_str("no changes\n");
    } else {
        let _ = writeln!(
            out,
            "{breaking} breaking change{} ({} for callers, {} for consumers), {compatible} compatible",
            if breaking == 1 { "" } else { "s" },
            breaking_count(changes, Party::Callers),
            breaking_count(changes, Party::Consumers),
        );
    }
    out
}

/// `{"breaking": n, "compatible": m, "changes": [...]}`, pretty-printed, newline-terminated.
pub fn json(changes: &[Change], old: &Sources, new: &Sources) -> String {
    let items: Vec<serde_json::Value> = changes
        .iter()
        .map(|c| {
            let (path, line, column) = location(c, old, new);
            json!({
                "kind": c.kind,
                "breaking": c.is_breaking(),
                "breaks": c.breaks,
                "tool": c.tool,
                "path": c.path,
                "message": c.message,
                "reason": c.reason,
                "location": {"side": c.side, "path": path, "line": line, "column": column},
            })
        })
        .collect();
    let breaking = changes.iter().filter(|c| c.is_breaking()).count();
    let doc = json!({
        "breaking": breaking,
        "compatible": changes.len() - breaking,
        "changes": items,
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    )
}
