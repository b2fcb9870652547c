//! Every example spec's checked-in gauntlet (`generated/<service>/<service>_gauntlet.rs`)
//! compiles, and its digests match the definitions its server serves: the generator's own
//! check of these files is lexical (no spec text can break out of its literal), the
//! compiler's here is whole.

use serde_json::Value;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::{BoxFuture, CallContext, CallOutput, ToolDefinition, Toolset};
use toolspec_runtime::gauntlet::{Fixture, Gauntlet};

#[allow(clippy::type_complexity)]
mod examples {
    include!(concat!(env!("OUT_DIR"), "/example_gauntlets.rs"));
}

/// Serves one toolset's definitions and nothing else: enough for the schema checks.
struct DefinitionsOnly(&'static [ToolDefinition]);

impl Toolset for DefinitionsOnly {
    fn definitions(&self) -> &'static [ToolDefinition] {
        self.0
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
fn every_example_gauntlet_compiles_and_matches_its_server() {
    let services: Vec<&str> = examples::ALL.iter().map(|(s, _, _)| *s).collect();
    assert_eq!(services, ["docs", "orders", "tickets"]);
    for &(service, facts, definitions) in examples::ALL {
        assert_eq!(facts.service, service);
        assert_eq!(facts.tools.len(), definitions.len(), "{service}");
        let gauntlet = Gauntlet::new(facts, Fixture::new(move |_| DefinitionsOnly(definitions)));
        for check in facts
            .checks
            .iter()
            .filter(|c| c.name.ends_with("::schema_matches_the_spec"))
        {
            if let Err(failure) = gauntlet.run(check.name) {
                panic!("{service}: {failure}");
            }
        }
    }
}
