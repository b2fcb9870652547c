//! `toolspec::Builder`, the build-script way in: it writes `<out>/<service>.rs` with the same
//! bytes as the CLI, rewrites files only when their bytes change, and fails with a report
//! that locates every spec problem.
//!
//! Run: `cargo test --features tokens --test it codegen_builder::`.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use toolspec::{BuildError, Builder};

use crate::common;
use common::{example_specs, root};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolspec-builder-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn writes_the_cli_bytes_and_only_when_they_change() {
    let out = scratch("write");
    let builder = Builder::new()
        .specs(example_specs())
        .generate_only("tickets")
        .out_dir(&out)
        .emit_rerun_if_changed(false);
    let written = builder.compile().unwrap();
    let module = out.join("tickets.rs");
    assert!(written.contains(&module), "{written:?}");
    assert!(!out.join("orders.rs").exists(), "only the selected service");
    let cli = std::fs::read_to_string(root().join("generated/tickets/tickets.rs")).unwrap();
    assert!(
        std::fs::read_to_string(&module).unwrap() == cli,
        "same bytes as the CLI"
    );

    // Unchanged bytes are not rewritten: the modification time stays where it was put.
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(&module)
        .unwrap()
        .set_modified(old)
        .unwrap();
    builder.compile().unwrap();
    assert_eq!(std::fs::metadata(&module).unwrap().modified().unwrap(), old);

    // Changed bytes are.
    std::fs::write(&module, "stale").unwrap();
    builder.compile().unwrap();
    assert!(std::fs::read_to_string(&module).unwrap() == cli);
}

#[test]
fn an_unknown_service_names_the_loaded_ones() {
    let err = Builder::new()
        .specs(example_specs())
        .generate_only("tikets")
        .out_dir(scratch("unknown"))
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, BuildError::Usage(_)), "{text}");
    assert!(text.contains("generate_only(\"tikets\")"), "{text}");
    assert!(text.contains("tickets"), "{text}");
}

#[test]
fn spec_problems_fail_the_build_with_their_location() {
    let dir = scratch("bad");
    let spec = dir.join("bad.yaml");
    std::fs::write(
        &spec,
        "toolspec: 1\nservice: bad\ntitle: Bad\ndescription: Broken.\ntools:\n  - name: bad_get\n    title: Get\n    summary: Get.\n    returns: it.\n    tier: read_only\n    output:\n      x: { type: strin, description: X., example: a }\n",
    )
    .unwrap();
    let err = Builder::new()
        .spec(&spec)
        .out_dir(&dir)
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap_err();
    let text = format!("{err:?}");
    assert!(matches!(err, BuildError::Spec(_)), "{text}");
    assert!(
        text.contains("bad.yaml:12:"),
        "Debug shows the located report: {text}"
    );
    assert!(text.contains("unknown type `strin`"), "{text}");
    assert!(!dir.join("bad.rs").exists(), "nothing written");
}

#[test]
fn usage_mistakes_are_explained() {
    let no_specs = Builder::new()
        .out_dir(scratch("none"))
        .compile()
        .unwrap_err();
    assert!(no_specs.to_string().contains("no spec given"), "{no_specs}");
    let missing = Builder::new()
        .spec("no/such.yaml")
        .out_dir(scratch("missing"))
        .emit_rerun_if_changed(false)
        .compile()
        .unwrap_err();
    assert!(
        missing.to_string().contains("cannot read no/such.yaml"),
        "{missing}"
    );
}
