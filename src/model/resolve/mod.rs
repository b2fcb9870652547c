//! From loaded specs to the [`Model`]: every semantic rule of the format, checked at once.
//!
//! Three passes, one module each: this one reads a toolset's own parts (defaults, the error
//! catalog) and drives the others; [`tool`] resolves each tool against its toolset (fields,
//! tier rules, paging, examples, with [`example_result`] judging each example's result as
//! the docs show it); [`cross`] checks what needs every toolset loaded together
//! (duplicate names, `not_for` and `undo` references), with [`undo`] judging each undo call
//! against the tool it names (through [`fits`], which compares a result field's values with
//! what a parameter takes).

mod cross;
mod example_result;
mod fits;
mod groups;
mod limits;
mod projection;
mod scopes;
mod tool;
mod undo;
mod upstream;

use cross::cross_check;
use tool::resolve_tool;

use crate::diagnostics::{
    Diagnostic, Diagnostics, FileId, SourceFile, Sources, Span, did_you_mean,
};
use crate::model::fields::{FieldResolver, Place};
use crate::model::{Defaults, Duration, ErrorCode, LintSettings, Model, Text, Tool, ToolSet};
use crate::rust_names::{ident, type_ident};
use crate::spec::format::{self as raw, SpecFile};
use crate::spec::spanned::{Pos, Sp};

/// Resolves loaded specs into one model, reporting every semantic problem into `diags`.
///
/// Always returns a model (with what could be resolved), so later stages can still be tried
/// on a partly broken spec; callers check `diags.has_errors()` before trusting it.
pub fn resolve(specs: &[(FileId, SpecFile)], sources: &Sources, diags: &mut Diagnostics) -> Model {
    let mut model = Model::default();
    for (file, spec) in specs {
        let ts = resolve_toolset(*file, sources.get(*file), spec, diags);
        model.toolsets.push(ts);
    }
    // A spec that failed to load has no tools in the model; naming one of them is not a
    // second mistake, so cross-spec references are only checked when every spec loaded.
    let all_loaded = specs.len() == expected_specs(sources);
    cross_check(&mut model, all_loaded, diags);
    diags.sort();
    model
}

fn expected_specs(sources: &Sources) -> usize {
    sources.len()
}

fn at(file: FileId, pos: Pos) -> Span {
    Span { file, pos }
}

fn text(file: FileId, s: &Sp<String>) -> Text {
    Text {
        text: s.value.clone(),
        span: at(file, s.pos),
    }
}

