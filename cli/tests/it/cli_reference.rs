//! The command-line reference of the user guide (`docs/guide/src/reference/cli-help.md`) is
//! the `--help` of the built `toolspec` binary, every command and subcommand, so it cannot
//! drift from the flags the binary takes. `UPDATE_GOLDEN=1 cargo test -p toolspec-cli --test
//! it cli_reference::` rewrites it after a command or flag changes.

use std::process::Command;

use crate::common::root;

/// `toolspec ARGS --help`, as the binary prints it.
fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .arg("--help")
        .output()
        .expect("toolspec runs");
    assert!(out.status.success(), "toolspec {args:?} --help failed");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The commands a help text lists under `Commands:`, without clap's own `help`.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// One section per command, depth first, in the order the binary lists them.
fn sections(path: &[String], out: &mut String) {
    let args: Vec<&str> = path.iter().map(String::as_str).collect();
    let text = help(&args);
    let name = std::iter::once("toolspec")
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    out.push_str(&format!(
        "\n## `{name}`\n\n```text\n{}\n```\n",
        text.trim_end()
    ));
    for command in commands(&text) {
        let mut next = path.to_vec();
        next.push(command);
        sections(&next, out);
    }
}

fn reference() -> String {
    let mut out = String::from(
        "<!-- @generated from `toolspec --help` by `UPDATE_GOLDEN=1 cargo test -p toolspec-cli \
         --test it cli_reference::`. Do not edit. -->\n",
    );
    sections(&[], &mut out);
    out
}

#[test]
fn the_guide_shows_the_help_of_every_command() {
    let path = root().join("docs/guide/src/reference/cli-help.md");
    let fresh = reference();
    assert!(
        commands(&help(&[])).len() >= 9,
        "the top-level help lists too few commands"
    );
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &fresh).expect("write the reference");
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == fresh,
        "{} is not the binary's --help: rerun with UPDATE_GOLDEN=1",
        path.display()
    );
}
