use super::*;
use crate::engine::Annotations;
use crate::validate::ObjectShape;

static EMPTY: ObjectShape = ObjectShape::new(&[]);
static PULLS: ToolGroup = ToolGroup {
    name: "pulls",
    description: "Pull requests.",
    up_front: true,
};
static ISSUES: ToolGroup = ToolGroup {
    name: "issues",
    description: "Issues.",
    up_front: false,
};

const fn def(name: &'static str, read_only: bool, group: &'static ToolGroup) -> ToolDefinition {
    ToolDefinition {
        name,
        title: "T",
        description: "D",
        input_schema: r#"{"type":"object"}"#,
        output_schema: r#"{"type":"object"}"#,
        listed_output_schema: "",
        annotations: Annotations {
            read_only,
            destructive: false,
            idempotent: read_only,
            open_world: false,
        },
        deprecated_aliases: &[],
        scopes: &[],
        input: &EMPTY,
        example_call: "{}",
        group: Some(group),
    }
}

static CATALOG: [ToolDefinition; 4] = [
    def("github_pulls_list", true, &PULLS),
    def("github_pulls_merge", false, &PULLS),
    def("github_issues_list", true, &ISSUES),
    def("github_issues_create", false, &ISSUES),
];

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|a| a.to_string()).collect()
}

fn served_names(served: &Served) -> Vec<&'static str> {
    CATALOG
        .iter()
        .filter(|d| served.serves(d))
        .map(|d| d.name)
        .collect()
}

#[test]
fn the_flags_are_taken_out_and_the_rest_left_in_order() {
    let (served, rest) = Served::take_flags(args(&[
        "--http",
        "--groups",
        " pulls , issues,",
        "x",
        "--read-only",
    ]))
    .unwrap();
    assert_eq!(served.groups(), Some(&args(&["pulls", "issues"])[..]));
    assert!(served.is_read_only());
    assert_eq!(rest, args(&["--http", "x"]));

    let (served, rest) = Served::take_flags(args(&["--groups=issues"])).unwrap();
    assert_eq!(served.groups(), Some(&args(&["issues"])[..]));
    assert!(rest.is_empty());
}

#[test]
fn a_groups_flag_without_groups_says_how_to_write_one() {
    let missing = Served::take_flags(args(&["--groups"])).unwrap_err();
    assert!(
        missing.to_string().contains("`--groups pulls,issues`"),
        "{missing}"
    );
    let empty = Served::take_flags(args(&["--groups=,"])).unwrap_err();
    assert!(empty.to_string().contains("names no group"), "{empty}");
    let long = format!("--groups={}", "a,".repeat(4000));
    let refused = Served::take_flags(vec![long]).unwrap_err();
    assert!(refused.to_string().contains("fits in 4096"), "{refused}");
}

#[test]
fn the_environment_fills_what_the_flags_left_and_a_flag_wins() {
    let env = |name: &str| match name {
        "GITHUB_GROUPS" => Some("issues".to_string()),
        "GITHUB_READ_ONLY" => Some("true".to_string()),
        _ => None,
    };
    let served = Served::everything().or_vars("GITHUB", env).unwrap();
    assert_eq!(served.groups(), Some(&args(&["issues"])[..]));
    assert!(served.is_read_only());

    let flags = Served::everything().only_groups(["pulls"]).read_only(false);
    let served = flags.or_vars("GITHUB", env).unwrap();
    assert_eq!(served.groups(), Some(&args(&["pulls"])[..]));
    assert!(!served.is_read_only());
}

#[test]
fn a_read_only_variable_that_is_not_a_yes_or_no_is_refused_with_its_value() {
    let env = |_: &str| Some("sometimes".to_string());
    let refused = Served::everything().or_vars("GITHUB", env).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("GITHUB_READ_ONLY is \"sometimes\""),
        "{refused}"
    );
}

#[test]
fn an_unknown_group_is_refused_with_the_toolsets_groups() {
    let refused = Served::everything()
        .only_groups(["pull"])
        .check(&CATALOG)
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "no group `pull`; this toolset's groups: pulls, issues"
    );
}

#[test]
fn groups_of_a_toolset_without_groups_are_refused() {
    let mut plain = CATALOG;
    for d in &mut plain {
        d.group = None;
    }
    let refused = Served::everything()
        .only_groups(["pulls"])
        .check(&plain)
        .unwrap_err();
    assert!(
        refused.to_string().contains("declares no groups"),
        "{refused}"
    );
    // Read-only needs no groups.
    Served::everything().read_only(true).check(&plain).unwrap();
}

#[test]
fn a_choice_that_leaves_nothing_is_refused() {
    static WRITES: [ToolDefinition; 1] = [def("github_issues_create", false, &ISSUES)];
    let refused = Served::everything()
        .read_only(true)
        .check(&WRITES)
        .unwrap_err();
    assert!(
        refused.to_string().contains("nothing left to serve"),
        "{refused}"
    );
}

#[test]
fn groups_and_read_only_together_serve_their_intersection() {
    assert_eq!(served_names(&Served::everything()).len(), 4);
    let pulls = Served::everything().only_groups(["pulls"]);
    assert_eq!(
        served_names(&pulls),
        ["github_pulls_list", "github_pulls_merge"]
    );
    let reads = Served::everything().read_only(true);
    assert_eq!(
        served_names(&reads),
        ["github_pulls_list", "github_issues_list"]
    );
    let both = pulls.read_only(true);
    assert_eq!(served_names(&both), ["github_pulls_list"]);
}

#[test]
fn a_tool_of_another_group_is_refused_with_its_group_and_what_is_served() {
    let served = Served::everything().only_groups(["pulls"]);
    let refusal = served.refusal(&CATALOG[2], &CATALOG).unwrap();
    assert_eq!(refusal.code, "unknown_tool");
    assert!(!refusal.retryable);
    assert_eq!(
        refusal.message,
        "Tool 'github_issues_list' is in group 'issues', which this server does not serve \
         (it serves pulls). Use a tool of this server's list, or ask the operator to serve it. \
         Served tools: github_pulls_list, github_pulls_merge."
    );
    assert_eq!(refusal.details["group"], "issues");
    assert_eq!(
        refusal.details["allowed"],
        serde_json::json!(["github_pulls_list", "github_pulls_merge"])
    );
    assert!(served.refusal(&CATALOG[0], &CATALOG).is_none());
}

#[test]
fn a_write_on_a_read_only_server_is_refused_as_such() {
    let served = Served::everything().read_only(true);
    let refusal = served.refusal(&CATALOG[1], &CATALOG).unwrap();
    assert!(
        refusal
            .message
            .starts_with("Tool 'github_pulls_merge' changes data, and this server is read-only"),
        "{}",
        refusal.message
    );
    assert_eq!(refusal.details["read_only_server"], true);
}