fn resolve_toolset(
    file: FileId,
    source: &SourceFile,
    spec: &SpecFile,
    diags: &mut Diagnostics,
) -> ToolSet {
    let path = source.path.as_str();
    let top = at(
        file,
        Pos {
            line: 1,
            column: 1,
            offset: 0,
            len: 0,
        },
    );
    if spec.toolspec.value != 1 {
        diags.push(
            Diagnostic::error(
                "unsupported-version",
                at(file, spec.toolspec.pos),
                format!("format version {} is not supported", spec.toolspec.value),
            )
            .label("this toolspec reads version 1")
            .help("write `toolspec: 1`"),
        );
    }
    if !is_service_name(&spec.service.value) {
        diags.push(
            Diagnostic::error(
                "invalid-name",
                at(file, spec.service.pos),
                format!(
                    "service `{}` is not a snake_case namespace",
                    spec.service.value
                ),
            )
            .label("not a namespace")
            .help("use lowercase letters, digits and `_`, starting with a letter (`tickets`)"),
        );
    }
    let mut defaults = resolve_defaults(file, spec.defaults.as_ref(), diags);
    let scope_defaults = spec.defaults.as_ref().and_then(|d| d.scopes.as_ref());
    (defaults.read_scopes, defaults.write_scopes) =
        scopes::defaults(file, &spec.service, scope_defaults, diags);
    let mut fr = FieldResolver::new(file, spec.types.as_ref(), diags)
        .with_cover(crate::model::fields::Cover::of(spec));
    let types = fr.named_types();
    let mut errors = Vec::new();
    for (code, def) in spec.errors.iter().flat_map(|e| e.iter()) {
        errors.push(resolve_error(&mut fr, code, def, &source.text));
    }
    let always = toolspec_runtime::catalog::ALL
        .iter()
        .filter(|b| !toolspec_runtime::catalog::is_conditional(b));
    for b in always {
        errors.push(ErrorCode {
            code: b.code.to_string(),
            message: b.recovery.to_string(),
            retryable: b.retryable,
            when: Some(b.when.to_string()),
            details: Vec::new(),
            builtin: true,
            span: top,
        });
    }
    let shared_limit = limits::shared(file, spec, fr.diags);
    let rate_limits = limits::of_tools(file, &spec.tools.value, shared_limit, fr.diags);
    limits::catalog(
        &toolspec_runtime::catalog::RATE_LIMITED,
        rate_limits.iter().any(Option::is_some),
        &mut errors,
        top,
        fr.diags,
    );
    limits::catalog(
        &toolspec_runtime::catalog::TIMEOUT,
        spec.tools.value.iter().any(|t| t.time.is_some()),
        &mut errors,
        top,
        fr.diags,
    );
    let upstream = upstream::upstream(file, spec, &errors, fr.diags);
    let mut tools = Vec::new();
    for (t, rate_limit) in spec.tools.value.iter().zip(rate_limits) {
        let mut tool = resolve_tool(&mut fr, t, &defaults, &errors);
        tool.rate_limit = rate_limit;
        tool.http = upstream::http(file, t, &tool, upstream.is_some(), fr.diags);
        tool.time =
            (t.time.as_ref()).and_then(|l| limits::time_limit(file, l, tool.tier, fr.diags));
        (tool.scopes, tool.scopes_span) = scopes::of_tool(
            file,
            t,
            &defaults.read_scopes,
            &defaults.write_scopes,
            fr.diags,
        );
        tools.push(tool);
    }
    let lint = spec
        .lint
        .as_ref()
        .map_or_else(LintSettings::default, |l| LintSettings {
            set: l.set.as_ref().map(|s| text(file, s)),
            allow: l.allow.iter().flatten().map(|s| text(file, s)).collect(),
            deny: l.deny.iter().flatten().map(|s| text(file, s)).collect(),
        });
    // Names without the service prefix collide across servers in one host's list. A
    // warning, not an error, so specs written before this check keep checking; `lint`
    // refuses them (rule `tool-name-prefix`), and allowing that rule silences both.
    let service = &spec.service.value;
    // An invalid service or tool name is reported as such, once; no prefix advice on top.
    if is_service_name(service) && !lint.allow.iter().any(|a| a.text == "tool-name-prefix") {
        for t in &tools {
            if is_portable_tool_name(&t.name.text) && !has_service_prefix(service, &t.name.text) {
                let (prefix, renamed) = with_service_prefix(service, &t.name.text);
                fr.diags.push(
                    Diagnostic::warning(
                        "tool-name-prefix",
                        t.name.span,
                        format!("tool `{}` does not start with `{prefix}`", t.name.text),
                    )
                    .label("no service prefix: it can collide with another server's tool")
                    .help(format!(
                        "rename it `{renamed}` and add `deprecated_aliases: [{}]` so old callers still reach it",
                        t.name.text
                    )),
                );
            }
        }
    }
    rust_name_collisions(path, &tools, fr.diags);
    let (groups, tool_search) = groups::assign(file, spec, &mut tools, fr.diags);
    ToolSet {
        path: path.to_string(),
        span: top,
        service: text(file, &spec.service),
        title: text(file, &spec.title),
        description: text(file, &spec.description),
        defaults,
        types,
        errors,
        upstream,
        tools,
        groups,
        tool_search,
        lint,
    }
}

