//! Changes of a toolset's groups: a tool that moves between groups, a group removed or
//! added, a group that stops or starts loading up front.

use super::{Changes, Party, Side};
use crate::model::ToolSet;

/// The group changes from `o` to `n` (the same service).
pub(super) fn compare_groups(o: &ToolSet, n: &ToolSet, out: &mut Changes) {
    for og in &o.groups {
        match n.groups.iter().find(|g| g.name.text == og.name.text) {
            None => out.push(
                "group-removed",
                Some(Party::Callers),
                None,
                format!("groups.{}", og.name.text),
                (Side::Old, og.name.span),
                format!("group `{}` was removed", og.name.text),
                format!(
                    "a server started with `--groups {}` now refuses to start, and its callers lose those tools",
                    og.name.text
                ),
            ),
            Some(ng) if og.up_front && !ng.up_front => out.push(
                "group-deferred",
                None,
                None,
                format!("groups.{}", ng.name.text),
                (Side::New, ng.name.span),
                format!("group `{}` is no longer loaded up front", ng.name.text),
                "its tools are still listed and callable; a model finds them with a search first",
            ),
            Some(ng) if !og.up_front && ng.up_front => out.push(
                "group-up-front",
                None,
                None,
                format!("groups.{}", ng.name.text),
                (Side::New, ng.name.span),
                format!("group `{}` is now loaded up front", ng.name.text),
                "its tools are paid for on every turn, and found without a search",
            ),
            Some(_) => {}
        }
    }
    for ng in &n.groups {
        if !o.groups.iter().any(|g| g.name.text == ng.name.text) {
            out.push(
                "group-added",
                None,
                None,
                format!("groups.{}", ng.name.text),
                (Side::New, ng.name.span),
                format!("group `{}` was added", ng.name.text),
                "a new group breaks no existing call",
            );
        }
    }
    for nt in &n.tools {
        let Some(ot) = o.tool(&nt.name.text) else {
            continue;
        };
        let (before, after) = (o.group_of(ot), n.group_of(nt));
        let name = |g: Option<&crate::model::Group>| g.map(|g| g.name.text.clone());
        if name(before) == name(after) {
            continue;
        }
        let (message, reason) = match (before, after) {
            (Some(b), Some(a)) => (
                format!(
                    "`{}` moved from group `{}` to group `{}`",
                    nt.name.text, b.name.text, a.name.text
                ),
                format!(
                    "a server started with `--groups {}` no longer serves it, and calls to it there are refused",
                    b.name.text
                ),
            ),
            (None, Some(a)) => (
                format!("`{}` is now in group `{}`", nt.name.text, a.name.text),
                "a server that serves other groups does not serve it".to_string(),
            ),
            (Some(b), None) => (
                format!("`{}` is no longer in group `{}`", nt.name.text, b.name.text),
                format!(
                    "a server started with `--groups {}` no longer serves it",
                    b.name.text
                ),
            ),
            (None, None) => continue,
        };
        out.push(
            "tool-group-changed",
            Some(Party::Callers),
            Some(&nt.name.text),
            format!("{}.group", nt.name.text),
            (Side::New, nt.name.span),
            message,
            reason,
        );
    }
}
