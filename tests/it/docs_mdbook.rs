//! The generated docs folders build into a site with `mdbook`, with no edits, and every
//! link in the built site resolves.
//!
//! For each toolset of `specs/*.yaml`, the docs are written to a temporary directory and
//! built with `mdbook build`. The test then checks that every tool has its HTML page and
//! that every relative `href` of every built page names a file that exists, and, when it has
//! a `#fragment`, an element with that id in it.
//!
//! mdbook is found at `$TOOLSPEC_MDBOOK`, else `.tools/bin/mdbook` (where `scripts/test`
//! installs it: `cargo install mdbook --locked --no-default-features --features search --root .tools`), else
//! `mdbook` on `PATH`. Without one the test fails and says how to install it: a docs build
//! that silently does not run would prove nothing.
//!
//! Run: `cargo test --features tokens --test it docs_mdbook::`.

use crate::docs_common as common;

use common::{generate, load, root, spec_paths};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use toolspec::internals::emit::Kind;

pub(crate) fn mdbook() -> PathBuf {
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
             `cargo install mdbook --locked --no-default-features --features search --root .tools` \
             (scripts/test does this)"
        )
    })
}

/// A fresh scratch directory for this test.
pub(crate) fn scratch(name: &str) -> PathBuf {
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
    let links = build_every_book(&spec_paths(), "mdbook");
    assert!(
        links > 100,
        "only {links} links checked; is the site empty?"
    );
}

/// Pages named by kebab-case tool names (the calendar port keeps its original's
/// `list-events`): `list-events.md` builds to `list-events.html`, and the links between
/// such pages (`not_for`, undo calls) resolve.
#[test]
fn pages_of_tools_named_with_dashes_build_and_link() {
    let calendar = root().join("tests/corpus/calendar.yaml");
    let links = build_every_book(&[calendar], "mdbook-dashes");
    assert!(links > 20, "only {links} links checked; is the site empty?");
}

/// Writes the docs of `specs`, builds each toolset's book with mdbook and checks its pages
/// and links; fails with every problem found, else returns how many links were checked.
fn build_every_book(specs: &[PathBuf], name: &str) -> usize {
    let mdbook = mdbook();
    let model = load(specs);
    let files = generate(&model, &[Kind::Docs]);
    let out = scratch(name);
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
        build(&mdbook, &book, &site, &mut failures);
        for page in ["index.html", "errors.html"]
            .into_iter()
            .map(String::from)
            .chain(ts.tools.iter().map(|t| format!("{}.html", t.name.text)))
        {
            if !site.join(&page).is_file() {
                failures.push(format!("{}: no {page} in the built site", ts.service.text));
            }
        }
        let (built, checked) = check_links(&site, &out, false, &mut failures);
        links += checked;
        let ours = built;
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
    links
}

/// Checks every relative link of every built page of `site` (its top folder only unless
/// `nested`; never mdbook's 404 page, whose links resolve against the `<base href>` of
/// wherever the site is served): the file exists, and the `#fragment` names an element of
/// it. Returns the pages checked and how many links.
pub(crate) fn check_links(
    site: &Path,
    out: &Path,
    nested: bool,
    failures: &mut Vec<String>,
) -> (BTreeSet<PathBuf>, usize) {
    let mut links = 0;
    let mut pages = Vec::new();
    html_files(site, &mut pages);
    let ours: BTreeSet<PathBuf> = pages
        .iter()
        .filter(|p| nested || p.parent() == Some(site))
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
            let shown = page.strip_prefix(out).unwrap_or(page).display().to_string();
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
    (ours, links)
}

