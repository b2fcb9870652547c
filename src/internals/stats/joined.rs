//! The tokens of a JSON list from its entries' own counts: a toolset's whole list costs what
//! its tools' entries cost, counted once, plus what joining them changes.
//!
//! `o200k_base` splits text into pieces before it encodes them (letters, digits, runs of
//! punctuation, spaces), and encodes each piece on its own. Compact JSON entries begin with
//! a run of punctuation (`{"`) and end with one (`"}}`): where two entries meet, the end of
//! one, the comma and the start of the next become one run, so the list's count is the
//! entries' counts, less those first and last runs, plus the joined runs. The runs are a
//! few characters each, so a list of 1,000 tools is counted in a fraction of the time of
//! encoding it again. Where an entry does not begin and end as described (it always does
//! for the lists toolspec writes), the whole list is counted directly.

use super::count_tokens;

/// The tokens of `open`, then `entries` separated by `sep`, then `close`: each entry is a
/// text and its own [`count_tokens`]. `open`, `sep` and `close` are ASCII punctuation
/// (`{"tools":[`, `,`, `]}`); the figure is exactly what counting the whole text gives.
pub fn list_tokens(open: &str, entries: &[(&str, usize)], sep: &str, close: &str) -> usize {
    if !cfg!(feature = "tokens") {
        // The estimate counts bytes: add them up.
        let bytes = open.len()
            + close.len()
            + entries.iter().map(|(e, _)| e.len()).sum::<usize>()
            + sep.len() * entries.len().saturating_sub(1);
        return bytes.div_ceil(4);
    }
    let ends: Option<Vec<(&str, &str)>> = entries.iter().map(|(e, _)| ends(e)).collect();
    let Some(ends) = ends.filter(|_| punctuation(sep) && punctuation(close)) else {
        return count_tokens(&whole(open, entries, sep, close));
    };
    let Some(((first_lead, _), (_, last_trail))) = ends.first().zip(ends.last()) else {
        return count_tokens(&format!("{open}{close}"));
    };
    let mut n = count_tokens(&format!("{open}{first_lead}"))
        + count_tokens(&format!("{last_trail}{close}"));
    for ((_, own), (lead, trail)) in entries.iter().zip(&ends) {
        // Each end is one piece of the entry alone, counted again where it is joined.
        n += own - count_tokens(lead) - count_tokens(trail);
    }
    for pair in ends.windows(2) {
        n += count_tokens(&format!("{}{sep}{}", pair[0].1, pair[1].0));
    }
    n
}

/// The text [`list_tokens`] counts.
fn whole(open: &str, entries: &[(&str, usize)], sep: &str, close: &str) -> String {
    let body: Vec<&str> = entries.iter().map(|(e, _)| *e).collect();
    format!("{open}{}{close}", body.join(sep))
}

/// The first and last pieces of `entry`, when each is a run of ASCII punctuation that stays
/// one piece of the entry alone and joins its neighbour's run in a list: the first at least
/// two characters long (one could be split off as the prefix of the word after it) and
/// followed by a letter or digit; the last preceded by a letter, a digit or one space
/// (which the run takes in). Otherwise `None`.
fn ends(entry: &str) -> Option<(&str, &str)> {
    let bytes = entry.as_bytes();
    let lead = bytes
        .iter()
        .take_while(|b| b.is_ascii_punctuation())
        .count();
    let run = bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_punctuation())
        .count();
    let mut trail = bytes.len() - run;
    if lead < 2 || run == 0 || !bytes.get(lead)?.is_ascii_alphanumeric() {
        return None;
    }
    if trail > 0 && bytes[trail - 1] == b' ' {
        trail -= 1;
    }
    if trail <= lead || !bytes.get(trail.checked_sub(1)?)?.is_ascii_alphanumeric() {
        return None;
    }
    Some((&entry[..lead], &entry[trail..]))
}

/// Whether `s` is ASCII punctuation only.
fn punctuation(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_punctuation())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(open: &str, entries: &[&str], sep: &str, close: &str) {
        let counted: Vec<(&str, usize)> = entries.iter().map(|e| (*e, count_tokens(e))).collect();
        let text = whole(open, &counted, sep, close);
        assert_eq!(
            list_tokens(open, &counted, sep, close),
            count_tokens(&text),
            "{text}"
        );
    }

    #[test]
    fn a_list_counts_what_counting_it_whole_gives() {
        let entries = [
            r#"{"name":"a_b","description":"Finds things. Use it when 'they're' lost.","n":12}"#,
            r#"{"name":"c","input":{"type":"object","properties":{"x":{"enum":["a b ","c"]}}}}"#,
            r#"{"name":"d e","x":[1,2,3],"y":"trailing space "}"#,
            r#"{"name":"ünïcode","y":"日本語の説明 🎉","z":7}"#,
            r#"{"_meta":{"k":true},"v":null}"#,
        ];
        // Every entry takes the short way: its ends are joined, not the list counted whole.
        assert!(entries.iter().all(|e| ends(e).is_some()));
        check(r#"{"tools":["#, &entries, ",", "]}");
        check("[", &entries, ",", "]");
        check(r#"[{"functionDeclarations":["#, &entries, ",", "]}]");
        check("[", &entries[..1], ",", "]");
        check("[", &[], ",", "]");
    }

    #[test]
    fn entries_that_do_not_end_in_punctuation_are_counted_whole() {
        // A bare word, one punctuation character before a word, a tab before the end.
        for odd in [
            "word",
            r#""word""#,
            "{\"a\":\"b\t\"}",
            "{}",
            "{\"x\":\"y  \"}",
            "{\"x\":\"🎉\"}",
        ] {
            assert!(ends(odd).is_none(), "{odd}");
            check("[", &[odd, r#"{"a":1}"#, odd], ",", "]");
        }
    }
}
