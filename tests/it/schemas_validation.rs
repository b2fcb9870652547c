//! Every emitted schema is valid JSON Schema 2020-12, checked by an independent validator
//! (the `jsonschema` crate), and every spec example behaves against its tool's schema as the
//! spec says: success examples pass, examples expecting a validation error fail.
//!
//! Covers every spec in `specs/`, loaded together, the real-server ports of `tests/corpus/`
//! (which use every construct of the format), and the adversarial specs. Run: `cargo test --features tokens --test it schemas_validation::`.

use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use toolspec::internals::emit::{self, Kind, Options};
use toolspec::model::values::{check_arguments, check_value};
use toolspec::model::{Field, Kind as TyKind, Model, Tier, Tool, Type};
use toolspec_runtime::catalog;

use crate::common;
use common::{example_specs, load_clean, root, yaml_files};

/// The example specs (`specs/*.yaml`, together), then each spec of `specs/adversarial/`
/// (strings built to break generators) on its own.
fn models() -> Vec<Model> {
    let mut out = vec![
        load_clean(&example_specs()),
        load_clean(&yaml_files(&root().join("tests/corpus"))),
    ];
    for p in yaml_files(&root().join("specs/adversarial")) {
        out.push(load_clean(&[p]));
    }
    out
}

/// The generated files of all specs, parsed, by path.
fn generated(model: &Model) -> BTreeMap<String, Value> {
    let files = emit::generate(model, &[Kind::Schemas], &Options::default())
        .expect("specs export")
        .files;
    files
        .into_iter()
        .map(|f| {
            let v = serde_json::from_str(&f.contents)
                .unwrap_or_else(|e| panic!("{}: {e}", f.path.display()));
            (f.path.to_string_lossy().replace('\\', "/"), v)
        })
        .collect()
}

/// Every schema the files hold, with where it is.
fn all_schemas(files: &BTreeMap<String, Value>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (path, v) in files {
        if path.contains("/schemas/") {
            out.push((path.clone(), v.clone()));
        } else if path.ends_with("tools.mcp.json") {
            for t in v["tools"].as_array().expect("tools") {
                out.push((
                    format!("{path} {} inputSchema", t["name"]),
                    t["inputSchema"].clone(),
                ));
                // A spec may publish none (`output_schema: none`); the per-tool files
                // under schemas/ hold it whole either way.
                if let Some(output) = t.get("outputSchema") {
                    out.push((format!("{path} {} outputSchema", t["name"]), output.clone()));
                }
            }
        } else if path.ends_with("tools.anthropic.json") {
            for t in v.as_array().expect("array") {
                out.push((format!("{path} {}", t["name"]), t["input_schema"].clone()));
            }
        } else if path.ends_with("tools.openai.json") {
            for t in v.as_array().expect("array") {
                out.push((
                    format!("{path} {}", t["function"]["name"]),
                    t["function"]["parameters"].clone(),
                ));
            }
        } else if path.ends_with("tools.gemini.json") {
            for d in gemini_declarations(v) {
                if let Some(schema) = gemini_schema(d) {
                    out.push((format!("{path} {}", d["name"]), schema));
                }
            }
        }
    }
    out
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("schema compiles")
}

fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    validator(schema)
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn file<'a>(
    files: &'a BTreeMap<String, Value>,
    service: &str,
    tool: &Tool,
    kind: &str,
) -> &'a Value {
    let path = format!("{service}/schemas/{}.{kind}.json", tool.name);
    files
        .get(&path)
        .unwrap_or_else(|| panic!("{path} was not generated"))
}

#[test]
fn every_schema_is_valid_2020_12() {
    for model in models() {
        let files = generated(&model);
        let schemas = all_schemas(&files);
        assert!(
            schemas.len() >= 5 * model.tools().count(),
            "expected schemas of every tool, got {}",
            schemas.len()
        );
        for (at, schema) in schemas {
            if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
                panic!("{at} is not a valid 2020-12 schema: {e}");
            }
            assert_eq!(schema["type"], "object", "{at}: root must be an object");
            validator(&schema);
        }
    }
}

