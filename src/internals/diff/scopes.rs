//! Comparing the OAuth scopes a tool needs: a scope added refuses callers whose tokens
//! lacked it (and hides the tool from their `tools/list`); a scope dropped refuses no one.

use super::{Changes, Party, Side};
use crate::model::Tool;

/// Scope by scope, wherever each came from (the tool's own list or the toolset's default
/// for its tier, so a changed default shows on every tool it reaches).
pub(super) fn compare_scopes(o: &Tool, n: &Tool, out: &mut Changes) {
    let name = n.name.text.as_str();
    for (side, here, there) in [(Side::New, n, o), (Side::Old, o, n)] {
        for s in &here.scopes {
            if there.scopes.iter().any(|x| x.text == s.text) {
                continue;
            }
            let (kind, breaks, message, reason) = match side {
                Side::New => (
                    "scope-added",
                    Some(Party::Callers),
                    format!("`{name}` now needs scope `{}`", s.text),
                    "callers whose tokens lack it are refused with 403 insufficient_scope and no longer see the tool in tools/list",
                ),
                Side::Old => (
                    "scope-removed",
                    None,
                    format!("`{name}` no longer needs scope `{}`", s.text),
                    "every token that could call it still can",
                ),
            };
            let path = format!("{name}.scopes.{}", s.text);
            out.push(
                kind,
                breaks,
                Some(name),
                path,
                (side, s.span),
                message,
                reason,
            );
        }
    }
}
