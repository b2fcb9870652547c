//! `docs/lint-rules.md` is generated from the rules' declarations and must be fresh.
//!
//! After changing a rule, regenerate it with `UPDATE_GOLDEN=1 cargo test --features tokens --test it lint_docs::`.

#[test]
fn lint_rules_page_is_fresh() {
    let path = "docs/lint-rules.md";
    let expected = toolspec::internals::lint::docs::page();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all("docs").expect("docs dir");
        std::fs::write(path, &expected).expect("write docs");
        return;
    }
    let actual = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        actual == expected,
        "{path} is stale: run `UPDATE_GOLDEN=1 cargo test --features tokens --test it lint_docs::`"
    );
}

#[test]
fn page_documents_every_rule() {
    let page = toolspec::internals::lint::docs::page();
    for r in toolspec::internals::lint::rules::ALL {
        assert!(
            page.contains(&format!("### `{}`", r.id)),
            "no section for {}",
            r.id
        );
        assert!(page.contains(r.why), "no why for {}", r.id);
    }
}
