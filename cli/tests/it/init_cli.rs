//! `toolspec init` as a user runs it: the crate it makes for each store, byte for byte, and
//! what it refuses (a directory in use, a bad crate name, an unknown store) with the fix.
//!
//! The golden crates are `tests/init/<store>/`, made with `--name my-shop --toolspec-path
//! ../../..` (so each is a crate that builds where it lies, against this checkout), and
//! `tests/init/<store>.stdout` is what the command printed. Read a changed golden file as a
//! newcomer would: it is their first server. To rewrite them after an intended change:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test -p toolspec-cli --test it init_cli::
//! ```
//!
//! That the made crates build, pass their gauntlet and serve is tests/e2e/test_init.py.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common;

const STORES: [&str; 3] = ["memory", "sqlite", "postgres"];

/// A fresh empty scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolspec-init-{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `toolspec args...` in `dir`.
fn toolspec(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run toolspec")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `dir`, by its path relative to `dir` (with `/`), and its text.
fn files(dir: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).expect("under root");
                let name = relative.to_string_lossy().replace('\\', "/");
                let body = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.insert(name, body);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Makes the golden crate of `store` in a scratch directory: the crate's directory, and
/// what the command printed.
fn make(scratch: &Scratch, store: &str) -> (PathBuf, String) {
    let args = [
        "init",
        store,
        "--name",
        "my-shop",
        "--store",
        store,
        "--toolspec-path",
        "../../..",
    ];
    let out = toolspec(&scratch.0, &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    (scratch.0.join(store), text(&out.stdout))
}

#[test]
fn each_store_makes_its_golden_crate() {
    let updating = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for store in STORES {
        let scratch = Scratch::new(store);
        let (made, stdout) = make(&scratch, store);
        let golden_dir = common::root().join("tests/init").join(store);
        let golden_stdout = common::root().join(format!("tests/init/{store}.stdout"));
        let got = files(&made);
        if updating {
            let _ = std::fs::remove_dir_all(&golden_dir);
            for (name, body) in &got {
                let path = golden_dir.join(name);
                std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
                std::fs::write(&path, body).expect("write golden file");
            }
            std::fs::write(&golden_stdout, &stdout).expect("write golden stdout");
        }
        let expected = if golden_dir.is_dir() {
            files(&golden_dir)
        } else {
            BTreeMap::new()
        };
        for (name, body) in &got {
            match expected.get(name) {
                Some(want) if want == body => {}
                Some(want) => failures.push(format!(
                    "{store}/{name} differs from the golden file\n--- expected\n{want}\n--- actual\n{body}"
                )),
                None => failures.push(format!("{store}/{name} is made but has no golden file")),
            }
        }
        for name in expected.keys().filter(|n| !got.contains_key(*n)) {
            failures.push(format!("{store}/{name} is golden but no longer made"));
        }
        let want_stdout = std::fs::read_to_string(&golden_stdout).unwrap_or_default();
        if stdout != want_stdout {
            failures.push(format!(
                "{store}: stdout differs from {}\n--- expected\n{want_stdout}\n--- actual\n{stdout}",
                golden_stdout.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s); rerun with UPDATE_GOLDEN=1 if the new output is intended:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn by_default_the_crate_depends_on_versions_and_holds_the_spec_schema() {
    let scratch = Scratch::new("versions");
    let out = toolspec(&scratch.0, &["init", "shop", "--store", "postgres"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let made = files(&scratch.0.join("shop"));
    let manifest = &made["Cargo.toml"];
    let version = format!(
        "version = \"{}.{}\"",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR")
    );
    assert!(!manifest.contains("path ="), "{manifest}");
    for dependency in [
        format!("toolspec-runtime = {{ {version}, features = [\"mcp\", \"postgres\"] }}"),
        format!(
            "toolspec-runtime = {{ {version}, features = [\"mcp\", \"postgres\", \"gauntlet\"] }}"
        ),
        format!("toolspec = {{ {version} }}"),
    ] {
        assert!(
            manifest.contains(&dependency),
            "{dependency} in\n{manifest}"
        );
    }
    // Editors find the spec format's schema beside the spec: `toolspec schema`'s own.
    assert!(
        made["shop.yaml"].starts_with("# yaml-language-server: $schema=toolspec.schema.json\n")
    );
    let schema = toolspec(&scratch.0, &["schema"]);
    assert_eq!(made["toolspec.schema.json"], text(&schema.stdout));
    assert!(
        text(&out.stdout).contains("toolspec.schema.json"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn each_made_spec_checks_and_lints_clean() {
    for store in STORES {
        let scratch = Scratch::new(store);
        let (made, _) = make(&scratch, store);
        let spec = made.join("my_shop.yaml");
        let loaded = toolspec::load(&[&spec]).expect("the spec is read");
        assert!(
            loaded.diagnostics.is_empty(),
            "{store}: {}",
            loaded.diagnostics.render(&loaded.sources)
        );
        let options = toolspec::internals::lint::Options::default();
        let lint = toolspec::internals::lint::lint(&loaded.model, &options);
        assert!(lint.is_empty(), "{store}: {}", lint.render(&loaded.sources));
        assert_eq!(loaded.model.toolsets[0].tools.len(), 3, "one tool per tier");
    }
}

#[test]
fn a_directory_in_use_is_refused_and_left_alone() {
    let scratch = Scratch::new("used");
    std::fs::create_dir_all(scratch.0.join("shop")).expect("mkdir");
    std::fs::write(scratch.0.join("shop/notes.txt"), "mine").expect("write");
    let out = toolspec(&scratch.0, &["init", "shop"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("`shop` already exists and is not empty")
            && err.contains("help: choose a new directory"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(
        files(&scratch.0.join("shop")).len(),
        1,
        "nothing was written"
    );
    // A file where the directory would go is refused too.
    let out = toolspec(&scratch.0, &["init", "shop/notes.txt", "--name", "shop"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not a directory"),
        "{}",
        text(&out.stderr)
    );
    // An empty directory is fine: `toolspec init` in one made with mkdir.
    std::fs::create_dir_all(scratch.0.join("empty-shop")).expect("mkdir");
    let out = toolspec(&scratch.0.join("empty-shop"), &["init"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(scratch.0.join("empty-shop/empty_shop.yaml").is_file());
    assert!(
        text(&out.stdout).contains("\n  cargo test && cargo run\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_bad_crate_name_is_refused_with_one_that_would_do() {
    let scratch = Scratch::new("names");
    let cases = [
        (
            vec!["init", "My Shop"],
            "invalid crate name `My Shop`",
            "--name my-shop",
        ),
        (
            vec!["init", "x", "--name", "2shop"],
            "start with a lower-case letter",
            "--name shop",
        ),
        (
            vec!["init", "x", "--name", "fn"],
            "Rust keyword",
            "--name fn-server",
        ),
        (
            vec!["init", "x", "--name", "café"],
            "lower-case letters, digits",
            "--name caf",
        ),
    ];
    for (args, why, fix) in cases {
        let out = toolspec(&scratch.0, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(why) && err.contains(fix), "{args:?}: {err}");
    }
    // The directory's name is the crate's unless --name says otherwise; the error says so.
    let err = text(&toolspec(&scratch.0, &["init", "My Shop"]).stderr);
    assert!(err.contains("pass `--name NAME`"), "{err}");
    assert!(files(&scratch.0).is_empty(), "nothing was written");
}

#[test]
fn an_unknown_store_is_refused_with_the_ones_there_are() {
    let scratch = Scratch::new("store");
    let out = toolspec(&scratch.0, &["init", "shop", "--store", "mysql"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("mysql") && err.contains("memory, sqlite, postgres"),
        "{err}"
    );
    assert!(!scratch.0.join("shop").exists());
}

#[test]
fn each_made_crate_is_formatted_as_cargo_fmt_would() {
    // A user's first `cargo fmt` should change nothing in what init made.
    for store in STORES {
        let scratch = Scratch::new(store);
        let (made, _) = make(&scratch, store);
        let sources: Vec<PathBuf> = files(&made)
            .into_keys()
            .filter(|name| name.ends_with(".rs"))
            .map(|name| made.join(name))
            .collect();
        let out = Command::new("rustfmt")
            .args(["--edition", "2024", "--check"])
            .args(&sources)
            .output()
            .expect("rustfmt runs (rustup component add rustfmt)");
        assert!(
            out.status.success(),
            "{store}: rustfmt would change the made crate:\n{}",
            text(&out.stdout)
        );
    }
}
