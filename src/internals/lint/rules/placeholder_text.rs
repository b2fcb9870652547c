//! `placeholder-text`: no TODO, TBD, lorem ipsum or one-word descriptions.

use super::prelude::*;
use crate::diagnostics::Span;
use regex::Regex;
use std::sync::OnceLock;

/// The rule.
pub static RULE: Rule = Rule {
    id: "placeholder-text",
    severity: Severity::Error,
    set: Set::Minimal,
    category: Category::Descriptions,
    summary: "Descriptions are not placeholders (TODO, TBD, lorem ipsum, a lone \"Searches.\").",
    what: "Reports any text an agent reads (the toolset description, a tool's title, summary, \
           returns, use_when and not_for, field descriptions, error messages) that contains \
           TODO, TBD, FIXME, XXX, lorem ipsum or \"description here\"; and a toolset \
           description, summary, returns or use_when of a single word.",
    why: "The model reads descriptions on every call and trusts them. A placeholder ships \
          without anyone noticing because the code works, and the model is left to guess what \
          the tool does from its name: \"Searches.\" does not say what is searched, what comes \
          back, or when to use something else.",
    bad: "summary: Searches.\nreturns: TODO",
    good: "summary: Search support tickets by free text, optionally filtered by status.\nreturns: matching tickets (id, title, status), best match first, with the total count.",
    fix: "Write the real text: what the tool does, what it returns, when to use it.",
    check,
};

fn marker() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)\b(todo|tbd|fixme|xxx|lorem|ipsum)\b|description here|fill (this )?in|\?\?\?",
        )
        .expect("valid regex")
    })
}

fn one_word(text: &str) -> bool {
    text.split_whitespace().count() == 1
}

fn test(text: &str, single_word_counts: bool) -> Option<String> {
    if let Some(m) = marker().find(text) {
        return Some(format!("placeholder `{}`", m.as_str()));
    }
    if single_word_counts && one_word(text) {
        return Some(format!("a single word (`{}`)", text.trim()));
    }
    None
}

fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let mut report = |tool: Option<&Tool>, span: Span, what: &str, text: &str, single: bool| {
        if let Some(why) = test(text, single) {
            let msg = format!("{what} is a placeholder: {why}");
            let f = match tool {
                Some(t) => Finding::on(t, span, msg),
                None => Finding::at(span, msg),
            };
            out.push(f.label("placeholder text"));
        }
    };
    for ts in cx.toolsets() {
        report(
            None,
            ts.description.span,
            "the toolset description",
            &ts.description.text,
            true,
        );
        for e in ts.errors.iter().filter(|e| !e.builtin) {
            report(
                None,
                e.span,
                &format!("the message of `{}`", e.code),
                &e.message,
                false,
            );
        }
        for nt in &ts.types {
            if let Some(d) = &nt.ty.description {
                report(
                    None,
                    nt.span,
                    &format!("the description of type `{}`", nt.name),
                    d,
                    false,
                );
            }
        }
    }
    for (_, tool) in cx.tools() {
        let t = Some(tool);
        let name = &tool.name.text;
        report(
            t,
            tool.title.span,
            &format!("the title of `{name}`"),
            &tool.title.text,
            false,
        );
        report(
            t,
            tool.summary.span,
            &format!("the summary of `{name}`"),
            &tool.summary.text,
            true,
        );
        report(
            t,
            tool.returns.span,
            &format!("`returns` of `{name}`"),
            &tool.returns.text,
            true,
        );
        if let Some(u) = &tool.use_when {
            report(t, u.span, &format!("`use_when` of `{name}`"), &u.text, true);
        }
        for nf in &tool.not_for {
            report(
                t,
                nf.when.span,
                &format!("a `not_for` of `{name}`"),
                &nf.when.text,
                false,
            );
        }
        for fields in [&tool.params, &tool.output] {
            walk(fields, &mut |s: &Slot| {
                if !s.is_items && s.field.origin == crate::model::Origin::Spec {
                    report(
                        t,
                        s.field.span,
                        &format!("the description of `{}`", s.path),
                        &s.field.description,
                        false,
                    );
                }
            });
        }
    }
}
