//! `toolspec rules`: list the lint rules, or print one rule's documentation.

use super::Outcome;
use toolspec::diagnostics::did_you_mean;
use toolspec::internals::lint::docs::{rule_section, sets, severity_name};
use toolspec::internals::lint::rules::{ALL, find};

/// Without `id`: one line per rule (id, severity, sets, summary). With it: the rule's page.
pub fn run(id: Option<&str>) -> Outcome {
    match id {
        None => {
            print!("{}", table());
            Outcome::Clean
        }
        Some(id) => match find(id) {
            Some(rule) => {
                print!("{}", rule_section(rule));
                Outcome::Clean
            }
            None => {
                match did_you_mean(id, ALL.iter().map(|r| r.id)) {
                    Some(s) => eprintln!("error: there is no rule `{id}`; did you mean `{s}`?"),
                    None => {
                        eprintln!("error: there is no rule `{id}`; `toolspec rules` lists them")
                    }
                }
                Outcome::Usage
            }
        },
    }
}

/// The rule list as aligned plain text.
pub fn table() -> String {
    let id_w = ALL.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let sets_w = ALL.iter().map(|r| sets(r).len()).max().unwrap_or(0);
    let mut out = format!(
        "{:id_w$}  {:8}  {:sets_w$}  SUMMARY\n",
        "ID", "SEVERITY", "SETS"
    );
    for r in ALL {
        out.push_str(&format!(
            "{:id_w$}  {:8}  {:sets_w$}  {}\n",
            r.id,
            severity_name(r.severity),
            sets(r),
            r.summary
        ));
    }
    out
}
