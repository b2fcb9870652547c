//! The parameters and output fields that a tool's settings imply.
//!
//! Paging implies `limit`, `cursor`, `total` and `next_cursor`; `response_format` its enum;
//! `projection` its field list;
//! idempotency `idempotency_key` and `replayed`; previews `preview_id`, `applied` and
//! `preview`; undo the `undo` call; every result may carry `truncated`. They are built here,
//! once, from the settings' numbers, so that the schema, the Rust code, the docs and the
//! gauntlet all describe and enforce the same limits. Names are the runtime's conventions.

use crate::diagnostics::Span;
use crate::model::describe::capitalize;
use crate::model::values::compose_example;
use crate::model::{Duration, Field, Kind, Origin, Projection, StringRules, Type, format_duration};
use crate::spec::format::{Effect, Format, Verbosity};
use serde_json::{Value, json};

/// Parameter names the implied parameters use; the spec may not declare them itself.
pub const RESERVED_PARAMS: &[&str] = &[
    "limit",
    "cursor",
    "response_format",
    "idempotency_key",
    "preview_id",
];

/// Output names the implied fields use; the spec may not declare them itself.
pub const RESERVED_OUTPUTS: &[&str] = &[
    "total",
    "next_cursor",
    "replayed",
    "applied",
    "preview",
    "undo",
    "truncated",
];

fn field(
    name: &str,
    span: Span,
    description: String,
    ty: Type,
    required: bool,
    example: Value,
    origin: Origin,
) -> Field {
    Field {
        name: name.to_string(),
        span,
        description,
        ty,
        required,
        default: None,
        example,
        detailed_only: false,
        projected: false,
        nullable: false,
        origin,
    }
}

/// `limit` (or page numbers' size parameter, `name`): page size with its default and
/// maximum. Descriptions of implied parameters say what a keyword cannot (bounds and
/// defaults are keywords, or the schema's words where a provider drops them), so each fact
/// reaches the model once.
pub fn limit_param(span: Span, name: &str, default_limit: u32, max_limit: u32) -> Field {
    let mut f = field(
        name,
        span,
        "Items per page.".to_string(),
        Type::of(Kind::integer(Some(1), Some(i64::from(max_limit)))),
        false,
        json!(default_limit.clamp(1, 5)),
        Origin::Paging,
    );
    f.default = Some(json!(default_limit));
    f
}

/// `cursor`: the opaque continuation of a previous page.
pub fn cursor_param(span: Span) -> Field {
    field(
        "cursor",
        span,
        "The last page's next_cursor, for the next page of the same query; omit at first."
            .to_string(),
        Type::of(Kind::String(StringRules {
            min_length: Some(1),
            max_length: Some(512),
            ..StringRules::default()
        })),
        false,
        json!("c1.eyJvIjo1fQ.8f2a"),
        Origin::Paging,
    )
}

/// Page numbers' page parameter (`page`): which page, from 1 (the default).
pub fn page_param(span: Span, name: &str) -> Field {
    let mut f = field(
        name,
        span,
        "Page number, from 1; pass a result's next_page for the page after it.".to_string(),
        Type::of(Kind::integer(Some(1), None)),
        false,
        json!(1),
        Origin::Paging,
    );
    f.default = Some(json!(1));
    f
}

/// `next_page`: the number to pass as `page` for the following page; absent on the last.
pub fn next_page_output(span: Span, page: &str) -> Field {
    field(
        "next_page",
        span,
        format!("Pass as {page} for the next page; absent on the last page."),
        Type::of(Kind::integer(Some(2), None)),
        false,
        json!(2),
        Origin::Paging,
    )
}

/// `response_format`: concise or detailed, naming what concise leaves out.
pub fn response_format_param(span: Span, default: Verbosity, detailed_only: &[String]) -> Field {
    let description = if detailed_only.is_empty() {
        "How much to return.".to_string()
    } else {
        format!(
            "How much to return: concise leaves out {}.",
            detailed_only.join(", ")
        )
    };
    let mut f = field(
        "response_format",
        span,
        description,
        Type::of(Kind::String(StringRules {
            enum_values: Some(vec!["concise".into(), "detailed".into()]),
            ..StringRules::default()
        })),
        false,
        json!(default.as_str()),
        Origin::ResponseFormat,
    );
    f.default = Some(json!(default.as_str()));
    f
}

