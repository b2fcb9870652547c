//! The checks, one function each, grouped by the promise they test.

mod changed_state;
mod dry_run;
mod examples;
mod limits;
mod output;
mod paging;
mod refusals;
mod remote;
mod retry;
mod schema;
mod scopes;
mod unit_of_work;

use serde_json::Value;

use super::Gauntlet;
use super::facts::{Check, CheckDef, Facts, ParamFacts, ToolFacts};
use super::failure::Failure;
use super::session::{Session, parse, set};

/// What a check function gets: the gauntlet (for fresh sessions), the facts and its tool,
/// the tool's served definition and its parameters as the served validator has them.
pub(crate) struct Ctx<'g, 'a> {
    pub(crate) gauntlet: &'g Gauntlet<'a>,
    pub(crate) facts: &'static Facts,
    pub(crate) tool: &'static ToolFacts,
    pub(crate) definition: &'static toolspec_core::engine::ToolDefinition,
    pub(crate) params: Vec<ParamFacts>,
}

impl Ctx<'_, '_> {
    /// The parameter called `name`, as the served validator has it.
    pub(crate) fn param(&self, name: &str) -> Option<&ParamFacts> {
        self.params.iter().find(|p| p.name == name)
    }

    /// A fresh implementation.
    pub(crate) fn session(&self) -> Result<Session<'_>, Failure> {
        self.gauntlet.session()
    }

    /// The valid call every probe starts from.
    pub(crate) fn base_call(&self) -> Value {
        parse(self.definition.example_call)
    }

    /// The first successful example's arguments, else the base call; with an idempotency
    /// key when the tool takes one (`key` unless the example has its own).
    pub(crate) fn success_call(&self, key: &str) -> Value {
        let mut args = self
            .tool
            .examples
            .iter()
            .find(|e| e.error.is_none())
            .map(|e| parse(e.arguments))
            .unwrap_or_else(|| self.base_call());
        if self.tool.idempotency_ttl_secs.is_some() && args.get("idempotency_key").is_none() {
            set(&mut args, "idempotency_key", Value::from(key));
        }
        args
    }

    /// The successful examples' arguments (the base call when there are none).
    pub(crate) fn success_calls(&self) -> Vec<Value> {
        let calls: Vec<Value> = self
            .tool
            .examples
            .iter()
            .filter(|e| e.error.is_none())
            .map(|e| parse(e.arguments))
            .collect();
        if calls.is_empty() {
            vec![self.base_call()]
        } else {
            calls
        }
    }
}

/// The call that makes a tool's change: the success call (with idempotency key `key`),
/// applied through a fresh preview when the tool is gated (then with its `preview_id`).
pub(crate) fn effect_call(
    ctx: &Ctx<'_, '_>,
    session: &Session<'_>,
    key: &str,
    promise: &str,
) -> Result<Value, Failure> {
    let args = ctx.success_call(key);
    if !gated(ctx.tool) {
        return Ok(args);
    }
    let preview = session.ok(ctx.tool.name, &args, promise)?;
    session.apply_args(ctx.tool, &args, &preview, promise)
}

/// What a refused call must leave behind: the read tools see what they saw `before` (a
/// [`Session::snapshot`]), and the tool's write method ran no more than the `writes` times
/// it had before the refusal. Otherwise fails `promise`, naming the refused call `args`.
pub(crate) fn refusal_changed_nothing(
    ctx: &Ctx<'_, '_>,
    session: &Session<'_>,
    (before, writes): (&[(String, Value)], u64),
    args: &Value,
    promise: &str,
) -> Result<(), Failure> {
    let tool = ctx.tool.name;
    let after = session.snapshot(ctx.facts);
    if let Some((call, was, now)) = super::session::first_difference(before, &after) {
        return Err(Failure::new(promise)
            .call(tool, args)
            .got(format!("after the refusal, {call} gives {now}"))
            .expected(format!("what it gave before: {was}")));
    }
    if session.writes(tool) != writes {
        return Err(Failure::new(promise)
            .call(tool, args)
            .got("the tool's write method ran for the refused call")
            .expected("no write after a refusal"));
    }
    Ok(())
}

