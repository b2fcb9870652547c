//! `misroute`: each example request lands on its own tool.

use super::prelude::*;
use crate::lint::route::Index;

/// The rule.
pub static RULE: Rule = Rule {
    id: "misroute",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Toolset,
    summary: "Each of a tool's `requests` routes to that tool, by words alone, across all specs linted together.",
    what: "Indexes every tool of the specs linted together by the words an agent reads to choose \
           it (name words, title, summary, returns, use_when) and ranks each example request \
           against them with BM25, offline and without a model. Reports a request that ranks \
           another tool at or above its own, naming both.",
    why: "If the plain words of a user's request point at another tool, a model reading the \
          same descriptions is likely to go there too. The request \"find tickets about the \
          login loop\" landing on `docs_search` says the ticket tool's description never \
          mentions what users search tickets for.",
    bad: "  - name: tickets_search\n    summary: Query the helpdesk.\n    requests: [find tickets about the login loop]",
    good: "  - name: tickets_search\n    summary: Search support tickets by free text, optionally filtered by status.\n    requests: [find tickets about the login loop]",
    fix: "Use the words users use in the tool's summary, returns or use_when; add a `not_for` to \
          the tool that won, naming this one.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let index = Index::new(cx.model);
    for (_, tool) in cx.tools() {
        for req in &tool.requests {
            let ranking = index.rank(&req.text);
            let own = ranking
                .iter()
                .find(|(n, _)| *n == tool.name.text)
                .map_or(0.0, |(_, s)| *s);
            let Some((other, best)) = ranking.iter().find(|(n, _)| *n != tool.name.text) else {
                continue;
            };
            if *best < own || (*best == 0.0 && own > 0.0) {
                continue;
            }
            let top: Vec<String> = ranking
                .iter()
                .take(3)
                .map(|(n, s)| format!("{n} {s:.2}"))
                .collect();
            let msg = if *best == 0.0 {
                format!("request \"{}\" shares no words with `{}` or any other tool", req.text, tool.name.text)
            } else if (*best - own).abs() < f64::EPSILON {
                format!("request \"{}\" ties between `{}` and `{other}`", req.text, tool.name.text)
            } else {
                format!("request \"{}\" lands on `{other}` before `{}`", req.text, tool.name.text)
            };
            out.push(
                Finding::on(tool, req.span, msg)
                    .label(format!("routes to `{other}`"))
                    .note(format!("scores: {}", top.join(", ")))
                    .help(format!(
                        "use the request's words in `{}`'s summary, returns or use_when, and add a `not_for` to `{other}` naming `{}`",
                        tool.name.text, tool.name.text
                    )),
            );
        }
    }
}
