//! `toolspec stats`: token costs per tool and per toolset, through the real binary and the
//! library function other stages call.
//!
//! Run: `cargo test -p toolspec-cli --test it stats_cli::`.

use serde_json::Value;
use std::process::Command;

use crate::common;
use common::{example_specs, load_clean, root};

fn stats(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .current_dir(root())
        .arg("stats")
        .args(example_specs())
        .args(args)
        .output()
        .expect("run toolspec");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn json_report_matches_the_library_and_is_sorted() {
    let (code, out, err) = stats(&["--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["encoding"], "o200k_base");
    let model = load_clean(&example_specs());
    let sets = v["toolsets"].as_array().expect("toolsets");
    assert_eq!(sets.len(), model.toolsets.len());
    for (set, ts) in sets.iter().zip(&model.toolsets) {
        assert_eq!(set["service"], ts.service.text.as_str());
        let tools = set["tools"].as_array().expect("tools");
        assert_eq!(tools.len(), ts.tools.len());
        let costs: Vec<u64> = tools
            .iter()
            .map(|t| t["mcp_tokens"].as_u64().unwrap())
            .collect();
        assert!(
            costs.windows(2).all(|w| w[0] >= w[1]),
            "sorted by cost: {costs:?}"
        );
        let mut sum = 0;
        for t in tools {
            let tool = ts
                .tool(t["name"].as_str().unwrap())
                .expect("a tool of the spec");
            let cost = toolspec::internals::stats::tool_cost(tool);
            assert_eq!(t["mcp_tokens"], cost.mcp_tokens);
            assert_eq!(t["openai_estimate"], cost.openai_estimate);
            let parts = cost.description_tokens + cost.parameter_tokens + cost.schema_tokens;
            assert_eq!(parts, cost.mcp_tokens, "shares add up");
            assert!(
                cost.description_tokens > 10
                    && cost.parameter_tokens > 10
                    && cost.schema_tokens > 10
            );
            // The compact definition costs fewer tokens than the pretty file, more than its description.
            let pretty = toolspec::internals::emit::providers::pretty(
                &toolspec::internals::plan::providers::mcp::tool(tool),
            );
            assert!(cost.mcp_tokens < toolspec::internals::stats::count_tokens(&pretty));
            sum += cost.openai_estimate;
        }
        assert_eq!(
            set["openai_estimate"].as_u64().unwrap() as usize,
            sum + 12,
            "12 once per list"
        );
        // Each provider's total is what its checked-in list file costs, compacted: what
        // `generate` writes is what is counted.
        for (key, file) in [
            ("mcp_tokens", "tools.mcp.json"),
            ("anthropic_tokens", "tools.anthropic.json"),
            ("openai_tokens", "tools.openai.json"),
            ("gemini_tokens", "tools.gemini.json"),
        ] {
            let path = root().join("generated").join(&ts.service.text).join(file);
            let list: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(
                set[key].as_u64().unwrap() as usize,
                toolspec::internals::stats::count_tokens(&list.to_string()),
                "{}: {key}",
                ts.service
            );
        }
        // The output schema is counted apart: what the checked-in list publishes of it.
        let path = root()
            .join("generated")
            .join(&ts.service.text)
            .join("tools.mcp.json");
        let list: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut outputs = 0;
        for listed in list["tools"].as_array().unwrap() {
            let counted = tools
                .iter()
                .find(|t| t["name"] == listed["name"])
                .expect("every listed tool counted");
            let published =
                toolspec::internals::stats::count_tokens(&listed["outputSchema"].to_string());
            assert_eq!(
                counted["mcp_output_tokens"].as_u64().unwrap() as usize,
                published
            );
            assert!(published > 0 && published < counted["mcp_tokens"].as_u64().unwrap() as usize);
            outputs += published;
        }
        assert_eq!(set["mcp_output_tokens"].as_u64().unwrap() as usize, outputs);
        assert!(
            set["mcp_tokens"].as_u64().unwrap() as usize
                >= tools
                    .iter()
                    .map(|t| t["mcp_tokens"].as_u64().unwrap() as usize)
                    .sum::<usize>()
        );
    }
}

#[test]
fn human_report_is_a_table_per_toolset() {
    let (code, out, err) = stats(&[]);
    assert_eq!(code, 0, "{err}");
    let header = out
        .lines()
        .find(|l| l.trim_start().starts_with("tool "))
        .unwrap_or_default();
    let columns: Vec<&str> = header
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        columns,
        [
            "tool",
            "MCP",
            "MCP output",
            "Anthropic",
            "OpenAI",
            "OpenAI est",
            "Gemini",
            "description",
            "parameters",
            "schema"
        ],
        "the providers side by side: {out}"
    );
    // The whole-list row of tickets carries the JSON report's totals, in header order.
    let (_, json, _) = stats(&["--format", "json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    let tickets = v["toolsets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["service"] == "tickets")
        .unwrap();
    let expected: Vec<String> = [
        "mcp_tokens",
        "mcp_output_tokens",
        "anthropic_tokens",
        "openai_tokens",
        "openai_estimate",
        "gemini_tokens",
    ]
    .iter()
    .map(|k| tickets[*k].to_string())
    .collect();
    let section = out.split("tickets (").nth(1).expect("tickets section");
    let whole: Vec<&str> = section
        .lines()
        .find(|l| l.trim_start().starts_with("whole list"))
        .unwrap()
        .split_whitespace()
        .skip(2)
        .take(6)
        .collect();
    assert_eq!(whole, expected, "{out}");
    assert!(
        out.contains("tickets (") && out.contains("tickets_search"),
        "{out}"
    );
    assert!(out.contains("o200k_base"), "{out}");
}

#[test]
fn exit_codes() {
    let o = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["stats", "no/such/spec.yaml"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2), "unreadable file is a usage error");
    let dir = std::env::temp_dir().join(format!("toolspec-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "toolspec: 1\nservice: Bad Name\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .arg("stats")
        .arg(&bad)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1), "a broken spec fails");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bad.yaml:"),
        "located diagnostics"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spec_alone_is_counted_with_a_warning_for_the_tools_it_names_elsewhere() {
    // tickets.yaml sends order questions to `orders_get`, defined in orders.yaml. `check`
    // refuses the spec alone; `stats` does not need that tool, so it warns and counts.
    let o = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["stats", "specs/tickets.yaml"])
        .current_dir(crate::common::root())
        .output()
        .expect("run");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning[unknown-tool]") && err.contains("specs/tickets.yaml:"),
        "{err}"
    );
    assert!(
        out.contains("tickets_search") && !out.contains("orders_"),
        "{out}"
    );
}
