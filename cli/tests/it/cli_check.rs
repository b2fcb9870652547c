//! `toolspec check` and `toolspec schema` as a user runs them: exit codes, output, messages.
//!
//! Exit codes are the CLI's contract: 0 clean, 1 a spec has errors, 2 usage or I/O problems.
//! Bad specs and their exact diagnostics are covered by `tests/bad_specs.rs`.

use std::process::{Command, Output};

use crate::common;

fn toolspec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("run toolspec")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The example specs as the CLI is given them from the repository root: `specs/<name>.yaml`.
fn example_specs() -> Vec<String> {
    common::example_specs()
        .iter()
        .map(|p| format!("specs/{}", p.file_name().unwrap().to_string_lossy()))
        .collect()
}

#[test]
fn the_example_specs_check_clean() {
    let specs = example_specs();
    let mut args = vec!["check"];
    args.extend(specs.iter().map(String::as_str));
    let out = toolspec(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "",
        "a clean check prints nothing to stderr"
    );
    let stdout = text(&out.stdout);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("ok: 3 specs, 14 tools"));
    assert_eq!(lines.next(), Some("approval of previewed changes:"));
    let approval = lines.next().unwrap_or_default();
    assert!(
        approval.starts_with(
            "  host_or_preview (docs_publish, orders_refund, orders_invoice_send, tickets_create): "
        ),
        "{approval}"
    );
    assert!(approval.contains("not the user's approval"), "{approval}");
    // Where each remote write's change is made, and so what a retry of it does.
    assert_eq!(
        lines.next(),
        Some("writes whose change is made at a remote service:")
    );
    let effect = lines.next().unwrap_or_default();
    assert!(
        effect.starts_with("  remote_keyed (orders_refund): "),
        "{effect}"
    );
    assert!(effect.contains("a retry never makes it twice"), "{effect}");
    assert_eq!(lines.next(), None);
}

