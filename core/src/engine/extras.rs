//! Undo handles for reversible tools.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::error::ToolError;

/// How to build the exact inverse call of a reversible tool, as static data.
#[derive(Debug, Clone, Copy)]
pub struct UndoSpec {
    /// The tool that undoes this one (`tickets_reopen` for `tickets_close`).
    pub tool: &'static str,
    /// Its arguments: `(argument name, JSON Pointer into this tool's result)`.
    pub arguments: &'static [(&'static str, &'static str)],
    /// Whether the undo tool takes an `idempotency_key`.
    pub takes_idempotency_key: bool,
}

/// Adds `"undo": {"tool": ..., "arguments": {...}}` to `result`.
///
/// Call it inside the closure given to [`crate::engine::Runtime::idempotent`], so the undo is
/// stored with the result and a replay returns the very same undo. When the undo tool takes
/// an idempotency key and the original call had one, the undo's key is [`undo_key`] of it:
/// retrying the undo is then as safe as retrying the original. Without an original key none
/// is derived (a key made from the arguments alone would make a later, separate undo of the
/// same record replay the earlier one instead of running).
///
/// A pointer that finds nothing in the result is a server bug (the result does not match
/// the output schema): an `internal_error`.
pub fn attach_undo(
    result: &mut Value,
    spec: &UndoSpec,
    original_key: Option<&str>,
) -> Result<(), ToolError> {
    let mut arguments = Map::new();
    for (name, pointer) in spec.arguments {
        let value = result.pointer(pointer).cloned().ok_or_else(|| {
            ToolError::internal(format!(
                "undo argument '{name}' of {}: nothing at {pointer} in the result",
                spec.tool
            ))
        })?;
        arguments.insert((*name).to_owned(), value);
    }
    if spec.takes_idempotency_key
        && let Some(key) = original_key
    {
        arguments.insert("idempotency_key".into(), undo_key(key).into());
    }
    let Value::Object(map) = result else {
        return Err(ToolError::internal(format!(
            "result for undo via {} is not an object",
            spec.tool
        )));
    };
    map.insert(
        "undo".into(),
        json!({ "tool": spec.tool, "arguments": arguments }),
    );
    Ok(())
}

/// The idempotency key of the undo of a call made with `key`: `undo-<key>`, or, when that
/// would pass the 255-character limit, `undo-<SHA-256 hex of key>`. Deterministic, so a
/// replayed result carries the same undo key.
pub fn undo_key(key: &str) -> String {
    let plain = format!("undo-{key}");
    if plain.chars().count() <= 255 {
        plain
    } else {
        format!(
            "undo-{}",
            crate::random::hex(&Sha256::digest(key.as_bytes()))
        )
    }
}
