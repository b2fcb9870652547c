//! [`Failure`]: a broken promise, told so that the reader can fix it.

use std::fmt;

use serde_json::Value;

/// Why a check failed: the promise that broke, the call that showed it, what came back,
/// what the spec expected, and where to look.
///
/// `Display` prints it as a block a test failure shows as is:
///
/// ```text
/// gauntlet check tickets_search::pagination_walks_every_item_once failed
///   promise:  walking every page of a query returns each matching item exactly once
///   call:     tickets_search {"limit":5,"query":"login","status":"open"}
///   got:      page 2 repeats an item of page 1: {"status":"open","ticket_id":"T-1007",...}
///   expected: every item on exactly one page
///   fix:      return the items after `window.offset`, at most `window.limit` of them
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The check's full name (`tickets_search::pagination_walks_every_item_once`).
    pub check: String,
    /// The promise of the spec that broke, in words.
    pub promise: String,
    /// The call that showed it (`tool {arguments}`), if one did.
    pub call: Option<String>,
    /// What came back.
    pub got: String,
    /// What the spec says should have come back.
    pub expected: String,
    /// Where to look to fix it.
    pub fix: Option<String>,
}

impl Failure {
    /// A failure of `promise`; fill in the rest with the builder methods.
    pub fn new(promise: impl Into<String>) -> Self {
        Self {
            check: String::new(),
            promise: promise.into(),
            call: None,
            got: String::new(),
            expected: String::new(),
            fix: None,
        }
    }

    /// The call that showed it.
    pub fn call(mut self, tool: &str, arguments: &Value) -> Self {
        let mut arguments = arguments.clone();
        sort_keys(&mut arguments);
        self.call = Some(format!("{tool} {}", clip(&arguments.to_string(), 400)));
        self
    }

    /// What came back.
    pub fn got(mut self, got: impl Into<String>) -> Self {
        self.got = got.into();
        self
    }

    /// What was expected.
    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = expected.into();
        self
    }

    /// Where to look.
    pub fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    pub(crate) fn named(mut self, check: &str) -> Self {
        self.check = check.to_owned();
        self
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "gauntlet check {} failed", self.check)?;
        writeln!(f, "  promise:  {}", self.promise)?;
        if let Some(call) = &self.call {
            writeln!(f, "  call:     {call}")?;
        }
        writeln!(f, "  got:      {}", self.got)?;
        write!(f, "  expected: {}", self.expected)?;
        if let Some(fix) = &self.fix {
            write!(f, "\n  fix:      {fix}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

/// `text` cut to about `max` characters, marked when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}...")
}

/// A JSON value shown in a failure, keys sorted and cut short.
///
/// Sorted so that a failure reads the same whether or not the workspace enables
/// serde_json's `preserve_order` (which keeps maps in insertion order).
pub(crate) fn show(value: &Value) -> String {
    let mut sorted = value.clone();
    sort_keys(&mut sorted);
    clip(&sorted.to_string(), 300)
}

fn sort_keys(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.sort_keys();
            map.values_mut().for_each(sort_keys);
        }
        Value::Array(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}
