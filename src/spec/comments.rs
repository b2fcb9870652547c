//! A `#` that ends a sentence early: in YAML, `#` after a space starts a comment, so
//! `summary: Read charge #1 first.` is the summary `Read charge`, and the rest is dropped
//! without a word. For the keys that hold prose, a comment on the same line as a plain
//! value is far more often such a cut than a comment, so it gets a warning.

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
];

/// Warns about every prose value that a same-line comment cut short.
pub fn check(doc: &PNode, text: &str, file: FileId, out: &mut Diagnostics) {
    walk(doc, text, file, out);
}

fn walk(node: &PNode, text: &str, file: FileId, out: &mut Diagnostics) {
    match &node.node {
        Node::Map(entries) => {
            for (key, _, value) in entries {
                if PROSE_KEYS.contains(&key.as_str())
                    && let Node::Str(s) = &value.node
                    && let Some(d) = cut_by_comment(key, s, value.pos, text, file)
                {
                    out.push(d);
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

fn cut_by_comment(
    key: &str,
    value: &str,
    pos: Pos,
    text: &str,
    file: FileId,
) -> Option<Diagnostic> {
    let rest = text.get(pos.offset..)?;
    // Quoted and block scalars keep their `#`.
    if rest.starts_with(['"', '\'', '|', '>']) {
        return None;
    }
    let line = rest.split('\n').next().unwrap_or("");
    let hash = line
        .char_indices()
        .find(|&(i, c)| c == '#' && i > 0 && line[..i].ends_with([' ', '\t']))
        .map(|(i, _)| i)?;
    let dropped = line[hash + 1..].trim();
    // A flow mapping's `}` after the comment would have failed to parse; what is left is a
    // comment on a block value. Nothing dropped (`# `) is a plain comment.
    if dropped.is_empty() {
        return None;
    }
    let at = pos.offset + hash;
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let span = Span {
        file,
        pos: Pos {
            line: pos.line,
            column: u32::try_from(before[line_start..].chars().count() + 1).unwrap_or(u32::MAX),
            offset: at,
            len: 1,
        },
    };
    let quoted = format!("{} #{}", value.trim_end(), &line[hash + 1..]).replace('"', "\\\"");
    Some(
        Diagnostic::warning(
            "comment-in-value",
            span,
            format!("`#` starts a YAML comment here: `{key}` is `{}`, and `#{}` is dropped", value.trim_end(), &line[hash + 1..].trim_end()),
        )
        .label("a comment from here to the end of the line")
        .help(format!(
            "if `#` belongs to the text, quote the value: `{key}: \"{}\"`; if it is a comment, put it on a line of its own",
            quoted.trim_end()
        )),
    )
}
