//! Problems found in specs, with the place they were found and how to fix them.
//!
//! Every stage (loading, resolving, linting, exporting) reports into a [`Diagnostics`] list
//! instead of stopping at the first problem, so one run shows the author everything. Each
//! [`Diagnostic`] carries a stable code (for golden tests and for tooling), the file and
//! position, a label for the snippet, and a `help` line that says how to fix it.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::fmt::Write as _;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational: worth knowing, never fails a run.
    Info,
    /// Likely a mistake; fails only when asked to.
    Warning,
    /// The spec cannot be used as written.
    Error,
}

/// Index of a file in [`Sources`].
pub type FileId = usize;

/// One loaded spec file: its path as given and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as the user wrote it, used in messages.
    pub path: String,
    /// The full text.
    pub text: String,
    /// Byte offset of each line's start, computed on first use: rendering thousands of
    /// diagnostics must not count lines from the top of the file for each one.
    line_starts: std::sync::OnceLock<Vec<usize>>,
}

impl SourceFile {
    /// The 1-based number of the line that holds byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        starts.partition_point(|&start| start <= offset).max(1)
    }
}

/// The texts of every file read in a run, so diagnostics can quote them.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    /// Adds a file and returns its id.
    pub fn add(&mut self, path: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile {
            path: path.into(),
            text: text.into(),
            line_starts: std::sync::OnceLock::new(),
        });
        self.files.len() - 1
    }

    /// The file with this id.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id]
    }

    /// How many files were read.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file was read.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The path of the file with this id.
    pub fn path(&self, id: FileId) -> &str {
        &self.files[id].path
    }
}

/// A place in a spec: which file and where in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// The position in it.
    pub pos: Pos,
}

/// One problem in a spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// How bad it is.
    pub severity: Severity,
    /// Stable kebab-case code (`unknown-type`), for tests and tooling.
    pub code: String,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where.
    pub span: Span,
    /// A short label shown under the snippet.
    pub label: String,
    /// How to fix it.
    pub help: Option<String>,
    /// Extra facts (the other place of a duplicate, the valid values).
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(code: &str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code: code.to_string(),
            message: message.into(),
            span,
            label: String::new(),
            help: None,
            notes: Vec::new(),
        }
    }

    /// A warning at `span`.
    pub fn warning(code: &str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Sets the label under the snippet.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Sets the fix hint.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// `path:line:column` of the problem.
    pub fn location(&self, sources: &Sources) -> String {
        format!(
            "{}:{}:{}",
            sources.path(self.span.file),
            self.span.pos.line,
            self.span.pos.column
        )
    }

    /// Renders the diagnostic as rustc does: title, `file:line:column`, the spec snippet with
    /// the node underlined, then notes and the fix hint. Plain text (no colour) so output is
    /// the same in a terminal, a log and a golden file.
    pub fn render(&self, sources: &Sources) -> String {
        let file = sources.get(self.span.file);
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Info => Level::INFO,
        };
        // Only the annotated line goes to the renderer, with its number: giving it the whole
        // file made rendering every diagnostic cost the file's length, so a large spec with
        // many errors took quadratic time. The output is the same.
        let text = file.text.as_str();
        let range = byte_range(text, self.span.pos);
        let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[range.start..]
            .find('\n')
            .map_or(text.len(), |i| range.start + i);
        let line_number = file.line_of(line_start);
        let line = &text[line_start..line_end];
        let local = range.start - line_start..(range.end - line_start).min(line.len());
        let snippet = Snippet::source(line)
            .line_start(line_number)
            .path(file.path.as_str())
            .annotation(
                AnnotationKind::Primary
                    .span(local.start..local.end.max(local.start))
                    .label(self.label.as_str()),
            );
        let group = level
            .primary_title(self.message.as_str())
            .id(self.code.as_str())
            .element(snippet);
        let mut report = vec![group];
        for note in &self.notes {
            report.push(Group::with_title(
                Level::NOTE.secondary_title(note.as_str()),
            ));
        }
        if let Some(help) = &self.help {
            report.push(Group::with_title(
                Level::HELP.secondary_title(help.as_str()),
            ));
        }
        Renderer::plain().render(&report)
    }
}

/// The byte range to underline: the node itself, or the first character at its position when
/// the parser gave no length. Always inside the text and on char boundaries, whatever the
/// position says, so rendering can never panic.
fn byte_range(text: &str, pos: Pos) -> std::ops::Range<usize> {
    let start = if pos.offset <= text.len() && text.is_char_boundary(pos.offset) {
        pos.offset
    } else {
        // A line past the end (a parser reporting end of input) is the end of the text.
        offset_of(text, pos).unwrap_or(text.len())
    };
    let mut end = start.saturating_add(pos.len.max(1)).min(text.len());
    // Stay on one line: a multi-line node (a mapping) is underlined on its first line.
    if let Some(nl) = text[start..].find('\n') {
        end = end.min(start + nl.max(1)).min(text.len());
    }
    while end < text.len() && !text.is_char_boundary(end) {
        end += 1;
    }
    start..end.max(start)
}