#[test]
fn examples_pass_or_fail_as_the_spec_says() {
    let mut checked = (0, 0);
    for model in models() {
        let files = generated(&model);
        for (ts, tool) in model.tools() {
            let input = file(&files, &ts.service.text, tool, "input");
            for ex in &tool.examples {
                let problems = errors(input, &ex.arguments);
                // A rule over which parameters go together is said in words, not keywords
                // (no provider takes a top-level oneOf): the server refuses such a call,
                // the schema cannot. It must be the rule, and only the rule, that refuses it.
                let only_a_rule = !tool.requires.is_empty()
                    && check_arguments(&ex.arguments, &tool.params, &[]).is_empty()
                    && !check_arguments(&ex.arguments, &tool.params, &tool.requires).is_empty();
                match ex.error.as_ref().map(|e| e.text.as_str()) {
                    Some(_) if only_a_rule => {
                        assert!(problems.is_empty(), "{}: {problems:?}", tool.name);
                        checked.1 += 1;
                    }
                    Some(code) if catalog::is_validation(code) => {
                        assert!(
                            !problems.is_empty(),
                            "{}: example `{}` expects {code} but passes the schema",
                            tool.name,
                            ex.title
                        );
                        checked.1 += 1;
                    }
                    // Business errors (not_found...) happen after validation: the call is valid.
                    _ => {
                        assert!(
                            problems.is_empty(),
                            "{}: example `{}` is refused: {problems:?}",
                            tool.name,
                            ex.title
                        );
                        checked.0 += 1;
                    }
                }
            }
        }
    }
    assert!(
        checked.0 > 0 && checked.1 > 0,
        "no examples checked: {checked:?}"
    );
}

