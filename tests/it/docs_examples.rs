//! Every JSON block of every generated docs page is what its tag says it is.
//!
//! The same holds for the corpus ports (`tests/corpus/*.yaml`) and the truth fixture
//! (`tests/docs/truth/*.yaml`). The docs of `specs/*.yaml` and their schemas are generated in memory (the same bytes
//! `toolspec generate specs/*.yaml --out generated` writes, which CI keeps fresh), then each
//! ```json block is classified by the HTML comment before it and checked with an
//! independent validator (the `jsonschema` crate):
//!
//! - `call: TOOL`: valid against `TOOL`'s input schema (`<service>/schemas/TOOL.input.json`);
//! - `call: TOOL refused: CODE`: a call the server refuses with CODE; it fails the input
//!   schema when CODE is a validation code, and passes it when the tool itself refuses it
//!   (`not_found`); the next block is that error;
//! - `result: TOOL`: valid against `TOOL`'s output schema, with every object closed, so a
//!   page cannot show a key the schema does not declare;
//! - `content: TOOL`: the content blocks beside a result, each with its `type`;
//! - `error: TOOL`: exactly `{code: string, message: string, retryable: bool, details:
//!   object}`, the code in the toolset's catalog and the tool's errors table, `retryable` as
//!   the catalog says.
//!
//! A json block without a tag fails the test. Run: `cargo test --features tokens --test it docs_examples::`.

use crate::docs_common as common;

use common::{Block, blocks, generate, json, load, spec_paths};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use toolspec::internals::emit::Kind;
use toolspec::internals::emit::docs::filters;
use toolspec::model::Model;
use toolspec::model::describe::tool_description;
use toolspec_runtime::catalog;

struct Checker<'a> {
    model: &'a Model,
    files: &'a BTreeMap<String, String>,
    validators: BTreeMap<String, jsonschema::Validator>,
}

impl Checker<'_> {
    /// The validator of `<service>/schemas/<tool>.<which>.json`, built once.
    fn validator(&mut self, tool: &str, which: &str) -> &jsonschema::Validator {
        let (ts, _) = self
            .model
            .tool(tool)
            .unwrap_or_else(|| panic!("a block names `{tool}`, which no spec has"));
        let path = format!("{}/schemas/{tool}.{which}.json", ts.service.text);
        if !self.validators.contains_key(&path) {
            let text = self
                .files
                .get(&path)
                .unwrap_or_else(|| panic!("{path} is not generated"));
            let mut schema: Value = serde_json::from_str(text).expect("schema is JSON");
            if which == "output" {
                close(&mut schema);
            }
            let v = jsonschema::draft202012::options()
                .should_validate_formats(true)
                .build(&schema)
                .unwrap_or_else(|e| panic!("{path} does not compile: {e}"));
            self.validators.insert(path.clone(), v);
        }
        &self.validators[&path]
    }

    fn errors(&mut self, tool: &str, which: &str, value: &Value) -> Vec<String> {
        self.validator(tool, which)
            .iter_errors(value)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect()
    }
}

