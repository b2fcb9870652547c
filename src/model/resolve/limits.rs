//! Rate and time limits: the toolset's shared budget and a tool's own, each checked so that
//! what the description promises is a limit the server can keep (at least one call, in a
//! window of at least a second, a burst no larger than the window's calls), and how long a
//! tool may take (a usual time no longer than the limit).

use crate::diagnostics::{Diagnostic, Diagnostics, FileId};
use crate::model::{Duration, ErrorCode, RateLimit, TimeLimit};
use crate::spec::format::{self as raw, SpecFile};
use crate::spec::spanned::Sp;

use super::{at, parse_duration};

/// The toolset's shared limit (`rate_limit` at the top of the spec), if written and sound.
pub(super) fn shared(file: FileId, spec: &SpecFile, diags: &mut Diagnostics) -> Option<RateLimit> {
    spec.rate_limit
        .as_ref()
        .and_then(|l| checked(file, l, Some(&spec.service.value), diags))
}

/// The limit each tool is held to: its own `rate_limit`, else the toolset's `shared` one.
/// A shared limit only one tool is left with is that tool's alone, and says so.
pub(super) fn of_tools(
    file: FileId,
    tools: &[raw::Tool],
    shared: Option<RateLimit>,
    diags: &mut Diagnostics,
) -> Vec<Option<RateLimit>> {
    let sharing = tools.iter().filter(|t| t.rate_limit.is_none()).count();
    let shared = shared.map(|l| RateLimit {
        shared_by: l.shared_by.filter(|_| sharing > 1),
        ..l
    });
    tools
        .iter()
        .map(|t| match &t.rate_limit {
            Some(own) => checked(file, own, None, diags),
            None => shared.clone(),
        })
        .collect()
}

/// How long a task's result is kept when the spec does not say: an hour.
pub const TASK_KEPT: Duration = Duration::from_secs(3600);

/// The shortest time a task's result may be kept: a client polling every few seconds must
/// find it.
const TASK_KEPT_MIN: Duration = Duration::from_secs(60);

/// A tool's `time`: a limit and a usual time, both durations, the usual one no longer; and
/// whether it runs as a task, on a tool whose tier allows it.
pub(super) fn time_limit(
    file: FileId,
    l: &Sp<raw::TimeLimit>,
    tier: crate::model::Tier,
    diags: &mut Diagnostics,
) -> Option<TimeLimit> {
    let task_kept = l
        .value
        .task
        .as_ref()
        .map(|task| task_kept(file, task, tier, diags));
    let limit = parse_duration(file, &l.value.limit, diags);
    let usual = match &l.value.usual {
        Some(u) => Some(parse_duration(file, u, diags)?),
        None => None,
    };
    let limit = limit?;
    if let (Some(u), Some(written)) = (usual, &l.value.usual)
        && u > limit
    {
        diags.push(
            Diagnostic::error(
                "invalid-value",
                at(file, written.pos),
                format!(
                    "a usual time of {} is longer than the limit of {}",
                    crate::model::format_duration(u),
                    crate::model::format_duration(limit)
                ),
            )
            .label("every call would be stopped before its usual end")
            .help("make `usual` at most `limit`"),
        );
        return None;
    }
    let task_kept = match task_kept {
        Some(kept) => Some(kept?),
        None => None,
    };
    if let Some(kept) = task_kept
        && kept < limit
    {
        diags.push(
            Diagnostic::error(
                "invalid-task",
                at(file, l.pos),
                format!(
                    "a task's result kept for {} would be gone before a call stopped at {} ends",
                    crate::model::format_duration(kept),
                    crate::model::format_duration(limit)
                ),
            )
            .label("a task is kept from when it starts")
            .help("keep task results at least as long as the limit"),
        );
        return None;
    }
    Some(TimeLimit {
        limit,
        usual,
        task_kept,
        span: at(file, l.pos),
    })
}

/// How long a task's result is kept: [`TASK_KEPT`] unless written, at least
/// [`TASK_KEPT_MIN`]; and the tool's tier one a task can serve.
fn task_kept(
    file: FileId,
    task: &Sp<raw::TaskTerms>,
    tier: crate::model::Tier,
    diags: &mut Diagnostics,
) -> Option<Duration> {
    if tier == crate::model::Tier::Irreversible {
        diags.push(
            Diagnostic::error(
                "invalid-task",
                at(file, task.pos),
                "an irreversible tool cannot run as a task",
            )
            .label("its preview and approval are answered within the call")
            .help("remove `task`, or keep the slow part in a read-only or reversible tool"),
        );
        return None;
    }
    let Some(written) = &task.value.kept else {
        return Some(TASK_KEPT);
    };
    let kept = parse_duration(file, written, diags)?;
    if kept < TASK_KEPT_MIN {
        diags.push(
            Diagnostic::error(
                "invalid-task",
                at(file, written.pos),
                format!(
                    "a task's result kept for {} is gone before a client polls for it",
                    crate::model::format_duration(kept)
                ),
            )
            .label("clients poll every few seconds, and may be slower")
            .help("keep results at least `1m` (the default is `1h`)"),
        );
        return None;
    }
    Some(kept)
}

