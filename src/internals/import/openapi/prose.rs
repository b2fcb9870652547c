//! The draft's prose from the document's: a title from the first sentence, a summary from
//! the first sentences, each ending as it should.

/// Longest summary a draft takes from an operation's description: its first sentences, so
/// the description a model reads stays a summary (GitHub's run to 3,000 characters, past
/// what OpenAI accepts for a whole function description).
const MAX_SUMMARY: usize = 300;

/// The first sentences of `text` within [`MAX_SUMMARY`] bytes, stopping before a Markdown
/// admonition (`> [!NOTE]`); a first sentence longer than that is cut at a word, with `…`.
pub(super) fn first_sentences(text: &str) -> String {
    let text = text.split("> [!").next().unwrap_or(text).trim();
    let mut out = String::new();
    for sentence in text.split_inclusive(". ") {
        if out.len() + sentence.len() > MAX_SUMMARY {
            break;
        }
        out.push_str(sentence);
    }
    if out.is_empty() {
        let mut cut = MAX_SUMMARY.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let head = &text[..cut];
        let head = head.rsplit_once(' ').map_or(head, |(h, _)| h);
        return format!("{}…", head.trim_end_matches([',', ';', ':']));
    }
    out.trim().to_string()
}

/// The first sentence of `text`, without its full stop (a title's source).
pub(super) fn first_sentence(text: &str) -> String {
    match text.find(". ") {
        Some(i) => text[..i].to_string(),
        None => text.trim_end_matches('.').to_string(),
    }
}

/// `t` as a title: no full stop, at most 80 characters.
pub(super) fn trim_title(t: &str) -> String {
    let t = t.trim_end_matches('.');
    if t.chars().count() > 80 {
        let cut: String = t.chars().take(77).collect();
        format!("{cut}...")
    } else {
        t.to_string()
    }
}

/// `s` ending as a sentence does.
pub(super) fn sentence(s: &str) -> String {
    if s.ends_with(['.', '!', '?', '…']) {
        s.to_string()
    } else {
        format!("{s}.")
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_SUMMARY, first_sentences, sentence};

    #[test]
    fn a_long_description_keeps_its_first_sentences() {
        let text = format!(
            "Gets a commit. You need read access. {}",
            "More words here. ".repeat(30)
        );
        let summary = first_sentences(&text);
        assert!(
            summary.starts_with("Gets a commit. You need read access."),
            "{summary}"
        );
        assert!(summary.len() <= MAX_SUMMARY, "{}", summary.len());
        assert!(summary.ends_with('.'), "{summary}");
    }

    #[test]
    fn an_admonition_ends_the_summary() {
        assert_eq!(
            first_sentences("Returns a commit. > [!NOTE] > If there are more than 300 files"),
            "Returns a commit."
        );
    }

    #[test]
    fn one_sentence_too_long_is_cut_at_a_word() {
        let text = "word ".repeat(100);
        let summary = first_sentences(&text);
        assert!(summary.ends_with("word…"), "{summary}");
        assert!(summary.len() <= MAX_SUMMARY + '…'.len_utf8());
        assert_eq!(sentence(&summary), summary, "an ellipsis ends it");
        assert_eq!(sentence("Lists pets"), "Lists pets.");
    }
}
