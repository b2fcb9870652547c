//! Words: splitting names and prose, a light stemmer, and the word lists rules share.
//!
//! Everything here is offline and deterministic: no model, no dictionary files. The stemmer is
//! deliberately small (plural and verb endings); it only has to make `tickets`, `ticket` and
//! `ticketing` meet, and it is applied the same way to both sides of every comparison.

/// Lower-case words of prose or a snake_case name: runs of letters and digits.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The words of an identifier, splitting `snake_case` and `camelCase` (`ticketId` -> ticket, id).
pub fn ident_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in name.split(|c: char| !c.is_alphanumeric()) {
        let mut cur = String::new();
        let mut prev_lower = false;
        for c in part.chars() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

/// Content words: lower-cased, stemmed, without stop words, digits-only words and single
/// letters (ids like `T-1001` say nothing about which tool to use).
pub fn content_words(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| w.chars().count() > 1 && !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !is_stop_word(w))
        .map(|w| stem(&w))
        .collect()
}

/// A light English stemmer: plural and common verb endings, and agent nouns of the action
/// verbs tools are named by (`reviewers`, `viewer`, `writer` meet `review`, `view`, `write`).
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    let n = w.len();
    if !w.is_ascii() || n <= 3 {
        return w;
    }
    // Only where the rest is an action verb: `order`, `user` and `owner` are no agents.
    if let Some(base) = w.strip_suffix("ers").or_else(|| w.strip_suffix("er"))
        && base.len() > 2
    {
        if is_verb(base) {
            return stem(base);
        }
        let with_e = format!("{base}e");
        if is_verb(&with_e) {
            return stem(&with_e);
        }
    }
    if let Some(base) = w.strip_suffix("ies")
        && n > 4
    {
        return format!("{base}y");
    }
    if let Some(base) = w.strip_suffix("sses") {
        return format!("{base}ss");
    }
    if let Some(base) = w.strip_suffix("ing")
        && n > 5
    {
        return undouble(base);
    }
    if let Some(base) = w.strip_suffix("ed")
        && n > 4
    {
        return undouble(base.strip_suffix('e').unwrap_or(base));
    }
    if let Some(base) = w.strip_suffix("es")
        && (base.ends_with("sh") || base.ends_with("ch") || base.ends_with('x'))
    {
        return base.to_string();
    }
    if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        return w[..n - 1].to_string();
    }
    w.strip_suffix('e').map_or(w.clone(), str::to_string)
}

/// `stopp` -> `stop`, so `stopped` and `stopping` meet `stop`.
fn undouble(base: &str) -> String {
    let b = base.as_bytes();
    if b.len() > 2 && b[b.len() - 1] == b[b.len() - 2] && !b"lsz".contains(&b[b.len() - 1]) {
        base[..base.len() - 1].to_string()
    } else {
        base.strip_suffix('e').unwrap_or(base).to_string()
    }
}

/// Whether a word carries no meaning for routing (articles, pronouns, prepositions).
pub fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

/// Sorted, so [`is_stop_word`] can binary-search.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "but", "by", "can", "could", "did", "do", "does", "each", "else", "for", "from",
    "had", "has", "have", "her", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just",
    "me", "my", "no", "not", "of", "on", "one", "only", "or", "our", "out", "please", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "up", "us", "was", "we", "were", "what", "when",
    "where", "which", "who", "whom", "whose", "why", "will", "with", "would", "you", "your",
];

/// Whether a word is an action verb a tool name can carry (`search`, `send`, `update`).
pub fn is_verb(w: &str) -> bool {
    VERBS.binary_search(&w).is_ok()
}

