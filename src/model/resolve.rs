//! From loaded specs to the [`Model`]: every semantic rule of the format, checked at once.

use crate::diagnostics::{
    Diagnostic, Diagnostics, FileId, SourceFile, Sources, Span, did_you_mean,
};
use crate::model::fields::{FieldResolver, Place, is_field_name};
use crate::model::implied::{self, RESERVED_OUTPUTS, RESERVED_PARAMS};
use crate::model::values::check_arguments;
use crate::model::{
    Defaults, Duration, ErrorCode, Example, Field, Idempotency, Kind, LintSettings, Model, NotFor,
    Origin, Paging, Preview, Text, Tool, ToolSet, Undo,
};
use crate::spec::format::{self as raw, SpecFile, Tier};
use crate::spec::spanned::{Pos, Sp};
use std::collections::HashMap;
use std::path::Path;

/// Reads, loads and resolves spec files together. Problems in the specs go to `diags`; an
/// unreadable file is an `Err` (a usage problem, not a spec problem).
pub fn load_files<P: AsRef<Path>>(
    paths: &[P],
    sources: &mut Sources,
    diags: &mut Diagnostics,
) -> Result<Model, (String, std::io::Error)> {
    let mut loaded = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| (path.display().to_string(), e))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let file = sources.add(path.display().to_string(), text);
        if let Some(spec) = crate::spec::load(file, &sources.get(file).text, diags) {
            loaded.push((file, spec));
        }
    }
    Ok(resolve(&loaded, sources, diags))
}

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
    let defaults = resolve_defaults(file, spec.defaults.as_ref(), diags);
    let mut fr = FieldResolver::new(file, spec.types.as_ref(), diags);
    let types = fr.named_types();
    let mut errors = Vec::new();
    for (code, def) in spec.errors.iter().flat_map(|e| e.iter()) {
        errors.push(resolve_error(&mut fr, code, def, &source.text));
    }
    for b in toolspec_runtime::catalog::ALL {
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
    let mut tools = Vec::new();
    for t in &spec.tools.value {
        tools.push(resolve_tool(&mut fr, t, &defaults, &errors));
    }
    let lint = spec
        .lint
        .as_ref()
        .map_or_else(LintSettings::default, |l| LintSettings {
            set: l.set.as_ref().map(|s| text(file, s)),
            allow: l.allow.iter().flatten().map(|s| text(file, s)).collect(),
            deny: l.deny.iter().flatten().map(|s| text(file, s)).collect(),
        });
    ToolSet {
        path: path.to_string(),
        span: top,
        service: text(file, &spec.service),
        title: text(file, &spec.title),
        description: text(file, &spec.description),
        defaults,
        types,
        errors,
        tools,
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
    out
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
    match Duration::parse(&s.value) {
        Ok(d) => d,
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
            fallback
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

fn resolve_tool(
    fr: &mut FieldResolver,
    t: &raw::Tool,
    defaults: &Defaults,
    catalog: &[ErrorCode],
) -> Tool {
    let file = fr.span(Pos::default()).file;
    let name = text(file, &t.name);
    check_tool_name(fr, &t.name, "tool name");
    for a in t.deprecated_aliases.iter().flatten() {
        check_tool_name(fr, a, "alias");
    }
    let tier = t.tier.value;
    let mut params = fr.fields(t.params.as_ref(), Place::Param);
    let mut output = fr.fields(Some(&t.output.value), Place::Output);
    reserved(fr, &params, RESERVED_PARAMS, "parameter");
    reserved(fr, &output, RESERVED_OUTPUTS, "output field");

    // Paging.
    let paging = t.paging.as_ref().map(|p| {
        let span = fr.span(p.pos);
        let d = p
            .default_limit
            .as_ref()
            .map_or(defaults.default_limit, |v| v.value);
        let m = p.max_limit.as_ref().map_or(defaults.max_limit, |v| v.value);
        let mut diags = std::mem::take(fr.diags);
        check_limits(
            file,
            p.default_limit.as_ref(),
            p.max_limit.as_ref(),
            d,
            m,
            &mut diags,
        );
        *fr.diags = diags;
        match output.iter().find(|f| f.name == p.items.value) {
            Some(f) if matches!(f.ty.kind, Kind::Array { .. }) => {}
            Some(f) => fr.diags.push(
                Diagnostic::error(
                    "paging-without-list",
                    fr.span(p.items.pos),
                    format!(
                        "paging items `{}` is {}, not a list",
                        f.name,
                        f.ty.json_type()
                    ),
                )
                .label("pages are cut from a list")
                .help(format!(
                    "make `{}` an array, or point `items` at the output's array field",
                    f.name
                )),
            ),
            None => {
                let lists: Vec<&str> = output
                    .iter()
                    .filter(|f| matches!(f.ty.kind, Kind::Array { .. }))
                    .map(|f| f.name.as_str())
                    .collect();
                let help = if lists.is_empty() {
                    "add an array field to `output` for the items, or remove `paging`".to_string()
                } else {
                    format!("use one of the output's lists: {}", lists.join(", "))
                };
                fr.diags.push(
                    Diagnostic::error(
                        "paging-without-list",
                        fr.span(p.items.pos),
                        format!("paging items `{}` is not an output field", p.items.value),
                    )
                    .label("no such output field")
                    .help(help),
                );
            }
        }
        Paging {
            items: text(file, &p.items),
            default_limit: d,
            max_limit: m,
            span,
        }
    });

    let response_format = t.response_format.as_ref().map(|r| {
        r.default
            .as_ref()
            .map_or(raw::Verbosity::Concise, |d| d.value)
    });
    let idempotency = t.idempotency.as_ref().map(|i| {
        let ttl = i.ttl.as_ref().map_or(defaults.idempotency_ttl, |s| {
            let mut diags = std::mem::take(fr.diags);
            let d = duration(file, s, defaults.idempotency_ttl, &mut diags);
            *fr.diags = diags;
            d
        });
        Idempotency {
            ttl,
            span: fr.span(i.pos),
        }
    });
    let preview = t.preview.as_ref().map(|p| {
        let ttl = p.ttl.as_ref().map_or(defaults.preview_ttl, |s| {
            let mut diags = std::mem::take(fr.diags);
            let d = duration(file, s, defaults.preview_ttl, &mut diags);
            *fr.diags = diags;
            d
        });
        let fields = fr.fields(p.fields.as_ref(), Place::Output);
        reserved(
            fr,
            &fields,
            &["preview_id", "expires_at", "summary"],
            "preview field",
        );
        Preview {
            ttl,
            fields,
            span: fr.span(p.pos),
        }
    });
    check_tier(fr, t, tier);

    // Implied parameters and outputs, always in this order.
    if let Some(p) = &paging {
        params.push(implied::limit_param(p.span, p.default_limit, p.max_limit));
        params.push(implied::cursor_param(p.span));
    }
    if let (Some(default), Some(r)) = (response_format, &t.response_format) {
        let detailed = detailed_only_paths(&output);
        params.push(implied::response_format_param(
            fr.span(r.pos),
            default,
            &detailed,
        ));
    }
    if let Some(i) = &idempotency {
        params.push(implied::idempotency_key_param(i.span, i.ttl));
    }
    if let Some(p) = &preview {
        params.push(implied::preview_id_param(p.span, p.ttl));
    }
    if let Some(p) = &paging {
        output.push(implied::total_output(p.span));
        output.push(implied::next_cursor_output(p.span));
    }
    if let Some(i) = &idempotency {
        output.push(implied::replayed_output(i.span));
    }
    if let Some(p) = &preview {
        output.push(implied::applied_output(p.span));
        output.push(implied::preview_output(p.span, p.ttl, &p.fields));
    }
    output.push(implied::truncated_output(name.span));

    let errors: Vec<Text> = t.errors.iter().flatten().map(|e| text(file, e)).collect();
    for e in &errors {
        if !catalog.iter().any(|c| c.code == e.text) {
            unknown_code(fr, e, catalog);
        }
    }
    let examples = t
        .examples
        .iter()
        .flatten()
        .map(|e| resolve_example(fr, e, &params, &errors, catalog))
        .collect();
    let undo = t.undo.as_ref().map(|u| Undo {
        tool: text(file, &u.tool),
        arguments: u
            .arguments
            .iter()
            .map(|(k, v)| (text(file, k), text(file, v)))
            .collect(),
        span: fr.span(u.pos),
    });
    Tool {
        name,
        title: text(file, &t.title),
        summary: text(file, &t.summary),
        returns: text(file, &t.returns),
        use_when: t.use_when.as_ref().map(|s| text(file, s)),
        not_for: t
            .not_for
            .iter()
            .flatten()
            .map(|n| NotFor {
                when: text(file, &n.when),
                use_tool: text(file, &n.use_tool),
            })
            .collect(),
        tier,
        tier_span: fr.span(t.tier.pos),
        open_world: t.open_world.as_ref().is_some_and(|o| o.value),
        params,
        output,
        errors,
        paging,
        response_format,
        idempotency,
        preview,
        undo,
        aliases: t
            .deprecated_aliases
            .iter()
            .flatten()
            .map(|a| text(file, a))
            .collect(),
        examples,
        requests: t.requests.iter().flatten().map(|r| text(file, r)).collect(),
        token_budget: t
            .token_budget
            .as_ref()
            .map_or(defaults.token_budget, |b| b.value),
        lint_allow: t
            .lint
            .iter()
            .flat_map(|l| &l.allow)
            .map(|a| (text(file, &a.rule), text(file, &a.reason)))
            .collect(),
    }
}

/// Dotted paths of the fields only detailed responses carry (`tickets.customer_email`).
pub fn detailed_only_paths(fields: &[Field]) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(fields: &[Field], prefix: &str, out: &mut Vec<String>) {
        for f in fields {
            let path = if prefix.is_empty() {
                f.name.clone()
            } else {
                format!("{prefix}.{}", f.name)
            };
            if f.detailed_only {
                out.push(path);
                continue;
            }
            let mut ty = &f.ty;
            while let Kind::Array { items, .. } = &ty.kind {
                ty = items;
            }
            if let Kind::Object { fields, .. } = &ty.kind {
                walk(fields, &path, out);
            }
        }
    }
    walk(fields, "", &mut out);
    out
}

fn check_tool_name(fr: &mut FieldResolver, name: &Sp<String>, what: &str) {
    if !is_portable_tool_name(&name.value) {
        fr.diags.push(
            Diagnostic::error("invalid-name", fr.span(name.pos), format!("{what} `{}` is not portable to MCP, OpenAI and Anthropic", name.value))
                .label("must match ^[a-zA-Z][a-zA-Z0-9_]{0,63}$")
                .help("use letters, digits and `_`, start with a letter, at most 64 characters (`tickets_search`)"),
        );
    }
}

fn reserved(fr: &mut FieldResolver, fields: &[Field], names: &[&str], what: &str) {
    for f in fields {
        if names.contains(&f.name.as_str()) {
            fr.diags.push(
                Diagnostic::error("reserved-name", f.span, format!("`{}` is a reserved {what} name", f.name))
                    .label("toolspec adds this itself")
                    .help(format!(
                        "rename it; `{}` comes from the tool's paging, response_format, idempotency, preview or undo settings",
                        f.name
                    )),
            );
        }
    }
}

fn check_tier(fr: &mut FieldResolver, t: &raw::Tool, tier: Tier) {
    let name = &t.name.value;
    let tier_span = fr.span(t.tier.pos);
    let mut need = |present: bool, code: &str, msg: String, help: &str| {
        if !present {
            fr.diags.push(
                Diagnostic::error(code, tier_span, msg)
                    .label(format!("tier `{}`", tier.as_str()))
                    .help(help.to_string()),
            );
        }
    };
    match tier {
        Tier::ReadOnly => {}
        Tier::Reversible | Tier::Irreversible => need(
            t.idempotency.is_some(),
            "write-without-idempotency",
            format!("`{name}` changes state but takes no idempotency key"),
            "add `idempotency: {}` (agents and hosts retry; a key makes a retry return the first result instead of acting twice)",
        ),
    }
    match tier {
        Tier::Irreversible => need(
            t.preview.is_some(),
            "irreversible-without-preview",
            format!("irreversible `{name}` has no preview"),
            "add `preview: {}` so the change is shown and confirmed before it is applied",
        ),
        Tier::Reversible => need(
            t.undo.is_some(),
            "reversible-without-undo",
            format!("reversible `{name}` has no undo call"),
            "add `undo: {tool: ..., arguments: {...}}`, or make the tier `irreversible` if it cannot be undone",
        ),
        Tier::ReadOnly => {}
    }
    let misplaced: [(&str, Option<Pos>, bool); 3] = [
        (
            "idempotency",
            t.idempotency.as_ref().map(|x| x.pos),
            tier == Tier::ReadOnly,
        ),
        (
            "preview",
            t.preview.as_ref().map(|x| x.pos),
            tier != Tier::Irreversible,
        ),
        (
            "undo",
            t.undo.as_ref().map(|x| x.pos),
            tier != Tier::Reversible,
        ),
    ];
    for (key, pos, wrong) in misplaced {
        if let (Some(pos), true) = (pos, wrong) {
            let fits = match key {
                "idempotency" => "reversible and irreversible tools",
                "preview" => "irreversible tools",
                _ => "reversible tools",
            };
            fr.diags.push(
                Diagnostic::error(
                    "not-applicable",
                    fr.span(pos),
                    format!("`{key}` does not apply to a `{}` tool", tier.as_str()),
                )
                .label(format!("only for {fits}"))
                .help(format!("remove `{key}`, or change the tier")),
            );
        }
    }
}

fn unknown_code(fr: &mut FieldResolver, e: &Text, catalog: &[ErrorCode]) {
    let mut d = Diagnostic::error(
        "unknown-error-code",
        e.span,
        format!("unknown error code `{}`", e.text),
    )
    .label("not in the catalog");
    d = match did_you_mean(&e.text, catalog.iter().map(|c| c.code.as_str())) {
        Some(s) => d.help(format!("did you mean `{s}`?")),
        None => d.help(format!(
            "declare `{}` under `errors:` with its message and retryable flag",
            e.text
        )),
    };
    fr.diags.push(d);
}

const VALIDATION_CODES: &[&str] = &[
    "invalid_arguments",
    "missing_argument",
    "unknown_argument",
    "invalid_type",
    "invalid_enum",
    "out_of_range",
    "invalid_length",
    "pattern_mismatch",
    "invalid_format",
];

fn resolve_example(
    fr: &mut FieldResolver,
    e: &raw::Example,
    params: &[Field],
    listed: &[Text],
    catalog: &[ErrorCode],
) -> Example {
    let file = fr.span(Pos::default()).file;
    let problems = check_arguments(&e.arguments.value, params);
    let error = e.error.as_ref().map(|c| text(file, c));
    match &error {
        None => {
            for (path, problem) in &problems {
                let at = if path.is_empty() {
                    String::new()
                } else {
                    format!(" at {path}")
                };
                fr.diags.push(
                    Diagnostic::error("invalid-example", fr.span(e.arguments.pos), format!("example `{}` would be refused{at}: {problem}", e.title.value))
                        .label("these arguments break the tool's own schema")
                        .help("fix the arguments, or add `error:` with the code the call is expected to fail with"),
                );
            }
        }
        Some(code) => {
            let builtin = toolspec_runtime::catalog::find(&code.text).is_some();
            if !builtin && !listed.iter().any(|l| l.text == code.text) {
                if catalog.iter().any(|c| c.code == code.text) {
                    fr.diags.push(
                        Diagnostic::error(
                            "unlisted-error-code",
                            code.span,
                            format!(
                                "example expects `{}`, which the tool does not list in `errors`",
                                code.text
                            ),
                        )
                        .label("not one of this tool's errors")
                        .help(format!("add `{}` to the tool's `errors:`", code.text)),
                    );
                } else {
                    unknown_code(fr, code, catalog);
                }
            }
            if VALIDATION_CODES.contains(&code.text.as_str()) && problems.is_empty() {
                fr.diags.push(
                    Diagnostic::error(
                        "example-does-not-fail",
                        code.span,
                        format!(
                            "example `{}` expects `{}` but its arguments are valid",
                            e.title.value, code.text
                        ),
                    )
                    .label("these arguments pass validation")
                    .help(
                        "make the arguments break the rule the example shows, or expect a success",
                    ),
                );
            }
            if let Some(r) = &e.result {
                fr.diags.push(
                    Diagnostic::error(
                        "example-outcome",
                        fr.span(r.pos),
                        format!("example `{}` has both `result` and `error`", e.title.value),
                    )
                    .label("a call either succeeds or fails")
                    .help("keep `result` for a success or `error` for a failure"),
                );
            }
        }
    }
    Example {
        title: text(file, &e.title),
        arguments: e.arguments.value.clone(),
        result: e.result.as_ref().map(|r| r.value.clone()),
        error,
        span: fr.span(e.title.pos),
    }
}

/// Checks that need every toolset: duplicate names, `not_for` and `undo` references.
fn cross_check(model: &mut Model, all_loaded: bool, diags: &mut Diagnostics) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for ts in &model.toolsets {
        for t in &ts.tools {
            for n in std::iter::once(&t.name).chain(&t.aliases) {
                if let Some(first) = seen.get(&n.text) {
                    let path = model
                        .toolsets
                        .iter()
                        .find(|t| t.span.file == first.file)
                        .map_or("", |t| t.path.as_str());
                    let fp = first.pos;
                    diags.push(
                        Diagnostic::error("duplicate-tool", n.span, format!("tool name `{}` is used twice", n.text))
                            .label("already used")
                            .note(format!("first used at {path}:{}:{}", fp.line, fp.column))
                            .help("tool names and deprecated aliases must be unique across the toolsets a host loads"),
                    );
                } else {
                    seen.insert(n.text.clone(), n.span);
                }
            }
        }
    }
    let names: Vec<String> = model.tools().map(|(_, t)| t.name.text.clone()).collect();
    let mut undo_fields: Vec<(usize, usize, Field)> = Vec::new();
    for (si, ts) in model.toolsets.iter().enumerate() {
        for (ti, t) in ts.tools.iter().enumerate() {
            for nf in &t.not_for {
                if all_loaded && !names.contains(&nf.use_tool.text) {
                    diags.push(unknown_tool(&nf.use_tool, &names, "`use`"));
                }
            }
            let Some(undo) = &t.undo else { continue };
            let Some((_, target)) = model.tool(&undo.tool.text) else {
                if all_loaded {
                    diags.push(unknown_tool(&undo.tool, &names, "undo `tool`"));
                }
                continue;
            };
            let mut args = Vec::new();
            for (param, path) in &undo.arguments {
                let Some(p) = target.param(&param.text) else {
                    let known: Vec<&str> = target.spec_params().map(|p| p.name.as_str()).collect();
                    let mut d = Diagnostic::error(
                        "unknown-param",
                        param.span,
                        format!("`{}` has no parameter `{}`", target.name, param.text),
                    )
                    .label("not a parameter of the undo tool");
                    d = match did_you_mean(&param.text, known.iter().copied()) {
                        Some(s) => d.help(format!("did you mean `{s}`?")),
                        None => d.help(format!("its parameters are: {}", known.join(", "))),
                    };
                    diags.push(d);
                    continue;
                };
                if output_path(&t.output, &path.text).is_none() {
                    let paths = spec_output_paths(&t.output);
                    let help = match did_you_mean(&path.text, paths.iter().map(String::as_str)) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!(
                            "use a dotted path to a field of the output: {}",
                            paths.join(", ")
                        ),
                    };
                    diags.push(
                        Diagnostic::error(
                            "unknown-output-path",
                            path.span,
                            format!("`{}` is not a field of `{}`'s output", path.text, t.name),
                        )
                        .label("the undo argument must come from the result")
                        .help(help),
                    );
                }
                let mut f = p.clone();
                f.required = true;
                args.push(f);
            }
            for p in target
                .params
                .iter()
                .filter(|p| p.required && p.name != "idempotency_key")
            {
                if !undo.arguments.iter().any(|(k, _)| k.text == p.name) {
                    diags.push(
                        Diagnostic::error(
                            "undo-missing-argument",
                            undo.tool.span,
                            format!(
                                "the undo call to `{}` lacks its required `{}`",
                                target.name, p.name
                            ),
                        )
                        .label("incomplete undo call")
                        .help(format!(
                            "add `{}: <path into the result>` under `arguments`",
                            p.name
                        )),
                    );
                }
            }
            if let Some(k) = target.param("idempotency_key") {
                args.push(k.clone());
            }
            undo_fields.push((
                si,
                ti,
                implied::undo_output(undo.span, &target.name.text, args),
            ));
        }
    }
    for (si, ti, field) in undo_fields {
        let output = &mut model.toolsets[si].tools[ti].output;
        let at = output
            .iter()
            .position(|f| f.name == "truncated")
            .unwrap_or(output.len());
        output.insert(at, field);
    }
}

