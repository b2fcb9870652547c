//! Offline routing: which tool a user request lands on, by its words alone.
//!
//! Each tool is a document made of the words an agent reads to choose it: its name's words,
//! title, summary, `returns` and `use_when`. A request is scored against every document with
//! BM25 (the ranking function of search engines: rare shared words count more, long
//! documents are not favoured). No model is involved, so the result is the same on every
//! machine; it is a floor, not a simulation: if plain word overlap sends a request to the
//! wrong tool, a model reading the same descriptions may well do the same.
//!
//! The schema counts too, since agents read it: parameter names, enum values (a request
//! about "open tickets" meets the tool whose `status` takes `open`), and the kinds of values
//! a tool takes (a request naming `T-1001` meets the tools whose parameter's pattern it
//! matches; one with an email address meets the tools that take an email).
//!
//! `not_for` sentences are left out of the documents on purpose: they name the other tool's
//! subject ("order status") precisely to send the agent away, and counting them as the tool's
//! own words would punish the author for writing them.

use crate::lint::words::{content_words, ident_words, stem};
use crate::model::values::format_matches;
use crate::model::{Field, Format, Kind, Model, Tool};
use regex::Regex;
use std::collections::{BTreeSet, HashMap};

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;

/// Verbs users and authors use for the same action, mapped to one word so that "find
/// tickets" meets "Search tickets". Deliberately short: only unambiguous groups.
const SYNONYMS: &[(&str, &[&str])] = &[
    ("search", &["find", "look", "lookup", "locat", "query"]),
    ("get", &["read", "show", "view", "fetch", "display", "see"]),
    ("updat", &["chang", "modify", "set", "edit", "fix"]),
    ("delet", &["remov", "eras", "forget"]),
    ("creat", &["add"]),
];

/// A stemmed word, with synonyms mapped to their group's word.
fn canonical(stemmed: String) -> String {
    for (to, from) in SYNONYMS {
        if from.contains(&stemmed.as_str()) {
            return (*to).to_string();
        }
    }
    stemmed
}

/// Phrases that tools spell out and users shorten, each made one term (the phrase's stems
/// joined), with the abbreviations that stand for it: "PR" meets "pull request".
const PHRASES: &[(&[&str], &[&str])] = &[
    (&["pull", "request"], &["pr", "prs"]),
    (&["merg", "request"], &["mr", "mrs"]),
    (&["repository"], &["repo"]),
];

/// Stemmed words with each phrase of [`PHRASES`] and each of its abbreviations made the
/// phrase's one term.
fn phrases(words: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let rest = &words[i..];
        let found = PHRASES.iter().find_map(|(phrase, short)| {
            if rest.len() >= phrase.len() && rest.iter().zip(phrase.iter()).all(|(w, p)| w == p) {
                Some((phrase, phrase.len()))
            } else if short.contains(&rest[0].as_str()) {
                Some((phrase, 1))
            } else {
                None
            }
        });
        match found {
            Some((phrase, used)) => {
                out.push(phrase.concat());
                i += used;
            }
            None => {
                out.push(rest[0].clone());
                i += 1;
            }
        }
    }
    out
}

/// The routing terms of prose: content words, stemmed, phrases joined, synonyms merged.
fn terms(text: &str) -> Vec<String> {
    phrases(content_words(text))
        .into_iter()
        .map(canonical)
        .collect()
}

/// A routing term as a reader knows it: the request's own word that became it (`create`
/// for the stem `creat`), or, for a value term (`=TicketId`), what kind of value it is.
pub fn shown(term: &str, request: &str) -> String {
    if let Some(kind) = term.strip_prefix('=') {
        return format!("a {kind} value");
    }
    let words: Vec<&str> = request
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    // A word, or two in a row ("pull request"), that make the term.
    (1..=2)
        .flat_map(|n| words.windows(n))
        .find(|w| terms(&w.join(" ")) == [term])
        .map_or_else(|| term.to_string(), |w| w.join(" ").to_lowercase())
}

