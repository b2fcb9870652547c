//! Spec text cannot break a docs page: tables keep their columns, raw HTML stays text,
//! invisible direction controls are shown.
//!
//! Uses `specs/adversarial/hostile.yaml`, whose strings carry quotes, `*/`, backslashes,
//! code fences, `<script>`, newlines and bidirectional controls, plus the example specs, and
//! checks every page structurally (the filters' unit tests cover `|` in text):
//!
//! - every table row has as many cells as its header (a `|` splits cells unless a backslash
//!   precedes it, as pulldown-cmark, mdbook's parser, splits them);
//! - outside code blocks and code spans, no `<` starts raw HTML except the tag comments
//!   before JSON blocks;
//! - no bidirectional control character is left in the text.
//!
//! Run: `cargo test --features tokens --test it docs_escaping::`.

use crate::docs_common as common;

use common::{generate, load, root, spec_paths};
use toolspec::internals::emit::Kind;
use toolspec::internals::emit::docs::filters;

/// Cells of a table row: split on `|` not preceded by a backslash, outer pipes dropped.
fn cells(row: &str) -> usize {
    let row = row.trim();
    let mut n: usize = 0;
    let mut prev = ' ';
    for c in row.chars() {
        if c == '|' && prev != '\\' {
            n += 1;
        }
        prev = c;
    }
    // `| a | b |` has 3 pipes and 2 cells.
    n.saturating_sub(1)
}

/// The text of a line outside code spans (what Markdown may read as HTML).
fn outside_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find('`') {
        out.push_str(&rest[..i]);
        let run = rest[i..].len() - rest[i..].trim_start_matches('`').len();
        let fence = &rest[i..i + run];
        let after = &rest[i + run..];
        match after.find(fence) {
            Some(end) => rest = &after[end + run..],
            None => {
                out.push_str(fence);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn check_page(path: &str, page: &str, failures: &mut Vec<String>) {
    let mut in_code: Option<String> = None;
    let mut header: Option<usize> = None;
    for (i, line) in page.lines().enumerate() {
        let at = format!("{path}:{}", i + 1);
        let ticks = line.len() - line.trim_start_matches('`').len();
        if let Some(fence) = &in_code {
            if line.trim_end() == fence {
                in_code = None;
            }
            continue;
        }
        if ticks >= 3 {
            in_code = Some(line[..ticks].to_string());
            continue;
        }
        if line.starts_with('|') {
            let n = cells(line);
            match header {
                None => header = Some(n),
                Some(h) if h != n => {
                    failures.push(format!("{at}: row has {n} cells, header {h}: {line}"))
                }
                Some(_) => {}
            }
        } else {
            header = None;
        }
        let is_tag = line.starts_with("<!-- ") && line.ends_with(" -->");
        if !is_tag && outside_code(line).contains('<') {
            failures.push(format!("{at}: raw `<` outside code: {line}"));
        }
        if line
            .chars()
            .any(|c| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
        {
            failures.push(format!(
                "{at}: invisible direction control left in the text"
            ));
        }
    }
}

#[test]
fn hostile_text_keeps_every_page_well_formed() {
    let hostile = root().join("specs/adversarial/hostile.yaml");
    for paths in [vec![hostile], spec_paths()] {
        let model = load(&paths);
        let files = generate(&model, &[Kind::Docs]);
        let mut failures = Vec::new();
        let mut pages = 0;
        for (path, text) in &files {
            if path.ends_with(".md") {
                pages += 1;
                check_page(path, text, &mut failures);
            }
        }
        assert!(pages >= 7, "only {pages} pages");
        assert!(
            failures.is_empty(),
            "{} problems:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

#[test]
fn the_checks_catch_what_they_look_for() {
    let mut failures = Vec::new();
    check_page(
        "p.md",
        "| a | b |\n|---|---|\n| x | y | z |\n",
        &mut failures,
    );
    check_page("p.md", "a <script> b\n", &mut failures);
    check_page("p.md", "a \u{202E} b\n", &mut failures);
    assert_eq!(failures.len(), 3, "{failures:?}");
    // And the filters are what prevents each of them.
    let hostile = "x | y\n<script>`a|b` \u{202E}";
    let mut ok = Vec::new();
    check_page(
        "p.md",
        &format!("| c |\n|---|\n| {} |\n", filters::cell(hostile)),
        &mut ok,
    );
    check_page("p.md", &filters::text(hostile), &mut ok);
    assert!(ok.is_empty(), "{ok:?}");
}
