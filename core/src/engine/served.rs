//! [`Served`]: which of a toolset's tools one server serves. An operator picks groups of a
//! large catalog (`--groups pulls,issues`) or turns every write off (`--read-only`); the
//! server then lists only those tools, the same list on every connection as MCP requires,
//! and refuses a call to any other tool with a message that says why and what would serve it.

use std::fmt;

use serde_json::json;

use super::{ToolDefinition, ToolGroup};
use crate::catalog;
use crate::error::ToolError;

/// Longest group list, in bytes, a flag or variable may give: a catalog's group names fit
/// many times over, and nothing a caller controls is unbounded.
const MAX_LIST: usize = 4096;

/// Which tools a server serves: every group or some, every tool or only those that change
/// nothing.
///
/// Built from the command line ([`Served::take_flags`]) and the environment
/// ([`Served::or_env`]), or in code, then given to the MCP server (`McpServer::serving`),
/// which checks it against the toolset's groups at startup.
///
/// ```
/// use toolspec_runtime::engine::Served;
///
/// let args = ["--groups", "pulls,issues", "--http"].map(String::from).to_vec();
/// let (served, rest) = Served::take_flags(args).unwrap();
/// assert_eq!(served.groups(), Some(&["pulls".to_string(), "issues".to_string()][..]));
/// assert!(!served.is_read_only());
/// assert_eq!(rest, ["--http"]); // the flags the server's own parser reads
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Served {
    groups: Option<Vec<String>>,
    read_only: Option<bool>,
}

impl Served {
    /// Every tool of every group: what a server serves unless told otherwise.
    pub fn everything() -> Self {
        Self::default()
    }

    /// Only the tools of `groups` (by the names the spec gives them).
    pub fn only_groups<S: Into<String>>(mut self, groups: impl IntoIterator<Item = S>) -> Self {
        self.groups = Some(groups.into_iter().map(Into::into).collect());
        self
    }

