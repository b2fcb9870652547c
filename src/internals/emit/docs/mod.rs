//! Documentation pages for a docs site, generated from the same model as the server.
//!
//! For each toolset `toolspec generate --emit docs` writes `<service>/docs/`:
//!
//! - `index.md`: what the toolset is for, its tools, which tool to use for what (from
//!   `use_when`, `not_for` and undo links) and its defaults;
//! - `<tool>.md`: the description exactly as the agent reads it
//!   ([`crate::model::describe::tool_description`]), parameter and output tables (implied
//!   fields included), the errors the tool can return, its safety spec, worked examples
//!   played through the runtime's own validator and constructors, and the token cost of its
//!   definition;
//! - `errors.md`: the whole error catalog;
//! - `group-<name>.md`, for a spec with groups: what the group is for, whether it loads up
//!   front, its tools, and how to serve it alone (`--groups`);
//! - `SUMMARY.md` and `book.toml`, so `mdbook build` makes a site of the folder as it is.
//!
//! `toolspec docs SPEC... --out DIR` writes one book for every toolset instead ([`book`]):
//! a home page listing the toolsets, per toolset `<service>/index.md`, its tool pages and
//! `<service>/errors.md`, and one `errors.md` of every code across them; a tool named on a
//! page links to its page, in whichever toolset it is.
//!
//! Pages are laid out to fit the width of a page: parameters, output fields and errors are
//! one list item each (no wide tables), the description the agent reads comes first, then
//! the safety section.
//!
//! Pages are rendered from minijinja templates (`templates/docs/`, embedded in the binary);
//! `--templates DIR` overrides any of them by file name. Spec text reaches a page only
//! through the escaping filters of [`filters`]. Every JSON block of a page follows an HTML
//! comment saying what it is (`<!-- call: tickets_search -->`, `<!-- result: ... -->`,
//! `<!-- error: ... -->`), invisible on the site, so tests can validate each one against the
//! tool's schemas.

mod catalog;
mod context;
mod examples;
mod fields;
pub mod filters;
mod templates;

pub use examples::preview_summary;
pub use templates::{EMBEDDED, TemplateError};

use crate::diagnostics::{Diagnostic, Diagnostics, Span};
use crate::emit::{GeneratedFile, Options};
use crate::model::{Model, ToolSet};
use serde::Serialize;
use std::collections::BTreeSet;
use templates::Renderer;

/// Keeps a site build (`mdbook build` writes `book/` next to `book.toml`) out of git.
const GITIGNORE: &str = "/book/\n";

/// What a toolset's own pages are rendered with.
#[derive(Serialize)]
struct SetPage<'a> {
    toolset: &'a context::ToolsetCtx,
}

/// What a group's page is rendered with.
#[derive(Serialize)]
struct GroupPage<'a> {
    toolset: &'a context::ToolsetCtx,
    group: &'a context::GroupCtx,
}

/// Every page of the combined book of all of `model`'s toolsets (`toolspec docs`), or the
/// problems that keep them from being true.
pub fn book(model: &Model, options: &Options) -> Result<Vec<GeneratedFile>, Diagnostics> {
    let book = Book::new(options);
    let (mut parts, sets): (Vec<Pages>, Vec<context::ToolsetCtx>) =
        crate::emit::parallel::map(&model.toolsets, |ts| {
            let set = context::toolset(model, ts, true);
            (
                book.toolset_pages(model, ts, &set, &ts.service.text, true),
                set,
            )
        })
        .into_iter()
        .unzip();
    parts.push(book.book_home(model, sets));
    let mut files = book.finish(parts)?;
    files.sort();
    Ok(files)
}

/// The docs emitter with its templates loaded: renders one toolset at a time, so toolsets
/// can be rendered on several threads and [`Book::finish`]ed together into the docs of every
/// toolset, or the problems that keep them from being true: a spec example the server would
/// answer differently, or a template that fails (named by file and line).
pub(crate) struct Book {
    renderer: Renderer,
}

/// One toolset's pages and the problems found rendering them.
pub(crate) type Pages = (Vec<GeneratedFile>, Vec<Diagnostic>);

impl Book {
    /// The templates: the built-in ones, overridden from `options.templates`.
    pub(crate) fn new(options: &Options) -> Self {
        Self {
            renderer: Renderer::new(options.templates.as_deref()),
        }
    }

