//! The generator's rooms, as `docs/architecture.md` states them, hold: every module of the
//! library (the files and directories of `src/`, and the stages under `src/internals/`) has
//! a row in its "may import" table, names through `crate::` (in code, not in comments or
//! tests) only the modules its row allows, and the table has no cycle.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::architecture_scan::{Imports, Scan, cycle, modules_of, table, violations};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn generator_table() -> Imports {
    table(
        &root().join("docs/architecture.md"),
        "### May import: the generator",
    )
}

/// The root's re-exports, read as the modules they come from; `internals` holds the stages.
const ALIASES: &[(&str, &str)] = &[
    ("Builder", "builder"),
    ("BuildError", "builder"),
    ("Loaded", "load"),
    ("ReadError", "load"),
    ("load_texts", "load"),
    ("internals", ""),
];

fn modules() -> Imports {
    let mut paths = modules_of(&root().join("src"), &["internals"]);
    paths.extend(modules_of(&root().join("src/internals"), &[]));
    let names: BTreeSet<String> = paths.keys().cloned().collect();
    let scan = Scan {
        prefix: "crate::",
        modules: &names,
        aliases: ALIASES,
    };
    paths
        .iter()
        .map(|(name, path)| {
            let mut used = scan.imports_of(path);
            used.remove(name);
            (name.clone(), used)
        })
        .collect()
}

#[test]
fn every_generator_module_imports_only_what_the_architecture_allows() {
    let wrong = violations(&generator_table(), &modules(), "generator");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_generator_table_has_no_cycle() {
    let table = generator_table();
    assert!(table.len() >= 12, "the table was not read: {table:?}");
    assert_eq!(cycle(&table), None, "the generator table has a cycle");
}

#[test]
fn a_stage_reached_through_internals_counts_as_that_stage() {
    let names: BTreeSet<String> = ["emit", "model"].map(String::from).into();
    let scan = Scan {
        prefix: "crate::",
        modules: &names,
        aliases: ALIASES,
    };
    let found = scan.imports("use crate::internals::emit::rust;\nuse crate::{model::Model, rt};\n");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["emit", "model"]);
}