/// Byte offset of a 1-based line and character column.
fn offset_of(text: &str, pos: Pos) -> Option<usize> {
    let line_start = if pos.line <= 1 {
        0
    } else {
        text.match_indices('\n')
            .nth(pos.line as usize - 2)
            .map(|(i, _)| i + 1)?
    };
    // Stay on the line: a column past its end points at its end, never into the next line.
    let line = &text[line_start..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let col = pos.column.saturating_sub(1) as usize;
    Some(
        line.char_indices()
            .nth(col)
            .map_or(line_start + line.len(), |(i, _)| line_start + i),
    )
}

/// Every problem found in a run, in the order found.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Records a problem.
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// The number of errors.
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// All problems.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Makes every error with `code` a warning, for a command whose output does not depend
    /// on what that check guards: token counts do not need the tool a `not_for` names to be
    /// among the specs given, so `toolspec stats` still counts a spec checked alone.
    pub fn downgrade(&mut self, code: &str) {
        for d in &mut self.items {
            if d.code == code && d.severity == Severity::Error {
                d.severity = Severity::Warning;
            }
        }
    }

    /// Adds all of another list.
    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    /// Sorts by file, position and code, so output is the same whatever order stages ran in.
    pub fn sort(&mut self) {
        self.items.sort_by(|a, b| {
            (a.span.file, a.span.pos.line, a.span.pos.column, &a.code).cmp(&(
                b.span.file,
                b.span.pos.line,
                b.span.pos.column,
                &b.code,
            ))
        });
    }

    /// Renders every problem, then a summary line.
    pub fn render(&self, sources: &Sources) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&d.render(sources));
            out.push_str("\n\n");
        }
        let errors = self.error_count();
        let warnings = self
            .items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count();
        if errors + warnings > 0 {
            let _ = writeln!(
                out,
                "{} error{}, {} warning{}",
                errors,
                if errors == 1 { "" } else { "s" },
                warnings,
                if warnings == 1 { "" } else { "s" }
            );
        }
        out
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

/// The closest candidate to a misspelled word, if one is close enough to be what was meant.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= (c.len().max(word.len()) / 3).max(1))
        .min()
        .map(|(_, c)| c)
}

/// The word other formats and languages use where this one has `candidate`: `parameters`
/// for `params`, `int` for `integer`. Only a candidate that is allowed here is suggested.
/// Tried before [`did_you_mean`], which finds slips, not other vocabularies.
pub fn synonym_of<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    const SYNONYMS: &[(&str, &[&str])] = &[
        (
            "params",
            &[
                "parameters",
                "arguments",
                "args",
                "inputs",
                "input",
                "properties",
            ],
        ),
        (
            "output",
            &["outputs", "result", "results", "response", "returns_fields"],
        ),
        ("summary", &["description"]),
        (
            "integer",
            &["int", "i32", "i64", "long", "uint", "u32", "u64"],
        ),
        ("number", &["float", "double", "decimal", "f32", "f64"]),
        ("string", &["str", "text", "String"]),
        ("boolean", &["bool"]),
        ("array", &["list", "vec", "Vec"]),
        ("object", &["dict", "map", "record", "struct"]),
        ("enum", &["values", "one_of", "choices"]),
        ("max_length", &["maxLength", "max_len", "maxlength"]),
        ("min_length", &["minLength", "min_len", "minlength"]),
        ("max_items", &["maxItems"]),
        ("min_items", &["minItems"]),
    ];
    let canonical = SYNONYMS
        .iter()
        .find(|(_, others)| others.contains(&word))
        .map(|(c, _)| *c)?;
    candidates.into_iter().find(|c| *c == canonical)
}

/// Edit distance over characters where swapping two neighbours counts as one edit (optimal
/// string alignment), so the common slip `titel` is one edit from `title`, not two.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: the one before the previous is needed for transpositions.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 0..a.len() {
        let mut cur = vec![i + 1; b.len() + 1];
        for j in 0..b.len() {
            let cost = usize::from(a[i] != b[j]);
            let mut d = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

/// A position in one spec file: 1-based line and column (in characters) and the byte range,
/// so diagnostics can print `file:line:column` and underline the exact node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Pos {
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column in characters; 0 when unknown.
    pub column: u32,
    /// Byte offset of the node's first character; `usize::MAX` when the parser knew the line
    /// and column but not the byte offset (it does not for syntax errors), in which case
    /// diagnostics find the node from `line` and `column`.
    pub offset: usize,
    /// Length of the node in bytes (0 for a point).
    pub len: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_words_only() {
        assert_eq!(
            did_you_mean("requred", ["required", "items"]),
            Some("required")
        );
        assert_eq!(did_you_mean("zzz", ["required", "items"]), None);
        assert_eq!(did_you_mean("titel", ["title", "tools"]), Some("title"));
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn numbers_lines_from_one() {
        let mut sources = Sources::default();
        let id = sources.add("a.yaml", "a: 1\nb: 2\n\nc: 3");
        let file = sources.get(id);
        let lines: Vec<usize> = [0, 4, 5, 9, 10, 11, 14, 99]
            .iter()
            .map(|&o| file.line_of(o))
            .collect();
        assert_eq!(lines, [1, 1, 2, 2, 3, 4, 4, 4]);
    }

    #[test]
    fn byte_range_never_leaves_the_text() {
        let text = "a: é\nb: 2\n";
        for offset in 0..20 {
            let r = byte_range(
                text,
                Pos {
                    line: 9,
                    column: 9,
                    offset,
                    len: 7,
                },
            );
            assert!(r.end <= text.len() && text.is_char_boundary(r.start));
        }
    }
}
