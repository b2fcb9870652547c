//! `unprotected-remote-write`: a write whose change is made at a remote service has a way to
//! keep a retry from making it twice.

use super::prelude::*;
use crate::model::Effect;

/// The rule.
pub static RULE: Rule = Rule {
    id: "unprotected-remote-write",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Safety,
    summary: "A write whose change is made at a remote service (`effect: remote_unprotected`) \
              may be made twice by a retry; forward a key or look the change up instead.",
    what: "Reports each tool whose `effect` (its own, or the toolset's `defaults.effect`) is \
           `remote_unprotected`.",
    why: "Agents and hosts retry a call that failed or went unanswered. A change made at \
          another service cannot commit with the server's records, so when the server dies \
          between the service's answer and its own commit, the retry makes the change again: \
          a second charge, message or pull request. The description says so, and the agent \
          must check before retrying, which it may not do. A service that takes an \
          idempotency key (`remote_keyed`) or that can be asked whether the change was made \
          (`remote_lookup`) closes the gap.",
    bad: "  - name: payments_charge\n    tier: irreversible\n    effect: remote_unprotected",
    good: "  - name: payments_charge\n    tier: irreversible\n    effect: remote_keyed   # the API dedupes on Idempotency-Key",
    fix: "Use `remote_keyed` if the service honours an idempotency key (send `remote.key()`), or \
          `remote_lookup` if the change can be found by a reference you store on it \
          (`remote.key()`), and look it up when `remote.earlier_attempt()` says so. Keep \
          `remote_unprotected` only when the service offers neither, and allow this rule \
          with that reason.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        if tool.effect == Effect::RemoteUnprotected {
            out.push(
                Finding::on(
                    tool,
                    tool.effect_span,
                    format!(
                        "`{}` makes its change at a remote service, and a retry may make it twice",
                        tool.name.text
                    ),
                )
                .label("effect: remote_unprotected")
                .help("use `remote_keyed` (forward `remote.key()`) or `remote_lookup` (look the change up by it) if the service allows"),
            );
        }
    }
}
