//! Helpers shared by the lint tests: load specs (from files or text) and lint them.
#![allow(dead_code)]

use toolspec::diagnostics::{Diagnostic, Diagnostics, Sources};
use toolspec::internals::lint::{Options, Set, lint};

/// Specs loaded together, with the problems `check` found and the lint findings.
pub struct Linted {
    pub sources: Sources,
    pub check: Diagnostics,
    pub findings: Diagnostics,
}

impl Linted {
    /// Findings with this code, as (line, column).
    pub fn at(&self, code: &str) -> Vec<(u32, u32)> {
        self.findings
            .iter()
            .filter(|d| d.code == code)
            .map(|d| (d.span.pos.line, d.span.pos.column))
            .collect()
    }

    /// Findings with this code.
    pub fn with(&self, code: &str) -> Vec<&Diagnostic> {
        self.findings.iter().filter(|d| d.code == code).collect()
    }

    /// Every finding's code.
    pub fn codes(&self) -> Vec<&str> {
        self.findings.iter().map(|d| d.code.as_str()).collect()
    }

    /// The rendered findings, for failure messages.
    pub fn render(&self) -> String {
        self.findings.render(&self.sources)
    }
}

/// Loads spec files, asserts they pass `check`, and lints them under `set`.
pub fn lint_files(paths: &[&str], set: Option<Set>) -> Linted {
    let toolspec::Loaded {
        model,
        sources,
        diagnostics: check,
    } = toolspec::load(paths).expect("readable");
    assert!(
        !check.has_errors(),
        "{paths:?} must pass check:\n{}",
        check.render(&sources)
    );
    let findings = lint(&model, &Options { set });
    Linted {
        sources,
        check,
        findings,
    }
}

/// Loads specs given as (path, text), asserts they pass `check`, and lints them.
pub fn lint_texts(specs: &[(&str, &str)], set: Option<Set>) -> Linted {
    let mut sources = Sources::default();
    let mut check = Diagnostics::default();
    let mut loaded = Vec::new();
    for (path, text) in specs {
        let file = sources.add(*path, *text);
        if let Some(spec) = toolspec::internals::spec::load(file, text, &mut check) {
            loaded.push((file, spec));
        }
    }
    let model = toolspec::model::resolve(&loaded, &sources, &mut check);
    assert!(
        !check.has_errors(),
        "specs must pass check:\n{}",
        check.render(&sources)
    );
    let findings = lint(&model, &Options { set });
    Linted {
        sources,
        check,
        findings,
    }
}
