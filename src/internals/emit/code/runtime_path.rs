//! Generated code names the runtime as `::toolspec_runtime`. A crate that re-exports the
//! runtime (a framework built on toolspec, a facade that pins its version) asks for another
//! path with [`crate::Builder::runtime_path`], as prost-build's `prost_path` does; this
//! module rewrites the generated text to it.
//!
//! The rewrite works on the code's tokens, not on its text: a path that starts with
//! `toolspec_runtime` (with or without the leading `::`) becomes the configured one, and
//! nothing inside a string literal, a doc comment or a comment is touched, so no text a spec
//! holds can be changed by it. The rest of the file keeps its bytes and its layout.

use proc_macro2::{Spacing, TokenStream, TokenTree};

/// The crate generated code names by default.
pub const DEFAULT: &str = "::toolspec_runtime";

const CRATE: &str = "toolspec_runtime";

/// The keywords after which `::` starts a path rather than continuing one.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "dyn", "else", "enum", "extern",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "type", "unsafe", "use", "where", "while", "yield",
];

/// Checks `path` as a runtime path: a Rust path (`::my_facade::runtime`, `crate::rt`,
/// `my_facade::rt`) of plain segments, no generics. The path as it will be written, or why
/// it is not one.
pub fn parse(path: &str) -> Result<String, String> {
    let parsed: syn::Path =
        syn::parse_str(path.trim()).map_err(|e| format!("`{path}` is not a Rust path ({e})"))?;
    if parsed.segments.is_empty()
        || parsed
            .segments
            .iter()
            .any(|s| !matches!(s.arguments, syn::PathArguments::None))
    {
        return Err(format!(
            "`{path}` is not a plain path to a module (write it like `::my_facade::runtime`)"
        ));
    }
    let segments: Vec<String> = parsed
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let lead = if parsed.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    Ok(format!("{lead}{}", segments.join("::")))
}

/// `code` with every path that starts at `toolspec_runtime` starting at `path` instead
/// (already checked by [`parse`]). `code` must lex as Rust, which generated code does.
pub fn rewrite(code: &str, path: &str) -> Result<String, String> {
    if path == DEFAULT {
        return Ok(code.to_string());
    }
    let tokens: TokenStream = code
        .parse()
        .map_err(|e| format!("the generated code does not lex: {e}"))?;
    let lines = LineStarts::new(code);
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    find(tokens, &lines, &mut cuts);
    cuts.sort_unstable();
    let mut out = String::with_capacity(code.len() + cuts.len() * path.len());
    let mut at = 0;
    for (start, end) in cuts {
        out.push_str(&code[at..start]);
        out.push_str(path);
        at = end;
    }
    out.push_str(&code[at..]);
    Ok(out)
}

/// The byte ranges of the runtime's name at the start of a path in `tokens`, with the
/// leading `::` when there is one, inside groups too.
fn find(tokens: TokenStream, lines: &LineStarts<'_>, cuts: &mut Vec<(usize, usize)>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(group) => find(group.stream(), lines, cuts),
            TokenTree::Ident(ident) if ident == CRATE => {
                let next_is_path = matches!(
                    (trees.get(i + 1), trees.get(i + 2)),
                    (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                        if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
                );
                // `use toolspec_runtime;` or `toolspec_runtime as rt` name the crate too.
                let ends_path = matches!(
                    trees.get(i + 1),
                    Some(TokenTree::Punct(p)) if p.as_char() == ';'
                ) || matches!(trees.get(i + 1), Some(TokenTree::Ident(as_)) if as_ == "as");
                let leading = i >= 2
                    && matches!(
                        (&trees[i - 2], &trees[i - 1]),
                        (TokenTree::Punct(a), TokenTree::Punct(b))
                            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
                    );
                // A segment after another (`a::toolspec_runtime`) is not the crate; a keyword
                // before the `::` (`use`, `return`, `in`...) starts a path.
                let after_segment = leading
                    && i >= 3
                    && matches!(&trees[i - 3], TokenTree::Ident(k) if !KEYWORDS.contains(&k.to_string().as_str()));
                if !(next_is_path || ends_path) || after_segment {
                    continue;
                }
                let start = if leading {
                    lines.offset(trees[i - 2].span().start())
                } else {
                    lines.offset(ident.span().start())
                };
                cuts.push((start, lines.offset(ident.span().end())));
            }
            _ => {}
        }
    }
}

/// Byte offsets of a text's lines, to turn a token's line and column (in characters) into
/// a byte offset.
struct LineStarts<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> LineStarts<'t> {
    fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineStarts { text, starts }
    }

    fn offset(&self, at: proc_macro2::LineColumn) -> usize {
        let line_start = self
            .starts
            .get(at.line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        self.text[line_start..]
            .char_indices()
            .nth(at.column)
            .map_or(self.text.len(), |(i, _)| line_start + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_to_the_runtime_move_and_nothing_else_does() {
        let code = r#"use ::toolspec_runtime::engine::glue;
use toolspec_runtime::prelude::*;
/// Calls `::toolspec_runtime::engine` (a doc comment: kept).
fn f() -> ::toolspec_runtime::ToolError {
    let s = "::toolspec_runtime::x stays, é";
    // ::toolspec_runtime in a comment stays
    let t = my::toolspec_runtime::Thing;
    let u = toolspec_runtime_extra::X;
    m!(::toolspec_runtime::validate::Shape);
    if true {} ::toolspec_runtime::f();
    return ::toolspec_runtime::g();
}
"#;
        let out = rewrite(code, "crate::rt").unwrap();
        assert_eq!(
            out,
            r#"use crate::rt::engine::glue;
use crate::rt::prelude::*;
/// Calls `::toolspec_runtime::engine` (a doc comment: kept).
fn f() -> crate::rt::ToolError {
    let s = "::toolspec_runtime::x stays, é";
    // ::toolspec_runtime in a comment stays
    let t = my::toolspec_runtime::Thing;
    let u = toolspec_runtime_extra::X;
    m!(crate::rt::validate::Shape);
    if true {} crate::rt::f();
    return crate::rt::g();
}
"#
        );
        assert_eq!(rewrite(code, DEFAULT).unwrap(), code);
    }

    #[test]
    fn a_runtime_path_must_be_a_plain_path() {
        assert_eq!(parse(" ::my_facade::rt ").unwrap(), "::my_facade::rt");
        assert_eq!(parse("crate::rt").unwrap(), "crate::rt");
        assert!(parse("my facade").unwrap_err().contains("not a Rust path"));
        assert!(parse("rt::<u8>").unwrap_err().contains("plain path"));
        assert!(parse("a\"; evil").is_err());
    }
}
