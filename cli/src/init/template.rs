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
    // Named `.in`: a `Cargo.toml` would make cargo take the directory for a package of its own
    // and leave it out of toolspec-cli's.
    ("Cargo.toml", template!("Cargo.toml.in")),
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

/// The spec format's JSON Schema file, which a crate that depends on versions gets a copy of.
pub const SCHEMA_FILE: &str = "toolspec.schema.json";

/// Where the made crate's toolspec dependencies come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The published crates, at this version requirement (`0.1`).
    Version(String),
    /// A toolspec checkout, as Cargo.toml's paths start (relative to the crate, or absolute).
    Checkout(String),
}

impl Source {
    /// The crates at the version of this `toolspec` command: its major and minor version,
    /// which every toolspec crate shares.
    pub fn this_version() -> Source {
        Source::Version(format!(
            "{}.{}",
            env!("CARGO_PKG_VERSION_MAJOR"),
            env!("CARGO_PKG_VERSION_MINOR")
        ))
    }

    /// The dependency on the crate in directory `dir` of a checkout (`""`: its root), as
    /// the inside of a Cargo.toml inline table: `version = "0.1"` or `path = "..."`.
    fn dependency(&self, dir: &str) -> String {
        match self {
            Source::Version(v) => format!("version = \"{v}\""),
            Source::Checkout(root) => {
                let path = if dir.is_empty() {
                    root.clone()
                } else {
                    format!("{root}/{dir}")
                };
                // A TOML basic string: only `\` and `"` need escaping.
                format!(
                    "path = \"{}\"",
                    path.replace('\\', "\\\\").replace('"', "\\\"")
                )
            }
        }
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
    /// `{{runtime_source}}`: where toolspec-runtime comes from, as a Cargo.toml dependency
    /// says it (`version = "0.1"`, or `path = "<checkout>/runtime"`).
    pub runtime_source: String,
    /// `{{toolspec_source}}`: where the toolspec crate comes from, likewise.
    pub toolspec_source: String,
    /// `{{schema}}`: the spec format's JSON Schema, for editors (the crate's own copy, or
    /// the checkout's).
    pub schema: String,
    /// `{{store}}`: `memory`, `sqlite` or `postgres`.
    pub store: &'static str,
    /// `{{runtime_features}}`: the runtime's features, quoted for a TOML array.
    pub runtime_features: &'static str,
}

impl Values {
    /// The values for crate `crate_name` on `store`, with the toolspec crates from `source`.
    pub fn new(crate_name: &str, store: Store, source: &Source) -> Values {
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
            runtime_source: source.dependency("runtime"),
            toolspec_source: source.dependency(""),
            schema: match source {
                Source::Version(_) => SCHEMA_FILE.to_string(),
                Source::Checkout(dir) => format!("{dir}/{SCHEMA_FILE}"),
            },
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
            "runtime_source" => &self.runtime_source,
            "toolspec_source" => &self.toolspec_source,
            "schema" => &self.schema,
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
    use super::{Source, Store, Values, render};

    fn checkout() -> Source {
        Source::Checkout("../toolspec".into())
    }

    #[test]
    fn placeholders_are_replaced_and_nothing_else() {
        let v = Values::new("my-shop", Store::Sqlite, &checkout());
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
    fn dependencies_are_a_version_or_paths_into_a_checkout() {
        let v = Values::new("my-shop", Store::Sqlite, &Source::Version("0.1".into()));
        assert_eq!(v.runtime_source, r#"version = "0.1""#);
        assert_eq!(v.toolspec_source, r#"version = "0.1""#);
        assert_eq!(v.schema, "toolspec.schema.json");
        let v = Values::new(
            "my-shop",
            Store::Sqlite,
            &Source::Checkout(r#"C:\a "b""#.into()),
        );
        assert_eq!(v.runtime_source, r#"path = "C:\\a \"b\"/runtime""#);
        assert_eq!(v.toolspec_source, r#"path = "C:\\a \"b\"""#);
    }

    #[test]
    fn every_placeholder_of_every_template_is_known() {
        let sources = [checkout(), Source::this_version()];
        for (store, source) in [Store::Memory, Store::Sqlite, Store::Postgres]
            .into_iter()
            .flat_map(|store| sources.iter().map(move |s| (store, s)))
        {
            let v = Values::new("my-shop", store, source);
            for (path, text) in render(store, &v) {
                for word in [
                    "{{crate",
                    "{{service",
                    "{{Service",
                    "{{title",
                    "{{toolspec",
                    "{{store",
                    "{{runtime",
                    "{{schema",
                ] {
                    assert!(!text.contains(word), "{path}: `{word}` left unreplaced");
                }
            }
        }
    }
}