fn resolve_defaults(file: FileId, d: Option<&raw::Defaults>, diags: &mut Diagnostics) -> Defaults {
    let mut out = Defaults::BUILT_IN;
    let Some(d) = d else { return out };
    if let Some(p) = &d.paging {
        if let Some(v) = &p.default_limit {
            out.default_limit = v.value;
        }
        if let Some(v) = &p.max_limit {
            out.max_limit = v.value;
        }
        check_limits(
            file,
            p.default_limit.as_ref(),
            p.max_limit.as_ref(),
            out.default_limit,
            out.max_limit,
            diags,
        );
    }
    if let Some(ttl) = d.idempotency.as_ref().and_then(|i| i.ttl.as_ref()) {
        out.idempotency_ttl = duration(file, ttl, out.idempotency_ttl, diags);
    }
    if let Some(ttl) = d.preview.as_ref().and_then(|i| i.ttl.as_ref()) {
        out.preview_ttl = duration(file, ttl, out.preview_ttl, diags);
    }
    if let Some(a) = d.preview.as_ref().and_then(|i| i.approval.as_ref()) {
        out.approval = a.value;
    }
    if let Some(e) = &d.effect {
        out.effect = e.value;
        out.effect_span = Some(at(file, e.pos));
    }
    if let Some(o) = &d.output_schema {
        out.output_schema = o.value;
    }
    if let Some(b) = &d.token_budget {
        out.token_budget = b.value;
        if b.value < 100 {
            diags.push(
                Diagnostic::error(
                    "invalid-value",
                    at(file, b.pos),
                    format!("a token budget of {} cannot hold a useful result", b.value),
                )
                .label("too small")
                .help("use at least 100 (5000 is the built-in default)"),
            );
        }
    }
    if let Some(limits) = &d.limits {
        request_limits(file, limits, &mut out, diags);
    }
    out
}

/// The smallest request limits that still fit a tool call: a call's envelope is about 150
/// bytes and four levels deep before its arguments.
const MIN_REQUEST_BYTES: u64 = 4096;
const MIN_DEPTH: u32 = 8;

fn request_limits(
    file: FileId,
    limits: &raw::RequestLimits,
    out: &mut Defaults,
    diags: &mut Diagnostics,
) {
    if let Some(bytes) = &limits.request_bytes {
        out.max_request_bytes = bytes.value;
        if bytes.value < MIN_REQUEST_BYTES {
            diags.push(
                Diagnostic::error(
                    "invalid-value",
                    at(file, bytes.pos),
                    format!(
                        "requests of at most {} bytes cannot hold a tool call",
                        bytes.value
                    ),
                )
                .label("too small")
                .help(format!(
                    "use at least {MIN_REQUEST_BYTES} (1048576, 1 MiB, is the built-in default)"
                )),
            );
        }
    }
    if let Some(depth) = &limits.depth {
        out.max_depth = depth.value;
        if depth.value < MIN_DEPTH {
            diags.push(
                Diagnostic::error(
                    "invalid-value",
                    at(file, depth.pos),
                    format!(
                        "a nesting limit of {} leaves no room for arguments: a tool call's \
                         envelope is four levels deep",
                        depth.value
                    ),
                )
                .label("too small")
                .help(format!(
                    "use at least {MIN_DEPTH} (64 is the built-in default)"
                )),
            );
        }
    }
}

fn check_limits(
    file: FileId,
    default: Option<&Sp<u32>>,
    max: Option<&Sp<u32>>,
    d: u32,
    m: u32,
    diags: &mut Diagnostics,
) {
    for v in [default, max].into_iter().flatten() {
        if v.value == 0 {
            diags.push(
                Diagnostic::error(
                    "invalid-value",
                    at(file, v.pos),
                    "a page limit of 0 returns nothing",
                )
                .label("must be at least 1")
                .help("use a limit of at least 1"),
            );
        }
    }
    // When neither limit is written here, both are inherited and a conflict between them was
    // reported where they were written (the toolset's defaults).
    let Some(written) = default.or(max) else {
        return;
    };
    if d > m {
        let pos = written.pos;
        diags.push(
            Diagnostic::error(
                "min-above-max",
                at(file, pos),
                format!("`default_limit` ({d}) is above `max_limit` ({m})"),
            )
            .label("the default would be refused")
            .help("make `default_limit` at most `max_limit`"),
        );
    }
}

fn duration(file: FileId, s: &Sp<String>, fallback: Duration, diags: &mut Diagnostics) -> Duration {
    parse_duration(file, s, diags).unwrap_or(fallback)
}

