//! The user guide (`docs/guide`, an mdBook) builds, and nothing in it is broken: every
//! `{{#include}}` names a file that exists (and, with `:anchor`, an anchor in it), mdbook
//! resolves every one of them without a warning, and every relative link and `#fragment` of
//! every built page resolves. Its Rust samples are never written in the page: each is
//! included from a crate of the workspace that `cargo test` builds (the tutorial's
//! `examples/tutorial`, the tickets example, the fixtures).
//!
//! mdbook is found as `docs_mdbook` finds it (`$TOOLSPEC_MDBOOK`, `.tools/bin/mdbook`,
//! `PATH`). Run: `cargo test --features tokens --test it guide::`.

use std::path::{Path, PathBuf};

use crate::common::root;
use crate::docs_mdbook::{build, check_links, mdbook, scratch};

fn guide() -> PathBuf {
    root().join("docs/guide")
}

/// Every Markdown source of the guide.
fn sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&guide().join("src"), &mut out);
    out.sort();
    out
}

/// The `{{#include PATH}}` and `{{#include PATH:ANCHOR}}` of `text`: (path, anchor).
fn includes(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{#include ") {
        rest = &rest[i + "{{#include ".len()..];
        let end = rest.find("}}").expect("an include ends with }}");
        let target = rest[..end].trim();
        let (path, anchor) = match target.split_once(':') {
            Some((p, a)) => (p, Some(a.to_owned())),
            None => (target, None),
        };
        out.push((path.to_owned(), anchor));
        rest = &rest[end..];
    }
    out
}

/// Problems with the includes of every source, before mdbook runs: a missing file, or an
/// anchor the file does not mark with `ANCHOR: name` and `ANCHOR_END: name` (mdbook would
/// include nothing, silently).
fn include_problems() -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut count = 0;
    for source in sources() {
        let text = std::fs::read_to_string(&source).expect("readable");
        let shown = source
            .strip_prefix(root())
            .unwrap_or(&source)
            .display()
            .to_string();
        for (path, anchor) in includes(&text) {
            count += 1;
            let file = source.parent().expect("in a folder").join(&path);
            let Ok(included) = std::fs::read_to_string(&file) else {
                failures.push(format!("{shown}: includes {path}, which does not exist"));
                continue;
            };
            if let Some(anchor) = anchor
                && !(included.contains(&format!("ANCHOR: {anchor}\n"))
                    && included.contains(&format!("ANCHOR_END: {anchor}\n")))
            {
                failures.push(format!(
                    "{shown}: includes {path}:{anchor}, but {path} has no anchor `{anchor}`"
                ));
            }
        }
    }
    (failures, count)
}

#[test]
fn the_guide_builds_and_every_include_and_link_resolves() {
    let (mut failures, count) = include_problems();
    assert!(
        count >= 30,
        "only {count} includes; are the samples still included?"
    );
    let mdbook = mdbook();
    let out = scratch("guide");
    let site = out.join("site");
    build(&mdbook, &guide(), &site, &mut failures);
    let summary = std::fs::read_to_string(guide().join("src/SUMMARY.md")).expect("SUMMARY.md");
    for chapter in summary
        .lines()
        .filter_map(|l| l.split_once("](").map(|(_, rest)| rest))
        .filter_map(|rest| rest.split_once(')').map(|(path, _)| path))
        .filter(|p| !p.is_empty())
    {
        let page = site.join(chapter.replace(".md", ".html"));
        if !page.is_file() {
            failures.push(format!("{chapter}: no page in the built guide"));
        }
    }
    let (pages, links) = check_links(&site, &out, true, &mut failures);
    for page in &pages {
        let html = std::fs::read_to_string(page).expect("readable");
        if html.contains("{{#") {
            failures.push(format!(
                "{}: holds an mdbook directive it did not resolve",
                page.strip_prefix(&out).unwrap_or(page).display()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        links > 200,
        "only {links} links checked; is the guide empty?"
    );
}

/// A Rust block in the guide holds only includes: code written in a page is code no
/// compiler checked.
#[test]
fn every_rust_sample_is_included_from_a_compiled_crate() {
    let mut failures = Vec::new();
    for source in sources() {
        let text = std::fs::read_to_string(&source).expect("readable");
        let mut in_rust = false;
        for (n, line) in (1..).zip(text.lines()) {
            let trimmed = line.trim();
            if let Some(info) = trimmed.strip_prefix("```") {
                in_rust = !in_rust && info.split(',').next() == Some("rust");
                continue;
            }
            if in_rust && !trimmed.is_empty() && !trimmed.starts_with("{{#include ") {
                failures.push(format!(
                    "{}:{n}: Rust written in the page: {trimmed}",
                    source.strip_prefix(root()).unwrap_or(&source).display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The host configuration the guide includes is JSON an MCP host reads: one `mcpServers`
/// entry that starts the tutorial's binary with a database.
#[test]
fn the_host_configuration_is_valid() {
    let path = root().join("examples/tutorial/claude_desktop_config.json");
    let text = std::fs::read_to_string(&path).expect("readable");
    let config: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let notes = &config["mcpServers"]["notes"];
    assert!(
        notes["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("/target/release/notes-server")),
        "{notes}"
    );
    assert_eq!(notes["args"][0], "--db", "{notes}");
}

#[test]
fn a_missing_anchor_is_caught() {
    let found = includes("x {{#include ../a.rs:main}} y {{#include b.toml}}");
    assert_eq!(
        found,
        vec![
            ("../a.rs".to_owned(), Some("main".to_owned())),
            ("b.toml".to_owned(), None)
        ]
    );
}