/// Adds the conditional built-in `entry` (`rate_limited`, `timeout`) to the catalog when
/// some tool asks for it (`wanted`); a spec that then names its own code of that name is
/// refused, for the agent would be told two different things under one code.
pub(super) fn catalog(
    entry: &toolspec_runtime::catalog::BuiltinError,
    wanted: bool,
    errors: &mut Vec<ErrorCode>,
    top: crate::diagnostics::Span,
    diags: &mut Diagnostics,
) {
    if !wanted {
        return;
    }
    if let Some(own) = errors.iter().find(|e| e.code == entry.code) {
        diags.push(
            Diagnostic::error(
                "reserved-error-code",
                own.span,
                format!(
                    "`{}` is the runtime's own code in a toolset whose tools declare the limit that raises it",
                    entry.code
                ),
            )
            .label("raised by the generated server")
            .help(format!(
                "remove `{}` from `errors:` (and from tools' `errors` lists); the runtime raises it with its own details",
                entry.code
            )),
        );
        return;
    }
    errors.push(ErrorCode {
        code: entry.code.to_string(),
        message: entry.recovery.to_string(),
        retryable: entry.retryable,
        when: Some(entry.when.to_string()),
        details: Vec::new(),
        builtin: true,
        span: top,
    });
}

fn checked(
    file: FileId,
    l: &Sp<raw::RateLimit>,
    shared_by: Option<&str>,
    diags: &mut Diagnostics,
) -> Option<RateLimit> {
    let r = &l.value;
    let mut sound = true;
    if r.calls.value == 0 {
        sound = false;
        diags.push(
            Diagnostic::error(
                "invalid-rate-limit",
                at(file, r.calls.pos),
                "a rate limit of 0 calls refuses every call",
            )
            .label("must be at least 1")
            .help("allow at least 1 call, or remove `rate_limit` if the tool has no limit"),
        );
    }
    let per = match period(&r.per.value) {
        Ok(per) => Some(per),
        Err(why) => {
            diags.push(
                Diagnostic::error(
                    "invalid-rate-limit",
                    at(file, r.per.pos),
                    format!("`{}` is not a rate limit period: {why}", r.per.value.escape_debug()),
                )
                .label("expected a period of at least a second")
                .help("write `second`, `minute`, `hour` or `day`, or a whole number and s, m, h or d (`10s`, `5m`)"),
            );
            None
        }
    };
    if let Some(burst) = &r.burst
        && (burst.value == 0 || burst.value > r.calls.value)
    {
        sound = false;
        let why = if burst.value == 0 {
            "a burst of 0 refuses every call".to_owned()
        } else {
            format!(
                "a burst of {} is more than the {} calls a window allows",
                burst.value, r.calls.value
            )
        };
        diags.push(
            Diagnostic::error("invalid-rate-limit", at(file, burst.pos), why)
                .label("must be between 1 and `calls`")
                .help("set `burst` to at most `calls`, or remove it to allow all calls at once"),
        );
    }
    if !sound {
        return None;
    }
    Some(RateLimit {
        calls: r.calls.value,
        per: per?,
        burst: r.burst.as_ref().map(|b| b.value),
        shared_by: shared_by.map(str::to_owned),
        span: at(file, l.pos),
    })
}

/// `second`, `minute`, `hour`, `day`, or a duration of whole seconds (`10s`, `5m`).
fn period(text: &str) -> Result<Duration, String> {
    let secs = match text.trim() {
        "second" => 1,
        "minute" => 60,
        "hour" => 3_600,
        "day" => 86_400,
        other if other.ends_with("ms") || other.contains('.') => {
            return Err(
                "a period under a second cannot be kept across replicas, whose clocks differ by more"
                    .into(),
            );
        }
        other => return Duration::parse(other),
    };
    Ok(Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::period;

    #[test]
    fn periods_are_words_or_whole_durations() {
        assert_eq!(period("minute").map(|d| d.as_secs()), Ok(60));
        assert_eq!(period("10s").map(|d| d.as_secs()), Ok(10));
        assert_eq!(period("1h").map(|d| d.as_secs()), Ok(3_600));
        assert!(period("500ms").unwrap_err().contains("under a second"));
        assert!(period("0.5s").unwrap_err().contains("under a second"));
        assert!(period("0s").is_err());
        assert!(period("fortnight").is_err());
    }
}
