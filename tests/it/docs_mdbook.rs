//! The generated docs folders build into a site with `mdbook`, with no edits, and every
//! link in the built site resolves.
//!
//! For each toolset of `specs/*.yaml`, the docs are written to a temporary directory and
//! built with `mdbook build`. The test then checks that every tool has its HTML page and
//! that every relative `href` of every built page names a file that exists, and, when it has
//! a `#fragment`, an element with that id in it.
//!
//! mdbook is found at `$TOOLSPEC_MDBOOK`, else `.tools/bin/mdbook` (where `scripts/test`
//! installs it: `cargo install mdbook --locked --no-default-features --root .tools`), else
//! `mdbook` on `PATH`. Without one the test fails and says how to install it: a docs build
//! that silently does not run would prove nothing.
//!
//! Run: `cargo test --features tokens --test it docs_mdbook::`.

use crate::docs_common as common;

use common::{generate, load, root, spec_paths};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use toolspec::emit::Kind;

fn mdbook() -> PathBuf {
    if let Some(p) = std::env::var_os("TOOLSPEC_MDBOOK") {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "TOOLSPEC_MDBOOK={} is not a file", p.display());
        return p;
    }
    let local = root().join(".tools/bin/mdbook");
    if local.is_file() {
        return local;
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("mdbook"))
            .find(|p| p.is_file())
    });
    on_path.unwrap_or_else(|| {
        panic!(
            "mdbook not found: set TOOLSPEC_MDBOOK, or install it with \
             `cargo install mdbook --locked --no-default-features --root .tools` \
             (scripts/test does this)"
        )
    })
}

/// A fresh scratch directory for this test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolspec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            html_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
}

/// The values of `attr="..."` in `html`.
fn attributes<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let needle = format!(" {attr}=\"");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&needle) {
        rest = &rest[i + needle.len()..];
        if let Some(end) = rest.find('"') {
            out.push(&rest[..end]);
            rest = &rest[end..];
        }
    }
    out
}

/// Undoes the HTML escapes mdbook writes into attribute values.
fn unescape(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

#[test]
fn docs_build_with_mdbook_and_every_link_resolves() {
    let mdbook = mdbook();
    let model = load(&spec_paths());
    let files = generate(&model, &[Kind::Docs]);
    let out = scratch("mdbook");
    for (path, text) in &files {
        let target = out.join(path);
        std::fs::create_dir_all(target.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&target, text).expect("write");
    }
    let mut failures = Vec::new();
    let mut links = 0;
    for ts in &model.toolsets {
        let book = out.join(&ts.service.text).join("docs");
        let site = out.join(format!("site-{}", ts.service.text));
        let run = Command::new(&mdbook)
            .arg("build")
            .arg(&book)
            .arg("--dest-dir")
            .arg(&site)
            .output()
            .expect("mdbook runs");
        assert!(
            run.status.success(),
            "mdbook build {} failed:\n{}{}",
            book.display(),
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        // mdbook warns about what it could not use (a broken link in SUMMARY.md, ...).
        let stderr = String::from_utf8_lossy(&run.stderr);
        for line in stderr
            .lines()
            .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        {
            failures.push(format!("{}: mdbook says: {line}", ts.service.text));
        }
        for page in ["index.html", "errors.html"]
            .into_iter()
            .map(String::from)
            .chain(ts.tools.iter().map(|t| format!("{}.html", t.name.text)))
        {
            if !site.join(&page).is_file() {
                failures.push(format!("{}: no {page} in the built site", ts.service.text));
            }
        }
        let mut pages = Vec::new();
        html_files(&site, &mut pages);
        // The site's own pages; not mdbook's 404 page, whose links resolve against the
        // `<base href>` of wherever the site is served (its `site-url`), not the file.
        let ours: BTreeSet<PathBuf> = pages
            .iter()
            .filter(|p| p.parent() == Some(site.as_path()))
            .filter(|p| !p.ends_with("404.html"))
            .cloned()
            .collect();
        for page in &ours {
            let html = std::fs::read_to_string(page).expect("readable");
            for href in attributes(&html, "href") {
                let href = unescape(href);
                // Only relative links: absolute ones depend on where the site is served.
                if href.is_empty()
                    || href.starts_with('/')
                    || href.starts_with("http://")
                    || href.starts_with("https://")
                    || href.starts_with("mailto:")
                    || href.starts_with("javascript:")
                {
                    continue;
                }
                links += 1;
                let (file, fragment) = match href.split_once('#') {
                    Some((f, frag)) => (f, Some(frag)),
                    None => (href.as_str(), None),
                };
                let file = file.split('?').next().unwrap_or_default();
                let base = page.parent().expect("in the site");
                let target = if file.is_empty() {
                    page.clone()
                } else {
                    base.join(file)
                };
                let target = if target.is_dir() {
                    target.join("index.html")
                } else {
                    target
                };
                let shown = page
                    .strip_prefix(&out)
                    .unwrap_or(page)
                    .display()
                    .to_string();
                if !target.is_file() {
                    failures.push(format!("{shown}: link `{href}` names no file"));
                    continue;
                }
                if let Some(id) = fragment.filter(|f| !f.is_empty())
                    && target.extension().is_some_and(|e| e == "html")
                {
                    let text = std::fs::read_to_string(&target).unwrap_or_default();
                    if !text.contains(&format!("id=\"{id}\"")) {
                        failures.push(format!(
                            "{shown}: link `{href}` names no element with that id"
                        ));
                    }
                }
            }
        }
        if ours.len() < ts.tools.len() + 2 {
            failures.push(format!(
                "{}: only {} pages were built",
                ts.service.text,
                ours.len()
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
        links > 100,
        "only {links} links checked; is the site empty?"
    );
}