/// Every Anthropic `input_examples` entry is valid against the tool's own `input_schema`.
#[test]
fn anthropic_input_examples_pass_their_input_schema() {
    let mut checked = 0;
    for model in models() {
        let files = generated(&model);
        for ts in &model.toolsets {
            let list = &files[&format!("{}/tools.anthropic.json", ts.service)];
            for entry in list.as_array().expect("array") {
                let schema = &entry["input_schema"];
                for example in entry["input_examples"].as_array().into_iter().flatten() {
                    let problems = errors(schema, example);
                    assert!(
                        problems.is_empty(),
                        "{}: {example}: {problems:?}",
                        entry["name"]
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 20, "{checked} examples checked");
}

/// OpenAI strict mode sends every property, `null` for the ones left out: a valid call
/// written that way must pass the OpenAI profile.
#[test]
fn success_examples_pass_the_openai_profile_with_nulls() {
    for model in models() {
        let files = generated(&model);
        for ts in &model.toolsets {
            let list = &files[&format!("{}/tools.openai.json", ts.service)];
            for tool in &ts.tools {
                let entry = list
                    .as_array()
                    .and_then(|l| {
                        l.iter()
                            .find(|e| e["function"]["name"] == tool.name.text.as_str())
                    })
                    .expect("tool in the OpenAI list");
                let schema = &entry["function"]["parameters"];
                // A tool strict mode cannot describe is sent without it: no nulls then.
                let strict = entry["function"]["strict"] == true;
                for ex in tool.examples.iter().filter(|e| e.error.is_none()) {
                    let args = if strict {
                        with_nulls(&ex.arguments, &tool.params)
                    } else {
                        ex.arguments.clone()
                    };
                    let problems = errors(schema, &args);
                    assert!(
                        problems.is_empty(),
                        "{} `{}` as OpenAI sends it ({args}): {problems:?}",
                        tool.name,
                        ex.title
                    );
                }
            }
        }
    }
}

/// `args` with every optional property OpenAI strict mode sends as `null`, at every depth.
fn with_nulls(args: &Value, fields: &[Field]) -> Value {
    let mut obj = args.as_object().cloned().unwrap_or_default();
    for f in fields {
        // A nullable field's null means something: strict mode sends it only when meant.
        if f.nullable && !obj.contains_key(&f.name) && !f.required {
            continue;
        }
        match obj.get_mut(&f.name) {
            Some(v) => *v = nulls_in(v, &f.ty),
            None => {
                obj.insert(f.name.clone(), Value::Null);
            }
        }
    }
    Value::Object(obj)
}

fn nulls_in(v: &Value, ty: &Type) -> Value {
    match (&ty.kind, v) {
        (TyKind::Object { fields, .. }, Value::Object(_)) => with_nulls(v, fields),
        (TyKind::Array { items, .. }, Value::Array(list)) => {
            Value::Array(list.iter().map(|i| nulls_in(i, items)).collect())
        }
        (TyKind::Map { values, .. }, Value::Object(map)) => Value::Object(
            map.iter()
                .map(|(k, x)| (k.clone(), nulls_in(x, values)))
                .collect(),
        ),
        (TyKind::Union { variants, tag }, _) => {
            let chosen = match tag {
                Some(tag) => variants
                    .iter()
                    .find(|x| v.get(tag).and_then(Value::as_str) == Some(x.name.as_str())),
                None => variants
                    .iter()
                    .find(|x| check_value(v, &x.ty, "").is_empty()),
            };
            match chosen {
                Some(x) => nulls_in(v, &x.ty),
                None => v.clone(),
            }
        }
        _ => v.clone(),
    }
}

/// A valid value of `ty`: the example when it is valid (the model composes `[""]` for a
/// list whose items' example it does not keep), else one built from the type's rules.
fn sample(ty: &Type, example: Option<&Value>) -> Value {
    if let Some(e) = example
        && check_value(e, ty, "").is_empty()
    {
        return e.clone();
    }
    match &ty.kind {
        TyKind::String(r) => {
            if let Some(v) = r.enum_values.as_ref().and_then(|v| v.first()) {
                return json!(v);
            }
            json!(match r.format.map(|f| f.as_str()) {
                Some("email") => "a@example.com",
                Some("date-time") => "2026-11-30T10:00:00Z",
                Some("date") => "2026-11-30",
                Some("uri") => "https://example.com/a",
                Some("uuid") => "0b7e4f5a-3c1d-4e2f-9a8b-7c6d5e4f3a2b",
                _ => "x",
            })
        }
        TyKind::Integer {
            minimum,
            enum_values,
            ..
        } => match enum_values.as_ref().and_then(|v| v.first()) {
            Some(first) => json!(first),
            None => json!(minimum.unwrap_or(0)),
        },
        TyKind::Number { minimum, .. } => json!(minimum.unwrap_or(0.0)),
        TyKind::Boolean => json!(false),
        TyKind::Array {
            items, min_items, ..
        } => Value::Array(
            (0..min_items.unwrap_or(1).max(1))
                .map(|_| sample(items, None))
                .collect(),
        ),
        TyKind::Object { fields, .. } => Value::Object(
            fields
                .iter()
                .map(|f| (f.name.clone(), sample(&f.ty, Some(&f.example))))
                .collect(),
        ),
        TyKind::Map { .. } => json!({}),
        TyKind::Content(_) => toolspec::model::values::compose_example(ty),
        TyKind::Union { variants, tag } => {
            let first = &variants[0];
            let mut v = sample(&first.ty, Some(&first.example));
            if let (Some(tag), Value::Object(m)) = (tag, &mut v) {
                m.insert(tag.clone(), json!(first.name));
            }
            v
        }
    }
}

/// A result built from every output field's example is valid; for irreversible tools a bare
/// preview (`applied: false` and the preview) is valid too, so the spec's own fields are not
/// required.
#[test]
fn composed_results_and_previews_pass_the_output_schema() {
    for model in models() {
        let files = generated(&model);
        for (ts, tool) in model.tools() {
            let output = file(&files, &ts.service.text, tool, "output");
            let full: Map<String, Value> = tool
                .output
                .iter()
                .map(|f| (f.name.clone(), sample(&f.ty, Some(&f.example))))
                .collect();
            let problems = errors(output, &Value::Object(full));
            assert!(
                problems.is_empty(),
                "{} full result: {problems:?}",
                tool.name
            );
            if tool.tier == Tier::Irreversible && tool.preview.is_some() {
                let preview = tool
                    .output_field("preview")
                    .expect("irreversible tools have a preview");
                let bare = json!({ "applied": false, "preview": sample(&preview.ty, None) });
                let problems = errors(output, &bare);
                assert!(
                    problems.is_empty(),
                    "{} preview result {bare}: {problems:?}",
                    tool.name
                );
                let wrong = json!({ "preview": sample(&preview.ty, None) });
                assert!(
                    !errors(output, &wrong).is_empty(),
                    "{}: `applied` must be required",
                    tool.name
                );
            }
        }
    }
}

/// The validator is strict enough to catch what the schemas promise: an unknown argument and
/// a wrong type are refused by every tool's input schema.
#[test]
fn input_schemas_refuse_unknown_and_mistyped_arguments() {
    for model in models() {
        let files = generated(&model);
        for (ts, tool) in model.tools() {
            let input = file(&files, &ts.service.text, tool, "input");
            let Some(ex) = tool.examples.iter().find(|e| e.error.is_none()) else {
                continue;
            };
            let mut args = ex.arguments.as_object().cloned().unwrap_or_default();
            args.insert("no_such_argument".into(), json!(1));
            assert!(
                !errors(input, &Value::Object(args)).is_empty(),
                "{} accepts an unknown argument",
                tool.name
            );
            if let Some((k, _)) = ex
                .arguments
                .as_object()
                .and_then(|o| o.iter().find(|(_, v)| v.is_string()))
            {
                let mut args = ex.arguments.as_object().cloned().unwrap_or_default();
                args.insert(k.clone(), json!(12));
                assert!(
                    !errors(input, &Value::Object(args)).is_empty(),
                    "{} accepts a number for `{k}`",
                    tool.name
                );
            }
        }
    }
}

/// The function declarations of a `tools.gemini.json`.
fn gemini_declarations(list: &Value) -> &Vec<Value> {
    list[0]["functionDeclarations"]
        .as_array()
        .expect("functionDeclarations")
}

/// A declaration's arguments as JSON Schema 2020-12: `parametersJsonSchema` as it is, or
/// `parameters` with each `nullable: true` read as OpenAPI 3.0 defines it (the value may
/// also be `null`); `None` for a tool without parameters.
fn gemini_schema(declaration: &Value) -> Option<Value> {
    fn lift(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut out: Map<String, Value> = m
                    .iter()
                    .filter(|(k, _)| k.as_str() != "nullable")
                    .map(|(k, x)| {
                        // Property names are data, not schemas: only their values are lifted.
                        let x = if k == "properties" {
                            Value::Object(
                                x.as_object()
                                    .into_iter()
                                    .flatten()
                                    .map(|(n, p)| (n.clone(), lift(p)))
                                    .collect(),
                            )
                        } else {
                            lift(x)
                        };
                        (k.clone(), x)
                    })
                    .collect();
                if m.get("nullable") == Some(&json!(true)) {
                    out = Map::from_iter([(
                        "anyOf".to_string(),
                        json!([Value::Object(out), {"type": "null"}]),
                    )]);
                }
                Value::Object(out)
            }
            Value::Array(list) => Value::Array(list.iter().map(lift).collect()),
            other => other.clone(),
        }
    }
    declaration
        .get("parametersJsonSchema")
        .cloned()
        .or_else(|| declaration.get("parameters").map(lift))
}

/// One refused declaration makes Gemini fail every request: each one of every spec, port and
/// adversarial spec is held to the subset, and only a tool whose keys are data (a map, a
/// free-form object) leaves it for `parametersJsonSchema`.
#[test]
fn gemini_declarations_are_in_the_subset() {
    let mut checked = 0;
    let mut json_schema = 0;
    for model in models() {
        let files = generated(&model);
        for ts in &model.toolsets {
            let list = &files[&format!("{}/tools.gemini.json", ts.service)];
            assert_eq!(
                list.as_array().map(Vec::len),
                Some(1),
                "one tool of declarations"
            );
            let declarations = gemini_declarations(list);
            assert_eq!(declarations.len(), ts.tools.len(), "{}", ts.service);
            for (d, tool) in declarations.iter().zip(&ts.tools) {
                assert_eq!(d["name"], tool.name.text.as_str());
                let problems = toolspec::internals::plan::providers::gemini::problems(d);
                assert!(problems.is_empty(), "{}: {problems:?}\n{d:#}", tool.name);
                let open =
                    !toolspec::internals::plan::schema::open_objects(&tool.params).is_empty();
                assert_eq!(
                    d.get("parametersJsonSchema").is_some(),
                    open,
                    "{}: JSON Schema only for keys that are data",
                    tool.name
                );
                assert_eq!(
                    d.get("parameters").is_none(),
                    open || tool.params.is_empty()
                );
                json_schema += usize::from(open);
                checked += 1;
            }
        }
    }
    assert!(
        checked > 40 && json_schema > 0,
        "{checked} declarations, {json_schema} as JSON Schema"
    );
}

/// Gemini's parameters carry the same rules as the standard schema: every success example
/// passes them, and every example the spec expects to be refused for a rule a schema can
/// state (a type, a bound, a pattern, an enum, a missing argument) fails them.
#[test]
fn examples_behave_against_the_gemini_parameters() {
    let mut checked = 0;
    for model in models() {
        let files = generated(&model);
        for ts in &model.toolsets {
            let list = &files[&format!("{}/tools.gemini.json", ts.service)];
            for (d, tool) in gemini_declarations(list).iter().zip(&ts.tools) {
                let Some(schema) = gemini_schema(d) else {
                    continue;
                };
                let standard = &files[&format!("{}/schemas/{}.input.json", ts.service, tool.name)];
                for ex in &tool.examples {
                    let here = errors(&schema, &ex.arguments);
                    if ex.error.is_none() {
                        assert!(here.is_empty(), "{} `{}`: {here:?}", tool.name, ex.title);
                    } else if !errors(standard, &ex.arguments).is_empty()
                        && !unknown_argument(&ex.arguments, &tool.params)
                        && ex
                            .error
                            .as_ref()
                            .is_some_and(|e| e.text != "invalid_format")
                    {
                        // Gemini's objects are not closed, so an unknown argument passes;
                        // its only string format is date-time, the others are in words.
                        assert!(
                            !here.is_empty(),
                            "{} `{}`: refused by the standard schema, passed by Gemini's",
                            tool.name,
                            ex.title
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 40, "{checked} examples checked");
}

/// Whether `args` has a top-level key no parameter has.
fn unknown_argument(args: &Value, params: &[Field]) -> bool {
    args.as_object()
        .is_some_and(|m| m.keys().any(|k| !params.iter().any(|p| &p.name == k)))
}
