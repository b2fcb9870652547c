//! Accepting a call's arguments: validation, defaults, authorization, the typed input;
//! and the typed output back to JSON.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::super::ToolDefinition;
use crate::error::ToolError;

/// Validates a call (every problem at once) and normalizes it ([`crate::validate::normalize`]:
/// defaults filled, `null` optionals dropped, `3.0` in integer fields written `3`), so typed
/// inputs deserialize and fingerprints agree.
pub fn prepare(definition: &ToolDefinition, arguments: Value) -> Result<Value, ToolError> {
    definition.prepare(arguments)
}

/// Validates a call and deserializes it into the tool's typed input; returns both, the
/// arguments for what reads them afterwards (control parameters, fingerprints).
///
/// A valid call takes the fast path ([`crate::validate::prepare_fast`]: one walk over its
/// own keys that builds nothing, its top-level defaults filled) and deserializes straight
/// into `I`. Anything else goes the full way: [`prepare`] lists every problem of a refused
/// call at once, or normalizes one that serde's types take only normalized (`3.0` for an
/// integer, a nested default), then the input is deserialized. Both ways accept exactly
/// the same calls, by the same rules. Before any of it, a caller whose token lacks one of
/// the tool's scopes is refused (`insufficient_scope`).
pub fn accept<I: DeserializeOwned>(
    definition: &ToolDefinition,
    mut arguments: Value,
) -> Result<(I, Value), ToolError> {
    authorized(definition)?;
    if let Value::Object(map) = &mut arguments
        && crate::validate::prepare_fast(definition.input, map)
        && let Ok(typed) = I::deserialize(&arguments)
    {
        crate::validate::record_cleared(definition.input, &mut arguments);
        return Ok((typed, arguments));
    }
    let arguments = prepare(definition, arguments)?;
    let typed = input(&arguments)?;
    Ok((typed, arguments))
}

/// Refuses a caller whose token lacks a scope `definition` needs, before its arguments are
/// even read: `insufficient_scope`, nothing done. The HTTP transport refuses such a call
/// with `403` first; this holds every other way in (a transport of the user's own, a direct
/// call in a caller's scope) to the same rule. The local user (no caller) is never refused.
pub(super) fn authorized(definition: &ToolDefinition) -> Result<(), ToolError> {
    let Some(caller) = crate::caller::Caller::current() else {
        return Ok(());
    };
    let missing = caller.missing(definition.scopes);
    if missing.is_empty() {
        return Ok(());
    }
    Err(ToolError::insufficient_scope(
        definition.name,
        definition.scopes,
        &missing,
    ))
}

/// Deserializes the prepared arguments into the tool's typed input (control parameters
/// are ignored). Validation already passed, so a failure here is a generator bug: an
/// `internal_error`.
pub fn input<I: DeserializeOwned>(args: &Value) -> Result<I, ToolError> {
    I::deserialize(args).map_err(|e| ToolError::internal(format!("typed input: {e}")))
}

/// Serializes a method's typed result.
pub fn output<O: Serialize>(result: &O) -> Result<Value, ToolError> {
    serde_json::to_value(result).map_err(|e| ToolError::internal(format!("typed output: {e}")))
}
