//! Shared by the docs tests: load the example specs, generate their docs and schemas in
//! memory, and read the JSON blocks of a page with the tag before each.
#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toolspec::internals::emit::{self, Kind, Options};
use toolspec::model::Model;

/// The repository root.
pub fn root() -> PathBuf {
    crate::common::root().to_path_buf()
}

/// `specs/*.yaml`, sorted (they are loaded together: tickets names a tool of orders).
pub fn spec_paths() -> Vec<PathBuf> {
    let dir = root().join("specs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("specs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no specs in {}", dir.display());
    paths
}

/// The model of `paths`, which must have no errors.
pub fn load(paths: &[PathBuf]) -> Model {
    let loaded = toolspec::load(paths).expect("specs are readable");
    assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
    loaded.model
}

/// The files of `kinds` for `model`, by `/`-separated path, as `toolspec generate` writes
/// them under `generated/`.
pub fn generate(model: &Model, kinds: &[Kind]) -> BTreeMap<String, String> {
    let files = match emit::generate(model, kinds, &Options::default()) {
        Ok(generated) => generated.files,
        Err(d) => panic!(
            "generation failed: {:?}",
            d.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        ),
    };
    files
        .into_iter()
        .map(|f| (f.path.to_string_lossy().replace('\\', "/"), f.contents))
        .collect()
}

/// One fenced code block of a page.
#[derive(Debug, Clone)]
pub struct Block {
    /// 1-based line of the opening fence.
    pub line: usize,
    /// The info string (`json`).
    pub lang: String,
    /// The HTML comment right before the fence, without `<!--`/`-->` (`call: tickets_get`).
    pub tag: Option<String>,
    /// The text between the fences.
    pub body: String,
}

/// Every fenced code block of a Markdown page (fences of three or more backticks).
pub fn blocks(page: &str) -> Vec<Block> {
    let lines: Vec<&str> = page.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let ticks = line.len() - line.trim_start_matches('`').len();
        if ticks >= 3 {
            let fence = &line[..ticks];
            let lang = line[ticks..].trim().to_string();
            let tag = i
                .checked_sub(1)
                .map(|p| lines[p].trim())
                .and_then(|p| p.strip_prefix("<!--"))
                .and_then(|p| p.strip_suffix("-->"))
                .map(|p| p.trim().to_string());
            let start = i;
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && lines[i].trim_end() != fence {
                body.push(lines[i]);
                i += 1;
            }
            assert!(i < lines.len(), "unclosed code block at line {}", start + 1);
            out.push(Block {
                line: start + 1,
                lang,
                tag,
                body: body.join("\n"),
            });
        }
        i += 1;
    }
    out
}

/// Parses a JSON block or fails naming the page and line.
pub fn json(page: &str, b: &Block) -> Value {
    serde_json::from_str(&b.body)
        .unwrap_or_else(|e| panic!("{page}:{}: block is not JSON: {e}", b.line))
}

/// The path of the docs folder of `service` under an output directory.
pub fn docs_dir(out: &Path, service: &str) -> PathBuf {
    out.join(service).join("docs")
}
