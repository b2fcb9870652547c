//! The crate documentation's tutorial and the user guide's getting-started chapter tell users
//! to run `cargo add` commands; the crate they build (`examples/tutorial`, compiled and
//! tested with the workspace) must have exactly the dependencies those commands add. Otherwise the tutorial could drift from the
//! code that proves it works: a feature added to the example but not to the docs would leave
//! a reader with a crate that does not compile.

use std::collections::BTreeSet;

use crate::common;

/// One dependency: its section (`dependencies`, `dev-dependencies`, `build-dependencies`),
/// its crate name and its features.
type Dep = (String, String, BTreeSet<String>);

/// The dependencies the tutorial's `cargo add` lines add.
fn from_tutorial(doc: &str) -> BTreeSet<Dep> {
    let mut deps = BTreeSet::new();
    for line in doc.lines() {
        let Some(command) = line
            .trim_start_matches("//!")
            .trim()
            .strip_prefix("cargo add ")
        else {
            continue;
        };
        let mut words = command.split_whitespace();
        let mut section = "dependencies";
        let mut name = None;
        let mut features = BTreeSet::new();
        while let Some(word) = words.next() {
            match word {
                "--build" => section = "build-dependencies",
                // Where the crate comes from, until it is published: not what it is.
                "--path" | "--git" => {
                    words.next().expect("--path and --git take a value");
                }
                "--dev" => section = "dev-dependencies",
                "--features" | "-F" => {
                    let list = words.next().expect("--features takes a list");
                    features.extend(list.split(',').map(str::to_owned));
                }
                crate_name => name = Some(crate_name.to_owned()),
            }
        }
        deps.insert((section.to_owned(), name.expect("a crate name"), features));
    }
    deps
}

/// The dependencies of a Cargo.toml: `name = "1"` or `name = { ..., features = [...] }`.
fn from_manifest(manifest: &str) -> BTreeSet<Dep> {
    let features = regex::Regex::new(r"features\s*=\s*\[([^\]]*)\]").unwrap();
    let mut deps = BTreeSet::new();
    let mut section = String::new();
    for line in manifest.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_owned();
            continue;
        }
        if !section.ends_with("dependencies") || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, spec) = line.split_once('=').expect("name = spec");
        let feats = features
            .captures(spec)
            .map(|c| {
                c[1].split(',')
                    .map(|f| f.trim().trim_matches('"').to_owned())
                    .filter(|f| !f.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        deps.insert((section.clone(), name.trim().to_owned(), feats));
    }
    deps
}

#[test]
fn the_tutorial_adds_exactly_the_dependencies_of_its_crate() {
    let root = common::root();
    let doc = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let manifest = std::fs::read_to_string(root.join("examples/tutorial/Cargo.toml")).unwrap();
    let told = from_tutorial(&doc);
    assert!(told.len() >= 5, "the tutorial's cargo add lines: {told:?}");
    assert_eq!(told, from_manifest(&manifest));
}

/// The guide's build-script path (`docs/guide/src/getting-started.md`) adds the same
/// dependencies, from a checkout of toolspec until the crates are published.
#[test]
fn the_guide_adds_exactly_the_dependencies_of_the_tutorial_crate() {
    let root = common::root();
    let guide = std::fs::read_to_string(root.join("docs/guide/src/getting-started.md")).unwrap();
    let manifest = std::fs::read_to_string(root.join("examples/tutorial/Cargo.toml")).unwrap();
    let told = from_tutorial(&guide);
    assert!(told.len() >= 5, "the guide's cargo add lines: {told:?}");
    assert_eq!(told, from_manifest(&manifest));
}

#[test]
fn a_missing_feature_is_caught() {
    let told = from_tutorial("//! cargo add tokio --features rt-multi-thread,macros\n");
    let built = from_manifest(
        "[dependencies]\ntokio = { version = \"1\", features = [\"rt-multi-thread\", \"macros\", \"io-std\"] }\n",
    );
    assert_ne!(told, built);
}
