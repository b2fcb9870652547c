//! Comparing the OAuth scopes a tool needs: a scope added refuses callers whose tokens
//! lacked it (and hides the tool from their `tools/list`); a scope dropped refuses no one.

use super::{Changes, Party, Side};
use crate::model::Tool;

/// Scope by scope, wherever each came from (the tool's own list or the toolset's default
/// for its tier, so a changed default shows on every tool it reaches).
pub(super) fn compare_scopes(o: &Tool, n: &Tool, out: &mut Changes) {
    let name = n.name.text.as_str();
    for s in &n.scopes {
        if !o.scopes.iter().any(|x| x.text == s.text) {
            out.push(
                "scope-added",
                Some(Party::Callers),
                Some(name),
                format!("{name}.scopes.{}", s.text),
                (Side::New, s.span),
                format!("`{name}` now needs scope `{}`", s.text),
                "callers whose tokens lack it are refused with 403 insufficient_scope and no longer see the tool in tools/list",
            );
        }
    }
    for s in &o.scopes {
        if !n.scopes.iter().any(|x| x.text == s.text) {
            out.push(
                "scope-removed",
                None,
                Some(name),
                format!("{name}.scopes.{}", s.text),
                (Side::Old, s.span),
                format!("`{name}` no longer needs scope `{}`", s.text),
                "every token that could call it still can",
            );
        }
    }
}
