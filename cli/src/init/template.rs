//! The made crate's files: templates embedded from `cli/templates/init/`, with their
//! `{{name}}` placeholders replaced. Nothing else happens to them (no conditions, no loops),
//! so each template reads as the file it becomes; what differs by store is a file of its own
//! (`<store>/lib.rs`...) or a placeholder's value.

use super::Store;
use heck::ToUpperCamelCase;

/// One template: where its file goes in the made crate, and its text.
type Template = (&'static str, &'static str);

/// Embeds `cli/templates/init/<file>`.
macro_rules! template {
    ($file:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/templates/init/",
            $file
        ))
    };
}

/// The files every crate gets (the spec's name is a placeholder too).
const COMMON: &[Template] = &[
    ("Cargo.toml", template!("Cargo.toml")),
    ("build.rs", template!("build.rs")),
    ("{{service}}.yaml", template!("spec.yaml")),
    ("README.md", template!("README.md")),
    (".gitignore", template!("gitignore")),
];

/// The files written for one store.
fn for_store(store: Store) -> [Template; 3] {
    match store {
        Store::Memory => [
            ("src/lib.rs", template!("memory/lib.rs")),
            ("src/main.rs", template!("memory/main.rs")),
            ("tests/gauntlet.rs", template!("memory/gauntlet.rs")),
        ],
        Store::Sqlite => [
            ("src/lib.rs", template!("sqlite/lib.rs")),
            ("src/main.rs", template!("sqlite/main.rs")),
            ("tests/gauntlet.rs", template!("sqlite/gauntlet.rs")),
        ],
        Store::Postgres => [
            ("src/lib.rs", template!("postgres/lib.rs")),
            ("src/main.rs", template!("postgres/main.rs")),
            ("tests/gauntlet.rs", template!("postgres/gauntlet.rs")),
        ],
    }
}

/// The placeholders' values.
#[derive(Debug)]
pub struct Values {
    /// `{{crate}}`: the package name (`my-shop`).
    pub crate_name: String,
    /// `{{crate_ident}}`: the library's name in Rust paths (`my_shop`).
    pub crate_ident: String,
    /// `{{service}}`: the spec's service namespace (`my_shop`).
    pub service: String,
    /// `{{Service}}`: the prefix of the generated type names (`MyShop`).
    pub service_type: String,
    /// `{{SERVICE}}`: the prefix of the server's environment variables (`MY_SHOP`).
    pub service_env: String,
    /// `{{title}}`: the toolset's title (`My shop`).
    pub title: String,
    /// `{{toolspec_path}}`: the toolspec checkout, as Cargo.toml's paths start.
    pub toolspec_path: String,
    /// `{{store}}`: `memory`, `sqlite` or `postgres`.
    pub store: &'static str,
    /// `{{runtime_features}}`: the runtime's features, quoted for a TOML array.
    pub runtime_features: &'static str,
}

impl Values {
    /// The values for crate `crate_name` on `store`, with dependencies at `toolspec_path`.
    pub fn new(crate_name: &str, store: Store, toolspec_path: &str) -> Values {
        let service = crate_name.replace('-', "_");
        let spaced = crate_name.replace(['-', '_'], " ");
        let mut title = spaced.trim().to_owned();
        if let Some(first) = title.get(..1) {
            title = first.to_ascii_uppercase() + &title[1..];
        }
        Values {
            crate_name: crate_name.to_owned(),
            crate_ident: service.clone(),
            service_type: service.to_upper_camel_case(),
            service_env: service.to_ascii_uppercase(),
            service,
            title,
            // A TOML basic string and a YAML comment: only `\` and `"` need escaping.
            toolspec_path: toolspec_path.replace('\\', "\\\\").replace('"', "\\\""),
            store: store.as_str(),
            runtime_features: match store {
                Store::Memory => r#""mcp""#,
                Store::Sqlite => r#""mcp", "sqlite""#,
                Store::Postgres => r#""mcp", "postgres""#,
            },
        }
    }

    /// The value of placeholder `key`, if it is one.
    fn get(&self, key: &str) -> Option<&str> {
        Some(match key {
            "crate" => &self.crate_name,
            "crate_ident" => &self.crate_ident,
            "service" => &self.service,
            "Service" => &self.service_type,
            "SERVICE" => &self.service_env,
            "title" => &self.title,
            "toolspec_path" => &self.toolspec_path,
            "store" => self.store,
            "runtime_features" => self.runtime_features,
            _ => return None,
        })
    }

    /// `text` with every `{{key}}` replaced by its value. A `{{` that opens no known
    /// placeholder is kept as it is.
    pub fn fill(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("{{") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            match after
                .find("}}")
                .and_then(|end| Some((end, self.get(&after[..end])?)))
            {
                Some((end, value)) => {
                    out.push_str(value);
                    rest = &after[end + 2..];
                }
                None => {
                    out.push_str("{{");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// Every file of the crate for `store`, as (path in the crate, text), in a stable order.
pub fn render(store: Store, values: &Values) -> Vec<(String, String)> {
    COMMON
        .iter()
        .chain(for_store(store).iter())
        .map(|(path, text)| (values.fill(path), values.fill(text)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{Store, Values, render};

    #[test]
    fn placeholders_are_replaced_and_nothing_else() {
        let v = Values::new("my-shop", Store::Sqlite, "../toolspec");
        assert_eq!(
            v.fill("{{crate}} {{service}} {{Service}}"),
            "my-shop my_shop MyShop"
        );
        assert_eq!(
            v.fill("format!(\"{{}}\") {{unknown}} {{"),
            "format!(\"{{}}\") {{unknown}} {{"
        );
        assert_eq!(v.title, "My shop");
    }

    #[test]
    fn every_placeholder_of_every_template_is_known() {
        for store in [Store::Memory, Store::Sqlite, Store::Postgres] {
            let v = Values::new("my-shop", store, "../toolspec");
            for (path, text) in render(store, &v) {
                for word in [
                    "{{crate",
                    "{{service",
                    "{{Service",
                    "{{title",
                    "{{toolspec",
                    "{{store",
                    "{{runtime",
                ] {
                    assert!(!text.contains(word), "{path}: `{word}` left unreplaced");
                }
            }
        }
    }
}
