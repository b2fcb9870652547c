//! A spec that a provider would refuse costs only that provider's list: a warning at the
//! spec location says why (a description over OpenAI's 1,024 characters, more than 128
//! tools), `tools.openai.json` is not written, and every other output is.
//!
//! Run: `cargo test -p toolspec-cli --test it providers_limits::`.

use std::path::{Path, PathBuf};
use std::process::Command;
use toolspec::diagnostics::{Diagnostics, Sources};
use toolspec::internals::emit::{self, Kind, Options};

/// A valid tool named `name` whose summary is `summary`.
fn tool_yaml(name: &str, summary: &str) -> String {
    format!(
        r#"  - name: {name}
    title: Read a thing
    summary: {summary}
    returns: the thing.
    tier: read_only
    params:
      thing_id: {{ type: string, description: The thing's id., max_length: 20, example: th-1 }}
    output:
      name: {{ type: string, description: The thing's name., example: Red mug }}
"#
    )
}

fn spec_yaml(tools: &[String]) -> String {
    format!(
        "toolspec: 1\nservice: big\ntitle: Big\ndescription: Things.\ntools:\n{}",
        tools.concat()
    )
}

/// Line (1-based) of the `- name: {name}` entry in `text`.
fn line_of(text: &str, name: &str) -> u32 {
    let needle = format!("- name: {name}\n");
    let at = text.find(&needle).expect("tool in spec");
    text[..at].matches('\n').count() as u32 + 1
}

/// The generated files' names and the warnings, or the errors.
fn generate(text: &str) -> Result<(Vec<String>, Diagnostics), Diagnostics> {
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let file = sources.add("big.yaml", text);
    let spec = toolspec::internals::spec::load(file, text, &mut diags).expect("spec loads");
    let model = toolspec::model::resolve(&[(file, spec)], &sources, &mut diags);
    assert!(
        !diags.has_errors(),
        "the spec itself is valid: {}",
        diags.render(&sources)
    );
    emit::generate(&model, &[Kind::Schemas], &Options::default()).map(|g| {
        let names = g
            .files
            .iter()
            .map(|f| f.path.to_string_lossy().replace('\\', "/"))
            .collect();
        (names, g.warnings)
    })
}

/// `generate` of a spec that only OpenAI refuses: its one warning, and the files, none of
/// them OpenAI's list.
fn openai_refuses(text: &str) -> (toolspec::diagnostics::Diagnostic, Vec<String>) {
    let (files, warnings) = generate(text).expect("every other output is generated");
    let w: Vec<_> = warnings.iter().cloned().collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(
        w[0].severity,
        toolspec::diagnostics::Severity::Warning,
        "a warning, not an error"
    );
    // One problem refuses both of OpenAI's lists, and is said once.
    assert!(
        w[0].message
            .contains("tools.openai.json and tools.openai-responses.json are not written"),
        "{}",
        w[0].message
    );
    assert!(
        files.contains(&"big/tools.mcp.json".to_owned()),
        "{files:?}"
    );
    assert!(
        files.contains(&"big/tools.anthropic.json".to_owned()),
        "{files:?}"
    );
    assert!(
        !files
            .iter()
            .any(|f| f.ends_with("tools.openai.json") || f.ends_with("tools.openai-responses.json")),
        "{files:?}"
    );
    (w[0].clone(), files)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolspec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs `toolspec generate` on `text` and returns (exit code, stderr, whether the MCP list
/// and the OpenAI list were written).
fn run_binary(name: &str, text: &str) -> (i32, String, (bool, bool)) {
    let dir = temp_dir(name);
    let spec = dir.join("big.yaml");
    std::fs::write(&spec, text).expect("write spec");
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["generate", "--emit", "schemas", "--out"])
        .arg(&out)
        .arg(&spec)
        .output()
        .expect("run toolspec");
    let wrote = (
        Path::new(&out).join("big/tools.mcp.json").exists(),
        Path::new(&out).join("big/tools.openai.json").exists(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        wrote,
    )
}

#[test]
fn description_over_1024_characters_is_located() {
    let long = format!(
        "Read one thing {}.",
        "and say so at length ".repeat(55).trim_end()
    );
    let text = spec_yaml(&[
        tool_yaml("big_short", "Read a thing."),
        tool_yaml("big_long", &long),
    ]);
    let (w, _) = openai_refuses(&text);
    assert_eq!(w.code, "openai-description-too-long");
    assert_eq!(w.span.pos.line, line_of(&text, "big_long"));
    assert!(w.message.contains("big_long"), "{}", w.message);
    assert!(
        w.help.as_deref().unwrap_or("").contains("shorten"),
        "a fix hint"
    );

    let (code, stderr, wrote) = run_binary("long-description", &text);
    assert_eq!(code, 0, "a warning does not fail the run: {stderr}");
    let loc = format!("big.yaml:{}:", line_of(&text, "big_long"));
    assert!(
        stderr.contains("openai-description-too-long") && stderr.contains(&loc),
        "{stderr}"
    );
    assert_eq!(
        wrote,
        (true, false),
        "the MCP list is written, OpenAI's is not"
    );
}

#[test]
fn a_description_of_exactly_the_limit_passes() {
    // The composed description adds "Returns the thing. Read-only." (29 characters).
    let base = "Read a thing.";
    let pad = 1024 - base.len() - " Returns the thing. Read-only.".len();
    let summary = format!("Read a thing {}.", "x".repeat(pad - 1));
    let text = spec_yaml(&[tool_yaml("big_edge", &summary)]);
    let (files, warnings) = generate(&text).expect("exports");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(files.len(), 7, "{files:?}");
}

#[test]
fn more_than_128_tools_is_located_at_the_first_one_over() {
    let tools: Vec<String> = (0..130)
        .map(|i| tool_yaml(&format!("big_t{i}"), "Read a thing."))
        .collect();
    let text = spec_yaml(&tools);
    let (w, files) = openai_refuses(&text);
    assert_eq!(w.code, "openai-too-many-tools");
    assert_eq!(w.span.pos.line, line_of(&text, "big_t128"));
    assert!(w.message.contains("130 tools"), "{}", w.message);
    assert_eq!(
        files.len(),
        130 * 2 + 3,
        "every tool's schemas, MCP's, Anthropic's and Gemini's lists"
    );

    let (code, stderr, wrote) = run_binary("many-tools", &text);
    assert_eq!(code, 0, "a warning does not fail the run: {stderr}");
    assert!(stderr.contains("openai-too-many-tools"), "{stderr}");
    assert_eq!(
        wrote,
        (true, false),
        "the MCP list is written, OpenAI's is not"
    );

    let ok: Vec<String> = (0..128)
        .map(|i| tool_yaml(&format!("big_t{i}"), "Read a thing."))
        .collect();
    let (files, warnings) = generate(&spec_yaml(&ok)).expect("exports");
    assert!(warnings.is_empty(), "128 tools are fine: {warnings:?}");
    assert!(files.contains(&"big/tools.openai.json".to_owned()));
}

/// A free-form object (no `fields`) cannot be said in OpenAI strict mode: the tool is
/// exported with `"strict": false` instead of being refused; MCP gets an open object.
#[test]
fn free_form_object_is_exported_non_strict() {
    let text = spec_yaml(&[
        tool_yaml("big_plain", "Read a thing."),
        tool_yaml("big_meta", "Read a thing.").replace(
            "    output:\n",
            "      meta: { type: object, description: Any labels to match., required: false }\n    output:\n",
        ),
    ]);
    let mut sources = Sources::default();
    let mut diags = Diagnostics::default();
    let file = sources.add("big.yaml", text.as_str());
    let spec = toolspec::internals::spec::load(file, &text, &mut diags).expect("spec loads");
    let model = toolspec::model::resolve(&[(file, spec)], &sources, &mut diags);
    assert!(!diags.has_errors(), "{}", diags.render(&sources));
    let files = emit::generate(&model, &[Kind::Schemas], &Options::default())
        .expect("exports")
        .files;
    let get = |name: &str| -> serde_json::Value {
        let f = files.iter().find(|f| f.path.ends_with(name)).expect("file");
        serde_json::from_str(&f.contents).expect("JSON")
    };
    let openai = get("tools.openai.json");
    assert_eq!(openai[0]["function"]["strict"], true);
    assert_eq!(openai[1]["function"]["strict"], false);
    let mcp = get("tools.mcp.json");
    let meta = &mcp["tools"][1]["inputSchema"]["properties"]["meta"];
    assert_eq!(meta["type"], "object");
    assert!(
        meta.get("additionalProperties").is_none(),
        "free-form: {meta}"
    );
    assert_eq!(
        mcp["tools"][1]["inputSchema"]["additionalProperties"],
        false
    );
}
