//! Error tables: the toolset's whole catalog, and the codes one tool can return.
//!
//! A tool can return the codes its spec lists, plus the built-in codes its settings make
//! possible: the validation codes its parameters can trigger, `invalid_cursor` when it pages,
//! `idempotency_*` when it takes a key, `preview_*` when it previews, and `internal_error`
//! always. Built-in codes take `when` and the recovery from the runtime's catalog, so the
//! docs say what the runtime does.

use super::context::ToolsetCtx;
use super::fields::{FieldRow, rows};
use crate::model::{Approval, ErrorCode, Field, Kind, Requirement, Tool, ToolSet, Type};
use serde::Serialize;
use toolspec_runtime::catalog::{self, BuiltinError};

/// One error code, as a table row or a catalog entry.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorRow {
    /// snake_case code; also the heading id of its entry in `errors.md`.
    pub code: String,
    /// Whether the same call may succeed if made again later.
    pub retryable: bool,
    /// When it happens.
    pub when: Option<String>,
    /// Spec codes: the message template, `{placeholders}` filled from `details`.
    pub message: Option<String>,
    /// Built-in codes: what the agent should do next.
    pub recovery: Option<String>,
    /// Whether the runtime defines it.
    pub builtin: bool,
    /// What `details` carry (spec codes; built-in ones say it in `when`/`recovery`).
    pub details: Vec<FieldRow>,
    /// Tools of this toolset that can return it.
    pub tools: Vec<String>,
}

/// Every code of the toolset's catalog, spec codes first, each with the tools that can
/// return it. Each tool's codes are worked out once, so this is linear in tools and codes.
pub fn catalog_rows(ts: &ToolSet) -> Vec<ErrorRow> {
    let mut tools_of: std::collections::HashMap<&str, Vec<String>> =
        std::collections::HashMap::new();
    for tool in &ts.tools {
        for code in applies(ts, tool) {
            tools_of
                .entry(code.code.as_str())
                .or_default()
                .push(tool.name.text.clone());
        }
    }
    ts.errors
        .iter()
        .map(|e| ErrorRow {
            tools: tools_of.remove(e.code.as_str()).unwrap_or_default(),
            ..row(e)
        })
        .collect()
}

/// The codes `tool` can return: its listed codes, then the built-in ones that apply.
pub fn tool_error_rows(ts: &ToolSet, tool: &Tool) -> Vec<ErrorRow> {
    applies(ts, tool).into_iter().map(row).collect()
}

fn row(e: &ErrorCode) -> ErrorRow {
    ErrorRow {
        code: e.code.clone(),
        retryable: e.retryable,
        when: e.when.clone(),
        message: (!e.builtin).then(|| e.message.clone()),
        // The model keeps a built-in code's recovery as its message.
        recovery: e.builtin.then(|| e.message.clone()),
        builtin: e.builtin,
        details: rows(&e.details),
        tools: Vec::new(),
    }
}

fn applies<'a>(ts: &'a ToolSet, tool: &Tool) -> Vec<&'a ErrorCode> {
    let mut codes: Vec<&str> = tool.errors.iter().map(|e| e.text.as_str()).collect();
    codes.extend(builtin_codes(tool).iter().map(|b| b.code));
    let mut out: Vec<&ErrorCode> = Vec::new();
    for code in codes {
        if let Some(e) = ts.error(code)
            && !out.iter().any(|o| o.code == e.code)
        {
            out.push(e);
        }
    }
    out
}

/// The built-in codes `tool` can get, in catalog order.
pub fn builtin_codes(tool: &Tool) -> Vec<&'static BuiltinError> {
    let rules = Rules::of(&tool.params);
    let mut out: Vec<&'static BuiltinError> = vec![
        &catalog::INVALID_ARGUMENTS,
        &catalog::UNKNOWN_ARGUMENT,
        &catalog::INVALID_TYPE,
    ];
    let wanted = [
        (
            rules.required || !tool.requires.is_empty(),
            &catalog::MISSING_ARGUMENT,
        ),
        (rules.enums, &catalog::INVALID_ENUM),
        (rules.ranges, &catalog::OUT_OF_RANGE),
        (rules.lengths, &catalog::INVALID_LENGTH),
        (rules.patterns, &catalog::PATTERN_MISMATCH),
        (rules.formats, &catalog::INVALID_FORMAT),
        (rules.keys, &catalog::INVALID_KEY),
        (
            tool.requires
                .iter()
                .any(|r| matches!(r, Requirement::ExactlyOne(_))),
            &catalog::CONFLICTING_ARGUMENTS,
        ),
        (
            tool.requires
                .iter()
                .any(|r| matches!(r, Requirement::When { allows, .. } if !allows.is_empty())),
            &catalog::ARGUMENT_NOT_APPLICABLE,
        ),
        (tool.paging.is_some(), &catalog::INVALID_CURSOR),
        (tool.idempotency.is_some(), &catalog::IDEMPOTENCY_KEY_REUSED),
        (
            tool.idempotency.is_some(),
            &catalog::IDEMPOTENCY_IN_PROGRESS,
        ),
        (tool.preview.is_some(), &catalog::PREVIEW_NOT_FOUND),
        (tool.preview.is_some(), &catalog::PREVIEW_EXPIRED),
        (tool.preview.is_some(), &catalog::PREVIEW_USED),
        (tool.preview.is_some(), &catalog::PREVIEW_MISMATCH),
        (
            tool.preview
                .as_ref()
                .is_some_and(|p| p.approval != Approval::Preview),
            &catalog::APPROVAL_DECLINED,
        ),
        (
            tool.preview
                .as_ref()
                .is_some_and(|p| p.approval == Approval::Host),
            &catalog::APPROVAL_UNAVAILABLE,
        ),
        (tool.rate_limit.is_some(), &catalog::RATE_LIMITED),
        (tool.time.is_some(), &catalog::TIMEOUT),
        (true, &catalog::INTERNAL_ERROR),
    ];
    out.extend(wanted.into_iter().filter(|(on, _)| *on).map(|(_, e)| e));
    // Catalog order, so every page lists them alike.
    out.sort_by_key(|e| catalog::ALL.iter().position(|a| a.code == e.code));
    out
}

