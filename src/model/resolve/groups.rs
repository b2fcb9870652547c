//! The spec's `groups`: each tool in exactly one group, no group empty, every name listed a
//! tool of the toolset. Run once the toolset's tools are resolved, it sets [`Tool::group`].

use crate::diagnostics::{Diagnostic, Diagnostics, FileId, did_you_mean};
use crate::model::{Group, Tool, ToolSearch};
use crate::spec::format::{self as raw, SpecFile};
use crate::spec::spanned::Sp;

use super::{at, text};

/// Longest name a provider takes for a namespace or a tool (OpenAI and Anthropic: 64).
const MAX_NAMESPACE: usize = 64;

/// The toolset's checked groups and search tool, with each of `tools` assigned its group.
pub(super) fn assign(
    file: FileId,
    spec: &SpecFile,
    tools: &mut [Tool],
    diags: &mut Diagnostics,
) -> (Vec<Group>, ToolSearch) {
    let search = spec
        .tool_search
        .as_ref()
        .map_or(ToolSearch::Bm25, |s| s.value);
    let Some(written) = spec.groups.as_ref().filter(|g| !g.0.is_empty()) else {
        if let Some(s) = &spec.tool_search {
            diags.push(
                Diagnostic::warning(
                    "tool-search-without-groups",
                    at(file, s.pos),
                    "`tool_search` has no effect: the spec has no groups to defer",
                )
                .label("nothing is deferred")
                .help("add `groups` with some group not `up_front`, or remove `tool_search`"),
            );
        }
        return (Vec::new(), search);
    };
    let names: Vec<String> = tools.iter().map(|t| t.name.text.clone()).collect();
    let mut groups = Vec::new();
    for (index, (name, g)) in written.0.iter().enumerate() {
        check_name(file, name, &spec.service.value, diags);
        let members = members(file, name, g, &names, diags);
        // A group without exactly one of `tools` and `match` was reported as such.
        if members.is_empty() && g.tools.is_some() != g.pattern.is_some() {
            diags.push(empty_group(file, name, g));
        }
        for member in members {
            let tool = &mut tools[member.tool];
            match tool.group {
                None => tool.group = Some(index),
                Some(first) => {
                    let first: &(Sp<String>, raw::Group) = &written.0[first];
                    diags.push(
                        Diagnostic::error(
                            "tool-in-two-groups",
                            at(file, member.pos),
                            format!(
                                "tool `{}` is in group `{}` and in group `{}`",
                                tool.name.text, first.0.value, name.value
                            ),
                        )
                        .label(format!("already in `{}`", first.0.value))
                        .help("a tool belongs to one group: take it out of one of them"),
                    );
                }
            }
        }
        groups.push(Group {
            name: text(file, name),
            description: text(file, &g.description),
            up_front: g.up_front.as_ref().is_some_and(|u| u.value),
        });
    }
    for tool in tools.iter().filter(|t| t.group.is_none()) {
        diags.push(
            Diagnostic::error(
                "tool-in-no-group",
                tool.name.span,
                format!("tool `{}` is in no group", tool.name.text),
            )
            .label("with groups, every tool belongs to one")
            .help("list it in a group's `tools`, or widen a group's `match`"),
        );
    }
    (groups, search)
}

/// A tool a group names, and where it names it.
struct Member {
    tool: usize,
    pos: crate::spec::spanned::Pos,
}

