//! Reads a "may import" table of `docs/architecture.md` and the imports of the code it
//! governs: shared by the generator's test (`tests/it/architecture.rs`) and the runtime's
//! (`runtime/tests/it/architecture.rs`), so both hold their code to their table the same way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// module -> the modules it may import, or imports.
pub type Imports = BTreeMap<String, BTreeSet<String>>;

/// The table under `heading` in `page`: for each row, the modules of its second cell and the
/// modules of its third. A module is a backticked name outside parentheses, so a row may
/// say in parentheses what a module is; `nothing` is no module.
pub fn table(page: &Path, heading: &str) -> Imports {
    let text = std::fs::read_to_string(page).expect("the architecture page");
    let section = text
        .split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("{} has no `{heading}` section", page.display()));
    let mut rows = BTreeMap::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() != 3 || cells[0] == "layer" || cells[0].starts_with("---") {
            continue;
        }
        for module in names(cells[1]) {
            rows.insert(module, names(cells[2]));
        }
    }
    rows
}

/// The backticked names of `cell` outside parentheses.
fn names(cell: &str) -> BTreeSet<String> {
    let mut outside = String::new();
    let mut depth = 0usize;
    for c in cell.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    outside
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .filter(|n| !n.is_empty() && n != "nothing")
        .collect()
}

/// `text` without comment lines and without the `#[cfg(test)]` modules rustfmt writes (from
/// the attribute to the line that closes the module at its indentation).
pub fn code(text: &str) -> String {
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

/// How the paths of one crate are read: the prefix its modules are named through, the
/// modules there are, and the names that stand for a module (a re-export at the root, a
/// module in a hidden one).
pub struct Scan<'a> {
    /// `crate::`, or `toolspec_core::` in an adapter crate.
    pub prefix: &'a str,
    /// The modules a path may name.
    pub modules: &'a BTreeSet<String>,
    /// Name at the root -> the module it comes from (`ToolError` -> `error`); a name mapped
    /// to the empty string is a hidden module whose next segment is the module
    /// (`internals`).
    pub aliases: &'a [(&'a str, &'a str)],
}

impl Scan<'_> {
    /// The modules `code` names through the prefix.
    pub fn imports(&self, code: &str) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        let mut rest = code;
        while let Some(at) = rest.find(self.prefix) {
            // The prefix itself, not the end of a longer name (`not_crate::`).
            let before = rest[..at].chars().next_back();
            rest = &rest[at + self.prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let paths: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .map(str::trim)
                    .collect(),
                None => vec![
                    rest.split(|c: char| !c.is_alphanumeric() && c != '_' && c != ':')
                        .next()
                        .unwrap_or(""),
                ],
            };
            for path in paths {
                let mut segments = path.split("::");
                let mut head = segments.next().unwrap_or("");
                if let Some((_, to)) = self.aliases.iter().find(|(from, _)| *from == head) {
                    head = if to.is_empty() {
                        segments.next().unwrap_or("")
                    } else {
                        to
                    };
                }
                if self.modules.contains(head) {
                    found.insert(head.to_string());
                }
            }
        }
        found
    }

    /// What the files of `path` (a module's file or directory, or a crate's `src`) import.
    pub fn imports_of(&self, path: &Path) -> BTreeSet<String> {
        let mut all = Vec::new();
        files(path, &mut all);
        let mut used = BTreeSet::new();
        for file in all {
            let text = std::fs::read_to_string(&file).expect("a source file");
            used.extend(self.imports(&code(&text)));
        }
        used
    }
}

/// Every `.rs` file of a module (a file, or a directory), but its test files.
pub fn files(path: &Path, out: &mut Vec<PathBuf>) {
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

/// The top-level modules of `src`: each file or directory but the root (`lib.rs`, `main.rs`,
/// `mod.rs`) and `skip`.
pub fn modules_of(src: &Path, skip: &[&str]) -> BTreeMap<String, PathBuf> {
    let mut modules = BTreeMap::new();
    for entry in std::fs::read_dir(src)
        .expect("a source directory")
        .flatten()
    {
        let path = entry.path();
        let name = path.file_stem().and_then(|n| n.to_str()).unwrap_or("");
        if matches!(name, "lib" | "main" | "mod") || skip.contains(&name) {
            continue;
        }
        modules.insert(name.to_string(), path);
    }
    modules
}

/// What breaks the table: a module without a row, an import its row does not allow, a row
/// for no module (`what` names the code, for the message).
pub fn violations(table: &Imports, modules: &Imports, what: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    for (module, used) in modules {
        let Some(allowed) = table.get(module) else {
            wrong.push(format!(
                "`{module}` has no row in docs/architecture.md's {what} table: place it in a layer"
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
            "the {what} table names `{module}`, which is not a module of the {what}"
        ));
    }
    wrong
}

/// A cycle of the table (`a -> b -> a`), if it has one.
pub fn cycle(table: &Imports) -> Option<String> {
    // Depth-first, keeping the path: a module met again on its own path closes a cycle.
    fn visit<'t>(
        module: &'t str,
        table: &'t Imports,
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
    table
        .keys()
        .find_map(|module| visit(module, table, &mut Vec::new(), &mut done).err())
}
