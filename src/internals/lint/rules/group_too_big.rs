//! `group-too-big`: a group a provider loads whole should stay small.

use super::prelude::*;

/// Most tools one group should hold: OpenAI recommends namespaces of fewer than 10.
pub const MAX_GROUP: usize = 10;

/// The rule.
pub static RULE: Rule = Rule {
    id: "group-too-big",
    severity: Severity::Warning,
    set: Set::Recommended,
    category: Category::Toolset,
    summary: "A group holds at most 10 tools.",
    what: "Reports a group of more than 10 tools.",
    why: "A group is an OpenAI namespace, and OpenAI's tool search loads a namespace whole: \
          OpenAI recommends fewer than 10 functions each. A group loaded up front is paid \
          for on every turn; a big one is most of the list a model reads.",
    bad: "groups:\n  repos: { description: Repositories., match: github_repos_* }  # 60 tools",
    good: "groups:\n  repos: { description: Repositories., match: github_repos_get* }\n  \
           repo_settings: { description: A repository's settings., match: github_repos_*_settings }",
    fix: "Split the group by what its tools act on (a repository's settings apart from its \
          content), or drop the tools only people use.",
    check,
};

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for ts in cx.toolsets() {
        for (index, g) in ts.groups.iter().enumerate() {
            let n = ts.members(index).count();
            if n > MAX_GROUP {
                out.push(
                    Finding::at(
                        g.name.span,
                        format!("group `{}` has {n} tools (most {MAX_GROUP})", g.name.text),
                    )
                    .label("loaded whole by a search")
                    .help("split it by what its tools act on, into groups of fewer than 10"),
                );
            }
        }
    }
}
