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
           against them with BM25, offline and without a model; the schema counts too (parameter \
           names, enum values, and values a parameter's pattern or format accepts, like \
           `T-1001` or an email), and synonyms of common verbs meet (find/search, \
           show/get, edit/update). Reports a request that shares no word with its tool, or \
           that ranks another tool at or above its own on words its own tool lacks, naming both.",
    why: "If the plain words of a user's request point at another tool, a model reading the \
          same descriptions is likely to go there too. The request \"find tickets about the \
          login loop\" landing on `docs_search` says the ticket tool's description never \
          mentions what users search tickets for.",
    bad: "  - name: tickets_search\n    summary: Match helpdesk records against a text.\n    requests: [find tickets about the login loop]",
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
            let Some(own) = ranking.iter().find(|h| h.tool == tool.name.text) else {
                continue;
            };
            let Some(other) = ranking.iter().find(|h| h.tool != tool.name.text) else {
                continue;
            };
            // Another tool wins only on words of its own: one that matched just the words
            // this tool matched too (more often, or in a shorter text) is a close call the
            // descriptions' other cues settle, not a misroute.
            let own_words_only = other.matched.is_subset(&own.matched);
            if own.score > 0.0 && (other.score < own.score || own_words_only) {
                continue;
            }
            let top: Vec<String> = ranking
                .iter()
                .take(3)
                .map(|h| format!("{} {:.2}", h.tool, h.score))
                .collect();
            let name = &tool.name.text;
            let (msg, label) = if own.score == 0.0 {
                (
                    format!("request \"{}\" shares no words with `{name}`", req.text),
                    "matches nothing in this tool".to_string(),
                )
            } else if other.score == own.score {
                (
                    format!(
                        "request \"{}\" ties between `{name}` and `{}`",
                        req.text, other.tool
                    ),
                    format!("may route to `{}`", other.tool),
                )
            } else {
                (
                    format!(
                        "request \"{}\" lands on `{}` before `{name}`",
                        req.text, other.tool
                    ),
                    format!("routes to `{}`", other.tool),
                )
            };
            let pulls: Vec<String> = other
                .matched
                .difference(&own.matched)
                .map(|t| crate::lint::route::shown(t, &req.text))
                .collect();
            let mut f = Finding::on(tool, req.span, msg)
                .label(label)
                .note(format!("scores: {}", top.join(", ")));
            if !pulls.is_empty() {
                f = f.note(format!(
                    "`{}` matches words `{name}` lacks: {}",
                    other.tool,
                    pulls.join(", ")
                ));
            }
            out.push(f.help(format!(
                "use the request's words in `{name}`'s summary, returns or use_when, and add a `not_for` to `{}` naming `{name}`",
                other.tool
            )));
        }
    }
}
