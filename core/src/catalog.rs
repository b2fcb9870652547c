//! The built-in error codes every generated toolset has without writing them.
//!
//! This table is the one place these codes are defined. The runtime raises them, and the
//! generator (which depends on this crate with default features off, so it stays light)
//! reads the same table to list them in schemas, docs and the gauntlet. A code added here
//! appears everywhere at once.

/// One built-in error code: its name, whether retrying the same call can succeed, when it
/// happens, and what the agent should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinError {
    /// Machine-readable code, snake_case, as it appears in `code`.
    pub code: &'static str,
    /// Whether the same call may succeed if simply made again later.
    pub retryable: bool,
    /// When the runtime returns it.
    pub when: &'static str,
    /// How an agent recovers: the next call to make.
    pub recovery: &'static str,
}

macro_rules! builtin {
    ($name:ident, $code:literal, $retryable:literal, $when:literal, $recovery:literal) => {
        #[doc = concat!("`", $code, "`: ", $when)]
        pub const $name: BuiltinError = BuiltinError {
            code: $code,
            retryable: $retryable,
            when: $when,
            recovery: $recovery,
        };
    };
}

builtin!(
    INVALID_ARGUMENTS,
    "invalid_arguments",
    false,
    "The call has several argument problems; `details.problems` lists each with its JSON Pointer path.",
    "Fix every listed problem and call again; the message shows a valid call."
);
builtin!(
    MISSING_ARGUMENT,
    "missing_argument",
    false,
    "A required argument is absent.",
    "Add the argument named in `details.path`; the message shows a valid call."
);
builtin!(
    UNKNOWN_ARGUMENT,
    "unknown_argument",
    false,
    "An argument the tool does not take was passed.",
    "Remove it or use one of `details.allowed`."
);
builtin!(
    INVALID_TYPE,
    "invalid_type",
    false,
    "An argument has the wrong JSON type.",
    "Pass a value of the type in `details.expected`."
);
builtin!(
    INVALID_ENUM,
    "invalid_enum",
    false,
    "A value is not one of the allowed values.",
    "Use one of `details.allowed`, or omit the argument if it is optional."
);
builtin!(
    OUT_OF_RANGE,
    "out_of_range",
    false,
    "A number is below its minimum or above its maximum.",
    "Pass a value within `details.minimum` and `details.maximum`."
);
builtin!(
    INVALID_LENGTH,
    "invalid_length",
    false,
    "A string or list is shorter or longer than allowed.",
    "Shorten or lengthen it to fit `details.min_length`/`details.max_length` (or the item bounds)."
);
builtin!(
    PATTERN_MISMATCH,
    "pattern_mismatch",
    false,
    "A string does not match its required pattern.",
    "Pass a value shaped like `details.example` (pattern in `details.pattern`)."
);
builtin!(
    INVALID_FORMAT,
    "invalid_format",
    false,
    "A string is not in its declared format (email, date-time, uri, uuid...).",
    "Pass a value in the format named in `details.format`, like `details.example`."
);
builtin!(
    INVALID_KEY,
    "invalid_key",
    false,
    "A key of a map argument breaks the rules for its keys (length or pattern).",
    "Rename the key named in `details.path` to fit `details.max_length` and `details.pattern`."
);
builtin!(
    CONFLICTING_ARGUMENTS,
    "conflicting_arguments",
    false,
    "Arguments were passed together that the tool takes only one at a time.",
    "Keep one of `details.one_of` and remove the others."
);
builtin!(
    ARGUMENT_NOT_APPLICABLE,
    "argument_not_applicable",
    false,
    "An argument was passed that the tool takes only for other values of another argument (`after` only when `method` is `get_review_comments`).",
    "Remove the argument named in `details.path`, or set `details.when` to one of `details.values` if that is what you meant."
);
builtin!(
    INVALID_CURSOR,
    "invalid_cursor",
    false,
    "The cursor was not issued for this query, was edited, or comes from an older server version.",
    "Drop `cursor` to start from the first page, or pass the exact `next_cursor` of the previous page of the same query."
);
builtin!(
    IDEMPOTENCY_KEY_REUSED,
    "idempotency_key_reused",
    false,
    "The idempotency key was already used with different arguments.",
    "Generate a new idempotency key for a new operation; reuse a key only to retry the same call."
);
builtin!(
    IDEMPOTENCY_IN_PROGRESS,
    "idempotency_in_progress",
    true,
    "The first call with this idempotency key is still running.",
    "Wait a moment and retry the same call with the same key; it will return the first call's result."
);
builtin!(
    PREVIEW_NOT_FOUND,
    "preview_not_found",
    false,
    "The preview id is unknown.",
    "Call the tool without `preview_id` to get a fresh preview, then apply with its id."
);
builtin!(
    PREVIEW_EXPIRED,
    "preview_expired",
    false,
    "The preview id has expired.",
    "Call the tool without `preview_id` to get a fresh preview, show it, then apply with the new id."
);
builtin!(
    PREVIEW_USED,
    "preview_used",
    false,
    "The preview id was already applied.",
    "The change was made once already; to make another, request a new preview."
);
builtin!(
    PREVIEW_MISMATCH,
    "preview_mismatch",
    false,
    "The arguments differ from the ones the preview was made for.",
    "Apply with exactly the previewed arguments, or request a new preview for the new ones."
);
builtin!(
    APPROVAL_DECLINED,
    "approval_declined",
    false,
    "The person declined (or dismissed) this change when the host asked them; nothing was changed.",
    "Do not retry it or look for another way to make it; tell the user it was not made, and ask what they want instead."
);
builtin!(
    APPROVAL_UNAVAILABLE,
    "approval_unavailable",
    false,
    "The tool needs a person's approval through the host, and this client cannot ask for it (no elicitation); nothing was changed.",
    "Tell the user this change needs a client that can ask them to approve it (MCP elicitation)."
);
builtin!(
    INSUFFICIENT_SCOPE,
    "insufficient_scope",
    false,
    "The caller's access token does not grant every scope the tool needs (`details.required`; the ones it lacks in `details.missing`); nothing was done.",
    "Do not retry with the same authorization; tell the user the tool needs the scopes in `details.missing`, which only their authorization server can grant."
);
builtin!(
    RATE_LIMITED,
    "rate_limited",
    true,
    "The caller made more calls than the tool's stated rate limit allows (`details.calls` per `details.per_seconds` s), or already runs as many background tasks as the server allows (`details.tasks_running`); nothing was done.",
    "Wait `details.retry_after_ms` milliseconds (for a task limit, until one of the caller's tasks has finished), then make the same call again; a call sooner is refused again."
);
builtin!(
    TIMEOUT,
    "timeout",
    true,
    "The call ran past the tool's stated time limit and was stopped; a write's own changes were rolled back (`details.changed` says `no`, or `unknown` for a change at another service).",
    "Call again with narrower arguments (fewer items, a smaller range), or the same call later; a write's idempotency key is free again, so a retry with it runs once."
);
builtin!(
    UNKNOWN_TOOL,
    "unknown_tool",
    false,
    "No tool or deprecated alias has the called name.",
    "Call one of the tools in `details.allowed` (the server's tools/list)."
);
builtin!(
    INTERNAL_ERROR,
    "internal_error",
    true,
    "The server failed unexpectedly; no internals are exposed.",
    "Retry once later; if it persists, report the `details.incident` id."
);

