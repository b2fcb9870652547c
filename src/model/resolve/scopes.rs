//! The scopes each tool needs: the toolset's defaults by tier, a tool's own list, and the
//! rule every scope is held to (RFC 6749 §3.3's `scope-token`), so what a spec writes is
//! what an authorization server can issue and a `WWW-Authenticate` header can name.

use crate::diagnostics::{Diagnostic, Diagnostics, FileId, Span};
use crate::model::Text;
use crate::spec::format::{self as raw, Tier};
use crate::spec::spanned::Sp;

use super::{at, text};

/// The longest scope accepted. RFC 6749 sets no limit; authorization servers do (128 is
/// common), and a scope is repeated in every token and challenge.
pub const MAX_SCOPE_LEN: usize = 128;

/// The toolset's defaults: `defaults.scopes`, each list else `<service>:read` and
/// `<service>:write` (placed at the service name, where they come from).
pub(super) fn defaults(
    file: FileId,
    service: &Sp<String>,
    d: Option<&raw::ScopeDefaults>,
    diags: &mut Diagnostics,
) -> (Vec<Text>, Vec<Text>) {
    let built_in = |suffix: &str| {
        vec![Text {
            text: format!("{}:{suffix}", service.value),
            span: at(file, service.pos),
        }]
    };
    let read = d.and_then(|d| d.read.as_ref());
    let write = d.and_then(|d| d.write.as_ref());
    (
        read.map_or_else(|| built_in("read"), |l| list(file, l, diags)),
        write.map_or_else(|| built_in("write"), |l| list(file, l, diags)),
    )
}

/// The scopes `t` needs: its own `scopes`, else the default for its tier, and where its own
/// were written.
pub(super) fn of_tool(
    file: FileId,
    t: &raw::Tool,
    read: &[Text],
    write: &[Text],
    diags: &mut Diagnostics,
) -> (Vec<Text>, Option<Span>) {
    match &t.scopes {
        Some(own) => (list(file, own, diags), Some(at(file, own.pos))),
        None if t.tier.value == Tier::ReadOnly => (read.to_vec(), None),
        None => (write.to_vec(), None),
    }
}

/// A written list, each scope checked and none twice.
fn list(file: FileId, l: &Sp<Vec<Sp<String>>>, diags: &mut Diagnostics) -> Vec<Text> {
    let mut out: Vec<Text> = Vec::new();
    for s in &l.value {
        let span = at(file, s.pos);
        if let Some(problem) = problem(&s.value) {
            diags.push(
                Diagnostic::error(
                    "invalid-scope",
                    span,
                    format!("scope `{}` is not an OAuth scope: {problem}", s.value.escape_debug()),
                )
                .label("not a scope token")
                .help(format!(
                    "write 1 to {MAX_SCOPE_LEN} printable ASCII characters without spaces, `\"` or `\\` (`tickets:write`); a token's scopes are one space-separated string, so a space would make two"
                )),
            );
        } else if out.iter().any(|o| o.text == s.value) {
            diags.push(
                Diagnostic::error(
                    "duplicate-scope",
                    span,
                    format!("scope `{}` is listed twice", s.value),
                )
                .label("repeats an earlier scope")
                .help("remove one of the two"),
            );
        } else {
            out.push(text(file, s));
        }
    }
    out
}

/// What makes `scope` no RFC 6749 `scope-token` (1*( %x21 / %x23-5B / %x5D-7E )), if
/// anything, within [`MAX_SCOPE_LEN`].
pub fn problem(scope: &str) -> Option<String> {
    if scope.is_empty() {
        return Some("it is empty".into());
    }
    if let Some(c) = scope.chars().find(|&c| !is_scope_char(c)) {
        let what = match c {
            ' ' => "a space".to_string(),
            '"' => "`\"`".to_string(),
            '\\' => "`\\`".to_string(),
            c if c.is_ascii_control() || c.is_whitespace() => format!("{:?}", c),
            c => format!("`{c}`, which is not ASCII"),
        };
        return Some(format!("it holds {what}"));
    }
    let len = scope.len();
    (len > MAX_SCOPE_LEN).then(|| format!("it is {len} characters long, over {MAX_SCOPE_LEN}"))
}

fn is_scope_char(c: char) -> bool {
    matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_tokens_follow_rfc_6749() {
        for ok in [
            "tickets:read",
            "a",
            "https://api.example.com/x.write",
            "!#[]~",
        ] {
            assert_eq!(problem(ok), None, "{ok}");
        }
        assert_eq!(problem(&"a".repeat(128)), None);
        assert!(problem(&"a".repeat(129)).unwrap().contains("129"));
        assert!(problem("").unwrap().contains("empty"));
        assert!(problem("tickets read").unwrap().contains("a space"));
        assert!(problem("say\"hi").unwrap().contains('"'));
        assert!(problem("a\\b").unwrap().contains('\\'));
        assert!(problem("tab\there").unwrap().contains("\\t"));
        assert!(problem("café").unwrap().contains("not ASCII"));
    }
}
