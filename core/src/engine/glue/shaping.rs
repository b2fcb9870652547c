//! Shaping a result: the output union the call selected, the projection,
//! `response_format`, the token budget; and the paged list inside a result.

use super::{Serve, output};

use serde::Serialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::shape::{self};

/// Serializes a method's typed result for the call `args`, refusing one whose output union
/// holds another variant than the call's parameter names ([`Serve::selections`]).
pub(super) fn result_of<O: Serialize>(
    serve: &Serve,
    args: &Value,
    result: &O,
) -> Result<Value, ToolError> {
    let value = output(result)?;
    for s in serve.selections {
        let Some(union) = value.get(s.field).filter(|v| !v.is_null()) else {
            continue;
        };
        let want = args.get(s.param).and_then(Value::as_str);
        let got = union.get(s.tag).and_then(Value::as_str);
        if want != got {
            return Err(ToolError::internal(format!(
                "{} returned the `{}` variant {} for `{}: {}`, but its spec says the variant follows `{}`",
                serve.tool,
                s.field,
                got.map_or("without a tag".to_string(), |g| format!("`{g}`")),
                s.param,
                want.unwrap_or("(none)"),
                s.param
            )));
        }
    }
    Ok(value)
}

/// Applies the projection, `response_format` and the token budget to a result: the
/// budget is measured on what the call keeps.
pub fn shape_result(serve: &Serve, args: &Value, result: &mut Value) {
    if let Some(p) = &serve.projection {
        p.apply(args, result);
    }
    shape::apply(result, &serve.shape, serve.format(args));
    if !serve.content.is_empty() {
        crate::content::extract(result, serve.content);
    }
}

pub(super) fn str_arg<'v>(args: &'v Value, name: &str) -> Option<&'v str> {
    args.get(name).and_then(Value::as_str)
}

/// The paged list of a result: the array at `path`, object keys joined by `/` (`reviews`,
/// `result/reviews`); `None` when the result has none there (a tagged union's other
/// variant).
pub fn items_at<'v>(result: &'v Value, path: &str) -> Option<&'v Vec<Value>> {
    path.split('/')
        .try_fold(result, |v, key| v.get(key))?
        .as_array()
}

/// Cuts the list at `path` to `limit` items; how many the method gave.
pub(super) fn keep_page(result: &mut Value, path: &str, limit: u64) -> u64 {
    let list = path
        .split('/')
        .try_fold(result, |v, key| v.get_mut(key))
        .and_then(Value::as_array_mut);
    let Some(list) = list else { return 0 };
    let given = list.len() as u64;
    list.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    given
}