/// A written duration, or `None` with the problem reported where it was written.
fn parse_duration(file: FileId, s: &Sp<String>, diags: &mut Diagnostics) -> Option<Duration> {
    match Duration::parse(&s.value) {
        Ok(d) => Some(d),
        Err(why) => {
            diags.push(
                Diagnostic::error(
                    "invalid-duration",
                    at(file, s.pos),
                    format!("`{}` is not a duration: {why}", s.value),
                )
                .label("expected a number and a unit")
                .help("write a whole number and s, m, h or d: `30s`, `10m`, `24h`, `7d`"),
            );
            None
        }
    }
}

fn resolve_error(
    fr: &mut FieldResolver,
    code: &Sp<String>,
    def: &raw::ErrorDef,
    text: &str,
) -> ErrorCode {
    let span = fr.span(code.pos);
    if !is_service_name(&code.value) {
        fr.diags.push(
            Diagnostic::error(
                "invalid-name",
                span,
                format!("error code `{}` is not snake_case", code.value),
            )
            .label("not a code")
            .help("use lowercase words joined by `_` (`rate_limited`)"),
        );
    }
    if toolspec_runtime::catalog::find(&code.value).is_some() {
        fr.diags.push(
            Diagnostic::error("reserved-error-code", span, format!("`{}` is a built-in error code", code.value))
                .label("every toolset already has it")
                .help("remove it from `errors:`; the runtime raises it with the right message and retryable flag"),
        );
    }
    let details = fr.fields(def.details.as_ref(), Place::Output);
    for placeholder in placeholders(&def.message.value) {
        if let Some(d) = details
            .iter()
            .find(|d| d.name == placeholder && !d.required)
        {
            // Filled only when the detail is given: otherwise the sentence that holds it
            // is left out of the message.
            let pos = def
                .message
                .pos
                .find_within(text, &format!("{{{placeholder}}}"))
                .unwrap_or(def.message.pos);
            fr.diags.push(
                Diagnostic::warning(
                    "optional-placeholder",
                    fr.span(pos),
                    format!(
                        "message of `{}` uses `{{{placeholder}}}`, but the detail `{}` is optional",
                        code.value, d.name
                    ),
                )
                .label("its sentence is left out of the message when the detail is not given")
                .help(format!(
                    "make `{}` required under `details:` (remove `required: false`), or keep the sentence with `{{{placeholder}}}` one the message can do without",
                    d.name
                )),
            );
        }
        if !details.iter().any(|d| d.name == placeholder) {
            let known: Vec<&str> = details.iter().map(|d| d.name.as_str()).collect();
            // Point at the placeholder itself when the message is written as it reads.
            let pos = def
                .message
                .pos
                .find_within(text, &format!("{{{placeholder}}}"))
                .unwrap_or(def.message.pos);
            let mut d = Diagnostic::error(
                "unknown-placeholder",
                fr.span(pos),
                format!(
                    "message of `{}` uses `{{{placeholder}}}`, which is not one of its details",
                    code.value
                ),
            )
            .label("no detail fills this placeholder");
            d = match did_you_mean(&placeholder, known.iter().copied()) {
                Some(s) => d.help(format!("did you mean `{{{s}}}`?")),
                None => d.help(format!(
                    "declare `{placeholder}` under this error's `details:`"
                )),
            };
            fr.diags.push(d);
        }
    }
    ErrorCode {
        code: code.value.clone(),
        message: def.message.value.clone(),
        retryable: def.retryable.value,
        when: def.when.as_ref().map(|w| w.value.clone()),
        details,
        builtin: false,
        span,
    }
}

/// `{name}` placeholders of a message template.
pub fn placeholders(template: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.push(name.to_string());
                }
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    out
}

fn is_service_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && s.len() <= 40
}

