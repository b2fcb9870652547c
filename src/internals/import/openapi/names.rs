//! Tool names for operations: `<service>_<resource>_<verb>[_<rest>]`, from the
//! `operationId` when it names a verb, else from the method and the path; no word twice,
//! at most 64 characters (what every provider accepts), unique within the draft.

use super::document::Operation;
use heck::ToSnakeCase;
use std::collections::HashSet;

/// The longest tool name every provider accepts.
pub const MAX_NAME: usize = 64;

/// Words that open an `operationId` as its verb (`getPetById`, `list-for-org`).
const VERBS: &[&str] = &[
    "get",
    "list",
    "find",
    "search",
    "query",
    "create",
    "add",
    "post",
    "put",
    "update",
    "patch",
    "delete",
    "remove",
    "upload",
    "download",
    "set",
    "check",
    "place",
    "login",
    "logout",
    "cancel",
    "retrieve",
    "replace",
    "modify",
    "send",
    "start",
    "stop",
    "run",
    "enable",
    "disable",
    "archive",
    "unarchive",
    "merge",
    "close",
    "open",
    "mark",
    "rotate",
    "recover",
    "resend",
    "replay",
    "upsert",
    "count",
    "fetch",
    "read",
    "write",
    "approve",
    "reject",
    "accept",
    "decline",
    "submit",
    "verify",
    "validate",
    "import",
    "export",
    "restore",
    "transfer",
    "generate",
    "revoke",
    "reset",
    "invite",
    "block",
    "unblock",
    "follow",
    "unfollow",
    "star",
    "unstar",
    "lock",
    "unlock",
    "rename",
    "move",
    "copy",
    "sync",
    "trigger",
    "rerun",
    "review",
    "request",
    "dismiss",
    "pin",
    "unpin",
    "edit",
    "clear",
    "purge",
    "refresh",
    "compare",
    "render",
    "test",
    "ping",
    "redeliver",
    "re",
];

/// Path segments that name no resource.
const NOT_RESOURCES: &[&str] = &["api", "rest", "v1", "v2", "v3", "v4", "beta", "alpha"];

/// The tool name for an operation, before uniqueness is settled.
pub fn tool_name(service: &str, op: &Operation) -> String {
    let service_words: Vec<String> = words(service);
    let mut out: Vec<String> = service_words.clone();
    let (resource, verb, rest) = match op.id().map(id_words) {
        Some((Some(resource), verb, rest)) => (resource, verb, rest),
        Some((None, verb, rest)) => (path_resource(op), verb, rest),
        None => (path_resource(op), method_verb(op), Vec::new()),
    };
    for w in resource
        .into_iter()
        .chain(std::iter::once(verb))
        .chain(rest)
    {
        if w.is_empty() || out.contains(&w) || singular(&w).is_some_and(|s| out.contains(&s)) {
            continue;
        }
        out.push(w);
    }
    let mut name = out.join("_");
    while name.len() > MAX_NAME {
        // Drop the last word (the least telling) until it fits.
        let Some(i) = name.rfind('_') else { break };
        name.truncate(i);
    }
    if name.len() > MAX_NAME {
        name.truncate(MAX_NAME);
    }
    name
}