/// Runs `mdbook build BOOK --dest-dir SITE`; what it warns about is a failure.
pub(crate) fn build(mdbook: &Path, book: &Path, site: &Path, failures: &mut Vec<String>) {
    let run = Command::new(mdbook)
        .arg("build")
        .arg(book)
        .arg("--dest-dir")
        .arg(site)
        .output()
        .expect("mdbook runs");
    assert!(
        run.status.success(),
        "mdbook build {} failed:\n{}{}",
        book.display(),
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    // mdbook warns about what it could not use (a broken link in SUMMARY.md, no search).
    let stderr = String::from_utf8_lossy(&run.stderr);
    for line in stderr
        .lines()
        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
    {
        failures.push(format!("{}: mdbook says: {line}", book.display()));
    }
}

/// The book `toolspec docs` writes for the three example specs, built by mdbook: every
/// tool has its page in its toolset's folder, every link resolves (those between toolsets
/// too), and the search index holds every tool's name.
#[test]
fn one_book_of_every_toolset_builds_and_links_across_toolsets() {
    let mdbook = mdbook();
    let model = load(&spec_paths());
    let files = toolspec::internals::emit::docs::book(
        &model,
        &toolspec::internals::emit::Options::default(),
    )
    .unwrap_or_else(|d| {
        panic!(
            "{:?}",
            d.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        )
    });
    let out = scratch("book");
    let book = out.join("book-src");
    for f in &files {
        let target = book.join(&f.path);
        std::fs::create_dir_all(target.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&target, &f.contents).expect("write");
    }
    let site = out.join("site");
    let mut failures = Vec::new();
    build(&mdbook, &book, &site, &mut failures);
    let mut expected = vec!["index.html".to_string(), "errors.html".to_string()];
    for ts in &model.toolsets {
        let service = &ts.service.text;
        expected.push(format!("{service}/index.html"));
        expected.push(format!("{service}/errors.html"));
        expected.extend(
            ts.tools
                .iter()
                .map(|t| format!("{service}/{}.html", t.name.text)),
        );
    }
    for page in &expected {
        if !site.join(page).is_file() {
            failures.push(format!("no {page} in the built book"));
        }
    }
    let (pages, links) = check_links(&site, &out, true, &mut failures);
    // Links from one toolset's pages to another's: every `use instead` naming a tool of
    // another spec (tickets_search -> orders_get and back), on the tool page and the index.
    let across = pages
        .iter()
        .filter(|p| p.parent() != Some(site.as_path()))
        .map(|p| {
            let html = std::fs::read_to_string(p).expect("readable");
            attributes(&html, "href")
                .into_iter()
                .filter(|h| h.starts_with("../") && !h.starts_with("../.."))
                .filter(|h| {
                    let folder = h.trim_start_matches("../").split('/').next().unwrap_or("");
                    model.toolsets.iter().any(|t| t.service.text == folder)
                        && p.parent()
                            .and_then(|d| d.file_name())
                            .is_some_and(|d| d != folder)
                })
                .count()
        })
        .sum::<usize>();
    assert!(across >= 4, "only {across} links between toolsets");
    // `searchindex.js`, or `searchindex-<hash>.js` (mdbook 0.5 names assets by content).
    let index = std::fs::read_dir(&site)
        .expect("the site")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("searchindex") && n.ends_with(".js"))
        })
        .expect("mdbook wrote a search index (mdbook built with its search feature)");
    let index = std::fs::read_to_string(index).expect("readable");
    for ts in &model.toolsets {
        for t in &ts.tools {
            if !index.contains(&t.name.text) {
                failures.push(format!("the search index lacks {}", t.name.text));
            }
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
        links > 300,
        "only {links} links checked; is the book empty?"
    );
}

/// `generated/book/` is the golden copy of the book `toolspec docs specs/*.yaml` writes:
/// every page as it is today, so a change to a page shows in review
/// (`UPDATE_GOLDEN=1` rewrites it).
#[test]
fn the_checked_in_book_is_what_toolspec_docs_writes() {
    let model = load(&spec_paths());
    let files = toolspec::internals::emit::docs::book(
        &model,
        &toolspec::internals::emit::Options::default(),
    )
    .unwrap_or_else(|d| {
        panic!(
            "{:?}",
            d.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        )
    });
    let golden = root().join("generated/book");
    let mut stale = Vec::new();
    for f in &files {
        let path = golden.join(&f.path);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
            std::fs::write(&path, &f.contents).expect("write");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(f.contents.as_str()) {
            stale.push(f.path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "generated/book is stale ({}); run `toolspec docs specs/*.yaml --out generated/book` or UPDATE_GOLDEN=1",
        stale.join(", ")
    );
}
