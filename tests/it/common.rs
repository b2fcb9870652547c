//! What the integration tests share: where the repository is and which example specs it holds.
//!
//! A test module that needs these says `use crate::common;`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use toolspec::diagnostics::{Diagnostics, Sources};
use toolspec::model::Model;

/// The repository root: the manifest directory of the `toolspec` package, or of the
/// `toolspec-cli` package beside it (which shares this file), whichever holds `specs/`.
pub fn root() -> &'static Path {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("specs").is_dir())
        .unwrap_or(manifest)
}

/// The `.yaml` files directly in `dir`, sorted so tests see them in a stable order.
/// Panics when `dir` cannot be read: every caller expects it to exist.
pub fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    paths
}

/// The example specs, `specs/*.yaml`, as absolute paths. Never empty.
pub fn example_specs() -> Vec<PathBuf> {
    let specs = yaml_files(&root().join("specs"));
    assert!(!specs.is_empty(), "no example specs in specs/");
    specs
}

/// Loads `paths` as one model with its sources and diagnostics, whatever they say.
pub fn load(paths: &[PathBuf]) -> (Model, Sources, Diagnostics) {
    let loaded = toolspec::load(paths).unwrap_or_else(|e| panic!("{e}"));
    (loaded.model, loaded.sources, loaded.diagnostics)
}

/// Loads `paths` as one model, failing the test with the rendered diagnostics on any error.
pub fn load_clean(paths: &[PathBuf]) -> Model {
    let (model, sources, diags) = load(paths);
    assert!(!diags.has_errors(), "{}", diags.render(&sources));
    model
}

/// Facts a schema states: its rule keywords (`enum`, bounds, lengths, `pattern`, `format`,
/// item counts, `default`) at every depth, and, with `examples`, each description that
/// shows an example (`Example: ...`).
pub fn schema_facts(v: &serde_json::Value, examples: bool) -> usize {
    use serde_json::Value;
    const KEYWORDS: &[&str] = &[
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minItems",
        "maxItems",
        "default",
    ];
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, child)| {
                let example = examples
                    && k == "description"
                    && child.as_str().is_some_and(|d| d.contains("Example:"));
                usize::from(KEYWORDS.contains(&k.as_str()))
                    + usize::from(example)
                    + schema_facts(child, examples)
            })
            .sum(),
        Value::Array(list) => list.iter().map(|x| schema_facts(x, examples)).sum(),
        _ => 0,
    }
}
