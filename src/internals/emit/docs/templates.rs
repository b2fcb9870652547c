//! The docs templates: embedded in the binary, overridable file by file with `--templates`.
//!
//! Every template is looked up first in the override directory (same file name), then in
//! the embedded set, so a team can replace one page's layout (front matter for its site
//! generator, its own sections) and keep the rest. Templates may `{% include %}` or
//! `{% import %}` each other and files of their own in the override directory.
//!
//! Undefined variables are errors when printed or looped over (a misspelt `{{ tool.nmae }}`
//! fails instead of printing nothing), and every error names the template file and line.

use super::filters;
use minijinja::syntax::SyntaxConfig;
use minijinja::value::Serde;
use minijinja::{Environment, Error, UndefinedBehavior};
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// The embedded templates, by file name.
pub const EMBEDDED: &[(&str, &str)] = &[
    (
        "index.md.jinja",
        include_str!("../../../../templates/docs/index.md.jinja"),
    ),
    (
        "tool.md.jinja",
        include_str!("../../../../templates/docs/tool.md.jinja"),
    ),
    (
        "errors.md.jinja",
        include_str!("../../../../templates/docs/errors.md.jinja"),
    ),
    (
        "group.md.jinja",
        include_str!("../../../../templates/docs/group.md.jinja"),
    ),
    (
        "SUMMARY.md.jinja",
        include_str!("../../../../templates/docs/SUMMARY.md.jinja"),
    ),
    (
        "book.toml.jinja",
        include_str!("../../../../templates/docs/book.toml.jinja"),
    ),
    (
        "book-index.md.jinja",
        include_str!("../../../../templates/docs/book-index.md.jinja"),
    ),
    (
        "book-errors.md.jinja",
        include_str!("../../../../templates/docs/book-errors.md.jinja"),
    ),
    (
        "book-SUMMARY.md.jinja",
        include_str!("../../../../templates/docs/book-SUMMARY.md.jinja"),
    ),
    (
        "book-book.toml.jinja",
        include_str!("../../../../templates/docs/book-book.toml.jinja"),
    ),
    (
        "book.css.jinja",
        include_str!("../../../../templates/docs/book.css.jinja"),
    ),
    (
        "macros.jinja",
        include_str!("../../../../templates/docs/macros.jinja"),
    ),
];

/// A template that failed to load or render: which file, which line, what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The template's path: in the override directory, or `templates/docs/NAME (embedded)`.
    pub file: String,
    /// 1-based line of the problem, when known.
    pub line: Option<usize>,
    /// What went wrong.
    pub message: String,
    /// Whether the template came from the override directory (else it is a toolspec bug).
    pub overridden: bool,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Renders docs templates.
pub struct Renderer {
    env: Environment<'static>,
    overrides: Option<PathBuf>,
}

impl Renderer {
    /// A renderer over the embedded templates, overridden by files in `overrides`.
    pub fn new(overrides: Option<&Path>) -> Renderer {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
        if let Ok(syntax) = SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
        {
            env.set_syntax(syntax);
        }
        env.add_filter("cell", |s: &str| filters::cell(s));
        env.add_filter("text", |s: &str| filters::text(s));
        env.add_filter("code", |s: &str| filters::code(s));
        env.add_filter("code_cell", |s: &str| filters::code_cell(s));
        env.add_filter("toml", |s: &str| filters::toml(s));
        let dir = overrides.map(Path::to_path_buf);
        let lookup = dir.clone();
        env.set_loader(move |name| load(lookup.as_deref(), name));
        Renderer {
            env,
            overrides: dir,
        }
    }

    /// Renders template `name` with `ctx` as its variables. Markdown output is tidied:
    /// trailing spaces dropped, runs of blank lines made one, one final newline.
    pub fn render(&self, name: &str, ctx: &impl Serialize) -> Result<String, TemplateError> {
        let out = self
            .env
            .get_template(name)
            .and_then(|t| t.render(minijinja::Value::from(Serde(ctx))))
            .map_err(|e| self.error(name, &e))?;
        Ok(if name.ends_with(".md.jinja") {
            tidy(&out)
        } else {
            format!("{}\n", out.trim_end())
        })
    }

    /// The innermost template error with a location, named by its file.
    fn error(&self, requested: &str, e: &Error) -> TemplateError {
        let mut best = e;
        let mut cur: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
        while let Some(inner) = cur {
            if let Some(inner) = inner.downcast_ref::<Error>()
                && inner.name().is_some()
            {
                best = inner;
            }
            cur = inner.source();
        }
        let name = best.name().unwrap_or(requested);
        let overridden = self
            .overrides
            .as_deref()
            .is_some_and(|d| safe_name(name) && d.join(name).is_file());
        let file = match (&self.overrides, overridden) {
            (Some(dir), true) => dir.join(name).display().to_string(),
            _ => format!("templates/docs/{name} (embedded)"),
        };
        let message = match best.detail() {
            Some(detail) => format!("{}: {detail}", best.kind()),
            None => best.kind().to_string(),
        };
        TemplateError {
            file,
            line: best.line(),
            message,
            overridden,
        }
    }
}

/// Template source for `name`: the override file if there is one, else the embedded one.
fn load(dir: Option<&Path>, name: &str) -> Result<Option<String>, Error> {
    if let Some(dir) = dir
        && safe_name(name)
    {
        let path = dir.join(name);
        match std::fs::read_to_string(&path) {
            Ok(text) => return Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    format!("cannot read {}: {e}", path.display()),
                ));
            }
        }
    }
    Ok(EMBEDDED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| (*text).to_string()))
}

/// A plain file name: templates cannot reach outside the override directory.
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && Path::new(name)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// Trailing spaces removed (two would be a Markdown line break), blank-line runs collapsed
/// to one, and exactly one newline at the end.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = true;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            if !blank {
                out.push('\n');
            }
            blank = true;
        } else {
            out.push_str(line);
            out.push('\n');
            blank = false;
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_collapses_blank_runs() {
        assert_eq!(tidy("\n\na  \n\n\n\nb\n\n"), "a\n\nb\n");
    }

    #[test]
    fn override_names_stay_inside_the_directory() {
        assert!(safe_name("tool.md.jinja"));
        assert!(safe_name("parts/head.jinja"));
        assert!(!safe_name("../secret"));
        assert!(!safe_name("/etc/passwd"));
    }

    #[test]
    fn errors_name_file_and_line() {
        let dir = std::env::temp_dir().join(format!("toolspec-tpl-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("index.md.jinja"), "a\nb\n{{ nope }}\n");
        let r = Renderer::new(Some(&dir));
        let err = r
            .render("index.md.jinja", &serde_json::json!({}))
            .err()
            .map(|e| (e.line, e.overridden, e.file.ends_with("index.md.jinja")));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(err, Some((Some(3), true, true)));
    }
}
