//! Offline routing: which tool a user request lands on, by its words alone.
//!
//! Each tool is a document made of the words an agent reads to choose it: its name's words,
//! title, summary, `returns` and `use_when`. A request is scored against every document with
//! BM25 (the ranking function of search engines: rare shared words count more, long
//! documents are not favoured). No model is involved, so the result is the same on every
//! machine; it is a floor, not a simulation: if plain word overlap sends a request to the
//! wrong tool, a model reading the same descriptions may well do the same.
//!
//! `not_for` sentences are left out of the documents on purpose: they name the other tool's
//! subject ("order status") precisely to send the agent away, and counting them as the tool's
//! own words would punish the author for writing them.

use crate::lint::words::{content_words, ident_words, stem};
use crate::model::{Model, Tool};
use std::collections::HashMap;

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;

/// The words of a tool that routing reads.
pub fn tool_words(tool: &Tool) -> Vec<String> {
    let mut out: Vec<String> = ident_words(&tool.name.text)
        .iter()
        .filter(|w| w.len() > 1)
        .map(|w| stem(w))
        .collect();
    out.extend(content_words(&tool.title.text));
    out.extend(content_words(&tool.summary.text));
    out.extend(content_words(&tool.returns.text));
    if let Some(u) = &tool.use_when {
        out.extend(content_words(&u.text));
    }
    out
}

/// A BM25 index over every tool of a model.
#[derive(Debug)]
pub struct Index {
    /// (tool name, term counts, length) per tool, in model order.
    docs: Vec<(String, HashMap<String, usize>, usize)>,
    /// Number of documents containing each term.
    df: HashMap<String, usize>,
    avg_len: f64,
}

impl Index {
    /// Indexes every tool of `model`.
    pub fn new(model: &Model) -> Index {
        let mut docs = Vec::new();
        let mut df: HashMap<String, usize> = HashMap::new();
        for (_, tool) in model.tools() {
            let words = tool_words(tool);
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
            df,
            avg_len: avg_len.max(1.0),
        }
    }

    /// Every tool's score for `request`, best first (ties in model order).
    pub fn rank(&self, request: &str) -> Vec<(&str, f64)> {
        let terms = content_words(request);
        let n = self.docs.len() as f64;
        let mut scores: Vec<(&str, f64)> = self
            .docs
            .iter()
            .map(|(name, tf, len)| {
                let mut score = 0.0;
                for t in &terms {
                    let Some(&f) = tf.get(t) else { continue };
                    let df = self.df.get(t).copied().unwrap_or(0) as f64;
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    let f = f as f64;
                    score += idf * f * (K1 + 1.0)
                        / (f + K1 * (1.0 - B + B * *len as f64 / self.avg_len));
                }
                (name.as_str(), score)
            })
            .collect();
        scores.sort_by(|a, b| b.1.total_cmp(&a.1));
        scores
    }
}