/// Every built-in code, in the order docs list them ([`CONDITIONAL`] ones included: a
/// toolset has those only when it asks for them).
pub const ALL: &[BuiltinError] = &[
    INVALID_ARGUMENTS,
    MISSING_ARGUMENT,
    UNKNOWN_ARGUMENT,
    INVALID_TYPE,
    INVALID_ENUM,
    OUT_OF_RANGE,
    INVALID_LENGTH,
    PATTERN_MISMATCH,
    INVALID_FORMAT,
    INVALID_KEY,
    CONFLICTING_ARGUMENTS,
    ARGUMENT_NOT_APPLICABLE,
    INVALID_CURSOR,
    IDEMPOTENCY_KEY_REUSED,
    IDEMPOTENCY_IN_PROGRESS,
    PREVIEW_NOT_FOUND,
    PREVIEW_EXPIRED,
    PREVIEW_USED,
    PREVIEW_MISMATCH,
    APPROVAL_DECLINED,
    APPROVAL_UNAVAILABLE,
    INSUFFICIENT_SCOPE,
    RATE_LIMITED,
    TIMEOUT,
    UNKNOWN_TOOL,
    INTERNAL_ERROR,
];

/// Built-in codes a toolset has only when it asks for what raises them: `rate_limited`,
/// for a toolset that declares a `rate_limit`, and `timeout`, for one whose tools declare a
/// `time` limit (one without may name its own code, as a server passing on its upstream's
/// does).
pub const CONDITIONAL: &[BuiltinError] = &[RATE_LIMITED, TIMEOUT];

/// The codes of a call refused by argument validation, before any tool code ran.
pub const VALIDATION: &[BuiltinError] = &[
    INVALID_ARGUMENTS,
    MISSING_ARGUMENT,
    UNKNOWN_ARGUMENT,
    INVALID_TYPE,
    INVALID_ENUM,
    OUT_OF_RANGE,
    INVALID_LENGTH,
    PATTERN_MISMATCH,
    INVALID_FORMAT,
    INVALID_KEY,
    CONFLICTING_ARGUMENTS,
    ARGUMENT_NOT_APPLICABLE,
];

/// Whether `code` means the arguments were refused by validation.
pub fn is_validation(code: &str) -> bool {
    VALIDATION.iter().any(|e| e.code == code)
}

/// Looks a built-in code every toolset has up by name ([`CONDITIONAL`] ones are not: a
/// toolset may name them as its own).
pub fn find(code: &str) -> Option<&'static BuiltinError> {
    find_any(code).filter(|e| !is_conditional(e))
}

/// Looks any built-in code up by name, [`CONDITIONAL`] ones included.
pub fn find_any(code: &str) -> Option<&'static BuiltinError> {
    ALL.iter().find(|e| e.code == code)
}

/// Whether a toolset has `entry` only when it asks for what raises it ([`CONDITIONAL`]).
pub fn is_conditional(entry: &BuiltinError) -> bool {
    CONDITIONAL.iter().any(|c| c.code == entry.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case() {
        let mut seen = std::collections::BTreeSet::new();
        for e in ALL {
            assert!(seen.insert(e.code), "duplicate {}", e.code);
            assert!(
                e.code.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{} is not snake_case",
                e.code
            );
        }
        assert_eq!(find("invalid_enum"), Some(&INVALID_ENUM));
        assert!(find("nope").is_none());
    }

    #[test]
    fn only_transient_codes_are_retryable() {
        let retryable: Vec<_> = ALL.iter().filter(|e| e.retryable).map(|e| e.code).collect();
        assert_eq!(
            retryable,
            [
                "idempotency_in_progress",
                "rate_limited",
                "timeout",
                "internal_error"
            ]
        );
        assert!(find("rate_limited").is_none(), "a toolset may name its own");
        assert_eq!(find_any("rate_limited"), Some(&RATE_LIMITED));
    }
}