/// Which kinds of validation problem a parameter list can produce.
#[derive(Default)]
struct Rules {
    required: bool,
    enums: bool,
    ranges: bool,
    lengths: bool,
    patterns: bool,
    formats: bool,
    keys: bool,
}

impl Rules {
    fn of(fields: &[Field]) -> Rules {
        let mut r = Rules::default();
        r.fields(fields);
        r
    }

    fn fields(&mut self, fields: &[Field]) {
        for f in fields {
            self.required |= f.required;
            self.ty(&f.ty);
        }
    }

    fn ty(&mut self, ty: &Type) {
        match &ty.kind {
            Kind::String(s) => {
                if s.enum_values.is_some() {
                    // The validator checks nothing else on an enum.
                    self.enums = true;
                    return;
                }
                self.lengths |= s.min_length.is_some() || s.max_length.is_some();
                self.patterns |= s.pattern.is_some();
                self.formats |= s.format.is_some();
            }
            // The validator checks nothing else on an enum.
            Kind::Integer {
                enum_values: Some(_),
                ..
            } => self.enums = true,
            Kind::Integer {
                minimum, maximum, ..
            } => {
                self.ranges |= minimum.is_some() || maximum.is_some();
            }
            Kind::Number { minimum, maximum } => {
                self.ranges |= minimum.is_some() || maximum.is_some();
            }
            Kind::Boolean | Kind::Content(_) => {}
            Kind::Array {
                items,
                min_items,
                max_items,
            } => {
                self.lengths |= min_items.is_some() || max_items.is_some();
                self.ty(items);
            }
            Kind::Union { variants, tag } => {
                self.required |= tag.is_some();
                self.enums |= tag.is_some();
                for v in variants {
                    self.ty(&v.ty);
                }
            }
            Kind::Map {
                values,
                keys,
                max_entries,
            } => {
                self.lengths |= max_entries.is_some();
                self.keys |= keys.min_length.is_some()
                    || keys.max_length.is_some()
                    || keys.pattern.is_some();
                self.ty(values);
            }
            Kind::Object { fields, .. } => self.fields(fields),
        }
    }
}

/// The combined book's own pages: every toolset, and every error code across them.
#[derive(Debug, Clone, Serialize)]
pub struct Home {
    /// Every toolset, in the order the specs were given.
    pub toolsets: Vec<ToolsetCtx>,
    /// How many tools in all.
    pub tool_count: usize,
    /// Every code of every toolset, each once: spec codes first, then built-in ones, each
    /// group sorted by code.
    pub codes: Vec<CodeEntry>,
}

/// One error code across the toolsets of a book.
#[derive(Debug, Clone, Serialize)]
pub struct CodeEntry {
    /// snake_case code; the heading id of its entry in every `errors.md`.
    pub code: String,
    /// Whether the runtime defines it (then it means the same everywhere).
    pub builtin: bool,
    /// Each toolset that has it, with its own meaning of it.
    pub uses: Vec<CodeUse>,
}

/// What one toolset's catalog says of a code.
#[derive(Debug, Clone, Serialize)]
pub struct CodeUse {
    /// The toolset's service (its folder in the book).
    pub service: String,
    /// The toolset's title.
    pub title: String,
    /// The catalog entry.
    pub row: ErrorRow,
}

impl Home {
    /// The home of a book of `toolsets`.
    pub fn new(toolsets: Vec<ToolsetCtx>) -> Self {
        let mut codes: std::collections::BTreeMap<(bool, String), Vec<CodeUse>> =
            std::collections::BTreeMap::new();
        for ts in &toolsets {
            for row in &ts.errors {
                codes
                    .entry((row.builtin, row.code.clone()))
                    .or_default()
                    .push(CodeUse {
                        service: ts.service.clone(),
                        title: ts.title.clone(),
                        row: row.clone(),
                    });
            }
        }
        Self {
            tool_count: toolsets.iter().map(|t| t.tools.len()).sum(),
            toolsets,
            codes: codes
                .into_iter()
                .map(|((builtin, code), uses)| CodeEntry {
                    code,
                    builtin,
                    uses,
                })
                .collect(),
        }
    }
}