#[test]
fn check_explains_a_host_only_approval_and_the_server_code_enforces_it() {
    let dir = std::env::temp_dir().join(format!("toolspec-approval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tickets = std::fs::read_to_string(common::root().join("specs/tickets.yaml")).unwrap();
    let host_only = tickets.replacen("    preview:\n", "    preview:\n      approval: host\n", 1);
    assert_ne!(host_only, tickets);
    let spec = dir.join("tickets.yaml");
    std::fs::write(&spec, host_only).unwrap();
    let orders = common::root().join("specs/orders.yaml");
    let out = toolspec(&["check", spec.to_str().unwrap(), orders.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("  host (tickets_create): The user approves it through the client"),
        "{stdout}"
    );
    assert!(stdout.contains("approval_unavailable"), "{stdout}");
    let gen_dir = dir.join("out");
    let out = toolspec(&[
        "generate",
        spec.to_str().unwrap(),
        orders.to_str().unwrap(),
        "--out",
        gen_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let code = std::fs::read_to_string(gen_dir.join("tickets/tickets.rs")).unwrap();
    assert!(
        code.contains(".confirmation(::toolspec_runtime::engine::Confirmation::Host)"),
        "the generated server serves tickets_create host-only"
    );
    let gauntlet = std::fs::read_to_string(gen_dir.join("tickets/tickets_gauntlet.rs")).unwrap();
    assert!(gauntlet.contains("without_a_host_that_can_ask_nothing_changes"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spec_that_names_a_tool_of_another_fails_alone() {
    // tickets.yaml's `not_for` names orders_get, defined in orders.yaml.
    let out = toolspec(&["check", "specs/tickets.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("error[unknown-tool]"), "{stderr}");
    assert!(stderr.contains("`orders_get`"), "{stderr}");
    assert!(stderr.contains("--> specs/tickets.yaml:"), "{stderr}");
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn a_missing_file_is_a_usage_error_that_names_it() {
    let out = toolspec(&["check", "specs/no-such-spec.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: cannot read specs/no-such-spec.yaml: "),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one clear line: {stderr}");
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn check_without_specs_is_a_usage_error() {
    let out = toolspec(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("<SPECS>"),
        "names what is missing: {stderr}"
    );
    assert!(stderr.contains("Usage: toolspec check"), "{stderr}");
}

#[test]
fn no_command_is_a_usage_error() {
    let out = toolspec(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Usage: toolspec"));
}

#[test]
fn schema_prints_the_checked_in_json_schema() {
    let out = toolspec(&["schema"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let printed: serde_json::Value = serde_json::from_str(&stdout).expect("valid JSON");
    assert_eq!(
        printed["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let checked_in = std::fs::read_to_string(common::root().join("toolspec.schema.json"))
        .expect("toolspec.schema.json");
    assert_eq!(
        stdout, checked_in,
        "toolspec.schema.json is stale: UPDATE_GOLDEN=1 cargo test -p toolspec-cli --test it format_reference::"
    );
}

/// A spec of one read-only tool called `name`, with `extra` appended (top-level keys).
fn one_tool_spec(name: &str, extra: &str) -> String {
    format!(
        "toolspec: 1\nservice: pay\ntitle: Payments\ndescription: Take payments.\n{extra}tools:\n  - name: {name}\n    title: Get a charge\n    summary: Read one charge.\n    returns: the charge.\n    tier: read_only\n    params:\n      charge_id: {{ type: string, description: The charge., max_length: 20, example: ch_1 }}\n    output:\n      amount: {{ type: integer, description: The amount., example: 100 }}\n"
    )
}

#[test]
fn a_tool_without_the_service_prefix_is_a_warning_unless_the_rule_is_allowed() {
    let dir = std::env::temp_dir().join(format!("toolspec-prefix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("pay.yaml");
    let path = spec.to_str().unwrap();

    std::fs::write(&spec, one_tool_spec("charge_get", "")).unwrap();
    let out = toolspec(&["check", path]);
    let stderr = text(&out.stderr);
    // Still a passing check (a spec that checked before keeps checking), but not a silent one.
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning[tool-name-prefix]: tool `charge_get` does not start with `pay_`"),
        "{stderr}"
    );
    assert!(stderr.contains("pay.yaml:6:11"), "{stderr}");
    assert!(
        stderr.contains(
            "help: rename it `pay_charge_get` and add `deprecated_aliases: [charge_get]`"
        ),
        "{stderr}"
    );

    std::fs::write(&spec, one_tool_spec("pay_charge_get", "")).unwrap();
    assert_eq!(text(&toolspec(&["check", path]).stderr), "");

    let allowed = one_tool_spec("charge_get", "lint:\n  allow: [tool-name-prefix]\n");
    std::fs::write(&spec, allowed).unwrap();
    assert_eq!(text(&toolspec(&["check", path]).stderr), "");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_hash_that_cuts_a_sentence_is_a_warning_and_a_quoted_one_is_not() {
    let dir = std::env::temp_dir().join(format!("toolspec-hash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("pay.yaml");
    let path = spec.to_str().unwrap();
    let write = |summary: &str| {
        let text = one_tool_spec("pay_charge_get", "")
            .replace("summary: Read one charge.", &format!("summary: {summary}"));
        std::fs::write(&spec, text).unwrap();
    };

    write("Read charge #1 or any other.");
    let out = toolspec(&["check", path]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "warning[comment-in-value]: `#` starts a YAML comment here: `summary` is `Read charge`, and `#1 or any other.` is dropped"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("pay.yaml:8:26"), "{stderr}");
    assert!(
        stderr.contains("quote the value: `summary: \"Read charge #1 or any other.\"`"),
        "{stderr}"
    );

    for fine in [
        "\"Read charge #1 or any other.\"",
        "Read charge no. 1 or any other.",
        "Read a charge. #",
    ] {
        write(fine);
        assert_eq!(text(&toolspec(&["check", path]).stderr), "", "{fine}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_placeholder_naming_an_optional_detail_is_a_warning() {
    let dir = std::env::temp_dir().join(format!("toolspec-placeholder-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("pay.yaml");
    let path = spec.to_str().unwrap();
    let errors = |required: &str| {
        format!(
            "errors:\n  charge_missing:\n    message: \"No charge {{charge_id}}. Search charges by email.\"\n    retryable: false\n    when: No charge has this id.\n    details:\n      charge_id: {{ type: string, description: The id looked up., example: ch_1{required} }}\n"
        )
    };
    std::fs::write(
        &spec,
        one_tool_spec("pay_charge_get", &errors(", required: false")),
    )
    .unwrap();
    let out = toolspec(&["check", path]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning[optional-placeholder]: message of `charge_missing` uses `{charge_id}`, but the detail `charge_id` is optional"),
        "{stderr}"
    );
    assert!(stderr.contains("pay.yaml:7:25"), "{stderr}");

    std::fs::write(&spec, one_tool_spec("pay_charge_get", &errors(""))).unwrap();
    assert_eq!(text(&toolspec(&["check", path]).stderr), "");
    std::fs::remove_dir_all(&dir).ok();
}
