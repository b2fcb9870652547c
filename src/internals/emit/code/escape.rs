//! The only ways spec text becomes Rust source: string literals, identifiers, doc attributes.
//!
//! Every function returns text that is valid Rust in its position whatever the input (quotes,
//! backslashes, raw-string delimiters `"#`, comment ends `*/`, newlines, Rust keywords, any
//! Unicode), and that no default rustc or clippy lint flags: identifiers are ASCII in the
//! case rustc expects, literals escape invisible and bidirectional characters, docs cannot
//! open code blocks (which rustdoc would run as doctests) or links.
//!
//! The templates reach these through the filters of `templates`; names built in
//! Rust (type names, field names) go through them before they reach a template.

pub use crate::rust_names::{const_ident, ident, type_ident, variant};

/// A Rust string literal whose value is exactly `text`.
///
/// Text with double quotes becomes a raw string with just enough `#`s (`r##"say "hi"#"##`),
/// so JSON Schemas and messages stay readable, unless it holds a character that must be
/// escaped (a control, invisible or bidirectional one: rustc and clippy deny those when
/// written raw). Everything else is the escaped form of `proc_macro2::Literal::string`.
pub fn lit(text: &str) -> String {
    let printable = |c: char| c == '"' || c == '\\' || c.escape_debug().count() == 1;
    if text.contains('"') && text.chars().all(printable) {
        let mut longest = 0;
        for (i, _) in text.match_indices('"') {
            let run = text[i + 1..].chars().take_while(|c| *c == '#').count();
            longest = longest.max(run);
        }
        let hashes = "#".repeat(longest + 1);
        return format!("r{hashes}\"{text}\"{hashes}");
    }
    proc_macro2::Literal::string(text).to_string()
}

/// Characters dropped from docs: the bidirectional controls rustc denies in comments
/// (`text_direction_codepoint_in_comment`) and invisible formatting characters.
fn invisible(c: char) -> bool {
    crate::model::fields::is_invisible(c)
}

/// Doc lines are wrapped at this many characters (rustdoc joins them back).
const DOC_WIDTH: usize = 92;

