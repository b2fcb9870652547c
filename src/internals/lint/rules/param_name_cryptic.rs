//! `param-name-cryptic`: parameters have names a careful engineer would choose.

use super::prelude::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "param-name-cryptic",
    severity: Severity::Warning,
    set: Set::Minimal,
    category: Category::Names,
    summary: "Parameter names are words, not `q`, `n`, `x`, or a bare `id` or `user`.",
    what: "Reports a parameter (or a field nested in one) whose name is a single letter, a bare \
           `id` or `user`, or a throwaway abbreviation (`val`, `obj`, `str`, `num`, `tmp`, \
           `args`, `data`, `input`...).",
    why: "The model fills arguments from their names first and their descriptions second. `q` \
          and `n` say nothing; a bare `id` or `user` is ambiguous as soon as a tool deals with \
          two kinds of things (the ticket's id or the customer's?), and the model will pass \
          whichever id it has at hand.",
    bad: "params:\n  q: { type: string, description: Query., example: login }\n  n: { type: integer, description: Count., example: 5 }",
    good: "params:\n  query: { type: string, description: Words to match in ticket titles., max_length: 200, example: login loop }",
    fix: "Rename the parameter to what it holds: `query`, `limit`, `customer_email`, `ticket_id`.",
    check,
};

const CRYPTIC: &[&str] = &[
    "arg", "args", "cnt", "data", "dt", "foo", "id", "idx", "input", "msg", "num", "obj", "opts",
    "param", "params", "qs", "str", "temp", "tmp", "user", "val", "value",
];

fn suggestion(name: &str) -> &'static str {
    match name {
        "q" | "qs" => "`query`",
        "n" | "num" | "cnt" => "`limit` or `count`",
        "e" => "`email` or `customer_email`",
        "id" => "`<thing>_id`, like `ticket_id`",
        "user" => "`user_id`, `username` or `user_email`",
        "msg" => "`message`",
        "dt" => "`created_after` or another date with its meaning",
        _ => "a word that says what it holds",
    }
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, tool) in cx.tools() {
        walk(&tool.params, &mut |s: &Slot| {
            if s.is_items {
                return;
            }
            let name = s.field.name.as_str();
            if name.chars().count() == 1 || CRYPTIC.contains(&name) {
                out.push(
                    Finding::on(
                        tool,
                        s.field.span,
                        format!(
                            "parameter `{}` of `{}` has a cryptic name",
                            s.path, tool.name.text
                        ),
                    )
                    .label("say what it holds")
                    .help(format!("rename it {}", suggestion(name))),
                );
            }
        });
    }
}
