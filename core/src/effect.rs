//! [`Effect`]: where a write's change happens. A word of the runtime's vocabulary, below the
//! errors that speak of it and the stores that keep it; [`crate::store::Remote`] says what a
//! method whose change happens at another service is handed.

/// Where a write's change happens: the spec's `effect`, which decides what the tool's
/// words promise about a retry and what its method is handed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Effect {
    /// In the runtime's store, through [`Work`](crate::store::Work): exactly once per key.
    #[default]
    Store,
    /// At a service that honours the forwarded [`Remote::key`](crate::store::Remote::key).
    RemoteKeyed,
    /// At a service the method can query for an earlier attempt's change
    /// ([`Remote::earlier_attempt`](crate::store::Remote::earlier_attempt)).
    RemoteLookup,
    /// At a service with neither: at least once.
    RemoteUnprotected,
}

impl Effect {
    /// Whether the change happens outside the runtime's store.
    pub const fn is_remote(self) -> bool {
        !matches!(self, Effect::Store)
    }

    /// The value as a spec writes it (`remote_keyed`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Effect::Store => "store",
            Effect::RemoteKeyed => "remote_keyed",
            Effect::RemoteLookup => "remote_lookup",
            Effect::RemoteUnprotected => "remote_unprotected",
        }
    }
}