/// The field list of a `projection` (`fields`): which of `fields` to return, said with
/// what always comes and what a call that names none gets. `of` names the projected
/// objects in words (`each item of events`, `the result`).
pub fn projection_param(span: Span, projection: &Projection, of: &str) -> Field {
    let mut words = format!("Fields of {of} to return");
    if !projection.always.is_empty() {
        words.push_str(&format!(
            " besides {}, which always come",
            projection.always.join(", ")
        ));
    }
    words.push_str(&match &projection.default {
        None => "; omit for all.".to_string(),
        Some(d) if d.is_empty() && projection.always.is_empty() => "; omit for none.".into(),
        Some(d) if d.is_empty() => "; omit for only those.".into(),
        Some(d) => format!("; omit for {}.", d.join(", ")),
    });
    let example = projection
        .fields
        .iter()
        .find(|f| !projection.always.contains(f))
        .or(projection.fields.first())
        .map_or_else(|| json!([]), |f| json!([f]));
    field(
        &projection.param,
        span,
        words,
        Type::of(Kind::Array {
            items: Box::new(Type::of(Kind::String(StringRules {
                enum_values: Some(projection.fields.clone()),
                ..StringRules::default()
            }))),
            min_items: None,
            max_items: Some(projection.fields.len() as u64),
        }),
        false,
        example,
        Origin::Projection,
    )
}

/// `idempotency_key`: required on idempotent writes, unless the spec says why it may be left
/// out (`key_optional`). What a retry with it does depends on where the write's effect
/// happens (`effect`), and the words promise only that.
pub fn idempotency_key_param(span: Span, ttl: Duration, required: bool, effect: Effect) -> Field {
    let ttl = format_duration(ttl);
    let mut description = match effect {
        // An unprotected remote write's retry may repeat its change: the tool's description
        // says so, once (`describe::effect_sentence`); the key still replays a finished call.
        Effect::Store | Effect::RemoteUnprotected => format!(
            "New per change; a retry with it returns the first result (replayed: true) for {ttl}."
        ),
        Effect::RemoteKeyed => format!(
            "New per change; the service gets it too, so a retry with it never repeats the change and returns the first result (replayed: true) for {ttl}."
        ),
        Effect::RemoteLookup => format!(
            "New per change; a retry with it first checks whether the change was made, so it never repeats it, and returns the first result (replayed: true) for {ttl}."
        ),
    };
    if !required {
        description.push_str(" Optional: without one a retry runs again.");
    }
    field(
        "idempotency_key",
        span,
        description,
        Type::of(Kind::String(StringRules {
            min_length: Some(1),
            max_length: Some(255),
            ..StringRules::default()
        })),
        required,
        json!("k-7f3a"),
        Origin::Idempotency,
    )
}

/// `preview_id`: absent to preview, present to apply.
pub fn preview_id_param(span: Span, ttl: Duration) -> Field {
    field(
        "preview_id",
        span,
        format!(
            "Omit to preview; to apply, pass the preview's preview_id (valid {}) with the same arguments.",
            format_duration(ttl)
        ),
        Type::of(Kind::String(StringRules {
            min_length: Some(1),
            max_length: Some(128),
            ..StringRules::default()
        })),
        false,
        json!("pv_3q9d0c2b7e1f4a6b8c5d"),
        Origin::Preview,
    )
}

/// `total`: how many items the whole query matches.
pub fn total_output(span: Span) -> Field {
    field(
        "total",
        span,
        "How many items match the whole query, across all pages.".into(),
        Type::of(Kind::integer(Some(0), None)),
        true,
        json!(15),
        Origin::Paging,
    )
}

/// `next_cursor`: absent on the last page.
pub fn next_cursor_output(span: Span) -> Field {
    field(
        "next_cursor",
        span,
        "Pass as cursor for the next page; absent on the last page.".into(),
        Type::string(),
        false,
        json!("c1.eyJvIjo1fQ.8f2a"),
        Origin::Paging,
    )
}

/// `replayed`: whether this result was stored by an earlier call with the same key.
pub fn replayed_output(span: Span) -> Field {
    field(
        "replayed",
        span,
        "true: the stored result of an earlier call with this idempotency_key; nothing ran again."
            .into(),
        Type::of(Kind::Boolean),
        false,
        json!(false),
        Origin::Idempotency,
    )
}

/// `applied`: false for a preview, true once applied.
pub fn applied_output(span: Span) -> Field {
    field(
        "applied",
        span,
        "false: this is a preview and nothing changed yet; true: the change was made.".into(),
        Type::of(Kind::Boolean),
        true,
        json!(true),
        Origin::Preview,
    )
}