    /// Only the tools that change nothing (`true`), or every tool (`false`).
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = Some(read_only);
        self
    }

    /// The groups served, or `None` for all of them.
    pub fn groups(&self) -> Option<&[String]> {
        self.groups.as_deref()
    }

    /// Whether only the tools that change nothing are served.
    pub fn is_read_only(&self) -> bool {
        self.read_only.unwrap_or(false)
    }

    /// Takes `--groups a,b` (or `--groups=a,b`) and `--read-only` out of `args`, in the
    /// manner of the field's servers (github-mcp-server's `--toolsets`, `--read-only`):
    /// what was served, and the arguments left for the server's own parser, in order.
    pub fn take_flags(args: Vec<String>) -> Result<(Self, Vec<String>), ServedError> {
        let mut served = Self::default();
        let mut rest = Vec::with_capacity(args.len());
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            if arg == "--read-only" {
                served.read_only = Some(true);
            } else if arg == "--groups" {
                let list = args.next().ok_or_else(|| {
                    ServedError::new("`--groups` needs a list of groups: `--groups pulls,issues`")
                })?;
                served.groups = Some(parse_list("--groups", &list)?);
            } else if let Some(list) = arg.strip_prefix("--groups=") {
                served.groups = Some(parse_list("--groups", list)?);
            } else {
                rest.push(arg);
            }
        }
        Ok((served, rest))
    }

    /// What the environment says where the flags said nothing: `<PREFIX>_GROUPS`
    /// (`pulls,issues`) and `<PREFIX>_READ_ONLY` (`1`, `true`, `0`, `false`). A flag wins
    /// over its variable, as with clap's `env`.
    pub fn or_env(self, prefix: &str) -> Result<Self, ServedError> {
        self.or_vars(prefix, |name| std::env::var(name).ok())
    }

    /// [`Served::or_env`] over any source of variables (for tests).
    fn or_vars(
        mut self,
        prefix: &str,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ServedError> {
        if self.groups.is_none() {
            let name = format!("{prefix}_GROUPS");
            if let Some(list) = var(&name).filter(|v| !v.trim().is_empty()) {
                self.groups = Some(parse_list(&name, &list)?);
            }
        }
        if self.read_only.is_none() {
            let name = format!("{prefix}_READ_ONLY");
            if let Some(value) = var(&name) {
                self.read_only = Some(match value.trim().to_ascii_lowercase().as_str() {
                    "1" | "true" | "yes" => true,
                    "" | "0" | "false" | "no" => false,
                    _ => {
                        return Err(ServedError::new(format!(
                            "{name} is {:?}; set it to 1 (serve no write) or 0",
                            crate::text::echo(&value)
                        )));
                    }
                });
            }
        }
        Ok(self)
    }

    /// Checks the groups named against those of `definitions`: an unknown name is an
    /// error that lists the toolset's groups, and so is a choice that leaves no tool.
    pub fn check(&self, definitions: &[ToolDefinition]) -> Result<(), ServedError> {
        let known = groups_of(definitions);
        if let Some(wanted) = &self.groups {
            if known.is_empty() {
                return Err(ServedError::new(
                    "`--groups` was given, but this toolset's spec declares no groups: serve it whole",
                ));
            }
            for name in wanted {
                if !known.iter().any(|g| g.name == name) {
                    return Err(ServedError::new(format!(
                        "no group `{}`; this toolset's groups: {}",
                        crate::text::echo(name),
                        names(&known)
                    )));
                }
            }
        }
        if !definitions.iter().any(|d| self.serves(d)) {
            return Err(ServedError::new(
                "nothing left to serve: the groups chosen hold no tool that changes nothing; \
                 choose other groups or serve writes too",
            ));
        }
        Ok(())
    }

    /// Whether `definition` is served.
    pub fn serves(&self, definition: &ToolDefinition) -> bool {
        let in_groups = match (&self.groups, definition.group) {
            (None, _) => true,
            (Some(wanted), Some(group)) => wanted.iter().any(|w| w == group.name),
            (Some(_), None) => false,
        };
        // A read-only server serves only the tools that change nothing.
        let allowed = definition.annotations.read_only || !self.is_read_only();
        in_groups && allowed
    }

    /// The refusal of a call to `definition`, which this server does not serve: the
    /// built-in `unknown_tool` (the tool is not in this server's list), saying why and
    /// what would serve it, with the served tools as `allowed`. `None` if it is served.
    pub fn refusal(
        &self,
        definition: &ToolDefinition,
        definitions: &[ToolDefinition],
    ) -> Option<ToolError> {
        if self.serves(definition) {
            return None;
        }
        let served: Vec<&str> = definitions
            .iter()
            .filter(|d| self.serves(d))
            .map(|d| d.name)
            .collect();
        let why = match (
            self.is_read_only() && !definition.annotations.read_only,
            definition.group,
        ) {
            (true, _) => format!(
                "Tool '{}' changes data, and this server is read-only: it serves no write.",
                definition.name
            ),
            (false, Some(group)) => format!(
                "Tool '{}' is in group '{}', which this server does not serve (it serves {}).",
                definition.name,
                group.name,
                self.groups.as_deref().unwrap_or_default().join(", ")
            ),
            (false, None) => format!("Tool '{}' is not served here.", definition.name),
        };
        let message = format!(
            "{why} Use a tool of this server's list, or ask the operator to serve it. Served tools: {}.",
            crate::error::bounded_names(&served)
        );
        Some(ToolError::builtin(
            &catalog::UNKNOWN_TOOL,
            message,
            json!({
                "allowed": crate::error::first_names(&served),
                "tool": definition.name,
                "group": definition.group.map(|g| g.name),
                "read_only_server": self.is_read_only(),
            }),
        ))
    }
}

/// The groups of `definitions`, each once, in the order their first tool comes.
fn groups_of(definitions: &[ToolDefinition]) -> Vec<&'static ToolGroup> {
    let mut out: Vec<&'static ToolGroup> = Vec::new();
    for group in definitions.iter().filter_map(|d| d.group) {
        if !out.iter().any(|g| g.name == group.name) {
            out.push(group);
        }
    }
    out
}

fn names(groups: &[&ToolGroup]) -> String {
    groups.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

fn parse_list(source: &str, list: &str) -> Result<Vec<String>, ServedError> {
    if list.len() > MAX_LIST {
        return Err(ServedError::new(format!(
            "{source} is {} bytes long; a list of groups fits in {MAX_LIST}",
            list.len()
        )));
    }
    let groups: Vec<String> = list
        .split(',')
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .map(str::to_string)
        .collect();
    if groups.is_empty() {
        return Err(ServedError::new(format!(
            "{source} names no group; give their names separated by commas (`pulls,issues`)"
        )));
    }
    Ok(groups)
}

/// A choice of what to serve that cannot be served: an unknown group, a malformed flag or
/// variable, or nothing left to serve. Said at startup, before any client connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedError(String);

impl ServedError {
    fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl fmt::Display for ServedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServedError {}

#[cfg(test)]
mod tests;
