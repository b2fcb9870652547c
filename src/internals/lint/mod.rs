//! `toolspec lint`: rules over the model that catch tools an agent will misuse.
//!
//! `check` refuses specs that cannot work; lint finds specs that work but that an agent will
//! call badly: a parameter named `q`, a search without pages, an error that says nothing
//! about the next step, two tools an agent cannot tell apart. Each rule is a `static`
//! [`Rule`] in its own file under [`rules`], declaring its id, severity, set and its own
//! documentation beside its check; the rule list, the SARIF rule metadata and
//! `docs/lint-rules.md` are generated from those declarations.
//!
//! ```no_run
//! let loaded = toolspec::load(&["specs/tickets.yaml"]).unwrap();
//! if !loaded.has_errors() {
//!     let findings = toolspec::internals::lint::lint(&loaded.model, &toolspec::internals::lint::Options::default());
//!     print!("{}", findings.render(&loaded.sources));
//! }
//! ```
//!
//! Rules read only the model (never YAML) and report [`Finding`]s; this module applies the
//! configuration ([`config`]) and turns them into [`Diagnostic`]s whose code is the rule id.

pub mod config;
pub mod context;
pub mod docs;
pub mod output;
pub mod route;
pub mod rule;
pub mod rules;
pub mod tokens;
pub mod words;

pub use config::Options;
pub use rule::{Category, Finding, Rule, Set};

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::model::Model;
use context::Ctx;

/// Runs every rule over the model and returns what the configuration lets through, sorted by
/// file and position, configuration problems included.
pub fn lint(model: &Model, options: &Options) -> Diagnostics {
    let mut problems = Vec::new();
    let mut config = config::Config::read(model, options, &mut problems);
    let cx = Ctx::new(model);
    let mut out = Diagnostics::default();
    for d in problems {
        out.push(d);
    }
    for rule in rules::ALL {
        let mut found = Vec::new();
        (rule.check)(&cx, &mut found);
        for f in dedupe(found) {
            let Some(severity) = config.spec(f.span.file).severity(rule, f.tool.as_deref()) else {
                continue;
            };
            out.push(Diagnostic {
                severity,
                code: rule.id.to_string(),
                message: f.message,
                span: f.span,
                label: f.label,
                help: Some(f.help.unwrap_or_else(|| rule.fix.to_string())),
                notes: f.notes,
            });
        }
    }
    for d in config.unused() {
        out.push(d);
    }
    out.sort();
    out
}

/// One finding per place and message: a problem in a named type is found once per tool that
/// uses it, but is one problem. When several tools found it, it belongs to none of them (so
/// one tool's allowance cannot hide it from the others).
fn dedupe(found: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for f in found {
        match out
            .iter_mut()
            .find(|o| o.span == f.span && o.message == f.message)
        {
            Some(o) => {
                if o.tool != f.tool {
                    o.tool = None;
                }
            }
            None => out.push(f),
        }
    }
    out
}
