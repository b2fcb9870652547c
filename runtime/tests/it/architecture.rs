//! The runtime's rooms, as `docs/architecture.md` states them, hold: every top-level module
//! of the core (`core/src`) and each adapter crate (`mcp`, `gauntlet`) has a row in its "may
//! import" table, imports (`crate::...` paths in the core, `toolspec_core::...` paths in an
//! adapter crate; in code, not in comments or tests) only the modules its row allows, and
//! the table itself has no cycle. An import the table does not allow fails here the day it
//! is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The table under `### May import: the runtime`: module -> the modules it may import.
fn table() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(root().join("docs/architecture.md")).expect("the page");
    let section = text
        .split("### May import: the runtime")
        .nth(1)
        .expect("docs/architecture.md has a `### May import: the runtime` section");
    let mut rows = BTreeMap::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() != 3 || cells[0] == "layer" || cells[0].starts_with("---") {
            continue;
        }
        let names = |cell: &str| -> BTreeSet<String> {
            cell.split(',')
                .map(|n| n.trim().trim_matches('`').to_string())
                .filter(|n| !n.is_empty() && n != "nothing")
                .collect()
        };
        for module in names(cells[1]) {
            rows.insert(module, names(cells[2]));
        }
    }
    rows
}

/// `text` without comment lines and without the `#[cfg(test)]` modules rustfmt writes (from
/// the attribute to the line that closes the module at its indentation).
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            let indent = &line[..line.len() - trimmed.len()];
            match lines.peek() {
                Some(next) if next.trim_end().ends_with('{') => {
                    let close = format!("{indent}}}");
                    for inner in lines.by_ref() {
                        if inner.trim_end() == close {
                            break;
                        }
                    }
                }
                Some(_) => {
                    lines.next();
                }
                None => {}
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The top-level modules of the core `code` names through `prefix` (`crate::` in the core,
/// `toolspec_core::` in an adapter crate), with the crate root's re-exports (`ToolError`,
/// `Problem`, `sqlite`) read as the modules they come from.
fn imports(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        // `crate::` inside `toolspec_core::`-less text only: a path of another crate that
        // ends in the prefix (`foo_crate::`) is not one.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let heads: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end]
                .split(',')
                .map(|p| p.trim().split("::").next().unwrap_or(""))
                .collect()
        } else {
            vec![
                rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap_or(""),
            ]
        };
        for head in heads {
            let module = match head {
                "ToolError" => "error",
                "Problem" => "problem",
                "sqlite" => "store",
                "rusqlite" | "tokio_postgres" | "" => continue,
                other => other,
            };
            found.insert(module.to_string());
        }
    }
    found
}

/// Every `.rs` file of a module (a file, or a directory), but its test files.
fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).expect("a directory").flatten() {
            let p = entry.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name == "tests" || name == "tests.rs" {
                continue;
            }
            files(&p, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// What the files of `path` (a module's file or directory, or a crate's `src`) import.
fn imports_of(path: &Path, prefix: &str) -> BTreeSet<String> {
    let mut all = Vec::new();
    files(path, &mut all);
    let mut used = BTreeSet::new();
    for file in all {
        let text = std::fs::read_to_string(&file).expect("a source file");
        used.extend(imports(&code(&text), prefix));
    }
    used
}

/// Each top-level module of the core and each adapter crate, and the core's modules it
/// imports.
fn modules() -> BTreeMap<String, BTreeSet<String>> {
    let src = root().join("core/src");
    let mut modules = BTreeMap::new();
    for adapter in ["mcp", "gauntlet"] {
        let src = root().join(adapter).join("src");
        modules.insert(adapter.to_string(), imports_of(&src, "toolspec_core::"));
    }
    for entry in std::fs::read_dir(&src).expect("core/src").flatten() {
        let path = entry.path();
        let name = path
            .file_stem()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        if name == "lib" {
            continue;
        }
        let mut used = imports_of(&path, "crate::");
        used.remove(&name);
        modules.insert(name, used);
    }
    modules
}

#[test]
fn every_runtime_module_imports_only_what_the_architecture_allows() {
    let table = table();
    let modules = modules();
    let mut wrong = Vec::new();
    for (module, used) in &modules {
        let Some(allowed) = table.get(module) else {
            wrong.push(format!(
                "`{module}` has no row in docs/architecture.md's runtime table: place it in a layer"
            ));
            continue;
        };
        for import in used.difference(allowed) {
            wrong.push(format!(
                "`{module}` imports `{import}`, which its row does not allow"
            ));
        }
    }
    for module in table.keys().filter(|m| !modules.contains_key(*m)) {
        wrong.push(format!(
            "the runtime table names `{module}`, which is neither a module of core/src nor an adapter crate"
        ));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_runtime_table_has_no_cycle() {
    let table = table();
    assert!(table.len() > 20, "the table was not read: {table:?}");
    // Depth-first, keeping the path: a module met again on its own path closes a cycle.
    fn visit<'t>(
        module: &'t str,
        table: &'t BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'t str>,
        done: &mut BTreeSet<&'t str>,
    ) -> Result<(), String> {
        if let Some(at) = path.iter().position(|m| *m == module) {
            return Err(format!("{} -> {module}", path[at..].join(" -> ")));
        }
        if !done.insert(module) {
            return Ok(());
        }
        path.push(module);
        for next in table.get(module).into_iter().flatten() {
            visit(next, table, path, done)?;
        }
        path.pop();
        Ok(())
    }
    let mut done = BTreeSet::new();
    for module in table.keys() {
        if let Err(cycle) = visit(module, &table, &mut Vec::new(), &mut done) {
            panic!("the runtime table has a cycle: {cycle}");
        }
    }
}

#[test]
fn the_scanner_reads_paths_groups_and_skips_tests_and_comments() {
    let text = "use crate::error::ToolError;\n// crate::engine in words\nuse crate::{store::Work, rate};\nfn f() -> crate::ToolError { todo!() }\n#[cfg(test)]\nmod tests {\n    use crate::gauntlet;\n}\n#[cfg(test)]\nmod more;\n";
    let found = imports(&code(text), "crate::");
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["error", "rate", "store"]
    );
    // In an adapter crate: the core's paths, not its own, nor another crate's that ends alike.
    let adapter = "use crate::handler::McpServer;\nuse toolspec_core::engine::Runtime;\nuse not_toolspec_core::cursor;\n";
    let found = imports(&code(adapter), "toolspec_core::");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["engine"]);
}
