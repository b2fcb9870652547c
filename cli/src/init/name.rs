//! Crate names: what `toolspec init` accepts, and the name it suggests instead.

use std::fmt;

/// Names cargo or Rust refuse, or that would clash with a dependency of the made crate:
/// Rust's keywords (the service module is named after the crate), the standard crates,
/// toolspec's own crates and Windows' device names.
const TAKEN: &[&str] = &[
    "abstract",
    "as",
    "async",
    "await",
    "become",
    "box",
    "break",
    "const",
    "continue",
    "crate",
    "do",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "final",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "macro",
    "match",
    "mod",
    "move",
    "mut",
    "override",
    "priv",
    "pub",
    "ref",
    "return",
    "self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "try",
    "type",
    "typeof",
    "union",
    "unsafe",
    "unsized",
    "use",
    "virtual",
    "where",
    "while",
    "yield",
    "alloc",
    "core",
    "proc_macro",
    "std",
    "test",
    "build",
    "toolspec",
    "toolspec_runtime",
    "toolspec_cli",
    "serde",
    "serde_json",
    "tokio",
    "aux",
    "com1",
    "con",
    "nul",
    "prn",
];

/// The longest name: the service name derived from it must fit toolspec's 40 characters.
const MAX_LEN: usize = 40;

/// Why a crate name was refused, with a name that would do.
#[derive(Debug, PartialEq, Eq)]
pub struct BadName {
    name: String,
    why: &'static str,
    suggestion: Option<String>,
}

impl fmt::Display for BadName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid crate name `{}`: {}", self.name, self.why)?;
        match &self.suggestion {
            Some(s) => write!(f, "\n  help: use `--name {s}`"),
            None => write!(
                f,
                "\n  help: pass `--name NAME` with lower-case letters, digits, `-` and `_`, \
                 starting with a letter"
            ),
        }
    }
}

/// `name` if a server crate may be called so: lower-case ASCII letters, digits, `-` and
/// `_`, starting with a letter, at most 40 characters, and no keyword or taken name.
pub fn check(name: &str) -> Result<String, BadName> {
    let bad = |why| BadName {
        name: name.to_owned(),
        why,
        suggestion: suggest(name),
    };
    if name.is_empty() {
        return Err(bad("it is empty"));
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(bad("it must start with a lower-case letter"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return Err(bad(
            "use only lower-case letters, digits, `-` and `_` (the service and Rust names come from it)",
        ));
    }
    if name.len() > MAX_LEN {
        return Err(bad("it is longer than 40 characters"));
    }
    if TAKEN.contains(&name.replace('-', "_").as_str()) {
        return Err(BadName {
            name: name.to_owned(),
            why: "it is a Rust keyword or the name of a crate the server depends on",
            suggestion: Some(format!("{name}-server")),
        });
    }
    Ok(name.to_owned())
}

/// A valid name close to `name`: lower-cased, other characters made `-`, a leading
/// non-letter dropped; `None` when nothing is left.
fn suggest(name: &str) -> Option<String> {
    let mut out: String = name
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '_') => c,
            _ => '-',
        })
        .collect();
    while out.starts_with(|c: char| !c.is_ascii_lowercase()) {
        out.remove(0);
    }
    let mut out: String = out.chars().take(MAX_LEN).collect();
    while out.ends_with('-') {
        out.pop();
    }
    let fits = !out.is_empty() && !TAKEN.contains(&out.replace('-', "_").as_str());
    fits.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn accepts_cargo_style_names() {
        for name in ["my-shop", "shop", "shop_2", "a"] {
            assert_eq!(check(name).as_deref(), Ok(name));
        }
    }

    #[test]
    fn refuses_with_a_name_that_would_do() {
        let e = check("My Shop!").unwrap_err().to_string();
        assert!(e.contains("`--name my-shop`"), "{e}");
        let e = check("2shop").unwrap_err().to_string();
        assert!(e.contains("`--name shop`"), "{e}");
        let e = check("test").unwrap_err().to_string();
        assert!(e.contains("`--name test-server`"), "{e}");
        let e = check("").unwrap_err().to_string();
        assert!(
            e.contains("it is empty") && e.contains("--name NAME"),
            "{e}"
        );
        assert!(check(&"a".repeat(41)).is_err());
    }
}
