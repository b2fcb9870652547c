//! No call makes the generated server panic, answer off its schema or blame itself.
//!
//! 20,000 calls, built from each tool's valid example by random edits (values of every JSON
//! type and of hostile sizes and text put at known and unknown keys, keys removed, the whole
//! argument object replaced, tool names mistyped), go through the generated tickets server
//! in process. Every answer must be one of:
//! - a result valid against the tool's output schema;
//! - an error whose code is in the catalog (built-in or the spec's), never `internal_error`
//!   (a random call is the caller's mistake, not the server's), with a message, object
//!   `details`, and, for a refusal by validation, `retryable: false`, the valid example call
//!   in the message, and no run of the user's write or preview methods (the runtime counts
//!   those; read methods have no effect to count).
//!
//! The random source is a fixed-seed xorshift, so a failure names a case that replays.

use crate::broken;

use serde_json::{Map, Value, json};
use toolspec_compile_check::tickets::{
    DEFINITIONS, TicketsCreateInput, TicketsExportInput, TicketsGetInput, TicketsSearchInput,
    TicketsServer, TicketsUpdateStatusInput,
};
use toolspec_runtime::catalog;
use toolspec_runtime::engine::glue;
use toolspec_runtime::engine::{CallContext, Runtime, ToolDefinition, Toolset};
use toolspec_runtime::fingerprint::fingerprint;
use toolspec_runtime::validate;

/// xorshift64*: small, deterministic, good enough to pick edits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const STRINGS: &[&str] = &[
    "",
    " ",
    "T-1001",
    "T-9999",
    "open",
    "opened",
    "OPEN",
    "login",
    "a@example.com",
    "not an email",
    "\u{0}",
    "\"}; drop table tickets; --",
    "*/ /* ]]> \u{202e} \u{1f600}",
    "é",
    "9999999999999999999999",
    "prv_00000000000000000000000000000000",
    "eyJ2IjoxfQ",
];

fn number(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(i64::MIN),
        3 => json!(u64::MAX),
        4 => json!(3.0),
        5 => json!(1.5),
        6 => json!(-0.0),
        7 => json!(1e308),
        8 => json!(rng.below(200)),
        _ => json!(f64::MIN_POSITIVE),
    }
}

fn string(rng: &mut Rng) -> Value {
    match rng.below(8) {
        0 => json!("x".repeat(rng.below(5000))),
        1 => json!("\u{1f600}".repeat(rng.below(300))),
        _ => json!(*rng.pick(STRINGS)),
    }
}

/// Any JSON value, nested at most `depth` deep.
fn value(rng: &mut Rng, depth: usize) -> Value {
    let kinds = if depth == 0 { 4 } else { 6 };
    match rng.below(kinds) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => number(rng),
        3 => string(rng),
        4 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(4) {
                map.insert(key(rng, &[]), value(rng, depth - 1));
            }
            Value::Object(map)
        }
    }
}

/// A key: one of `known`, or one no tool has.
fn key(rng: &mut Rng, known: &[String]) -> String {
    if !known.is_empty() && rng.below(3) > 0 {
        return rng.pick(known).clone();
    }
    rng.pick(&[
        "q",
        "id",
        "",
        "limit ",
        "Status",
        "__proto__",
        "ticket_id\u{0}",
        "é",
    ])
    .to_string()
}

/// The names of every field of the tool's input, at any depth.
fn input_keys(schema: &Value, out: &mut Vec<String>) {
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (k, v) in props {
            out.push(k.clone());
            input_keys(v, out);
        }
    }
    if let Some(items) = schema.get("items") {
        input_keys(items, out);
    }
}

/// One random call: a tool name and its arguments.
fn call(rng: &mut Rng) -> (String, Value) {
    call_in(rng, &DEFINITIONS)
}

/// One random call of one of `definitions`.
fn call_in(rng: &mut Rng, definitions: &[ToolDefinition]) -> (String, Value) {
    let def = rng.pick(definitions);
    let mut name = def.name.to_string();
    if rng.below(40) == 0 {
        name = rng
            .pick(&["tickets_serch", "", "TICKETS_GET", "tickets_find"])
            .to_string();
    }
    let schema: Value = serde_json::from_str(def.input_schema).unwrap();
    let mut known = Vec::new();
    input_keys(&schema, &mut known);
    let mut args: Value = serde_json::from_str(def.example_call).unwrap();
    // None to two edits: a third of the calls stay valid, so results are exercised too.
    for _ in 0..rng.below(3) {
        match rng.below(10) {
            0 => args = value(rng, 3),
            1 => {
                if let Value::Object(map) = &mut args
                    && let Some(k) = map.keys().nth(rng.below(map.len().max(1))).cloned()
                {
                    map.remove(&k);
                }
            }
            _ => {
                if let Value::Object(map) = &mut args {
                    let k = key(rng, &known);
                    map.insert(k, value(rng, 3));
                }
            }
        }
    }
    (name, args)
}

fn fresh() -> TicketsServer<broken::Desk> {
    broken::fixture(Runtime::in_memory().expect("runtime"))
}