/// `preview`: what would change, the id to apply it and its expiry.
pub fn preview_output(span: Span, ttl: Duration, fields: &[Field]) -> Field {
    let mut all = vec![
        field(
            "preview_id",
            span,
            "Pass back as preview_id to apply.".into(),
            Type::string(),
            true,
            json!("pv_3q9d0c2b7e1f4a6b8c5d"),
            Origin::Preview,
        ),
        field(
            "expires_at",
            span,
            format!(
                "When preview_id expires ({} after the preview).",
                format_duration(ttl)
            ),
            Type::of(Kind::String(StringRules {
                format: Some(Format::DateTime),
                ..StringRules::default()
            })),
            true,
            json!("2026-11-30T10:10:00Z"),
            Origin::Preview,
        ),
        field(
            "summary",
            span,
            "What applying would do, to show the user.".into(),
            Type::string(),
            true,
            json!("Would make the change shown beside it."),
            Origin::Preview,
        ),
    ];
    all.extend(fields.iter().cloned());
    let example = compose_example(&Type::of(Kind::Object {
        fields: all.clone(),
        open: false,
        requires: Vec::new(),
    }));
    field(
        "preview",
        span,
        "Present when applied is false: what would change.".into(),
        Type::of(Kind::Object {
            fields: all,
            open: false,
            requires: Vec::new(),
        }),
        false,
        example,
        Origin::Preview,
    )
}

/// `undo`: the exact call that reverts this one.
pub fn undo_output(span: Span, tool: &str, arguments: Vec<Field>) -> Field {
    let fields = vec![
        field(
            "tool",
            span,
            "The tool to call to undo.".into(),
            Type::of(Kind::String(StringRules {
                enum_values: Some(vec![tool.to_string()]),
                ..StringRules::default()
            })),
            true,
            json!(tool),
            Origin::Undo,
        ),
        {
            let example = compose_example(&Type::of(Kind::Object {
                fields: arguments.clone(),
                open: false,
                requires: Vec::new(),
            }));
            field(
                "arguments",
                span,
                "Its arguments, exactly as to pass them.".into(),
                Type::of(Kind::Object {
                    fields: arguments,
                    open: false,
                    requires: Vec::new(),
                }),
                true,
                example,
                Origin::Undo,
            )
        },
    ];
    let example = compose_example(&Type::of(Kind::Object {
        fields: fields.clone(),
        open: false,
        requires: Vec::new(),
    }));
    field(
        "undo",
        span,
        "The exact call that reverts this change.".into(),
        Type::of(Kind::Object {
            fields,
            open: false,
            requires: Vec::new(),
        }),
        true,
        example,
        Origin::Undo,
    )
}

/// `truncated`: present when the result was cut to fit the token budget (the runtime's
/// `shape` module writes it; the shape here must match it).
pub fn truncated_output(span: Span, cuts_text: bool) -> Field {
    // A tool with text outputs may have its text cut too, counted in characters.
    let (what, unit) = if cuts_text {
        ("list or text", "items (characters, for a text)")
    } else {
        ("list", "items")
    };
    let count = || Type::of(Kind::integer(Some(0), None));
    let cut_fields = vec![
        field(
            "path",
            span,
            format!("JSON Pointer of the cut {what}."),
            Type::string(),
            true,
            json!("/tickets"),
            Origin::Budget,
        ),
        field(
            "kept",
            span,
            format!("{} kept.", capitalize(unit)),
            count(),
            true,
            json!(12),
            Origin::Budget,
        ),
        field(
            "total",
            span,
            format!("{} before the cut.", capitalize(unit)),
            count(),
            true,
            json!(20),
            Origin::Budget,
        ),
    ];
    let cut = Type::of(Kind::Object {
        fields: cut_fields,
        open: false,
        requires: Vec::new(),
    });
    let fields = vec![
        field(
            "cuts",
            span,
            format!("Each {what} that was cut."),
            Type::of(Kind::Array {
                items: Box::new(cut.clone()),
                min_items: None,
                max_items: None,
            }),
            true,
            json!([compose_example(&cut)]),
            Origin::Budget,
        ),
        field(
            "budget_tokens",
            span,
            "The size budget, in estimated tokens.".into(),
            count(),
            true,
            json!(5000),
            Origin::Budget,
        ),
        field(
            "message",
            span,
            "What was cut and how to ask for less.".into(),
            Type::string(),
            true,
            json!(
                "Kept 12 of 20 tickets to fit the budget; narrow the query or pass a smaller limit."
            ),
            Origin::Budget,
        ),
    ];
    let ty = Type::of(Kind::Object {
        fields,
        open: false,
        requires: Vec::new(),
    });
    let example = compose_example(&ty);
    field(
        "truncated",
        span,
        // The schemas say the whole note in this one sentence (`plan::schema` leaves its
        // fields' descriptions, which the docs show, out of them).
        format!(
            "Present only when the result was cut to fit the size budget (budget_tokens): per cut {what}, its JSON Pointer path and the {unit} kept of total; message says how to ask for less."
        ),
        ty,
        false,
        example,
        Origin::Budget,
    )
}
