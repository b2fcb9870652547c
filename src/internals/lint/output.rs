//! Machine-readable lint output: JSON for scripts, SARIF 2.1.0 for code-scanning tools.
//!
//! Both take the same [`Diagnostics`] the human output renders, so the three formats always
//! report the same findings. Problems that are not lint rules (a spec failing `check`, a
//! configuration mistake) appear with their own codes; in SARIF they carry a `ruleId` but no
//! `ruleIndex`, since they have no entry in `tool.driver.rules`.

use crate::diagnostics::{Diagnostic, Diagnostics, Severity, Sources};
use crate::lint::rule::Rule;
use crate::lint::rules;
use serde_json::{Value, json};
use std::path::Path;

/// Counts of findings by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Infos.
    pub infos: usize,
}

impl Counts {
    /// Counts `diags`.
    pub fn of(diags: &Diagnostics) -> Counts {
        let mut c = Counts::default();
        for d in diags.iter() {
            match d.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Info => c.infos += 1,
            }
        }
        c
    }

    /// `2 errors, 1 warning, 0 infos`.
    pub fn summary(&self) -> String {
        fn n(count: usize, word: &str) -> String {
            format!("{count} {word}{}", if count == 1 { "" } else { "s" })
        }
        format!(
            "{}, {}, {}",
            n(self.errors, "error"),
            n(self.warnings, "warning"),
            n(self.infos, "info")
        )
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// The findings as one JSON document (pretty-printed, newline-terminated).
///
/// `{"findings": [{rule, severity, message, path, line, column, label, help, notes}],
/// "summary": {errors, warnings, infos}}`.
pub fn json(diags: &Diagnostics, sources: &Sources) -> String {
    let findings: Vec<Value> = diags
        .iter()
        .map(|d| {
            json!({
                "rule": d.code,
                "severity": severity_name(d.severity),
                "message": d.message,
                "path": sources.path(d.span.file),
                "line": d.span.pos.line,
                "column": d.span.pos.column,
                "label": d.label,
                "help": d.help,
                "notes": d.notes,
            })
        })
        .collect();
    let c = Counts::of(diags);
    let doc = json!({
        "findings": findings,
        "summary": {"errors": c.errors, "warnings": c.warnings, "infos": c.infos},
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    )
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// Where a rule's documentation is published.
pub fn help_uri(rule: &Rule) -> String {
    format!(
        "{}/blob/main/docs/lint-rules.md#{}",
        env!("CARGO_PKG_REPOSITORY"),
        rule.id
    )
}

fn sarif_rule(rule: &Rule) -> Value {
    let name: String = rule
        .id
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    let mut tags: Vec<&str> = vec![rule.category.as_str()];
    tags.extend(rule.set.members().map(|s| s.as_str()));
    json!({
        "id": rule.id,
        "name": name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.what},
        "help": {
            "text": format!("{} {}", rule.why, rule.fix),
            "markdown": crate::lint::docs::rule_help_markdown(rule),
        },
        "helpUri": help_uri(rule),
        "defaultConfiguration": {"level": sarif_level(rule.severity)},
        "properties": {"tags": tags},
    })
}

/// A relative, `/`-separated URI for a path as the user gave it: relative to `base` when the
/// path is under it, with characters outside URI paths percent-encoded.
pub fn artifact_uri(path: &str, base: Option<&Path>) -> String {
    let p = Path::new(path);
    let rel = match base {
        Some(b) if p.is_absolute() => p.strip_prefix(b).unwrap_or(p),
        _ => p,
    };
    let s = rel.to_string_lossy().replace('\\', "/");
    let s = s.strip_prefix("./").unwrap_or(&s);
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn sarif_result(d: &Diagnostic, sources: &Sources, base: Option<&Path>) -> Value {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message = format!("{message}. Fix: {help}");
    }
    let mut result = json!({
        "ruleId": d.code,
        "level": sarif_level(d.severity),
        "message": {"text": message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {
                    "uri": artifact_uri(sources.path(d.span.file), base),
                    "uriBaseId": "%SRCROOT%",
                },
                "region": {
                    "startLine": d.span.pos.line.max(1),
                    "startColumn": d.span.pos.column.max(1),
                },
            },
        }],
    });
    if let Some(i) = rules::ALL.iter().position(|r| r.id == d.code) {
        result["ruleIndex"] = json!(i);
    }
    result
}

/// The findings as a SARIF 2.1.0 log, ready for code-scanning upload (pretty-printed,
/// newline-terminated). Paths are made relative to `base` when they are under it.
pub fn sarif(diags: &Diagnostics, sources: &Sources, base: Option<&Path>) -> String {
    let rules: Vec<Value> = rules::ALL.iter().map(|r| sarif_rule(r)).collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| sarif_result(d, sources, base))
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "toolspec",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                },
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::artifact_uri;
    use std::path::Path;

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(artifact_uri("./specs/a b.yaml", None), "specs/a%20b.yaml");
        assert_eq!(
            artifact_uri("/repo/specs/t.yaml", Some(Path::new("/repo"))),
            "specs/t.yaml"
        );
    }
}
