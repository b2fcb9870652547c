//! Lint configuration: which rules run on which spec and tool, at what severity.
//!
//! Precedence, most specific first: a tool's `lint.allow` (with its reason) turns a rule off
//! for that tool; the spec's `lint.deny` turns a rule on as an error; the spec's `lint.allow`
//! turns it off; otherwise the rule runs, at its own severity, if it is in the spec's set
//! (`recommended` unless the spec or `--set` says otherwise). Mistakes in the configuration
//! itself (an unknown rule id or set, an allowance without a reason, an allowance that
//! allows nothing) are reported like findings, with a did-you-mean.

use crate::diagnostics::{Diagnostic, FileId, Severity, Span, did_you_mean};
use crate::lint::rule::{Rule, Set};
use crate::lint::rules;
use crate::model::{Model, Text};
use std::collections::HashMap;

/// Codes of the configuration problems (they are not rules: they cannot be allowed).
pub const CONFIG_CODES: &[(&str, &str)] = &[
    (
        "unknown-lint-rule",
        "A `lint.allow`, `lint.deny` or tool `lint.allow` names a rule that does not exist.",
    ),
    (
        "unknown-lint-set",
        "`lint.set` is not `minimal`, `recommended` or `strict`.",
    ),
    (
        "lint-allow-without-reason",
        "A tool's `lint.allow` entry has an empty `reason`.",
    ),
    (
        "unused-lint-allow",
        "A tool's `lint.allow` entry allows a rule that found nothing on that tool.",
    ),
];

/// Options from the command line, applied to every spec.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Overrides every spec's `lint.set`.
    pub set: Option<Set>,
}

/// One tool's allowance of one rule.
#[derive(Debug, Clone)]
struct ToolAllow {
    rule: String,
    span: Span,
    used: bool,
}

/// The configuration of one spec file.
#[derive(Debug, Clone)]
pub struct SpecConfig {
    /// The rule set in force.
    pub set: Set,
    allow: Vec<String>,
    deny: Vec<String>,
    /// Per tool name: its allowances.
    tools: HashMap<String, Vec<ToolAllow>>,
}

impl SpecConfig {
    fn new(set: Set) -> SpecConfig {
        SpecConfig {
            set,
            allow: Vec::new(),
            deny: Vec::new(),
            tools: HashMap::new(),
        }
    }

    /// The severity `rule` reports with on `tool` (or the toolset), or `None` when it is off.
    /// A tool allowance that matches is marked used.
    pub fn severity(&mut self, rule: &Rule, tool: Option<&str>) -> Option<Severity> {
        if let Some(allows) = tool.and_then(|t| self.tools.get_mut(t))
            && let Some(a) = allows.iter_mut().find(|a| a.rule == rule.id)
        {
            a.used = true;
            return None;
        }
        if self.deny.iter().any(|d| d == rule.id) {
            return Some(Severity::Error);
        }
        if self.allow.iter().any(|a| a == rule.id) || !rule.in_set(self.set) {
            return None;
        }
        Some(rule.severity)
    }

    /// Whether `rule` runs for this spec at all (ignoring tool allowances).
    pub fn enabled(&self, rule: &Rule) -> bool {
        self.deny.iter().any(|d| d == rule.id)
            || (rule.in_set(self.set) && !self.allow.iter().any(|a| a == rule.id))
    }
}

/// The configuration of every spec, by file.
#[derive(Debug, Clone, Default)]
pub struct Config {
    specs: HashMap<FileId, SpecConfig>,
    default: Option<SpecConfig>,
}

impl Config {
    /// Reads every spec's `lint` settings, reporting mistakes in them into `out`.
    pub fn read(model: &Model, options: &Options, out: &mut Vec<Diagnostic>) -> Config {
        let mut specs = HashMap::new();
        for ts in &model.toolsets {
            let set = match (&options.set, &ts.lint.set) {
                (Some(s), _) => *s,
                (None, Some(name)) => Set::parse(&name.text).unwrap_or_else(|| {
                    out.push(unknown_set(name));
                    Set::Recommended
                }),
                (None, None) => Set::Recommended,
            };
            let mut cfg = SpecConfig::new(set);
            for id in &ts.lint.allow {
                if known(id, out) {
                    cfg.allow.push(id.text.clone());
                }
            }
            for id in &ts.lint.deny {
                if known(id, out) {
                    cfg.deny.push(id.text.clone());
                }
            }
            for tool in &ts.tools {
                for (rule, reason) in &tool.lint_allow {
                    if reason.text.trim().is_empty() {
                        out.push(
                            Diagnostic::error(
                                "lint-allow-without-reason",
                                reason.span,
                                format!(
                                    "allowing `{}` on `{}` needs a reason",
                                    rule.text, tool.name.text
                                ),
                            )
                            .label("empty reason")
                            .help("say why the rule does not apply to this tool, so a reviewer can judge it"),
                        );
                    }
                    if known(rule, out) {
                        cfg.tools
                            .entry(tool.name.text.clone())
                            .or_default()
                            .push(ToolAllow {
                                rule: rule.text.clone(),
                                span: rule.span,
                                used: false,
                            });
                    }
                }
            }
            specs.insert(ts.span.file, cfg);
        }
        Config {
            specs,
            default: Some(SpecConfig::new(options.set.unwrap_or(Set::Recommended))),
        }
    }

    /// The configuration of the spec in `file`.
    pub fn spec(&mut self, file: FileId) -> &mut SpecConfig {
        let default = &mut self.default;
        self.specs.entry(file).or_insert_with(|| {
            default
                .clone()
                .unwrap_or_else(|| SpecConfig::new(Set::Recommended))
        })
    }

    /// Tool allowances of enabled rules that suppressed nothing: stale, or misspelled tools.
    pub fn unused(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for cfg in self.specs.values() {
            for (tool, allows) in &cfg.tools {
                for a in allows.iter().filter(|a| !a.used) {
                    let Some(rule) = rules::find(&a.rule) else {
                        continue;
                    };
                    if !cfg.enabled(rule) {
                        continue;
                    }
                    out.push(
                        Diagnostic::warning(
                            "unused-lint-allow",
                            a.span,
                            format!(
                                "`{}` finds nothing on `{tool}`; this allowance is not needed",
                                a.rule
                            ),
                        )
                        .label("allows nothing")
                        .help("remove the allowance, so the rule guards this tool again"),
                    );
                }
            }
        }
        out
    }
}

fn known(id: &Text, out: &mut Vec<Diagnostic>) -> bool {
    if rules::find(&id.text).is_some() {
        return true;
    }
    let d = Diagnostic::error(
        "unknown-lint-rule",
        id.span,
        format!("there is no lint rule `{}`", id.text),
    )
    .label("unknown rule id");
    out.push(
        match did_you_mean(&id.text, rules::ALL.iter().map(|r| r.id)) {
            Some(s) => d.help(format!("did you mean `{s}`?")),
            None => d.help("`toolspec rules` lists every rule id"),
        },
    );
    false
}

fn unknown_set(name: &Text) -> Diagnostic {
    let d = Diagnostic::error(
        "unknown-lint-set",
        name.span,
        format!("there is no rule set `{}`", name.text),
    )
    .label("unknown set");
    match did_you_mean(&name.text, Set::ALL.iter().map(|s| s.as_str())) {
        Some(s) => d.help(format!("did you mean `{s}`?")),
        None => d.help("use `minimal`, `recommended` or `strict`"),
    }
}