/// Two tools of one toolset whose names differ on the wire but not once made Rust names
/// (`list-events` and `list_events` are both the method `list_events` and the type
/// `ListEventsInput`): the generated module could hold only one of them, so `check` says
/// so at the second. Equal names are `duplicate-tool`'s, and invalid ones `invalid-name`'s.
fn rust_name_collisions(path: &str, tools: &[Tool], diags: &mut Diagnostics) {
    let mut seen: Vec<(&Text, String, String)> = Vec::new();
    for t in tools {
        let name = t.name.text.as_str();
        if !is_portable_tool_name(name) {
            continue;
        }
        let (method, ty) = (ident(name), type_ident(name));
        let first = seen
            .iter()
            .find(|(n, m, y)| n.text != name && (*m == method || *y == ty));
        if let Some((first, m, _)) = first {
            let (what, rust) = if *m == method {
                ("trait method", method.clone())
            } else {
                ("type", format!("{ty}Input"))
            };
            let fp = first.span.pos;
            diags.push(
                Diagnostic::error(
                    "rust-name-collision",
                    t.name.span,
                    format!("tools `{}` and `{name}` both become the Rust {what} `{rust}`", first.text),
                )
                .label("same Rust name as an earlier tool")
                .note(format!("`{}` is at {path}:{}:{}", first.text, fp.line, fp.column))
                .help("rename one of them: names that differ only in `-` against `_`, or in case, make one Rust name"),
            );
        } else {
            seen.push((&t.name, method, ty));
        }
    }
}

/// Whether `name` starts with the service namespace, `<service>_` (or `<service>-` in a
/// name whose words are joined by `-`), and at least one more word: the one form of the
/// rule `check` warns about and lint's `tool-name-prefix` enforces.
pub fn has_service_prefix(service: &str, name: &str) -> bool {
    name.strip_prefix(service)
        .and_then(|rest| rest.strip_prefix(['_', '-']))
        .is_some_and(|rest| !rest.is_empty())
}

/// The prefix a name without one lacks and the name with it, in the name's own separator:
/// `search` -> (`tickets_`, `tickets_search`), `list-events` -> (`calendar-`,
/// `calendar-list-events`).
pub fn with_service_prefix(service: &str, name: &str) -> (String, String) {
    let sep = if name.contains('-') && !name.contains('_') {
        '-'
    } else {
        '_'
    };
    let rest = name
        .trim_start_matches(service)
        .trim_start_matches(['_', '-']);
    (format!("{service}{sep}"), format!("{service}{sep}{rest}"))
}

/// `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`: a tool name every provider accepts. MCP takes
/// `A-Za-z0-9_-.` up to 128, Anthropic and OpenAI `A-Za-z0-9_-` up to 64, Gemini a leading
/// letter or `_` then letters, digits and `_.:-` up to 64; this is what they share, with a
/// leading letter so the derived Rust names start with one too.
pub fn is_portable_tool_name(s: &str) -> bool {
    s.len() <= 64
        && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::{has_service_prefix, is_portable_tool_name, with_service_prefix};

    #[test]
    fn tool_names_are_what_every_provider_takes() {
        for ok in [
            "list-events",
            "tickets_search",
            "a",
            "Get-2",
            &"a".repeat(64),
        ] {
            assert!(is_portable_tool_name(ok), "{ok}");
        }
        // Gemini refuses a leading digit or `-`; Anthropic and OpenAI a `.` or `:`.
        for bad in [
            "-list",
            "1list",
            "_list",
            "list.events",
            "a:b",
            "a b",
            "",
            &"a".repeat(65),
        ] {
            assert!(!is_portable_tool_name(bad), "{bad}");
        }
    }

    #[test]
    fn the_service_prefix_is_joined_by_the_names_own_separator() {
        assert!(has_service_prefix("calendar", "calendar-list-events"));
        assert!(has_service_prefix("calendar", "calendar_list_events"));
        assert!(!has_service_prefix("calendar", "calendar-"));
        assert!(!has_service_prefix("calendar", "list-events"));
        let prefixed = |name| with_service_prefix("calendar", name);
        assert_eq!(
            prefixed("list-events"),
            ("calendar-".into(), "calendar-list-events".into())
        );
        assert_eq!(
            prefixed("list_events"),
            ("calendar_".into(), "calendar_list_events".into())
        );
        assert_eq!(
            prefixed("search"),
            ("calendar_".into(), "calendar_search".into())
        );
    }
}
