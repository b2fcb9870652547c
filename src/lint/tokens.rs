//! What a tool definition costs in an agent's context, in tokens.
//!
//! Every tool definition a host loads is sent with every request, so its cost is paid on every
//! turn. The count follows OpenAI's published estimate for functions (o200k_base): per tool 7
//! tokens plus the tokens of `name:description`; if it has parameters 3, plus for each
//! parameter 3 and the tokens of `name:type:description`; for enums -3 once, then 3 plus the
//! tokens of each value. Text is counted by [`count`], the one place to switch to a real
//! tokenizer: until then it estimates 4 characters per token, which is close for English.

use crate::model::{Field, Tool};
use crate::model::describe::tool_description;

/// Tokens in `text` (estimated: one per 4 characters, rounded up).
pub fn count(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Estimated tokens of one tool's definition as a provider sees it.
pub fn tool_cost(tool: &Tool) -> usize {
    let description = tool_description(tool);
    let mut total = 7 + count(&format!(
        "{}:{}",
        tool.name.text,
        description.trim_end_matches('.')
    ));
    if !tool.params.is_empty() {
        total += 3;
        for p in &tool.params {
            total += param_cost(p);
        }
    }
    total
}

fn param_cost(p: &Field) -> usize {
    let mut total = 3 + count(&format!(
        "{}:{}:{}",
        p.name,
        p.ty.json_type(),
        p.description
    ));
    if let Some(values) = p.ty.enum_values() {
        total = total.saturating_sub(3);
        for v in values {
            total += 3 + count(v);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_four_characters_a_token() {
        assert_eq!(count(""), 0);
        assert_eq!(count("abcd"), 1);
        assert_eq!(count("abcde"), 2);
    }
}