/// Adds `additionalProperties: false` to every object schema that lists properties and
/// says nothing about others: output schemas stay open for clients, the docs must not be.
fn close(schema: &mut Value) {
    match schema {
        Value::Object(m) => {
            if m.contains_key("properties") && !m.contains_key("additionalProperties") {
                m.insert("additionalProperties".into(), json!(false));
            }
            for v in m.values_mut() {
                close(v);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(close),
        _ => {}
    }
}

#[derive(Default, Debug)]
struct Counts {
    calls: usize,
    refused: usize,
    results: usize,
    errors: usize,
}

#[test]
fn every_json_block_is_what_its_tag_says() {
    check_blocks(&spec_paths(), true, 20, (26, 13, 13));
}

/// The ports of real servers (`tests/corpus/*.yaml`): their calls, results, previews and
/// undo calls hold to their schemas as the example specs' do.
#[test]
fn every_json_block_of_the_corpus_is_what_its_tag_says() {
    let corpus = common::root().join("tests/corpus");
    check_blocks(&crate::common::yaml_files(&corpus), false, 20, (40, 20, 20));
}

/// The truth fixture (`tests/docs/truth/*.yaml`): a previewed update and delete, a union
/// output and an undo through a previewed tool.
#[test]
fn every_json_block_of_the_truth_fixture_is_what_its_tag_says() {
    let dir = common::root().join("tests/docs/truth");
    check_blocks(&crate::common::yaml_files(&dir), false, 3, (8, 4, 3));
}

/// Generates the docs and schemas of `paths` and checks every JSON block of every page
/// against them; fewer than `min_pages` pages, or fewer calls, results and errors than
/// `min`, means the parser found nothing and so checked nothing. `example_specs` adds what
/// only the example specs promise: a success and an error example on every tool page, and
/// every refused call refused by the input schema too (the ports have rules JSON Schema is
/// not given, `time_min` only with `time_max`, which only the server's validator checks).
fn check_blocks(
    paths: &[std::path::PathBuf],
    example_specs: bool,
    min_pages: usize,
    (min_calls, min_results, min_errors): (usize, usize, usize),
) {
    let model = load(paths);
    let files = generate(&model, &[Kind::Schemas, Kind::Docs]);
    let mut checker = Checker {
        model: &model,
        files: &files,
        validators: BTreeMap::new(),
    };
    let mut failures = Vec::new();
    let mut total = Counts::default();
    let pages: Vec<(&String, &String)> = files
        .iter()
        .filter(|(p, _)| p.contains("/docs/") && p.ends_with(".md"))
        .collect();
    assert!(
        pages.len() >= min_pages,
        "expected the docs pages of every spec, got {}",
        pages.len()
    );
    for (path, page) in pages {
        let service = path.split('/').next().unwrap_or_default();
        let ts = model
            .toolsets
            .iter()
            .find(|t| t.service.text == service)
            .unwrap_or_else(|| panic!("{path}: no toolset `{service}`"));
        let list: Vec<Block> = blocks(page)
            .into_iter()
            .filter(|b| b.lang == "json")
            .collect();
        let mut counts = Counts::default();
        for (i, b) in list.iter().enumerate() {
            let at = format!("{path}:{}", b.line);
            let Some(tag) = &b.tag else {
                failures.push(format!(
                    "{at}: json block without a `<!-- kind: tool -->` tag"
                ));
                continue;
            };
            let value = json(path, b);
            let (kind, rest) = tag.split_once(':').unwrap_or((tag.as_str(), ""));
            let rest = rest.trim();
            match kind {
                "call" => match rest.split_once(" refused: ") {
                    None => {
                        counts.calls += 1;
                        for e in checker.errors(rest, "input", &value) {
                            failures
                                .push(format!("{at}: call of {rest} breaks its input schema: {e}"));
                        }
                    }
                    Some((tool, code)) => {
                        counts.refused += 1;
                        let problems = checker.errors(tool, "input", &value);
                        let validation = catalog::is_validation(code);
                        if validation && problems.is_empty() && example_specs {
                            failures.push(format!(
                                "{at}: refused with {code}, yet valid against {tool}'s input schema"
                            ));
                        }
                        if !validation && !problems.is_empty() {
                            failures.push(format!("{at}: refused by the tool with {code}, yet its input schema refuses it first: {problems:?}"));
                        }
                        let next = list.get(i + 1).map(|n| (n.tag.clone(), json(path, n)));
                        match next {
                            Some((Some(t), err)) if t == format!("error: {tool}") => {
                                if err["code"] != code {
                                    failures.push(format!("{at}: tag says {code}, the error below says {}", err["code"]));
                                }
                            }
                            other => failures.push(format!("{at}: a refused call must be followed by its error, found {other:?}")),
                        }
                    }
                },
                "result" => {
                    counts.results += 1;
                    for e in checker.errors(rest, "output", &value) {
                        failures.push(format!(
                            "{at}: result of {rest} breaks its output schema: {e}"
                        ));
                    }
                }
                "content" => {
                    let blocks = value.as_array().map(Vec::as_slice).unwrap_or_default();
                    if blocks.is_empty() || !blocks.iter().all(|b| b["type"].is_string()) {
                        failures.push(format!("{at}: content is not a list of typed blocks"));
                    }
                }
                "error" => {
                    counts.errors += 1;
                    failures.extend(check_error(&at, ts, page, &value));
                }
                other => failures.push(format!("{at}: unknown tag kind `{other}`")),
            }
        }
        let tool_page = ts
            .tools
            .iter()
            .find(|t| path.ends_with(&format!("/{}.md", t.name.text)));
        if let Some(tool) = tool_page {
            // The Output Contract: at least one success and one error recovery per tool.
            if example_specs
                && (counts.calls < 2
                    || counts.results < 1
                    || counts.refused < 1
                    || counts.errors < 1)
            {
                failures.push(format!("{path}: needs a successful call with its result and an error with the corrected call, has {counts:?}"));
            }
            let quoted = format!("> {}", filters::text(&tool_description(tool)));
            if !page.lines().any(|l| l == quoted) {
                failures.push(format!(
                    "{path}: does not quote the description the agent reads: {quoted}"
                ));
            }
        } else if counts.calls + counts.refused + counts.results + counts.errors > 0 {
            // Other pages show no calls, so there is nothing unchecked on them either.
            failures.push(format!(
                "{path}: unexpected example blocks on a toolset page"
            ));
        }
        total.calls += counts.calls;
        total.refused += counts.refused;
        total.results += counts.results;
        total.errors += counts.errors;
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Guards against a parser that finds nothing and so checks nothing.
    assert!(
        total.calls >= min_calls && total.results >= min_results && total.errors >= min_errors,
        "{total:?}"
    );
}

fn check_error(at: &str, ts: &toolspec::model::ToolSet, page: &str, v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(m) = v.as_object() else {
        return vec![format!("{at}: error body is not an object")];
    };
    let keys: Vec<&str> = m.keys().map(String::as_str).collect();
    if keys != ["code", "message", "retryable", "details"] {
        out.push(format!(
            "{at}: error keys are {keys:?}, not code, message, retryable, details"
        ));
    }
    if m.get("message")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        out.push(format!("{at}: message must be a non-empty string"));
    }
    if !m.get("details").is_some_and(Value::is_object) {
        out.push(format!("{at}: details must be an object"));
    }
    let code = m.get("code").and_then(Value::as_str).unwrap_or("");
    match ts.error(code) {
        None => out.push(format!(
            "{at}: code `{code}` is not in the {} catalog",
            ts.service.text
        )),
        Some(e) => {
            if m.get("retryable") != Some(&Value::Bool(e.retryable)) {
                out.push(format!(
                    "{at}: `{code}` is retryable={} in the catalog",
                    e.retryable
                ));
            }
            if let Some(b) = catalog::find(code)
                && b.retryable != e.retryable
            {
                out.push(format!("{at}: `{code}` disagrees with the runtime catalog"));
            }
        }
    }
    if !page.contains(&format!("[`{code}`](errors.md#{code})")) {
        out.push(format!("{at}: `{code}` is not in the page's errors table"));
    }
    out
}

#[test]
fn every_tool_and_toolset_has_its_pages() {
    let model = load(&spec_paths());
    let files = generate(&model, &[Kind::Docs]);
    for ts in &model.toolsets {
        let dir = format!("{}/docs", ts.service.text);
        for page in [
            "index.md",
            "errors.md",
            "SUMMARY.md",
            "book.toml",
            ".gitignore",
        ] {
            assert!(
                files.contains_key(&format!("{dir}/{page}")),
                "{dir}/{page} missing"
            );
        }
        let summary = &files[&format!("{dir}/SUMMARY.md")];
        let index = &files[&format!("{dir}/index.md")];
        for t in &ts.tools {
            let page = format!("{}.md", t.name.text);
            assert!(
                files.contains_key(&format!("{dir}/{page}")),
                "{dir}/{page} missing"
            );
            assert!(
                summary.contains(&format!("]({page})")),
                "SUMMARY.md of {dir} misses {page}"
            );
            assert!(
                index.contains(&format!("[`{}`]({page})", t.name.text)),
                "index.md of {dir} misses {page}"
            );
        }
        let errors = &files[&format!("{dir}/errors.md")];
        for e in &ts.errors {
            assert!(
                errors.contains(&format!("\n### {}\n", e.code)),
                "errors.md of {dir} misses `{}`",
                e.code
            );
        }
    }
}
