//! An OpenAPI document read into JSON values: its version, `$ref`s followed, and its
//! operations listed with their path-level parameters merged in.

use serde_json::Value;

/// The HTTP methods an OpenAPI path item may hold, in the order drafts list them.
pub const METHODS: [&str; 8] = [
    "get", "put", "post", "patch", "delete", "head", "options", "trace",
];

/// How many `$ref`s in a row are followed before a chain is taken for a loop.
const MAX_REF_CHAIN: usize = 32;

/// A parsed OpenAPI 3.0 or 3.1 document.
#[derive(Debug)]
pub struct Document {
    /// The whole document.
    pub root: Value,
    /// `true` for 3.1 (type lists, numeric `exclusiveMinimum`, `examples` arrays).
    pub v31: bool,
}

/// Why a document cannot be imported.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentError {
    /// What is wrong, with the line and column where the parser knows them.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

/// One operation of the document.
#[derive(Debug, Clone)]
pub struct Operation<'d> {
    /// `get`, `post`, ...
    pub method: &'static str,
    /// The path template (`/pet/{petId}`).
    pub path: &'d str,
    /// The operation object.
    pub op: &'d Value,
    /// Path-level and operation-level parameters, resolved; the operation's win on
    /// the same name and location.
    pub params: Vec<&'d Value>,
}

impl<'d> Operation<'d> {
    /// The `operationId`, if the document gives one.
    pub fn id(&self) -> Option<&'d str> {
        self.op.get("operationId").and_then(Value::as_str)
    }

    /// The tags.
    pub fn tags(&self) -> Vec<&'d str> {
        self.op
            .get("tags")
            .and_then(Value::as_array)
            .map(|t| t.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// `METHOD /path`, the way people name an operation.
    pub fn label(&self) -> String {
        format!("{} {}", self.method.to_ascii_uppercase(), self.path)
    }
}

impl Document {
    /// Parses JSON or YAML text (YAML is a superset of JSON; JSON is tried first because it
    /// is far faster for the multi-megabyte documents of large APIs).
    pub fn parse(text: &str) -> Result<Self, DocumentError> {
        let root: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(json_err) => {
                let looks_json = text.trim_start().starts_with('{');
                match serde_saphyr::from_str::<Value>(text) {
                    Ok(v) => v,
                    Err(_) if looks_json => {
                        return Err(DocumentError {
                            message: format!("not valid JSON: {json_err}"),
                            help: "fix the JSON at that line and column".into(),
                        });
                    }
                    Err(e) => {
                        return Err(DocumentError {
                            message: format!("not valid YAML: {e}"),
                            help: "fix the YAML at that line and column".into(),
                        });
                    }
                }
            }
        };
        let version = root.get("openapi").and_then(Value::as_str);
        let v31 = match version {
            Some(v) if v.starts_with("3.0") => false,
            Some(v) if v.starts_with("3.1") || v.starts_with("3.2") => true,
            Some(v) => {
                return Err(DocumentError {
                    message: format!("OpenAPI {v} is not supported"),
                    help: "import an OpenAPI 3.0 or 3.1 document".into(),
                });
            }
            None if root.get("swagger").is_some() => {
                return Err(DocumentError {
                    message: "this is a Swagger 2.0 document".into(),
                    help: "convert it to OpenAPI 3 first (for example with swagger2openapi from npm), then import that".into(),
                });
            }
            None => {
                return Err(DocumentError {
                    message: "no `openapi:` version at the top: not an OpenAPI document".into(),
                    help: "import an OpenAPI 3.0 or 3.1 document (it starts with `openapi: 3.x`)"
                        .into(),
                });
            }
        };
        if !root.get("paths").is_some_and(Value::is_object) {
            return Err(DocumentError {
                message: "the document has no `paths`: no operations to import".into(),
                help: "import a document that describes operations under `paths:`".into(),
            });
        }
        Ok(Document { root, v31 })
    }

    /// The API's title.
    pub fn title(&self) -> Option<&str> {
        self.root.pointer("/info/title").and_then(Value::as_str)
    }

    /// Follows `$ref`s from `value` to what they name. A reference outside the document,
    /// broken, or in a loop gives `Err` with the reference.
    pub fn resolve<'a>(&'a self, mut value: &'a Value) -> Result<&'a Value, String> {
        for _ in 0..MAX_REF_CHAIN {
            let Some(r) = value.get("$ref").and_then(Value::as_str) else {
                return Ok(value);
            };
            value = self.target(r).ok_or_else(|| r.to_string())?;
        }
        Err("a loop of $refs".into())
    }

    /// What a local `$ref` (`#/components/schemas/Pet`) names.
    pub fn target(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        // JSON pointers escape `/` and `~`; `$ref`s are also URI fragments, percent-encoded.
        let decoded = percent_decode(pointer);
        self.root.pointer(&decoded)
    }

    /// Every operation, in document order.
    pub fn operations(&self) -> Vec<Operation<'_>> {
        let mut out = Vec::new();
        let Some(paths) = self.root.get("paths").and_then(Value::as_object) else {
            return out;
        };
        for (path, item) in paths {
            let Ok(item) = self.resolve(item) else {
                continue;
            };
            let shared = self.param_list(item.get("parameters"));
            for method in METHODS {
                let Some(op) = item.get(method).filter(|o| o.is_object()) else {
                    continue;
                };
                let own = self.param_list(op.get("parameters"));
                let mut params: Vec<&Value> = shared
                    .iter()
                    .filter(|s| !own.iter().any(|o| same_param(o, s)))
                    .copied()
                    .collect();
                params.extend(own);
                out.push(Operation {
                    method,
                    path,
                    op,
                    params,
                });
            }
        }
        out
    }

    fn param_list<'a>(&'a self, list: Option<&'a Value>) -> Vec<&'a Value> {
        list.and_then(Value::as_array)
            .map(|ps| ps.iter().filter_map(|p| self.resolve(p).ok()).collect())
            .unwrap_or_default()
    }
}

fn same_param(a: &Value, b: &Value) -> bool {
    a.get("name") == b.get("name") && a.get("in") == b.get("in")
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_it_cannot_import_with_a_fix() {
        let swagger = Document::parse("swagger: '2.0'\npaths: {}\n").unwrap_err();
        assert!(swagger.help.contains("OpenAPI 3"), "{swagger:?}");
        let broken = Document::parse("{\"openapi\": \"3.0.0\",").unwrap_err();
        assert!(broken.message.starts_with("not valid JSON"), "{broken:?}");
        let yaml = Document::parse("openapi: 3.0.0\npaths: [\n").unwrap_err();
        assert!(yaml.message.starts_with("not valid YAML"), "{yaml:?}");
    }

    #[test]
    fn merges_path_parameters_and_follows_refs() {
        let doc = Document::parse(
            r##"
openapi: 3.1.0
paths:
  /a/{id}:
    parameters:
      - $ref: '#/components/parameters/Id'
      - { name: q, in: query, schema: { type: string } }
    get:
      parameters:
        - { name: q, in: query, schema: { type: integer } }
components:
  parameters:
    Id: { name: id, in: path, required: true, schema: { $ref: '#/components/schemas/Loop' } }
  schemas:
    Loop: { $ref: '#/components/schemas/Loop' }
"##,
        )
        .unwrap();
        let ops = doc.operations();
        assert_eq!(ops.len(), 1);
        let names: Vec<_> = ops[0]
            .params
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["id", "q"]);
        assert_eq!(ops[0].params[1]["schema"]["type"], "integer");
        assert!(doc.resolve(&ops[0].params[0]["schema"]).is_err());
    }
}
