//! `misroute`: each example request lands on its own tool.

use super::prelude::*;
use crate::lint::route::{Hit, Index};
use std::collections::HashMap;

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
           `T-1001` or an email); words meet across endings and agent nouns (reviews, \
           reviewers, review), synonyms of common verbs meet (find/search, show/get, \
           edit/update, forget/delete), and abbreviations meet what they stand for (PR and \
           pull request, repo and repository). Reports a request that shares no word with its \
           tool, or that ranks another tool of its own toolset at or above its own on words its \
           own tool lacks, naming both. A tool of another toolset (another server, loaded \
           beside it) is named only when the overlap is strong: it matches every word of the \
           request its own tool matches, and at least two more, and scores higher. A request \
           with a word only its own tool has (\"remember\" for a memory server) is told apart \
           by that word. Servers are written and deployed apart, so a word two unrelated services happen to \
           share is no misroute, and the fix never asks one service to name another's tool in \
           a `not_for`.",
    why: "If the plain words of a user's request point at another tool, a model reading the \
          same descriptions is likely to go there too. The request \"find tickets about the \
          login loop\" landing on `docs_search` says the ticket tool's description never \
          mentions what users search tickets for.",
    bad: "  - name: tickets_search\n    summary: Match helpdesk records against a text.\n    requests: [find tickets about the login loop]",
    good: "  - name: tickets_search\n    summary: Search support tickets by free text, optionally filtered by status.\n    requests: [find tickets about the login loop]",
    fix: "Use the words users use in the tool's summary, returns or use_when; if the tool that \
          won is in the same toolset, add a `not_for` to it, naming this one.",
    check,
};

/// How many of the request's words a tool of another toolset must match that the request's
/// own tool lacks: one shared word (`delete`, `review`) is a coincidence of vocabulary.
const OTHER_TOOLSET_WORDS: usize = 2;

/// Whether `other` takes the request from `own`: within one toolset, by ranking at or above
/// it on words of its own; from another toolset, only by a strong overlap: it matches every
/// word the own tool matched and at least [`OTHER_TOOLSET_WORDS`] more, and scores higher. A
/// request with a word only its own tool has ("remember", for a memory server) is told
/// apart from another server's tools by that word, whatever else the two share.
fn takes_request(own: &Hit, other: &Hit, same_toolset: bool) -> bool {
    let own_words = other.matched.difference(&own.matched).count();
    if same_toolset {
        // One that matched just the words this tool matched too (more often, or in a
        // shorter text) is a close call the descriptions' other cues settle.
        other.score >= own.score && own_words > 0
    } else {
        other.score > own.score
            && own.matched.is_subset(&other.matched)
            && own_words >= OTHER_TOOLSET_WORDS
    }
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let index = Index::new(cx.model);
    let service: HashMap<&str, &str> = cx
        .tools()
        .map(|(ts, t)| (t.name.text.as_str(), ts.service.text.as_str()))
        .collect();
    for (ts, tool) in cx.tools() {
        let name = &tool.name.text;
        let same = |h: &Hit| service.get(h.tool).copied() == Some(ts.service.text.as_str());
        for req in &tool.requests {
            let ranking = index.rank(&req.text);
            let Some(own) = ranking.iter().find(|h| h.tool == *name) else {
                continue;
            };
            let others = || ranking.iter().filter(|h| h.tool != *name);
            let other = if own.score == 0.0 {
                // Nothing of the request is in its own tool: that is the finding, whoever
                // else matches; the best tool of its own toolset is named if any matches.
                others()
                    .find(|h| same(h) && h.score > 0.0)
                    .or_else(|| others().next())
            } else {
                others().find(|h| takes_request(own, h, same(h)))
            };
            let Some(other) = other else {
                continue;
            };
            let top: Vec<String> = ranking
                .iter()
                .take(3)
                .map(|h| format!("{} {:.2}", h.tool, h.score))
                .collect();
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
            let help = if same(other) && other.score > 0.0 {
                format!(
                    "use the request's words in `{name}`'s summary, returns or use_when, and add a `not_for` to `{}` naming `{name}`",
                    other.tool
                )
            } else if other.score > 0.0 {
                format!(
                    "use the request's words in `{name}`'s summary, returns or use_when; `{}` is a tool of another toolset (`{}`), deployed apart, so name it in no `not_for`",
                    other.tool,
                    service.get(other.tool).copied().unwrap_or_default()
                )
            } else {
                format!("use the request's words in `{name}`'s summary, returns or use_when")
            };
            out.push(f.help(help));
        }
    }
}