/// Makes `name` unique among `taken` by adding a word of the path, then a number.
pub fn unique(name: String, op: &Operation, taken: &HashSet<String>) -> String {
    if !taken.contains(&name) {
        return name;
    }
    for w in op.path.split('/').rev().flat_map(words) {
        let candidate = fit(format!("{name}_{w}"));
        if !taken.contains(&candidate) {
            return candidate;
        }
    }
    let mut n = 2;
    loop {
        let suffix = format!("_{n}");
        let mut base = name.clone();
        base.truncate(MAX_NAME - suffix.len());
        let candidate = format!("{base}{suffix}");
        if !taken.contains(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

fn fit(mut s: String) -> String {
    s.truncate(MAX_NAME);
    s.trim_end_matches('_').to_string()
}

/// The lowercase words of an identifier in any case style.
pub fn words(s: &str) -> Vec<String> {
    s.to_snake_case()
        .split('_')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// An `operationId` read as (resource, verb, the rest): `pulls/list-reviews` is
/// (`pulls`, `list`, `reviews`), `getPetById` (none, `get`, `pet by id`), `Pets_List`
/// (`pets`, `list`, none).
fn id_words(id: &str) -> (Option<Vec<String>>, String, Vec<String>) {
    let (prefix, tail) = match id.rsplit_once(['/', '.']) {
        Some((p, t)) => (Some(p), t),
        None => (None, id),
    };
    let prefix_words: Option<Vec<String>> = prefix.map(|p| {
        words(p)
            .into_iter()
            .filter(|w| !NOT_RESOURCES.contains(&w.as_str()))
            .collect()
    });
    let ws = words(tail);
    let Some(first) = ws.first() else {
        return (prefix_words, "call".into(), Vec::new());
    };
    if VERBS.contains(&first.as_str()) {
        let rest = ws[1..].to_vec();
        return match prefix_words {
            Some(p) if !p.is_empty() => (Some(p), first.clone(), rest),
            // `getPetById`: the first noun after the verb is the resource.
            _ => {
                let resource = rest.first().cloned().into_iter().collect::<Vec<_>>();
                let mut rest: Vec<String> = rest.into_iter().skip(1).collect();
                // `ById` only says the call takes the id, which its parameters say.
                if rest == ["by", "id"] {
                    rest.clear();
                }
                (
                    Some(resource).filter(|r: &Vec<String>| !r.is_empty()),
                    first.clone(),
                    rest,
                )
            }
        };
    }
    if let Some(last) = ws.last().filter(|l| VERBS.contains(&l.as_str())) {
        let resource: Vec<String> = ws[..ws.len() - 1].to_vec();
        let resource = match prefix_words {
            Some(mut p) => {
                p.extend(resource);
                p
            }
            None => resource,
        };
        return (Some(resource), last.clone(), Vec::new());
    }
    // No verb in it: the words are the rest, the resource from the prefix or the path.
    (prefix_words, String::new(), ws)
}

/// The last literal segment of the path (`/repos/{owner}/{repo}/pulls` gives `pulls`).
fn path_resource(op: &Operation) -> Vec<String> {
    op.path
        .split(['/', '?'])
        .rfind(|s| {
            !s.is_empty()
                && !s.starts_with('{')
                && !NOT_RESOURCES.contains(&s.to_ascii_lowercase().as_str())
        })
        .map(words)
        .unwrap_or_default()
}

/// `list` for a GET of a collection, `get` of one item, then the other methods' verbs.
fn method_verb(op: &Operation) -> String {
    let item = op.path.trim_end_matches('/').ends_with('}');
    match op.method {
        "get" if item => "get",
        "get" => "list",
        "post" => "create",
        "put" => "replace",
        "patch" => "update",
        "delete" => "delete",
        "head" => "check",
        other => other,
    }
    .to_string()
}

/// `pets` to `pet`, for the duplicate-word test.
fn singular(w: &str) -> Option<String> {
    w.strip_suffix('s')
        .filter(|s| s.len() >= 3)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op<'a>(
        method: &'static str,
        path: &'a str,
        id: Option<&str>,
        v: &'a mut serde_json::Value,
    ) -> Operation<'a> {
        if let Some(id) = id {
            *v = json!({ "operationId": id });
        }
        Operation {
            method,
            path,
            op: v,
            params: Vec::new(),
        }
    }

    #[test]
    fn names_read_service_resource_verb() {
        let cases = [
            (
                "petstore",
                "get",
                "/pet/{petId}",
                Some("getPetById"),
                "petstore_pet_get",
            ),
            (
                "petstore",
                "get",
                "/pet/findByStatus",
                Some("findPetsByStatus"),
                "petstore_pets_find_by_status",
            ),
            (
                "github",
                "get",
                "/repos/{owner}/{repo}/pulls",
                Some("pulls/list"),
                "github_pulls_list",
            ),
            (
                "github",
                "get",
                "/orgs/{org}/repos",
                Some("repos/list-for-org"),
                "github_repos_list_for_org",
            ),
            (
                "svix",
                "get",
                "/api/v1/app",
                Some("v1.application.list"),
                "svix_application_list",
            ),
            (
                "azure",
                "get",
                "/pets",
                Some("Pets_List"),
                "azure_pets_list",
            ),
            (
                "shop",
                "delete",
                "/api/v2/orders/{id}",
                None,
                "shop_orders_delete",
            ),
            ("shop", "get", "/api/v2/orders", None, "shop_orders_list"),
        ];
        for (service, method, path, id, want) in cases {
            let mut v = json!({});
            let o = op(method, path, id, &mut v);
            assert_eq!(tool_name(service, &o), want, "{path} {id:?}");
        }
    }

    #[test]
    fn long_ids_repeat_no_word_and_fit() {
        let mut v = json!({});
        let id = "actions/get-github-actions-default-workflow-permissions-organization-with-a-very-long-tail-of-words";
        let o = op(
            "get",
            "/orgs/{org}/actions/permissions/workflow",
            Some(id),
            &mut v,
        );
        let name = tool_name("github", &o);
        assert!(name.len() <= MAX_NAME, "{name}");
        let ws: Vec<&str> = name.split('_').collect();
        let set: HashSet<&&str> = ws.iter().collect();
        assert_eq!(set.len(), ws.len(), "a word repeats in {name}");
    }
}