    /// Every page of one toolset, as a book of its own: `<service>/docs/...`.
    pub(crate) fn toolset(&self, model: &Model, ts: &ToolSet) -> Pages {
        let dir = format!("{}/docs", ts.service.text);
        let set = context::toolset(model, ts, false);
        let mut out = self.toolset_pages(model, ts, &set, &dir, false);
        for (template, file) in [
            ("SUMMARY.md.jinja", "SUMMARY.md"),
            ("book.toml.jinja", "book.toml"),
            ("book.css.jinja", "toolspec.css"),
        ] {
            self.render(
                &mut out,
                ts,
                template,
                &SetPage { toolset: &set },
                format!("{dir}/{file}"),
            );
        }
        out.0
            .push(GeneratedFile::new(format!("{dir}/.gitignore"), GITIGNORE));
        out
    }

    /// The pages of the combined book that span its toolsets: `book.toml`, `SUMMARY.md`,
    /// the home page, the error-code reference and the stylesheet.
    fn book_home(&self, model: &Model, toolsets: Vec<context::ToolsetCtx>) -> Pages {
        let mut out: Pages = (Vec::new(), Vec::new());
        let Some(first) = model.toolsets.first() else {
            return out;
        };
        let home = catalog::Home::new(toolsets);
        for (template, file) in [
            ("book-index.md.jinja", "index.md"),
            ("book-errors.md.jinja", "errors.md"),
            ("book-SUMMARY.md.jinja", "SUMMARY.md"),
            ("book-book.toml.jinja", "book.toml"),
            ("book.css.jinja", "toolspec.css"),
        ] {
            self.render(&mut out, first, template, &home, file.to_string());
        }
        out.0.push(GeneratedFile::new(".gitignore", GITIGNORE));
        out
    }

    /// The index, error catalog and tool pages of one toolset (whose context is `set`),
    /// under `dir`; `combined`: in the book of every toolset.
    fn toolset_pages(
        &self,
        model: &Model,
        ts: &ToolSet,
        set: &context::ToolsetCtx,
        dir: &str,
        combined: bool,
    ) -> Pages {
        let mut out: Pages = (Vec::new(), Vec::new());
        let page = SetPage { toolset: set };
        let shared = minijinja::Value::from(minijinja::value::Serde(set));
        for (template, file) in [
            ("index.md.jinja", "index.md"),
            ("errors.md.jinja", "errors.md"),
        ] {
            self.render(&mut out, ts, template, &page, format!("{dir}/{file}"));
        }
        for group in &set.groups {
            let page = GroupPage {
                toolset: set,
                group,
            };
            let path = format!("{dir}/{}", group.page);
            self.render(&mut out, ts, "group.md.jinja", &page, path);
        }
        for (tool, cost) in ts.tools.iter().zip(&set.tool_costs) {
            let (page, problems) =
                context::tool_page(model, ts, &shared, tool, cost.clone(), combined);
            out.1.extend(problems);
            let path = format!("{dir}/{}", context::page_of(&tool.name.text));
            self.render(&mut out, ts, "tool.md.jinja", &page, path);
        }
        out
    }

    fn render(
        &self,
        (files, problems): &mut Pages,
        ts: &ToolSet,
        template: &str,
        ctx: &impl Serialize,
        path: String,
    ) {
        match self.renderer.render(template, ctx) {
            Ok(text) => files.push(GeneratedFile::new(path, text)),
            Err(e) => problems.push(template_diagnostic(&e, ts.span)),
        }
    }

    /// The pages of every toolset in order, or every problem: a broken template fails for
    /// every toolset, and saying so once is enough.
    pub(crate) fn finish(
        &self,
        toolsets: impl IntoIterator<Item = Pages>,
    ) -> Result<Vec<GeneratedFile>, Diagnostics> {
        let mut files = Vec::new();
        let mut diags = Diagnostics::default();
        let mut reported = BTreeSet::new();
        for (pages, problems) in toolsets {
            files.extend(pages);
            for d in problems {
                if d.code != "template" || reported.insert(d.message.clone()) {
                    diags.push(d);
                }
            }
        }
        if diags.has_errors() {
            return Err(diags);
        }
        Ok(files)
    }
}

/// A template problem as a diagnostic: the message starts with `file:line:`, and the
/// snippet shows the spec whose docs were being rendered.
fn template_diagnostic(e: &TemplateError, span: Span) -> Diagnostic {
    let d = Diagnostic::error("template", span, e.to_string())
        .label("while rendering the docs of this spec");
    if e.overridden {
        d.help(
            "fix the template, or remove it from the --templates directory to use the built-in one",
        )
    } else {
        d.help("this is a bug in toolspec's built-in docs templates; please report it")
    }
}