/// Sorted action verbs found in tool names.
const VERBS: &[&str] = &[
    "accept",
    "add",
    "analyze",
    "append",
    "apply",
    "approve",
    "archive",
    "assign",
    "attach",
    "authorize",
    "ban",
    "block",
    "book",
    "browse",
    "build",
    "calculate",
    "call",
    "cancel",
    "capture",
    "charge",
    "check",
    "clear",
    "click",
    "clone",
    "close",
    "comment",
    "compare",
    "complete",
    "compute",
    "confirm",
    "connect",
    "convert",
    "copy",
    "count",
    "create",
    "decline",
    "delete",
    "deploy",
    "describe",
    "destroy",
    "detach",
    "diff",
    "disable",
    "disconnect",
    "dismiss",
    "download",
    "draft",
    "drag",
    "duplicate",
    "edit",
    "email",
    "enable",
    "end",
    "enqueue",
    "erase",
    "escalate",
    "estimate",
    "evaluate",
    "execute",
    "expire",
    "explain",
    "export",
    "extract",
    "fetch",
    "fill",
    "filter",
    "find",
    "finish",
    "flag",
    "follow",
    "forward",
    "generate",
    "get",
    "grant",
    "hide",
    "hover",
    "import",
    "insert",
    "inspect",
    "install",
    "invite",
    "issue",
    "join",
    "kill",
    "leave",
    "link",
    "list",
    "load",
    "lock",
    "log",
    "lookup",
    "mark",
    "merge",
    "message",
    "move",
    "mute",
    "navigate",
    "notify",
    "open",
    "order",
    "pause",
    "pay",
    "pin",
    "ping",
    "place",
    "plan",
    "post",
    "press",
    "preview",
    "print",
    "process",
    "publish",
    "purge",
    "push",
    "put",
    "query",
    "queue",
    "read",
    "reassign",
    "record",
    "redeem",
    "refresh",
    "refund",
    "register",
    "reject",
    "release",
    "reload",
    "remind",
    "remove",
    "rename",
    "render",
    "reopen",
    "replace",
    "reply",
    "report",
    "request",
    "reschedule",
    "reserve",
    "reset",
    "resolve",
    "restart",
    "restore",
    "resume",
    "retrieve",
    "retry",
    "return",
    "revert",
    "review",
    "revoke",
    "run",
    "save",
    "scan",
    "schedule",
    "score",
    "screenshot",
    "scroll",
    "search",
    "select",
    "send",
    "set",
    "share",
    "show",
    "sign",
    "snooze",
    "sort",
    "split",
    "start",
    "stop",
    "submit",
    "subscribe",
    "suggest",
    "summarize",
    "suspend",
    "sync",
    "tag",
    "take",
    "terminate",
    "test",
    "track",
    "transfer",
    "transition",
    "translate",
    "trigger",
    "type",
    "undo",
    "unlink",
    "unlock",
    "unpublish",
    "unsubscribe",
    "update",
    "upload",
    "upsert",
    "validate",
    "verify",
    "view",
    "visit",
    "void",
    "watch",
    "wipe",
    "write",
];

/// Verbs whose action cannot be taken back, or reaches people or money.
pub const DESTRUCTIVE_VERBS: &[&str] = &[
    "cancel",
    "charge",
    "delete",
    "destroy",
    "erase",
    "kill",
    "pay",
    "publish",
    "purge",
    "refund",
    "remove",
    "send",
    "terminate",
    "transfer",
    "void",
    "wipe",
];

/// Sentence-initial verbs that tell an agent what to do next in an error message.
pub fn is_imperative(w: &str) -> bool {
    is_verb(w) || IMPERATIVE_EXTRA.contains(&w)
}

const IMPERATIVE_EXTRA: &[&str] = &[
    "ask", "check", "choose", "confirm", "contact", "correct", "drop", "explain", "fix", "give",
    "include", "inform", "let", "lower", "make", "narrow", "omit", "pass", "pick", "provide",
    "raise", "reduce", "report", "shorten", "show", "split", "stop", "take", "tell", "try", "use",
    "wait",
];

/// Jaccard similarity of two word sets: shared words over all words.
pub fn jaccard(
    a: &std::collections::BTreeSet<String>,
    b: &std::collections::BTreeSet<String>,
) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lists_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(VERBS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("tickets"), stem("ticket"));
        assert_eq!(stem("searching"), stem("search"));
        assert_eq!(stem("stopped"), stem("stop"));
        assert_eq!(stem("queries"), "query");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("published"), stem("publish"));
        assert_eq!(stem("orders"), "order");
        assert_eq!(stem("reviewers"), stem("reviews"));
        assert_eq!(stem("writer"), stem("write"));
        assert_eq!(stem("users"), "user");
        assert_eq!(stem("owner"), "owner");
        assert_eq!(stem("filter"), "filter");
    }

    #[test]
    fn splits_identifiers() {
        assert_eq!(ident_words("ticketId"), ["ticket", "id"]);
        assert_eq!(
            ident_words("orders_invoice_send"),
            ["orders", "invoice", "send"]
        );
        assert_eq!(
            content_words("Find T-1001 about the login loop"),
            ["find", "login", "loop"]
        );
    }
}
