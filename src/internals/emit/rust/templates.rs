//! The embedded templates and the minijinja environment that renders them.
//!
//! Two rules keep spec text from breaking the generated code:
//! - the only filters that print spec text are `lit` (a Rust string literal) and `doc`
//!   (`#[doc = "..."]` attributes), both from [`crate::emit::code::escape`], which return
//!   *safe* values;
//! - the formatter refuses to print any string that is not safe (identifiers and type
//!   expressions come safe from [`crate::emit::code::Safe`]), and undefined values are
//!   errors ([`crate::emit::code::environment_for`]).
//!
//! So a template that prints spec text unescaped fails to render, in every test, instead
//! of producing code that breaks on the first hostile spec.

use minijinja::{Environment, Error};

use crate::emit::code::environment_for;

/// The templates, embedded so the binary and build scripts need no files at run time.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "rust/toolset.rs.j2",
        include_str!("../../../../templates/rust/toolset.rs.j2"),
    ),
    (
        "rust/types.rs.j2",
        include_str!("../../../../templates/rust/types.rs.j2"),
    ),
    (
        "rust/errors.rs.j2",
        include_str!("../../../../templates/rust/errors.rs.j2"),
    ),
    (
        "rust/trait.rs.j2",
        include_str!("../../../../templates/rust/trait.rs.j2"),
    ),
    (
        "rust/server.rs.j2",
        include_str!("../../../../templates/rust/server.rs.j2"),
    ),
    (
        "rust/forward.rs.j2",
        include_str!("../../../../templates/rust/forward.rs.j2"),
    ),
    (
        "rust/tables.rs.j2",
        include_str!("../../../../templates/rust/tables.rs.j2"),
    ),
];

/// The entry template.
pub const ENTRY: &str = "rust/toolset.rs.j2";

/// An environment with the Rust templates, the escaping filters and the strict formatter.
pub fn environment() -> Result<Environment<'static>, Error> {
    environment_for(TEMPLATES)
}