/// Dotted paths of every field the spec wrote in an output, objects followed into, for
/// suggesting where an undo argument can come from.
fn spec_output_paths(fields: &[Field]) -> Vec<String> {
    fn walk(fields: &[Field], prefix: &str, out: &mut Vec<String>) {
        for f in fields.iter().filter(|f| f.origin == Origin::Spec) {
            let path = format!("{prefix}{}", f.name);
            out.push(path.clone());
            if let Kind::Object { fields, .. } = &f.ty.kind {
                walk(fields, &format!("{path}."), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(fields, "", &mut out);
    out
}

/// The field a dotted path names in an output (`ticket.ticket_id`).
pub fn output_path<'a>(fields: &'a [Field], path: &str) -> Option<&'a Field> {
    let mut fields = fields;
    let mut found = None;
    for part in path.split('.') {
        let f = fields.iter().find(|f| f.name == part)?;
        found = Some(f);
        fields = match &f.ty.kind {
            Kind::Object { fields, .. } => fields,
            _ => &[],
        };
    }
    found
}

fn unknown_tool(name: &Text, names: &[String], what: &str) -> Diagnostic {
    let d = Diagnostic::error(
        "unknown-tool",
        name.span,
        format!(
            "{what} names `{}`, which no spec being checked defines",
            name.text
        ),
    )
    .label("unknown tool");
    match did_you_mean(&name.text, names.iter().map(String::as_str)) {
        Some(s) => d.help(format!("did you mean `{s}`?")),
        None => {
            d.help("fix the name, or check this spec together with the spec that defines the tool")
        }
    }
}

fn is_service_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && s.len() <= 40
}

/// `^[a-zA-Z][a-zA-Z0-9_]{0,63}$`: a tool name every provider accepts.
pub fn is_portable_tool_name(s: &str) -> bool {
    s.len() <= 64 && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && is_field_name(s)
}
