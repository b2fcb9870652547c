//! The rules' documentation page, generated from the rules' own declarations.
//!
//! `docs/lint-rules.md` is [`page`]'s output, checked in; a test fails when it is stale and
//! `UPDATE_GOLDEN=1 cargo test --features tokens --test it lint_docs::` rewrites it. `toolspec rules ID` prints the
//! same section for one rule.

use crate::diagnostics::Severity;
use crate::lint::config::CONFIG_CODES;
use crate::lint::rule::{Category, Rule, Set};
use crate::lint::rules;
use std::fmt::Write as _;

/// The name of a severity as docs and `toolspec rules` print it.
pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// `minimal, recommended, strict` for a rule declared in `minimal`.
pub fn sets(rule: &Rule) -> String {
    rule.set
        .members()
        .map(Set::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A rule's documentation as Markdown: what, why, example, fix. Used by the docs page, the
/// SARIF help and `toolspec rules ID`.
pub fn rule_help_markdown(rule: &Rule) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}\n", rule.summary);
    let _ = writeln!(s, "**What it checks.** {}\n", rule.what);
    let _ = writeln!(s, "**Why it matters for an agent.** {}\n", rule.why);
    let _ = writeln!(s, "**Example** (reported):\n\n```yaml\n{}\n```\n", rule.bad);
    let _ = writeln!(s, "**Instead:**\n\n```yaml\n{}\n```\n", rule.good);
    let _ = write!(s, "**How to fix.** {}", rule.fix);
    s
}

/// One rule's section of the page.
pub fn rule_section(rule: &Rule) -> String {
    format!(
        "### `{}`\n\n{} · sets: {} · category: {}\n\n{}\n",
        rule.id,
        severity_name(rule.severity),
        sets(rule),
        rule.category.as_str(),
        rule_help_markdown(rule)
    )
}

/// The whole `docs/lint-rules.md`.
pub fn page() -> String {
    let mut s = String::new();
    s.push_str("<!-- @generated from src/internals/lint/rules/*.rs by `UPDATE_GOLDEN=1 cargo test --features tokens --test it lint_docs::`. Do not edit. -->\n\n");
    s.push_str("# Lint rules\n\n");
    let _ = writeln!(
        s,
        "`toolspec lint SPEC...` checks specs that `toolspec check` accepts for what makes an agent \
         misuse a tool: vague names and descriptions, loose schemas, unsafe tiers, unbounded \
         results, errors without a next step, and tools an agent will confuse. It has {} rules. \
         `toolspec rules` lists them; `toolspec rules ID` prints one.\n",
        rules::ALL.len()
    );
    s.push_str("## Sets, severities and exit codes\n\n");
    s.push_str(
        "Every rule is in one of three nested sets: `minimal` (mistakes that break agents or \
         providers), `recommended` (the default: what an agent needs to choose and call a tool \
         without trial and error) and `strict` (everything, including advice that is sometimes \
         deliberately not followed). A rule reports at its own severity: `error`, `warning` or \
         `info`. `toolspec lint` exits 0 when nothing is an error, 1 when something is (or a \
         spec fails `check`), 2 on usage problems.\n\n",
    );
    s.push_str("## Configuration\n\n");
    s.push_str(
        "In the spec:\n\n```yaml\nlint:\n  set: strict                 # minimal, recommended (default) or strict\n  allow: [missing-requests]   # rules off for this spec\n  deny: [too-many-params]     # rules on, as errors\ntools:\n  - name: tickets_delete\n    lint:\n      allow:\n        - rule: destructive-name-tier\n          reason: Soft delete; tickets_restore brings it back within 30 days.\n```\n\n",
    );
    s.push_str(
        "A tool's allowance wins over the spec's `deny`, which wins over the spec's `allow`, \
         which wins over the set. `toolspec lint --set strict` overrides every spec's set. \
         Mistakes in the configuration are reported too:\n\n",
    );
    for (code, what) in CONFIG_CODES {
        let _ = writeln!(s, "- `{code}`: {what}");
    }
    s.push_str("\n## Rules\n\n| id | severity | sets | summary |\n|---|---|---|---|\n");
    for r in rules::ALL {
        let _ = writeln!(
            s,
            "| [`{}`](#{}) | {} | {} | {} |",
            r.id,
            r.id,
            severity_name(r.severity),
            sets(r),
            r.summary.replace('|', "\\|")
        );
    }
    for cat in Category::ALL {
        let in_cat: Vec<&Rule> = rules::ALL
            .iter()
            .copied()
            .filter(|r| r.category == cat)
            .collect();
        if in_cat.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\n## {}\n", capitalise(cat.as_str()));
        for r in in_cat {
            s.push_str(&rule_section(r));
            s.push('\n');
        }
    }
    while s.ends_with("\n\n") {
        s.pop();
    }
    s
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