/// How often the user's methods ran, all tools together.
fn effects(server: &TicketsServer<broken::Desk>) -> u64 {
    DEFINITIONS
        .iter()
        .map(|d| {
            let n = server.runtime().test_hooks().invocations(d.name);
            n.writes + n.previews
        })
        .sum()
}

#[tokio::test]
async fn no_call_panics_or_leaves_its_schema_or_blames_the_server() {
    let outputs: Vec<jsonschema::Validator> = DEFINITIONS
        .iter()
        .map(|d| {
            jsonschema::validator_for(&serde_json::from_str(d.output_schema).unwrap()).unwrap()
        })
        .collect();
    let ctx = CallContext::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut server = fresh();
    let (mut ok, mut refused) = (0, 0);
    for case in 0..20_000 {
        // A fresh desk now and then, so writes do not pile up into one huge search result,
        // and so no caller reaches the spec's rate limits (30 searches a minute, 300 calls
        // of the rest): every call here is judged on its arguments.
        if case % 25 == 0 {
            server = fresh();
        }
        let (name, args) = call(&mut rng);
        let shown = format!("case {case}: {name} {args}");
        let before = effects(&server);
        match server.call(&name, args, &ctx).await {
            Ok(out) => {
                ok += 1;
                let index = DEFINITIONS
                    .iter()
                    .position(|d| d.name == name)
                    .unwrap_or_else(|| panic!("{shown}: answered by no tool"));
                let problems: Vec<String> = outputs[index]
                    .iter_errors(&out.structured)
                    .map(|e| format!("{} at {}", e, e.instance_path()))
                    .collect();
                assert!(
                    problems.is_empty(),
                    "{shown}: result {} is off its schema: {problems:?}",
                    out.structured
                );
            }
            Err(e) => {
                refused += 1;
                // The spec's own code, or a built-in one (rate_limited: the spec has limits).
                let known = catalog::find_any(&e.code).is_some() || e.code == "not_found";
                assert!(known, "{shown}: code {} is in no catalog", e.code);
                assert_ne!(e.code, "internal_error", "{shown}: {}", e.message);
                assert!(!e.message.is_empty(), "{shown}: empty message");
                if catalog::is_validation(&e.code) {
                    assert!(!e.retryable, "{shown}: a refused argument is not retryable");
                    let def = DEFINITIONS.iter().find(|d| d.name == name).unwrap();
                    assert!(
                        e.message.contains(def.example_call),
                        "{shown}: the message does not show the valid call: {}",
                        e.message
                    );
                    assert_eq!(
                        effects(&server),
                        before,
                        "{shown}: a refused call ran a method"
                    );
                }
            }
        }
    }
    eprintln!("{ok} results, {refused} refusals");
    // Both kinds of answer were exercised, not just one.
    assert!(
        ok > 1_000 && refused > 1_000,
        "{ok} results, {refused} refusals"
    );
}

/// Both ways into a typed input, for one tool: the fast path a valid call takes
/// (`glue::accept`) and the full one (`prepare`, then deserialization). They must agree on
/// every call: the same refusals, the same input, the same fingerprint.
fn both_ways<I>(def: &ToolDefinition, args: &Value, shown: &str)
where
    I: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let full = def
        .prepare(args.clone())
        .and_then(|a| glue::input::<I>(&a).map(|typed| (typed, a)));
    let fast = glue::accept::<I>(def, args.clone());
    match (fast, full) {
        (Ok((fast, fast_args)), Ok((full, full_args))) => {
            assert_eq!(fast, full, "{shown}: the typed inputs differ");
            assert_eq!(
                fingerprint(&fast_args),
                fingerprint(&full_args),
                "{shown}: the fingerprints differ: {fast_args} vs {full_args}"
            );
        }
        (Err(fast), Err(full)) => assert_eq!(fast, full, "{shown}: the refusals differ"),
        (fast, full) => panic!("{shown}: fast {fast:?}, full {full:?}"),
    }
    // The fast walk's verdict is the validator's, on every object call.
    if let Value::Object(map) = args {
        assert_eq!(
            validate::accepts(def.input, map).is_some(),
            validate::validate(def.input, args).is_empty(),
            "{shown}: accepts and validate disagree"
        );
    }
}

