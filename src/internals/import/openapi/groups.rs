//! The draft's `groups`: one per tag of the chosen operations (an operation's first tag),
//! described by the document's tag description, so a catalog of many tags comes out ready
//! to defer and to serve in part. A draft whose operations share one tag gets none.
//!
//! The groups come in the order the user chose their tags (`--include tag:pulls --include
//! tag:issues`), then in the document's; the first loads up front, a guess the draft marks.

use super::document::{Document, Operation};
use super::yaml::Node;
use heck::ToSnakeCase;
use serde_json::Value;

/// Longest group name: with the service and `_`, a namespace fits in 64 characters.
const MAX_NAMESPACE: usize = 64;

/// The groups node for the tools made (each tool's name with its operation), or `None`
/// when they span fewer than two tags.
pub(super) fn groups(
    doc: &Document,
    service: &str,
    made: &[(String, &Operation)],
    chosen_tags: &[&str],
) -> Option<Node> {
    // (group name, the tag it came from, its tools), in the order tags first appear.
    let mut groups: Vec<(String, String, Vec<&str>)> = Vec::new();
    for (tool, op) in made {
        let tag = op.tags().first().map_or("other", |t| t).to_string();
        let name = group_name(&tag, service);
        match groups.iter_mut().find(|g| g.0 == name) {
            Some(g) => g.2.push(tool),
            None => groups.push((name, tag, vec![tool])),
        }
    }
    if groups.len() < 2 {
        return None;
    }
    // Stable: tags not chosen by name keep the document's order, after the chosen ones.
    let rank = |tag: &str| {
        chosen_tags
            .iter()
            .position(|c| c.eq_ignore_ascii_case(tag))
            .unwrap_or(chosen_tags.len())
    };
    groups.sort_by_key(|g| rank(&g.1));
    let mut node = Node::map();
    for (index, (name, tag, tools)) in groups.iter().enumerate() {
        let mut g = Node::map();
        let description = tag_description(doc, tag).unwrap_or_else(|| {
            format!("TODO: say what the `{tag}` tools are for, in the words a user would use.")
        });
        g.set("description", Node::str(description));
        g.set(
            "tools",
            Node::Seq(tools.iter().map(|t| Node::str(*t)).collect()),
        );
        let mut comments = vec![format!("The operations tagged `{tag}`.")];
        if index == 0 {
            // Without a group up front, the lists of providers that cannot defer are empty.
            g.set("up_front", Node::Scalar(Value::Bool(true)));
            comments.push(
                "guessed: the first tag chosen loads up front; mark the groups most tasks need."
                    .into(),
            );
        }
        node.set_commented(name.clone(), g, comments);
    }
    Some(node)
}

/// The tag as a group name: snake_case, starting with a letter, short enough to namespace.
fn group_name(tag: &str, service: &str) -> String {
    let mut name: String = tag
        .to_snake_case()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<String>()
        .to_ascii_lowercase();
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        name.insert_str(0, "tag_");
    }
    let room = MAX_NAMESPACE.saturating_sub(service.len() + 1).clamp(1, 40);
    name.truncate(room);
    name.trim_end_matches('_').to_string()
}

/// The document's description of `tag` (`tags: [{name, description}]`), cleaned to a line.
fn tag_description(doc: &Document, tag: &str) -> Option<String> {
    doc.root
        .get("tags")?
        .as_array()?
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(tag))?
        .get("description")?
        .as_str()
        .map(super::clean)
        .filter(|d| !d.is_empty())
}

#[cfg(test)]
mod tests {
    use super::group_name;

    #[test]
    fn a_tag_becomes_a_snake_case_name_that_starts_with_a_letter() {
        assert_eq!(group_name("Pull Requests", "github"), "pull_requests");
        assert_eq!(group_name("code-scanning", "github"), "code_scanning");
        assert_eq!(group_name("2fa", "auth"), "tag_2fa");
        assert!(group_name(&"long ".repeat(30), "service").len() <= 40);
    }
}