/// A term that stands for "the request contains a value this parameter takes", so a request
/// naming `T-1001` meets the tools that take a `TicketId`.
fn value_term(param: &Field) -> Option<String> {
    let Kind::String(rules) = &param.ty.kind else {
        return None;
    };
    let key = param.ty.name.clone().unwrap_or_else(|| param.name.clone());
    if let Some(p) = &rules.pattern {
        distinctive(p).then(|| format!("={key}"))
    } else if rules.format == Some(Format::Email) {
        Some("=email".to_string())
    } else {
        None
    }
}

/// Ordinary words of requests. A pattern that matches one of them (`^[a-z0-9-]+$`, a login
/// name) says nothing about which tool a request is for: every request has such a word.
const ORDINARY_WORDS: &[&str] = &[
    "the", "my", "find", "open", "show", "list", "order", "ticket", "milk", "please", "a", "1",
];

/// Whether values of `pattern` stand out from a request's other words (`T-1001` does,
/// `alice` does not), so that seeing one is a cue for the tools that take it.
fn distinctive(pattern: &str) -> bool {
    Regex::new(pattern).is_ok_and(|re| !ORDINARY_WORDS.iter().any(|w| re.is_match(w)))
}

/// Whether a request token is a value `param` takes (matches its pattern or format).
fn takes(param: &Field, token: &str) -> bool {
    let Kind::String(rules) = &param.ty.kind else {
        return false;
    };
    match (&rules.pattern, rules.format) {
        (Some(p), _) => distinctive(p) && Regex::new(p).is_ok_and(|re| re.is_match(token)),
        (None, Some(f)) => f == Format::Email && format_matches(f, token),
        _ => false,
    }
}

/// The words of a tool that routing reads: its name's words, title, summary, returns and
/// use_when, and from its schema the parameter names, enum values and the kinds of values
/// it takes (an id pattern, an email). Names of other tools mentioned in the text ("from
/// tickets_search") are left out: they point away from this tool.
pub fn tool_words(tool: &Tool, tool_names: &[&str]) -> Vec<String> {
    // The name is what an agent reads first, so its words count twice.
    let name: Vec<String> = phrases(
        ident_words(&tool.name.text)
            .iter()
            .filter(|w| w.len() > 1)
            .map(|w| stem(w))
            .collect(),
    )
    .into_iter()
    .map(canonical)
    .collect();
    let mut out = name.clone();
    out.extend(name);
    let mut prose = format!(
        "{} {} {} {}",
        tool.title.text,
        tool.summary.text,
        tool.returns.text,
        tool.use_when.as_ref().map_or("", |u| u.text.as_str())
    );
    for name in tool_names {
        prose = prose.replace(name, " ");
    }
    out.extend(terms(&prose));
    for p in tool.spec_params() {
        out.extend(terms(&ident_words(&p.name).join(" ")));
        for v in p.ty.enum_values().unwrap_or_default() {
            out.extend(terms(v));
        }
        out.extend(value_term(p));
    }
    out
}

/// The routing terms of a request: its words, plus a value term for each word that is a
/// value some tool's parameter takes.
fn request_terms(request: &str, params: &[&Field]) -> Vec<String> {
    // A value (an address, a link, an id) is not words: the `example` of
    // `grace@example.com` says nothing about which tool a request is for.
    let is_value = |token: &str| {
        token.contains('@') || token.contains("://") || params.iter().any(|p| takes(p, token))
    };
    let prose: Vec<&str> = request
        .split_whitespace()
        .filter(|t| !is_value(t.trim_matches(|c: char| ",.;:!?()\"'".contains(c))))
        .collect();
    let mut out = terms(&prose.join(" "));
    for token in request.split_whitespace() {
        let token = token.trim_matches(|c: char| ",.;:!?()\"'".contains(c));
        for p in params {
            if takes(p, token)
                && let Some(t) = value_term(p)
                && !out.contains(&t)
            {
                out.push(t);
            }
        }
    }
    out
}

/// One tool's score for a request.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// Its BM25 score (0 when no term matched).
    pub score: f64,
    /// The request's terms found in the tool's words.
    pub matched: BTreeSet<String>,
}

/// A BM25 index over every tool of a model.
#[derive(Debug)]
pub struct Index {
    /// (tool name, term counts, length) per tool, in model order.
    docs: Vec<(String, HashMap<String, usize>, usize)>,
    /// Every parameter with a value term, to recognise values in requests.
    params: Vec<Field>,
    /// Number of documents containing each term.
    df: HashMap<String, usize>,
    avg_len: f64,
}

