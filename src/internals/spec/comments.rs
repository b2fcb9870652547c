//! A `#` that ends a sentence early: in YAML, `#` after a space starts a comment, so
//! `summary: Read charge #1 first.` is the summary `Read charge`, and the rest is dropped
//! without a word. For the keys that hold prose (and the items of `requests`, the values of
//! `enum_descriptions`), a comment right after a plain value, on the line where the value
//! ends (its only line, or the last of several), is far more often such a cut than a
//! comment, so it gets a warning, with the value quoted as the fix.

use crate::diagnostics::{Diagnostic, Diagnostics, FileId, Span};
use crate::spec::node::{Node, PNode};
use crate::spec::spanned::Pos;

/// The keys whose values are sentences an agent or a reader gets.
const PROSE_KEYS: &[&str] = &[
    "title",
    "summary",
    "description",
    "returns",
    "use_when",
    "message",
    "when",
    "reason",
    "low_risk",
    "key_optional",
];

/// The keys whose list items are sentences (`requests: [...]`).
const PROSE_LISTS: &[&str] = &["requests"];

/// The keys whose mapping values are sentences (`enum_descriptions: {open: ...}`).
const PROSE_MAPS: &[&str] = &["enum_descriptions"];

/// Warns about every prose value that a same-line comment cut short.
pub fn check(doc: &PNode, text: &str, file: FileId, out: &mut Diagnostics) {
    walk(doc, text, file, out);
}

/// How a prose value is written, to write the fix the same way: `key: "..."` or `- "..."`.
enum Written<'a> {
    Key(&'a str),
    Item,
}

fn walk(node: &PNode, text: &str, file: FileId, out: &mut Diagnostics) {
    match &node.node {
        Node::Map(entries) => {
            for (key, _, value) in entries {
                if PROSE_KEYS.contains(&key.as_str()) {
                    prose(value, Written::Key(key), text, file, out);
                }
                match &value.node {
                    Node::Seq(items) if PROSE_LISTS.contains(&key.as_str()) => {
                        for item in items {
                            prose(item, Written::Item, text, file, out);
                        }
                    }
                    Node::Map(values) if PROSE_MAPS.contains(&key.as_str()) => {
                        for (k, _, v) in values {
                            prose(v, Written::Key(k), text, file, out);
                        }
                    }
                    _ => {}
                }
                walk(value, text, file, out);
            }
        }
        Node::Seq(items) => {
            for item in items {
                walk(item, text, file, out);
            }
        }
        _ => {}
    }
}

fn prose(node: &PNode, written: Written, text: &str, file: FileId, out: &mut Diagnostics) {
    if let Node::Str(s) = &node.node
        && let Some(d) = cut_by_comment(&written, s, node.pos, text, file)
    {
        out.push(d);
    }
}

/// The comment that follows a plain scalar on the line where it ends, if any: where its `#`
/// is and what it holds after the `#`.
///
/// Only what follows the scalar's last character counts: a `#` further on, after a `,` in a
/// `{...}` or inside a quoted value after it (`{ description: a plain one, example: "see
/// #12" }`), is not in this value at all. A plain scalar may run over several lines; the
/// comment that ends it sits after its last line.
fn comment_after(pos: Pos, text: &str) -> Option<(usize, &str)> {
    let end = pos.offset.checked_add(pos.len)?;
    let after = text.get(end..)?;
    let line = after.split('\n').next().unwrap_or("");
    let gap = line.len() - line.trim_start_matches([' ', '\t']).len();
    let rest = &line[gap..];
    // The parser ends a plain scalar before ` #`, so a comment there is always after a gap.
    (gap > 0 && rest.starts_with('#')).then(|| (end + gap, rest[1..].trim_end_matches('\r')))
}

/// `value` as a double-quoted YAML scalar. A JSON string is one (its escapes, `\"`, `\\`,
/// `\n` and `\uXXXX`, are YAML's too), so the fix loads back to exactly the value meant,
/// whatever quotes, backslashes or line breaks it holds.
fn quoted(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| format!("{value:?}"))
}

fn cut_by_comment(
    written: &Written,
    value: &str,
    pos: Pos,
    text: &str,
    file: FileId,
) -> Option<Diagnostic> {
    let rest = text.get(pos.offset..)?;
    // Quoted and block scalars keep their `#`; an empty value has no text to cut.
    if rest.starts_with(['"', '\'', '|', '>']) || pos.len == 0 {
        return None;
    }
    let (at, dropped) = comment_after(pos, text)?;
    // Nothing after the `#` (`# `) is a plain comment, not a cut sentence.
    if dropped.trim().is_empty() {
        return None;
    }
    let span = Span {
        file,
        pos: crate::spec::pos_at(text, at),
    };
    let kept = value.trim_end();
    let meant = format!("{kept} #{}", dropped.trim_end());
    let (what, fix) = match written {
        Written::Key(key) => (
            format!("`{key}` is `{kept}`"),
            format!("{key}: {}", quoted(&meant)),
        ),
        Written::Item => (
            format!("the item is `{kept}`"),
            format!("- {}", quoted(&meant)),
        ),
    };
    Some(
        Diagnostic::warning(
            "comment-in-value",
            span,
            format!("`#` starts a YAML comment here: {what}, and `#{}` is dropped", dropped.trim_end()),
        )
        .label("a comment from here to the end of the line")
        .help(format!(
            "if `#` belongs to the text, quote the value: `{fix}`; if it is a comment, put it on a line of its own"
        )),
    )
}
