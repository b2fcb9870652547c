//! A toolset's whole-list token counts are made from its tools' entries (each counted once)
//! and what joining them changes: they must be what counting each written list gives.

use crate::common::{load_clean, root, yaml_files};
use toolspec::internals::plan::providers::{Prepared, anthropic, gemini, mcp, openai};
use toolspec::internals::stats::{count_tokens, lists_cost};

fn counted<T: serde::Serialize>(v: &T) -> usize {
    count_tokens(&serde_json::to_string(v).expect("serializes"))
}

#[test]
fn list_counts_are_the_counts_of_the_lists_written_whole() {
    let mut toolsets = 0;
    for dir in [
        "specs",
        "tests/corpus",
        "tests/import/drafts",
        "tests/constructs",
    ] {
        let model = load_clean(&yaml_files(&root().join(dir)));
        for ts in &model.toolsets {
            let prepared: Vec<Prepared> = ts.tools.iter().map(Prepared::new).collect();
            let functions: Vec<openai::OpenAiTool> =
                prepared.iter().map(openai::OpenAiTool::from).collect();
            let mcp_list = mcp::ToolsList {
                tools: prepared.iter().map(mcp::McpTool::from).collect(),
            };
            let cost = lists_cost(ts);
            let at = &ts.path;
            assert_eq!(cost.mcp_tokens, counted(&mcp_list), "MCP list of {at}");
            assert_eq!(
                cost.anthropic_tokens,
                counted(&anthropic::whole(&prepared)),
                "Anthropic list of {at}"
            );
            assert_eq!(
                cost.openai_tokens,
                counted(&functions),
                "OpenAI list of {at}"
            );
            assert_eq!(
                cost.gemini_tokens,
                counted(&gemini::tools(&prepared)),
                "Gemini list of {at}"
            );
            toolsets += 1;
        }
    }
    assert!(toolsets >= 14, "only {toolsets} toolsets were compared");
}
