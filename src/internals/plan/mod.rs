//! Facts about a tool that several outputs state, worked out once from the model: how the
//! runtime serves it, the behaviour hints hosts read, which output fields only detailed
//! responses carry, its JSON Schemas ([`schema`]), its served definition ([`Definition`])
//! and its entry as each provider reads it ([`providers`]).
//!
//! An emitter that needs one of these reads it here, typed, instead of computing it again
//! or reading it back from another emitter's output; so the MCP list, the server layer and
//! the gauntlet tests cannot disagree about them.

mod definition;
pub mod providers;
pub mod schema;

pub use definition::Definition;

use serde::Serialize;

use crate::model::{Effect, Field, Kind, Tier, Tool};

/// How the runtime serves a tool: which function of the generated dispatcher's glue runs
/// around the user's method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serving {
    /// A read: typed input, shaped result.
    Read,
    /// A paged read: a window from the cursor, a page back, `total` and `next_cursor`.
    Paged,
    /// A reversible write: idempotency key, unit of work, the undo call.
    Reversible,
    /// An irreversible write: a preview first, then the approved apply.
    Gated,
    /// A low-risk irreversible write: idempotency key, unit of work, one call.
    Once,
}

impl Serving {
    /// How `t` is served, from its tier and paging.
    pub fn of(t: &Tool) -> Self {
        match (t.tier, &t.paging) {
            (Tier::ReadOnly, Some(_)) => Serving::Paged,
            (Tier::ReadOnly, None) => Serving::Read,
            // Previewed first, then applied with its undo attached.
            (Tier::Reversible, _) if t.preview.is_some() => Serving::Gated,
            (Tier::Reversible, _) => Serving::Reversible,
            (Tier::Irreversible, _) if t.low_risk.is_some() => Serving::Once,
            (Tier::Irreversible, _) => Serving::Gated,
        }
    }

    /// The glue function's name (`paged`).
    pub fn as_str(self) -> &'static str {
        match self {
            Serving::Read => "read",
            Serving::Paged => "paged",
            Serving::Reversible => "reversible",
            Serving::Gated => "gated",
            Serving::Once => "once",
        }
    }
}

/// The four behaviour hints, from the tool's tier:
///
/// | hint | read_only | reversible | irreversible |
/// |---|---|---|---|
/// | `readOnlyHint` | true | false | false |
/// | `destructiveHint` | false | false | true (false when `low_risk`: it only adds) |
/// | `idempotentHint` | true | with a required idempotency key, unless `remote_unprotected` | ← |
/// | `openWorldHint` | the spec's `open_world` | ← | ← |
///
/// Serialized as MCP's `annotations`, it states only the hints the runtime's
/// [`toolspec_runtime::engine::Annotations::stated`] gives: the one rule for what a served
/// list and a generated `tools.mcp.json` say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    /// The tool changes nothing.
    pub read_only_hint: bool,
    /// The tool's change cannot be undone.
    pub destructive_hint: bool,
    /// Repeating the same call has no further effect.
    pub idempotent_hint: bool,
    /// The tool reaches outside the service's own data.
    pub open_world_hint: bool,
}

impl Annotations {
    /// The hints of `t`.
    pub fn of(t: &Tool) -> Self {
        Annotations {
            read_only_hint: t.tier == Tier::ReadOnly,
            destructive_hint: t.tier == Tier::Irreversible && t.low_risk.is_none(),
            // A call without a key (`key_optional`) runs again each time it is sent, and a
            // remote change nothing protects may be made again by a retry.
            idempotent_hint: t.tier == Tier::ReadOnly
                || (t.effect != Effect::RemoteUnprotected
                    && t.idempotency
                        .as_ref()
                        .is_some_and(|i| i.key_optional.is_none())),
            open_world_hint: t.open_world,
        }
    }
}

impl Annotations {
    /// The runtime's form of the same hints.
    pub fn runtime(self) -> toolspec_runtime::engine::Annotations {
        toolspec_runtime::engine::Annotations {
            read_only: self.read_only_hint,
            destructive: self.destructive_hint,
            idempotent: self.idempotent_hint,
            open_world: self.open_world_hint,
        }
    }
}

impl Serialize for Annotations {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let hints = self.runtime().stated();
        let mut map = serializer.serialize_map(Some(hints.len()))?;
        for (hint, value) in hints {
            map.serialize_entry(hint.mcp_name(), &value)?;
        }
        map.end()
    }
}

/// The paths of `t`'s detailed-only output fields, as the runtime's `Serve` and the
/// gauntlet's facts list them (`tickets/*/customer_email`).
pub fn detailed_only(t: &Tool) -> Vec<String> {
    let mut out = Vec::new();
    detailed_paths(
        t.output
            .iter()
            .filter(|f| f.origin == crate::model::Origin::Spec),
        "",
        &mut out,
    );
    out
}

/// Paths of detailed-only fields in the runtime's syntax: keys joined by `/`, `*` for every
/// item of a list (`tickets/*/customer_email`).
fn detailed_paths<'a>(
    fields: impl Iterator<Item = &'a Field>,
    prefix: &str,
    out: &mut Vec<String>,
) {
    for f in fields {
        let mut path = if prefix.is_empty() {
            f.name.clone()
        } else {
            format!("{prefix}/{}", f.name)
        };
        if f.detailed_only {
            out.push(path);
            continue;
        }
        let mut ty = &f.ty;
        while let Kind::Array { items, .. } = &ty.kind {
            path.push_str("/*");
            ty = items;
        }
        if let Kind::Object { fields, .. } = &ty.kind {
            detailed_paths(fields.iter(), &path, out);
        }
    }
}
