//! What a lint rule is: its documentation, its defaults, and the function that checks it.
//!
//! A rule is one `static` [`Rule`] value in its own file under `rules/`, holding both the
//! check and the text that explains it, as clippy's and ruff's lints do. `toolspec rules`,
//! the SARIF `tool.driver.rules` and `docs/lint-rules.md` are all read from these values, so
//! a rule's documentation cannot drift from the rule.

use crate::diagnostics::{Severity, Span};
use crate::lint::context::Ctx;
use crate::model::Tool;

/// A rule set. Sets nest: `minimal` is inside `recommended`, which is inside `strict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Set {
    /// Mistakes that break agents or providers; almost never wrong to fix.
    Minimal,
    /// What an agent needs to choose and call a tool without trial and error. The default.
    Recommended,
    /// Everything, including advice that is sometimes deliberately not followed.
    Strict,
}

impl Set {
    /// Every set, smallest first.
    pub const ALL: [Set; 3] = [Set::Minimal, Set::Recommended, Set::Strict];

    /// The name written in specs and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Set::Minimal => "minimal",
            Set::Recommended => "recommended",
            Set::Strict => "strict",
        }
    }

    /// What the set holds, in a line (for `--help`).
    pub fn about(self) -> &'static str {
        match self {
            Set::Minimal => "mistakes that break agents or providers",
            Set::Recommended => "what an agent needs to choose and call a tool (the default)",
            Set::Strict => "everything, including advice sometimes deliberately not followed",
        }
    }

    /// The set with this name.
    pub fn parse(name: &str) -> Option<Set> {
        Set::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The sets a rule declared in `self` belongs to (`recommended` is also in `strict`).
    pub fn members(self) -> impl Iterator<Item = Set> {
        Set::ALL.into_iter().filter(move |s| *s >= self)
    }
}

/// Which part of a toolset a rule looks at; used to group rules in `toolspec rules` and docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// Tool and parameter names.
    Names,
    /// What descriptions say.
    Descriptions,
    /// Types and constraints of parameters and outputs.
    Schemas,
    /// Side-effect tiers, previews and confirmation.
    Safety,
    /// Size and shape of results.
    Results,
    /// The error catalog.
    Errors,
    /// The toolset as a whole, and several toolsets loaded together.
    Toolset,
}

impl Category {
    /// Every category, in documentation order.
    pub const ALL: [Category; 7] = [
        Category::Names,
        Category::Descriptions,
        Category::Schemas,
        Category::Safety,
        Category::Results,
        Category::Errors,
        Category::Toolset,
    ];

    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Names => "names",
            Category::Descriptions => "descriptions",
            Category::Schemas => "schemas",
            Category::Safety => "safety",
            Category::Results => "results",
            Category::Errors => "errors",
            Category::Toolset => "toolset",
        }
    }
}

/// One lint rule: its documentation and its check.
///
/// The text fields are Markdown and are the user documentation of the rule: `summary` is the
/// one line `toolspec rules` prints; `what`, `why`, `bad`, `good` and `fix` make its section
/// in `docs/lint-rules.md` and its SARIF help.
#[derive(Debug)]
pub struct Rule {
    /// Stable kebab-case id (`tool-name-prefix`), used in `lint.allow`, output and docs. The
    /// rule lives in `rules/<id with _ for ->.rs`.
    pub id: &'static str,
    /// Severity of its findings unless the spec's `lint.deny` raises it to error.
    pub severity: Severity,
    /// The smallest set it is in.
    pub set: Set,
    /// What it looks at.
    pub category: Category,
    /// One line: what a finding means.
    pub summary: &'static str,
    /// What the rule checks, precisely (thresholds included).
    pub what: &'static str,
    /// Why it matters for an agent calling the tool.
    pub why: &'static str,
    /// A spec fragment that triggers it.
    pub bad: &'static str,
    /// The same fragment, fixed.
    pub good: &'static str,
    /// How to fix a finding (the default hint when a finding gives none).
    pub fix: &'static str,
    /// Finds the problems in the model.
    pub check: fn(&Ctx, &mut Vec<Finding>),
}

impl Rule {
    /// Whether the rule runs under `set`.
    pub fn in_set(&self, set: Set) -> bool {
        self.set <= set
    }
}

/// One problem a rule found, before configuration decides whether and how it is reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Where.
    pub span: Span,
    /// The tool it is about, when it is about one: that tool's `lint.allow` applies.
    pub tool: Option<String>,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Short label under the snippet.
    pub label: String,
    /// How to fix this occurrence (the rule's `fix` when absent).
    pub help: Option<String>,
    /// Extra facts.
    pub notes: Vec<String>,
}

impl Finding {
    /// A finding about the toolset (or a named type), not one tool.
    pub fn at(span: Span, message: impl Into<String>) -> Finding {
        Finding {
            span,
            tool: None,
            message: message.into(),
            label: String::new(),
            help: None,
            notes: Vec::new(),
        }
    }

    /// A finding about `tool`, at `span` (which may be anywhere inside the tool).
    pub fn on(tool: &Tool, span: Span, message: impl Into<String>) -> Finding {
        Finding {
            tool: Some(tool.name.text.clone()),
            ..Finding::at(span, message)
        }
    }

    /// Sets the label under the snippet.
    pub fn label(mut self, label: impl Into<String>) -> Finding {
        self.label = label.into();
        self
    }

    /// Sets the fix hint for this occurrence.
    pub fn help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Finding {
        self.notes.push(note.into());
        self
    }
}