/// A tool and [`both_ways`] for its typed input.
type TypedCheck = (&'static ToolDefinition, fn(&ToolDefinition, &Value, &str));

/// Every tool of the three example specs, with the check of its typed input.
fn typed_checks() -> Vec<TypedCheck> {
    use toolspec_compile_check::{docs, orders};
    let named = |defs: &'static [ToolDefinition], name: &str| {
        defs.iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("no tool {name}"))
    };
    let checks: Vec<TypedCheck> = vec![
        (
            named(&DEFINITIONS, "tickets_search"),
            both_ways::<TicketsSearchInput>,
        ),
        (
            named(&DEFINITIONS, "tickets_get"),
            both_ways::<TicketsGetInput>,
        ),
        (
            named(&DEFINITIONS, "tickets_export"),
            both_ways::<TicketsExportInput>,
        ),
        (
            named(&DEFINITIONS, "tickets_create"),
            both_ways::<TicketsCreateInput>,
        ),
        (
            named(&DEFINITIONS, "tickets_update_status"),
            both_ways::<TicketsUpdateStatusInput>,
        ),
        (
            named(&docs::DEFINITIONS, "docs_search"),
            both_ways::<docs::DocsSearchInput>,
        ),
        (
            named(&docs::DEFINITIONS, "docs_get"),
            both_ways::<docs::DocsGetInput>,
        ),
        (
            named(&docs::DEFINITIONS, "docs_draft_save"),
            both_ways::<docs::DocsDraftSaveInput>,
        ),
        (
            named(&docs::DEFINITIONS, "docs_draft_restore"),
            both_ways::<docs::DocsDraftRestoreInput>,
        ),
        (
            named(&docs::DEFINITIONS, "docs_publish"),
            both_ways::<docs::DocsPublishInput>,
        ),
        (
            named(&orders::DEFINITIONS, "orders_get"),
            both_ways::<orders::OrdersGetInput>,
        ),
        (
            named(&orders::DEFINITIONS, "orders_search"),
            both_ways::<orders::OrdersSearchInput>,
        ),
        (
            named(&orders::DEFINITIONS, "orders_refund"),
            both_ways::<orders::OrdersRefundInput>,
        ),
        (
            named(&orders::DEFINITIONS, "orders_invoice_send"),
            both_ways::<orders::OrdersInvoiceSendInput>,
        ),
    ];
    let all = DEFINITIONS.len() + docs::DEFINITIONS.len() + orders::DEFINITIONS.len();
    assert_eq!(
        checks.len(),
        all,
        "a tool of the example specs is not checked"
    );
    checks
}

#[test]
fn the_fast_path_and_the_full_one_agree_on_every_call() {
    let checks = typed_checks();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut fast_valid = 0;
    for case in 0..30_000 {
        let (def, check) = checks[case % checks.len()];
        let (_, args) = call_in(&mut rng, std::slice::from_ref(def));
        check(def, &args, &format!("case {case}: {} {args}", def.name));
        if let Value::Object(map) = &args {
            fast_valid += usize::from(validate::accepts(def.input, map).is_some());
        }
    }
    // Valid calls were exercised, not only refusals.
    assert!(fast_valid > 3_000, "{fast_valid} valid calls");
}

/// Tools of the real-server ports whose inputs hold the constructs the example specs lack:
/// unions (`calendarId`, `account`), fields `null` clears, rules over which go together (one
/// conditioned on an enum's value: `modificationScope`), maps (`extendedProperties`), a
/// free-form object (`launchOptions`), a list with a default; and, from the construct specs,
/// a parameter that is a tagged union (a review's `verdict`), integer enums (a member's
/// access level).
fn corpus_checks() -> Vec<TypedCheck> {
    use toolspec_compile_check::constructs::{members, reviews};
    use toolspec_compile_check::corpus::{calendar, puppeteer, slack, supabase};
    let named = |defs: &'static [ToolDefinition], name: &str| {
        defs.iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("no tool {name}"))
    };
    vec![
        (
            named(&calendar::DEFINITIONS, "list-events"),
            both_ways::<calendar::ListEventsInput>,
        ),
        (
            named(&calendar::DEFINITIONS, "update-event"),
            both_ways::<calendar::UpdateEventInput>,
        ),
        (
            named(&calendar::DEFINITIONS, "create-event"),
            both_ways::<calendar::CreateEventInput>,
        ),
        (
            named(&calendar::DEFINITIONS, "get-freebusy"),
            both_ways::<calendar::GetFreebusyInput>,
        ),
        (
            named(&puppeteer::DEFINITIONS, "puppeteer_navigate"),
            both_ways::<puppeteer::PuppeteerNavigateInput>,
        ),
        (
            named(&supabase::DEFINITIONS, "list_tables"),
            both_ways::<supabase::ListTablesInput>,
        ),
        (
            named(&slack::DEFINITIONS, "slack_post_message"),
            both_ways::<slack::SlackPostMessageInput>,
        ),
        (
            named(&reviews::DEFINITIONS, "reviews_review_submit"),
            both_ways::<reviews::ReviewsReviewSubmitInput>,
        ),
        (
            named(&members::DEFINITIONS, "members_list"),
            both_ways::<members::MembersListInput>,
        ),
    ]
}

#[test]
fn the_fast_path_and_the_full_one_agree_on_the_ports_new_constructs() {
    let checks = corpus_checks();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut fast_valid = 0;
    for case in 0..21_000 {
        let (def, check) = checks[case % checks.len()];
        let (_, args) = call_in(&mut rng, std::slice::from_ref(def));
        check(def, &args, &format!("case {case}: {} {args}", def.name));
        if let Value::Object(map) = &args {
            fast_valid += usize::from(validate::accepts(def.input, map).is_some());
        }
    }
    assert!(fast_valid > 1_000, "{fast_valid} valid calls");
}
