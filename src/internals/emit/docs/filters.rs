//! Escaping filters: the only way spec text reaches a Markdown page.
//!
//! Spec text is prose that may contain Markdown code spans (`` `details.allowed` ``) on
//! purpose, but also characters that would break a page: a `|` ends a table cell, a newline
//! ends a table row or a quote, a `<` starts raw HTML that swallows the text, `[`/`]` and `\`
//! make links and escapes, `*`, `_` and `~` emphasis, `&` entities. The filters escape those outside code spans and leave code spans
//! as written (inside them everything is literal, and a `|` needs `\|` only in tables, which
//! GFM removes again).
//!
//! | filter | for | does |
//! |---|---|---|
//! | `cell` | text in a table cell | newlines to spaces, `\|`, `<` outside code spans |
//! | `text` | prose outside tables | newlines to spaces, `<` outside code spans |
//! | `code` | a value shown as code, outside tables | a code span with a long enough fence |
//! | `code_cell` | a value shown as code in a table cell | the same, with `\|` |
//! | `toml` | a TOML string value | a quoted basic string |

/// `s` as a Markdown code span, with a backtick fence longer than any run inside it (and
/// padding spaces where it starts or ends with a backtick), safe in table cells once `|`
/// is escaped by [`cell`].
pub fn code_span(s: &str) -> String {
    let s = one_line(s);
    let longest = longest_backtick_run(&s);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// Text for a table cell: one line, `|` and `<` escaped outside code spans, `|` inside.
pub fn cell(s: &str) -> String {
    escape(&one_line(s), true)
}

/// Prose outside tables: one line, `<` escaped outside code spans, and a leading `#`, `>`,
/// `-`, `+`, `*`, `=` or `1.` escaped so the text cannot turn into a heading, quote or list.
pub fn text(s: &str) -> String {
    let out = escape(&one_line(s), false);
    let digits = out.len() - out.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match out[digits..].chars().next() {
        Some('.' | ')') if digits > 0 => format!("{}\\{}", &out[..digits], &out[digits..]),
        Some('#' | '>' | '-' | '+' | '*' | '=') if digits == 0 => format!("\\{out}"),
        _ => out,
    }
}

/// A value as a code span, outside tables.
pub fn code(s: &str) -> String {
    code_span(s)
}

/// A value as a code span in a table cell (`|` escaped, which GFM tables undo).
pub fn code_cell(s: &str) -> String {
    code_span(s).replace('|', "\\|")
}

/// A TOML basic string. JSON's string escapes are a subset of TOML's (serde_json never
/// writes `\/`), so the JSON encoding is valid TOML.
pub fn toml(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Newlines (and the spaces around them) become one space: a cell or a quote is one line.
/// Bidirectional controls are shown as `[U+202E]`: invisible, they would reorder what the
/// reader sees around them (a "Trojan Source" page).
fn one_line(s: &str) -> String {
    let joined = s
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = String::with_capacity(joined.len());
    for c in joined.chars() {
        if matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
        {
            out.push_str(&format!("[U+{:04X}]", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

fn longest_backtick_run(s: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// Escapes `<` (and `|` when `in_table`) outside code spans; inside them only `|`.
fn escape(s: &str, in_table: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        let tick = rest.find('`').unwrap_or(rest.len());
        escape_plain(&rest[..tick], in_table, &mut out);
        rest = &rest[tick..];
        if rest.is_empty() {
            break;
        }
        let run = rest.len() - rest.trim_start_matches('`').len();
        let fence = &rest[..run];
        let after = &rest[run..];
        match closing(after, run) {
            Some(end) => {
                out.push_str(fence);
                let inner = &after[..end];
                out.push_str(&if in_table {
                    inner.replace('|', "\\|")
                } else {
                    inner.to_string()
                });
                out.push_str(fence);
                rest = &after[end + run..];
            }
            None => {
                // An unmatched backtick run is literal text in Markdown, so leave it be.
                out.push_str(fence);
                rest = after;
            }
        }
    }
    out
}

/// Where a run of exactly `n` backticks starts in `s`, if any.
fn closing(s: &str, n: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let start = i;
            while i < bytes.len() && bytes[i] == b'`' {
                i += 1;
            }
            if i - start == n {
                return Some(start);
            }
        } else {
            i += 1;
        }
    }
    None
}

fn escape_plain(s: &str, in_table: bool, out: &mut String) {
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            // Literal: not a link, an escape, emphasis or strikethrough. The page shows the
            // characters the agent reads.
            '[' | ']' | '\\' | '*' | '_' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '|' if in_table => out.push_str("\\|"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_stay_one_cell() {
        assert_eq!(cell("a | b\nc"), "a \\| b c");
        assert_eq!(cell("x <script> y"), "x &lt;script> y");
        assert_eq!(cell("use `a|b` or `<c>`"), "use `a\\|b` or `<c>`");
        assert_eq!(cell("one ` tick <"), "one ` tick &lt;");
    }

    #[test]
    fn prose_keeps_pipes_and_code() {
        assert_eq!(text("a | b\n  c"), "a | b c");
        assert_eq!(text("see `<T>` <b>"), "see `<T>` &lt;b>");
        assert_eq!(text("# not a heading"), "\\# not a heading");
        assert_eq!(text("1. not a list"), "1\\. not a list");
        assert_eq!(text("[x](y) a\\b"), "\\[x\\](y) a\\\\b");
        assert_eq!(
            text("*/ a_b ~~c~~ &lt;"),
            "\\*/ a\\_b \\~\\~c\\~\\~ &amp;lt;"
        );
        // The marker's brackets are escaped like any other: the page shows `[U+202E]`.
        assert_eq!(text("evil \u{202E}txt"), "evil \\[U+202E\\]txt");
        assert_eq!(text("2026 was"), "2026 was");
    }

    #[test]
    fn code_spans_outgrow_backticks() {
        assert_eq!(code_span("a"), "`a`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`a"), "`` `a ``");
        assert_eq!(code("x|y"), "`x|y`");
        assert_eq!(code_cell("x|y"), "`x\\|y`");
    }

    #[test]
    fn toml_strings_are_quoted() {
        assert_eq!(toml("Tickets \"v2\"\n"), "\"Tickets \\\"v2\\\"\\n\"");
    }
}
