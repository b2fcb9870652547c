//! The adversarial spec's generated gauntlet compiles, and the digests it holds of every
//! definition equal those of what the server code (generated through other templates)
//! serves, hostile strings included.

use serde_json::Value;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::{BoxFuture, CallContext, CallOutput, ToolDefinition, Toolset};
use toolspec_runtime::gauntlet::{Fixture, Gauntlet};

mod hostile {
    include!(concat!(env!("OUT_DIR"), "/hostile_gauntlet.rs"));
    pub(super) static FACTS: &toolspec_runtime::gauntlet::Facts = &HOSTILE_GAUNTLET;
}

/// Serves the hostile toolset's definitions and nothing else: enough for the schema checks,
/// which compare definitions with facts and call nothing.
struct DefinitionsOnly;

impl Toolset for DefinitionsOnly {
    fn definitions(&self) -> &'static [ToolDefinition] {
        &toolspec_compile_check::hostile::DEFINITIONS
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        _arguments: Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallOutput, ToolError>> {
        Box::pin(async move { Err(ToolError::internal(format!("{name} is not implemented"))) })
    }
}

#[test]
fn hostile_strings_reach_the_facts_exactly_as_the_server_serves_them() {
    let facts = hostile::FACTS;
    assert!(!facts.tools.is_empty());
    let search = &facts.tools[0];
    let kind = search
        .params(&DefinitionsOnly.definitions()[0])
        .into_iter()
        .find(|p| p.name == "kind")
        .expect("hostile_search takes kind");
    assert!(kind.allowed.contains(&"say \"hi\"#"), "{:?}", kind.allowed);
    assert!(
        kind.allowed.contains(&"zero\u{200B}width"),
        "{:?}",
        kind.allowed
    );
    // The spec's example of `kind`, a hostile string, reaches the facts exactly.
    let example: Value = serde_json::from_str(kind.example).expect("example is JSON");
    let example = example.as_str().expect("a string example");
    assert!(kind.allowed.contains(&example), "{example:?}");

    let gauntlet = Gauntlet::new(facts, Fixture::new(|_| DefinitionsOnly));
    let schema_checks: Vec<&str> = facts
        .checks
        .iter()
        .map(|c| c.name)
        .filter(|n| n.ends_with("::schema_matches_the_spec"))
        .collect();
    assert_eq!(schema_checks.len(), facts.tools.len());
    for check in schema_checks {
        if let Err(failure) = gauntlet.run(check) {
            panic!("{failure}");
        }
    }
}