/// The tools `g` names, by its list or its pattern (one of them, reported otherwise).
fn members(
    file: FileId,
    name: &Sp<String>,
    g: &raw::Group,
    names: &[String],
    diags: &mut Diagnostics,
) -> Vec<Member> {
    match (&g.tools, &g.pattern) {
        (Some(list), None) => {
            let mut out: Vec<Member> = Vec::new();
            for listed in &list.value {
                let Some(tool) = names.iter().position(|n| *n == listed.value) else {
                    let d = Diagnostic::error(
                        "unknown-tool",
                        at(file, listed.pos),
                        format!(
                            "group `{}` lists `{}`, which is not a tool of this spec",
                            name.value, listed.value
                        ),
                    )
                    .label("unknown tool");
                    diags.push(
                        match did_you_mean(&listed.value, names.iter().map(String::as_str)) {
                            Some(s) => d.help(format!("did you mean `{s}`?")),
                            None => d.help("list the names of this spec's `tools`"),
                        },
                    );
                    continue;
                };
                if out.iter().any(|m| m.tool == tool) {
                    diags.push(
                        Diagnostic::error(
                            "duplicate-name",
                            at(file, listed.pos),
                            format!("group `{}` lists `{}` twice", name.value, listed.value),
                        )
                        .label("listed before")
                        .help("list each tool once"),
                    );
                    continue;
                }
                out.push(Member {
                    tool,
                    pos: listed.pos,
                });
            }
            out
        }
        (None, Some(pattern)) => names
            .iter()
            .enumerate()
            .filter(|(_, n)| matches(&pattern.value, n))
            .map(|(tool, _)| Member {
                tool,
                pos: pattern.pos,
            })
            .collect(),
        (Some(list), Some(_)) => {
            diags.push(
                Diagnostic::error(
                    "group-members",
                    at(file, list.pos),
                    format!("group `{}` has both `tools` and `match`", name.value),
                )
                .label("one way to name the tools")
                .help("keep the list or the pattern, not both"),
            );
            Vec::new()
        }
        (None, None) => {
            diags.push(
                Diagnostic::error(
                    "group-members",
                    at(file, name.pos),
                    format!("group `{}` names no tools", name.value),
                )
                .label("neither `tools` nor `match`")
                .help(
                    "add `tools: [...]` with its tools' names, or `match: <service>_<resource>_*`",
                ),
            );
            Vec::new()
        }
    }
}

fn empty_group(file: FileId, name: &Sp<String>, g: &raw::Group) -> Diagnostic {
    let (pos, what) = match (&g.tools, &g.pattern) {
        (None, Some(p)) => (p.pos, format!("`match: {}` matches no tool", p.value)),
        (Some(l), _) => (l.pos, "its list names no tool of this spec".to_string()),
        (None, None) => (name.pos, "it names no tools".to_string()),
    };
    Diagnostic::error(
        "empty-group",
        at(file, pos),
        format!("group `{}` is empty: {what}", name.value),
    )
    .label("no tool")
    .help("name at least one tool, or remove the group")
}

fn check_name(file: FileId, name: &Sp<String>, service: &str, diags: &mut Diagnostics) {
    let mut chars = name.value.chars();
    let snake = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !snake {
        diags.push(
            Diagnostic::error(
                "invalid-name",
                at(file, name.pos),
                format!("group `{}` is not a snake_case name", name.value),
            )
            .label("not a group name")
            .help("use lowercase letters, digits and `_`, starting with a letter (`pulls`)"),
        );
    } else if service.len() + 1 + name.value.len() > MAX_NAMESPACE {
        diags.push(
            Diagnostic::error(
                "invalid-name",
                at(file, name.pos),
                format!(
                    "group `{}` makes the namespace `{service}_{}`, longer than {MAX_NAMESPACE} characters",
                    name.value, name.value
                ),
            )
            .label("too long for OpenAI and Anthropic")
            .help("shorten the group's name"),
        );
    }
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters (none
/// included) and every other character for itself.
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        // No `*`: the whole name.
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn a_star_stands_for_any_run_of_characters() {
        assert!(matches("github_pulls_*", "github_pulls_list"));
        assert!(matches("github_pulls_*", "github_pulls_"));
        assert!(!matches("github_pulls_*", "github_pull_list"));
        assert!(matches("*_list", "github_pulls_list"));
        assert!(matches("github_*_list", "github_pulls_list"));
        assert!(!matches("github_*_list", "github_pulls_get"));
        assert!(matches("a*b*c", "aXbYc"));
        assert!(!matches("a*b*c", "aXcYb"));
        assert!(matches("*", "anything"));
    }

    #[test]
    fn without_a_star_the_pattern_is_the_whole_name() {
        assert!(matches("tickets_get", "tickets_get"));
        assert!(!matches("tickets_get", "tickets_get_all"));
        // The suffix may not overlap what the prefix took.
        assert!(!matches("ab*ba", "aba"));
    }
}
