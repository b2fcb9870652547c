//! The runtime's rooms, as `docs/architecture.md` states them, hold: every top-level module
//! of the core (`core/src`) and each adapter crate (`mcp`, `gauntlet`) has a row in its "may
//! import" table, imports (`crate::...` paths in the core, `toolspec_core::...` paths in an
//! adapter crate; in code, not in comments or tests) only the modules its row allows, and
//! the table itself has no cycle. An import the table does not allow fails here the day it
//! is written.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::architecture_scan::{Imports, Scan, code, cycle, modules_of, table, violations};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn runtime_table() -> Imports {
    table(
        &root().join("docs/architecture.md"),
        "### May import: the runtime",
    )
}

/// The crate root's re-exports, read as the modules they come from.
const ALIASES: &[(&str, &str)] = &[
    ("ToolError", "error"),
    ("Problem", "problem"),
    ("sqlite", "store"),
];

/// Each top-level module of the core and each adapter crate, and the core's modules it
/// imports.
fn modules() -> Imports {
    let core = modules_of(&root().join("core/src"), &[]);
    let names: BTreeSet<String> = core.keys().cloned().collect();
    let mut modules = Imports::new();
    let adapter = Scan {
        prefix: "toolspec_core::",
        modules: &names,
        aliases: ALIASES,
    };
    for crate_dir in ["mcp", "gauntlet"] {
        let src = root().join(crate_dir).join("src");
        modules.insert(crate_dir.to_string(), adapter.imports_of(&src));
    }
    let inside = Scan {
        prefix: "crate::",
        modules: &names,
        aliases: ALIASES,
    };
    for (name, path) in &core {
        let mut used = inside.imports_of(path);
        used.remove(name);
        modules.insert(name.clone(), used);
    }
    modules
}

#[test]
fn every_runtime_module_imports_only_what_the_architecture_allows() {
    let wrong = violations(&runtime_table(), &modules(), "runtime");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_runtime_table_has_no_cycle() {
    let table = runtime_table();
    assert!(table.len() > 20, "the table was not read: {table:?}");
    assert_eq!(cycle(&table), None, "the runtime table has a cycle");
}

#[test]
fn the_scanner_reads_paths_groups_and_skips_tests_and_comments() {
    let names: BTreeSet<String> = ["error", "rate", "store", "engine", "cursor", "gauntlet"]
        .map(String::from)
        .into();
    let inside = Scan {
        prefix: "crate::",
        modules: &names,
        aliases: ALIASES,
    };
    let text = "use crate::error::ToolError;\n// crate::engine in words\nuse crate::{store::Work, rate};\nfn f() -> crate::ToolError { todo!() }\n#[cfg(test)]\nmod tests {\n    use crate::gauntlet;\n}\n#[cfg(test)]\nmod more;\n";
    let found = inside.imports(&code(text));
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["error", "rate", "store"]
    );
    // In an adapter crate: the core's paths, not its own, nor another crate's that ends alike.
    let adapter = Scan {
        prefix: "toolspec_core::",
        modules: &names,
        aliases: ALIASES,
    };
    let text = "use crate::handler::McpServer;\nuse toolspec_core::engine::Runtime;\nuse not_toolspec_core::cursor;\n";
    let found = adapter.imports(&code(text));
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["engine"]);
}