/// `#[doc = "..."]` attributes for `text`, or nothing when it is blank.
///
/// The text is made inert for rustdoc and clippy: carriage returns and tabs become plain
/// line breaks and spaces, control and invisible characters are dropped, lines are
/// re-wrapped without indentation (four leading spaces would open an indented code block,
/// which rustdoc runs as a doctest), the characters that open code spans and fences, links,
/// HTML and headings (`` ` ~ [ ] < > # \ ``) and a line-leading list or heading marker are
/// backslash-escaped, so the doc renders as the text it came from. Each line is then a string
/// literal, so `*/` or `///` inside cannot end or open a comment.
pub fn doc(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut lines: Vec<String> = Vec::new();
    for raw in text.split('\n') {
        let clean: String = raw
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .filter(|c| !c.is_control() && !invisible(*c))
            .collect();
        let mut line = String::new();
        for word in clean.split(' ').filter(|w| !w.is_empty()) {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > DOC_WIDTH {
                lines.push(escape_doc_line(&line));
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(escape_doc_line(&line));
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    lines.dedup_by(|a, b| a.is_empty() && b.is_empty());
    // One attribute per line, each with a leading space as `///` comments have.
    lines
        .iter()
        .map(|l| {
            if l.is_empty() {
                "#[doc = \"\"]".to_string()
            } else {
                format!("#[doc = {}]", lit(&format!(" {l}")))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Escapes one doc line (see [`doc`]).
fn escape_doc_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    if line.starts_with(['-', '+', '*', '=']) {
        out.push('\\');
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        // A web address becomes an autolink, `<https://...>`: rustdoc's `bare_urls` lint
        // refuses it bare, and inside the brackets nothing is markup.
        let url = url_at(&chars[i..]);
        if url > 0 {
            out.push('<');
            out.extend(&chars[i..i + url]);
            out.push('>');
            i += url;
            continue;
        }
        let c = chars[i];
        if matches!(c, '`' | '~' | '[' | ']' | '<' | '>' | '#' | '\\')
            || (digits > 0 && i == digits && matches!(c, '.' | ')'))
        {
            out.push('\\');
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The length of the `http://` or `https://` address at the start of `chars`, without
/// the punctuation that ends a sentence after it; 0 when there is none.
fn url_at(chars: &[char]) -> usize {
    let starts = |p: &str| chars.iter().take(p.len()).copied().eq(p.chars());
    let scheme = if starts("https://") {
        8
    } else if starts("http://") {
        7
    } else {
        return 0;
    };
    let mut end = chars
        .iter()
        .position(|c| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | '<' | '>' | '`' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '\\'
                )
        })
        .unwrap_or(chars.len());
    while end > scheme && matches!(chars[end - 1], '.' | ',' | ';' | ':' | '!' | '?') {
        end -= 1;
    }
    if end > scheme { end } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parses_as_expr(code: &str) -> bool {
        syn::parse_str::<syn::Expr>(code).is_ok()
    }

    #[test]
    fn web_addresses_become_autolinks() {
        let d = doc(
            r#"See [docs](https://docs.example.com/a_b?x=1#top). Or <a href="https://x.io/p">here</a>, http://"#,
        );
        assert!(
            d.contains("(<https://docs.example.com/a_b?x=1#top>)"),
            "{d}"
        );
        assert!(d.contains(r#"href="<https://x.io/p>""#), "{d}");
        assert!(d.contains("http://"), "a scheme alone stays text: {d}");
    }

    #[test]
    fn literals_keep_every_character() {
        for text in [
            "plain",
            "quote \" and \\ and \"# and \"## and r#\"raw\"#",
            "*/ /* /// //",
            "emoji 🎉 👨‍👩‍👧 é 中文",
            "bidi \u{202E}evil\u{202C} zero\u{200B}width nul\0 tab\t cr\r nl\n",
            "",
        ] {
            let l = lit(text);
            let parsed: syn::LitStr = syn::parse_str(&l).expect("a literal");
            assert_eq!(parsed.value(), text);
            assert!(!l.contains('\u{202E}') && !l.contains('\u{200B}') && !l.contains('\r'));
            assert!(parses_as_expr(&l));
        }
    }

    #[test]
    fn identifiers_are_valid_and_lint_free() {
        let cases = [
            ("ticket_id", "ticket_id", "TicketId", "TICKET_ID"),
            ("type", "r#type", "Type", "TYPE"),
            ("self", "self_", "Self_", "SELF"),
            ("Self", "self_", "Self_", "SELF"),
            ("crate", "crate_", "Crate", "CRATE"),
            ("_", "value", "Type", "VALUE"),
            (
                "customerEmail",
                "customer_email",
                "CustomerEmail",
                "CUSTOMER_EMAIL",
            ),
            ("\"#", "value", "Type", "VALUE"),
            ("1st", "n1st", "T1st", "N1ST"),
            ("café 🎉", "cafe", "Cafe", "CAFE"),
            ("HTTP", "http", "Http", "HTTP"),
            ("match", "r#match", "Match", "MATCH"),
            // Wire names that are not identifiers (GitHub's reactions, JSON-LD, kebab case).
            ("+1", "plus_1", "Plus1", "PLUS_1"),
            ("-1", "minus_1", "Minus1", "MINUS_1"),
            ("@type", "r#type", "Type", "TYPE"),
            ("foo-bar", "foo_bar", "FooBar", "FOO_BAR"),
        ];
        for (text, snake, camel, shout) in cases {
            assert_eq!(ident(text), snake, "{text}");
            assert_eq!(type_ident(text), camel, "{text}");
            assert_eq!(const_ident(text), shout, "{text}");
            for id in [
                ident(text),
                type_ident(text),
                const_ident(text),
                variant(text),
            ] {
                assert!(syn::parse_str::<syn::Ident>(&id).is_ok(), "{id}");
            }
        }
        assert_eq!(variant("\"#"), "Value");
        assert_eq!(variant("in_progress"), "InProgress");
        assert_eq!(variant("1st"), "V1st");
    }

    #[test]
    fn docs_cannot_break_out_or_become_code() {
        let hostile = "*/ end\r\n```rust\npanic!()\n```\n    indented code\n- list\nlazy\n[link] <b> # h\n\u{202E}x\t\u{200B}";
        let d = doc(hostile);
        let item = format!("{d}\npub struct X;");
        let file: syn::File = syn::parse_str(&item).expect("parses");
        let printed = prettyplease::unparse(&file);
        assert!(!printed.contains("```") && !printed.contains('\u{202E}'));
        assert!(!printed.contains("\n    indented") && !printed.contains('\t'));
        assert!(printed.contains("\\`\\`\\`rust"), "{printed}");
        assert_eq!(doc("  \n \t "), "");
    }
}