/// Runs one check.
pub(crate) fn run(gauntlet: &Gauntlet<'_>, def: &'static CheckDef) -> Result<(), Failure> {
    let facts = gauntlet.facts;
    let Some(tool) = facts.tool(def.tool) else {
        return Err(
            Failure::new("the generated gauntlet names tools of the spec")
                .got(format!("a check of unknown tool {}", def.tool))
                .expected("a tool of the facts")
                .fix("regenerate the gauntlet file from the spec"),
        );
    };
    let served = gauntlet.served()?;
    let Some(definition) = served.iter().find(|d| d.name == tool.name) else {
        let names: Vec<&str> = served.iter().map(|d| d.name).collect();
        return Err(Failure::new(format!("{} is served", tool.name))
            .got(format!(
                "no tool {} among the served ones: {}",
                tool.name,
                names.join(", ")
            ))
            .expected(format!("a tool named {}", tool.name))
            .fix("regenerate the server code and the gauntlet from the same spec"));
    };
    let ctx = Ctx {
        gauntlet,
        facts,
        tool,
        definition,
        params: tool.params(definition),
    };
    match def.check {
        Check::Schema => schema::matches_spec(&ctx),
        Check::Example(i) => examples::example(&ctx, i),
        Check::Refused { param, violation } => refusals::refused(&ctx, param, violation),
        Check::UnknownArgument => refusals::unknown_argument(&ctx),
        Check::RequirementsEnforced => refusals::requirements_enforced(&ctx),
        Check::SelectionsFollowed => output::selections_followed(&ctx),
        Check::RetryRunsOnce => retry::runs_once(&ctx),
        Check::RetryWithOtherArgumentsRefused => retry::other_arguments_refused(&ctx),
        Check::ConcurrentRetriesRunOnce => retry::concurrent_run_once(&ctx),
        Check::IdempotencyTtl => retry::ttl(&ctx),
        Check::PreviewChangesNothing => dry_run::preview_changes_nothing(&ctx),
        Check::ApplyMatchesPreview => dry_run::apply_matches_preview(&ctx),
        Check::ApplyChangedArgumentsRefused => dry_run::changed_arguments_refused(&ctx),
        Check::ApplyUsedPreviewRefused => dry_run::used_preview_refused(&ctx),
        Check::ApplyExpiredPreviewRefused => dry_run::expired_preview_refused(&ctx),
        Check::PreviewTtl => dry_run::preview_ttl(&ctx),
        Check::UndoRestores => dry_run::undo_restores(&ctx),
        Check::WritesOnlyThroughUnitOfWork => unit_of_work::writes_only_through_unit_of_work(&ctx),
        Check::FailedApplyKeepsPreview => unit_of_work::failed_apply_keeps_preview(&ctx),
        Check::RemoteRetryChangesOnce => remote::retry_changes_once(&ctx),
        Check::RemoteRetryMayRepeat => remote::retry_may_repeat(&ctx),
        Check::HostRequired => unit_of_work::host_required(&ctx),
        Check::ScopesRequired => scopes::scopes_required(&ctx),
        Check::RateLimitKept {
            calls,
            per_secs,
            burst,
        } => limits::rate_limit_kept(&ctx, calls, per_secs, burst),
        Check::TimeLimitKept { limit_secs } => limits::time_limit_kept(&ctx, limit_secs),
        Check::CancelledCallLeavesNothing => limits::cancelled_call_leaves_nothing(&ctx),
        Check::PagesWalkEveryItemOnce => paging::walk_every_item_once(&ctx),
        Check::ForgedCursorRefused => paging::forged_cursor_refused(&ctx),
        Check::DefaultLimit => paging::default_limit(&ctx),
        Check::MaxLimit => paging::max_limit(&ctx),
        Check::OutputMatchesSchema => output::matches_schema(&ctx),
        Check::ConciseOmitsDetailedOnly => output::concise_omits_detailed(&ctx),
        Check::ProjectionKeepsWhatWasAsked => output::projection_keeps_what_was_asked(&ctx),
        Check::AllowedValuesAccepted { param } => output::allowed_values_accepted(&ctx, param),
        Check::BoundsAccepted { param } => output::bounds_accepted(&ctx, param),
    }
}

/// A check listed for a tool it cannot apply to: the facts are inconsistent.
pub(crate) fn not_applicable(ctx: &Ctx<'_, '_>, what: &str) -> Failure {
    Failure::new(format!("{} {what}", ctx.tool.name))
        .got("the facts say otherwise")
        .expected("a check generated only where it applies")
        .fix("regenerate the gauntlet file from the spec")
}

/// Whether a tool is gated behind a preview.
pub(crate) fn gated(tool: &ToolFacts) -> bool {
    tool.preview.is_some()
}

/// `base` with the enum parameter `field` set to `value`, and the `when` rules over `field`
/// kept: what they need or allow for `value` passed (the spec's examples), what they allow
/// only for other values left out.
pub(crate) fn keeping_rules(ctx: &Ctx<'_, '_>, base: &Value, field: &str, value: &str) -> Value {
    use crate::session::unset;
    use toolspec_core::validate::Condition;
    let mut args = base.clone();
    set(&mut args, field, Value::from(value));
    for rule in ctx.tool.requires {
        if let Condition::When {
            field: f,
            values,
            needs,
            allows,
            ..
        } = rule
            && *f == field
        {
            if values.contains(&value) {
                for n in needs.iter().chain(allows.iter()) {
                    let example = ctx.tool.example_of(n).map_or(Value::Null, parse);
                    set(&mut args, n, example);
                }
            } else {
                for a in *allows {
                    unset(&mut args, a);
                }
            }
        }
    }
    args
}

/// `base` made to take `param`: when a `when` rule takes it only for some values of an enum
/// parameter, that parameter set to the first of them (with the rules over it kept), so a
/// probe of `param`'s own values is not refused for the rule's sake.
pub(crate) fn call_taking(ctx: &Ctx<'_, '_>, base: &Value, param: &str) -> Value {
    use toolspec_core::validate::Condition;
    let rule = ctx.tool.requires.iter().find_map(|r| match r {
        Condition::When {
            field,
            values,
            needs,
            allows,
            ..
        } if needs.contains(&param) || allows.contains(&param) => {
            values.first().map(|v| (*field, *v))
        }
        _ => None,
    });
    match rule {
        Some((field, value)) => keeping_rules(ctx, base, field, value),
        None => base.clone(),
    }
}