impl Index {
    /// Indexes every tool of `model`.
    pub fn new(model: &Model) -> Index {
        let mut docs = Vec::new();
        let mut df: HashMap<String, usize> = HashMap::new();
        let names: Vec<&str> = model.tools().map(|(_, t)| t.name.text.as_str()).collect();
        let mut params: Vec<Field> = Vec::new();
        for (_, tool) in model.tools() {
            for p in tool.spec_params() {
                if value_term(p).is_some() && !params.iter().any(|q| q.ty == p.ty) {
                    params.push(p.clone());
                }
            }
        }
        for (_, tool) in model.tools() {
            let words = tool_words(tool, &names);
            let mut tf: HashMap<String, usize> = HashMap::new();
            for w in &words {
                *tf.entry(w.clone()).or_default() += 1;
            }
            for term in tf.keys() {
                *df.entry(term.clone()).or_default() += 1;
            }
            docs.push((tool.name.text.clone(), tf, words.len()));
        }
        let avg_len = if docs.is_empty() {
            1.0
        } else {
            docs.iter().map(|d| d.2).sum::<usize>() as f64 / docs.len() as f64
        };
        Index {
            docs,
            params,
            df,
            avg_len: avg_len.max(1.0),
        }
    }

    /// Every tool's score for `request` and the request terms it matched, best first (ties
    /// in model order).
    pub fn rank(&self, request: &str) -> Vec<Hit<'_>> {
        let params: Vec<&Field> = self.params.iter().collect();
        let terms = request_terms(request, &params);
        let n = self.docs.len() as f64;
        let mut scores: Vec<Hit> = self
            .docs
            .iter()
            .map(|(name, tf, len)| {
                let mut score = 0.0;
                let mut matched = BTreeSet::new();
                for t in &terms {
                    let Some(&f) = tf.get(t) else { continue };
                    matched.insert(t.clone());
                    let df = self.df.get(t).copied().unwrap_or(0) as f64;
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    let f = f as f64;
                    score += idf * f * (K1 + 1.0)
                        / (f + K1 * (1.0 - B + B * *len as f64 / self.avg_len));
                }
                Hit {
                    tool: name.as_str(),
                    score,
                    matched,
                }
            })
            .collect();
        scores.sort_by(|a, b| b.score.total_cmp(&a.score));
        scores
    }
}

#[cfg(test)]
mod shown_tests {
    use super::{shown, terms};

    #[test]
    fn abbreviations_endings_and_synonyms_meet() {
        assert_eq!(terms("review my PR"), terms("review my pull request"));
        assert_eq!(
            terms("the PRs of a repo"),
            terms("pull requests of a repository")
        );
        assert_eq!(terms("list reviewers"), terms("list reviews"));
        assert_eq!(terms("forget an entity"), terms("delete entities"));
        // A word that only looks like an agent noun keeps its meaning.
        assert_ne!(terms("orders"), terms("ord"));
        assert_eq!(terms("users"), ["user"]);
    }

    #[test]
    fn only_distinctive_patterns_are_value_cues() {
        assert!(super::distinctive("^T-[0-9]+$"));
        assert!(super::distinctive("^[^@\\s]+@[^@\\s]+$"));
        assert!(!super::distinctive("^[a-z0-9-]+$"));
        assert!(!super::distinctive("^[A-Za-z][A-Za-z0-9_]{0,38}$"));
    }

    #[test]
    fn terms_are_shown_in_the_requests_own_words() {
        assert_eq!(
            shown("creat", "Create a ticket for the login loop"),
            "create"
        );
        assert_eq!(shown("search", "Find my open tickets"), "find");
        assert_eq!(shown("=TicketId", "close T-1001"), "a TicketId value");
        assert_eq!(
            shown("pullrequest", "who reviews my pull requests"),
            "pull requests"
        );
        assert_eq!(shown("pullrequest", "list my open PRs"), "prs");
        // A term no word of the request makes is shown as it is.
        assert_eq!(shown("xyz", "close T-1001"), "xyz");
    }
}
