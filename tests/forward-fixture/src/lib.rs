//! The Petstore, Svix and GitHub (pulls) drafts of `toolspec import openapi`, compiled as imported: their
//! types, traits, servers and the generated forwarding implementations (`PetstoreApi`,
//! `SvixApi`, `GithubApi`) that send each call to the API.

/// Generated from `tests/import/drafts/petstore.yaml`.
#[allow(missing_docs)]
pub mod petstore {
    include!(concat!(env!("OUT_DIR"), "/petstore.rs"));
}

/// Generated from `tests/import/drafts/svix.yaml`.
#[allow(missing_docs)]
pub mod svix {
    include!(concat!(env!("OUT_DIR"), "/svix.rs"));
}

/// Generated from `tests/import/drafts/github.yaml` (the `pulls` tag).
#[allow(missing_docs)]
pub mod github {
    include!(concat!(env!("OUT_DIR"), "/github.rs"));
}
