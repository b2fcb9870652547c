//! Rules over which fields are passed together (`requires`): exactly one of, at least one
//! of, all or none, one only with others. Each must name at least two optional fields of
//! the same object (or the one and those it needs), which the server then checks.

use super::FieldResolver;
use crate::diagnostics::{Diagnostic, did_you_mean};
use crate::model::{Field, Origin, Requirement, Text};
use crate::spec::format as raw;
use crate::spec::spanned::Sp;

impl FieldResolver<'_> {
    /// The `requires` rules of a tool (over its parameters) or of an object (over its
    /// fields), each naming fields it has; a rule written wrong (no form, two forms, one
    /// name, a name that is not a field, a required field) is reported and left out.
    pub fn requirements(
        &mut self,
        rules: Option<&[Sp<raw::Requirement>]>,
        params: &[Field],
    ) -> Vec<Requirement> {
        let fr = self;
        let mut out = Vec::new();
        for r in rules.into_iter().flatten() {
            let at = fr.span(r.pos);
            let file = at.file;
            let names = |list: &Option<Vec<Sp<String>>>| -> Option<Vec<Text>> {
                list.as_ref()
                    .map(|l| l.iter().map(|n| text_at(file, n)).collect())
            };
            let r = &r.value;
            let mut forms: Vec<Requirement> = Vec::new();
            if let Some(n) = names(&r.exactly_one_of) {
                forms.push(Requirement::ExactlyOne(n));
            }
            if let Some(n) = names(&r.at_least_one_of) {
                forms.push(Requirement::AtLeastOne(n));
            }
            if let Some(n) = names(&r.all_or_none) {
                forms.push(Requirement::AllOrNone(n));
            }
            match (&r.if_given, names(&r.needs)) {
                (Some(field), Some(needs)) => forms.push(Requirement::Requires {
                    field: text_at(file, field),
                    needs,
                }),
                (Some(_), None) | (None, Some(_)) => {
                    fr.diags.push(
                        Diagnostic::error(
                            "invalid-requirement",
                            at,
                            "`if_given` and `needs` go together",
                        )
                        .label("one of the pair is missing")
                        .help(
                            "write `if_given: <parameter>` with `needs: [<parameters it needs>]`",
                        ),
                    );
                    continue;
                }
                (None, None) => {}
            }
            if forms.len() != 1 {
                fr.diags.push(
                Diagnostic::error(
                    "invalid-requirement",
                    at,
                    if forms.is_empty() {
                        "this rule names no parameters".to_string()
                    } else {
                        "this rule has more than one form".to_string()
                    },
                )
                .label("one rule per entry")
                .help(
                    "write one of `exactly_one_of: [a, b]`, `at_least_one_of: [a, b]`, \
                     `all_or_none: [a, b]`, or `if_given: a` with `needs: [b]`, each as its own `- ` entry",
                ),
            );
                continue;
            }
            let rule = forms.remove(0);
            let mut ok = true;
            let sets = !matches!(rule, Requirement::Requires { .. });
            if sets && rule.names().len() < 2 {
                fr.diags.push(
                    Diagnostic::error(
                        "invalid-requirement",
                        at,
                        "a rule over a set of parameters needs at least two of them",
                    )
                    .label("only one parameter named")
                    .help("name two or more parameters, or make the one parameter required"),
                );
                ok = false;
            }
            for name in rule.names() {
                match params
                    .iter()
                    .find(|p| p.name == name.text && p.origin == Origin::Spec)
                {
                    None => {
                        let known = params
                            .iter()
                            .filter(|p| p.origin == Origin::Spec)
                            .map(|p| p.name.as_str());
                        let mut d = Diagnostic::error(
                            "unknown-parameter",
                            name.span,
                            format!("`{}` is not a field of this tool or object", name.text),
                        )
                        .label("no such parameter");
                        if let Some(s) = did_you_mean(&name.text, known) {
                            d = d.help(format!("did you mean `{s}`?"));
                        } else {
                            d = d.help(
                                "name fields written under `params` (or the object's `fields`)",
                            );
                        }
                        fr.diags.push(d);
                        ok = false;
                    }
                    Some(p) if p.required => {
                        fr.diags.push(
                            Diagnostic::error(
                                "invalid-requirement",
                                name.span,
                                format!(
                                    "`{}` is required, so this rule always holds or never can",
                                    name.text
                                ),
                            )
                            .label("a required parameter is always passed")
                            .help(format!(
                                "make `{}` optional (`required: false`), or drop it from the rule",
                                name.text
                            )),
                        );
                        ok = false;
                    }
                    Some(_) => {}
                }
            }
            if ok {
                out.push(rule);
            }
        }
        out
    }
}

fn text_at(file: crate::diagnostics::FileId, s: &Sp<String>) -> Text {
    Text {
        text: s.value.clone(),
        span: crate::diagnostics::Span { file, pos: s.pos },
    }
}
