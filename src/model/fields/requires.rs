//! Rules over which fields are passed together (`requires`): exactly one of, at least one
//! of, all or none, one only with others. Each must name at least two optional fields of
//! the same object (or the one and those it needs), which the server then checks.

use super::FieldResolver;
use crate::diagnostics::{Diagnostic, did_you_mean};
use crate::model::{Field, Kind, Origin, Requirement, StringRules, Text};
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
            if let Some(when) = &r.when {
                let others = [
                    r.exactly_one_of.is_some(),
                    r.at_least_one_of.is_some(),
                    r.all_or_none.is_some(),
                    r.if_given.is_some(),
                ];
                if others.into_iter().any(|o| o) {
                    fr.diags
                        .push(one_form(at, "this rule has more than one form"));
                } else if let Some(rule) =
                    fr.when_rule(at, when, names(&r.needs), names(&r.allows), params)
                {
                    out.push(rule);
                }
                continue;
            }
            if r.allows.is_some() {
                fr.diags.push(
                    Diagnostic::error(
                        "invalid-requirement",
                        at,
                        "`allows` goes with `when`",
                    )
                    .label("allowed when what holds?")
                    .help("write `when: { <enum parameter>: <value> }` with `allows: [<parameters taken only then>]`"),
                );
                continue;
            }
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
                            "`needs` goes with `if_given` or `when`",
                        )
                        .label("one of the pair is missing")
                        .help(
                            "write `if_given: <parameter>` with `needs: [<parameters it needs>]`, \
                             or `when: { <enum parameter>: <value> }` with `needs: [...]`",
                        ),
                    );
                    continue;
                }
                (None, None) => {}
            }
            if forms.len() != 1 {
                fr.diags.push(one_form(
                    at,
                    if forms.is_empty() {
                        "this rule names no parameters"
                    } else {
                        "this rule has more than one form"
                    },
                ));
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
        fr.contradictions(&out);
        out
    }

    /// A `when` rule: one enum parameter and some of its values, with the parameters those
    /// values need and those they alone allow; `None` (reported) when written wrong.
    fn when_rule(
        &mut self,
        at: crate::diagnostics::Span,
        when: &crate::spec::spanned::SpMap<Sp<serde_json::Value>>,
        needs: Option<Vec<Text>>,
        allows: Option<Vec<Text>>,
        params: &[Field],
    ) -> Option<Requirement> {
        let file = at.file;
        let [(name, value)] = when.0.as_slice() else {
            self.diags.push(
                Diagnostic::error(
                    "invalid-requirement",
                    at,
                    "a `when` names one enum parameter and its value",
                )
                .label(if when.0.is_empty() { "no parameter named" } else { "several parameters named" })
                .help("write `when: { method: get_diff }`; for rules over two parameters, write two entries"),
            );
            return None;
        };
        let field = text_at(file, name);
        let param = self.spec_param(&field, params)?;
        if let Kind::Integer {
            enum_values: Some(_),
            ..
        } = &param.ty.kind
        {
            self.diags.push(
                Diagnostic::error(
                    "invalid-requirement",
                    field.span,
                    format!("`{}` is an integer enum; a `when` looks at a string enum", field.text),
                )
                .label("its values are numbers")
                .help(format!(
                    "make `{}` a string enum (`enum: ['1', '2']`), or write `if_given: {}` for a rule on whether it is passed",
                    field.text, field.text
                )),
            );
            return None;
        }
        let Kind::String(StringRules {
            enum_values: Some(choices),
            ..
        }) = &param.ty.kind
        else {
            self.diags.push(
                Diagnostic::error(
                    "invalid-requirement",
                    field.span,
                    format!("`{}` is not an enum, so no value of it can decide a rule", field.text),
                )
                .label("a `when` looks at an enum parameter")
                .help(format!(
                    "give `{}` an `enum` of its values, or write `if_given: {}` for a rule on whether it is passed",
                    field.text, field.text
                )),
            );
            return None;
        };
        let span = self.span(value.pos);
        let written: Vec<&serde_json::Value> = match &value.value {
            serde_json::Value::Array(list) => list.iter().collect(),
            one => vec![one],
        };
        let mut values: Vec<Text> = Vec::new();
        let mut ok = true;
        for v in written {
            let Some(v) = v.as_str() else {
                self.diags.push(
                    Diagnostic::error(
                        "invalid-requirement",
                        span,
                        format!("a value of `{}` is a string", field.text),
                    )
                    .label("not one of the enum's values")
                    .help(format!(
                        "write one of {}, or a list of them",
                        list_of(choices)
                    )),
                );
                ok = false;
                continue;
            };
            if !choices.iter().any(|c| c == v) {
                let mut d = Diagnostic::error(
                    "invalid-requirement",
                    span,
                    format!("`{v}` is not a value of `{}`", field.text),
                )
                .label("not in its enum");
                d = match did_you_mean(v, choices.iter().map(String::as_str)) {
                    Some(s) => d.help(format!("did you mean `{s}`?")),
                    None => d.help(format!("write one of {}", list_of(choices))),
                };
                self.diags.push(d);
                ok = false;
            } else if values.iter().any(|t| t.text == v) {
                self.diags.push(
                    Diagnostic::error(
                        "invalid-requirement",
                        span,
                        format!("`{v}` is listed twice"),
                    )
                    .label("the same value again")
                    .help("list each value once"),
                );
                ok = false;
            } else {
                values.push(Text {
                    text: v.to_string(),
                    span,
                });
            }
        }
        if values.is_empty() && ok {
            self.diags.push(
                Diagnostic::error(
                    "invalid-requirement",
                    span,
                    "a `when` with no values never holds",
                )
                .label("empty list")
                .help(format!("list one or more of {}", list_of(choices))),
            );
            ok = false;
        }
        let (needs, allows) = (needs.unwrap_or_default(), allows.unwrap_or_default());
        if needs.is_empty() && allows.is_empty() {
            self.diags.push(
                Diagnostic::error("invalid-requirement", at, "this `when` says nothing about other parameters")
                    .label("no `needs` or `allows`")
                    .help(format!(
                        "add `needs: [<parameters required when {} is that value>]`, `allows: [<parameters taken only then>]`, or both",
                        field.text
                    )),
            );
            return None;
        }
        // Every value listed, and the parameter always holds one (it is required, or its
        // default stands in): then the rule holds whatever the call. An optional one
        // without a default still tells "given" from "left out".
        let every = values.len() == choices.len() && (param.required || param.default.is_some());
        for (list, key) in [(&needs, "needs"), (&allows, "allows")] {
            for n in list {
                let Some(p) = self.spec_param(n, params) else {
                    ok = false;
                    continue;
                };
                let problem = if n.text == field.text {
                    Some((
                        format!("`{}` is the parameter the rule looks at", n.text),
                        "a rule cannot need or allow its own parameter".to_string(),
                        format!("name other parameters under `{key}`"),
                    ))
                } else if p.required {
                    Some((
                        format!(
                            "`{}` is required, so this rule always holds or never can",
                            n.text
                        ),
                        "a required parameter is always passed".to_string(),
                        format!(
                            "make `{}` optional (`required: false`), or drop it from the rule",
                            n.text
                        ),
                    ))
                } else if every {
                    Some((
                        format!(
                            "`{key}` for every value of `{}` holds whatever the value",
                            field.text
                        ),
                        "every value listed".to_string(),
                        if key == "needs" {
                            format!("make `{}` required instead", n.text)
                        } else {
                            "drop the rule: it never refuses anything".to_string()
                        },
                    ))
                } else {
                    None
                };
                if let Some((message, label, help)) = problem {
                    self.diags.push(
                        Diagnostic::error("invalid-requirement", n.span, message)
                            .label(label)
                            .help(help),
                    );
                    ok = false;
                }
            }
        }
        let by_default = param
            .default
            .as_ref()
            .and_then(serde_json::Value::as_str)
            .is_some_and(|d| values.iter().any(|v| v.text == d));
        ok.then_some(Requirement::When {
            field,
            values,
            by_default,
            needs,
            allows,
        })
    }

    /// The spec parameter `name` names, or `None` with an `unknown-parameter` reported.
    fn spec_param<'p>(&mut self, name: &Text, params: &'p [Field]) -> Option<&'p Field> {
        let spec = || params.iter().filter(|p| p.origin == Origin::Spec);
        if let Some(p) = spec().find(|p| p.name == name.text) {
            return Some(p);
        }
        let mut d = Diagnostic::error(
            "unknown-parameter",
            name.span,
            format!("`{}` is not a field of this tool or object", name.text),
        )
        .label("no such parameter");
        d = match did_you_mean(&name.text, spec().map(|p| p.name.as_str())) {
            Some(s) => d.help(format!("did you mean `{s}`?")),
            None => d.help("name fields written under `params` (or the object's `fields`)"),
        };
        self.diags.push(d);
        None
    }

    /// `when` rules over one enum parameter that cannot all hold: a parameter limited to
    /// some values twice (write one rule with every value), or needed for a value another
    /// rule does not allow it for.
    fn contradictions(&mut self, rules: &[Requirement]) {
        let whens: Vec<WhenParts<'_>> = rules
            .iter()
            .filter_map(|r| match r {
                Requirement::When {
                    field,
                    values,
                    needs,
                    allows,
                    ..
                } => Some((
                    field,
                    values.as_slice(),
                    needs.as_slice(),
                    allows.as_slice(),
                )),
                _ => None,
            })
            .collect();
        // Each parameter's contradiction is told once, however many rules it meets.
        let mut told: Vec<(usize, &str)> = Vec::new();
        for (i, (field, values, needs, allows)) in whens.iter().enumerate() {
            for (j, (other, other_values, _, other_allows)) in whens.iter().enumerate() {
                if i == j || field.text != other.text {
                    continue;
                }
                for n in *allows {
                    if j < i && other_allows.iter().any(|a| a.text == n.text) {
                        self.diags.push(
                            Diagnostic::error(
                                "invalid-requirement",
                                n.span,
                                format!("`{}` is already allowed only for some values of `{}`", n.text, field.text),
                            )
                            .label("a second `allows` for it")
                            .help(format!(
                                "list every value `{}` is taken for in one rule: `when: {{ {}: [a, b] }}`",
                                n.text, field.text
                            )),
                        );
                    }
                }
                for n in *needs {
                    if told.contains(&(i, n.text.as_str())) {
                        continue;
                    }
                    let limited = other_allows.iter().any(|a| a.text == n.text);
                    if let Some(v) = values
                        .iter()
                        .find(|v| limited && !other_values.iter().any(|o| o.text == v.text))
                    {
                        told.push((i, n.text.as_str()));
                        self.diags.push(
                            Diagnostic::error(
                                "invalid-requirement",
                                n.span,
                                format!(
                                    "`{}` is needed when `{}` is `{}`, where another rule refuses it",
                                    n.text, field.text, v.text
                                ),
                            )
                            .label("needed and refused for one value")
                            .help(format!(
                                "add `{}` to the values that allow `{}`, or drop it from this rule's `needs`",
                                v.text, n.text
                            )),
                        );
                    }
                }
            }
        }
    }
}

/// A `when` rule's parameter, values, needs and allows.
type WhenParts<'a> = (&'a Text, &'a [Text], &'a [Text], &'a [Text]);

/// The error for an entry with no rule form, or with two.
fn one_form(at: crate::diagnostics::Span, message: &str) -> Diagnostic {
    Diagnostic::error("invalid-requirement", at, message.to_string())
        .label("one rule per entry")
        .help(
            "write one of `exactly_one_of: [a, b]`, `at_least_one_of: [a, b]`, \
             `all_or_none: [a, b]`, `if_given: a` with `needs: [b]`, or `when: { m: v }` with \
             `needs: [b]` or `allows: [b]`, each as its own `- ` entry",
        )
}

/// `a, b or c`, each in backticks.
fn list_of(values: &[String]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn text_at(file: crate::diagnostics::FileId, s: &Sp<String>) -> Text {
    Text {
        text: s.value.clone(),
        span: crate::diagnostics::Span { file, pos: s.pos },
    }
}
