//! Generates the tickets toolset from the spec, exactly as a user's build script would.
//!
//! `orders.yaml` is loaded too because `tickets_search` tells agents to use `orders_get` for
//! order questions, and toolspec checks that such a tool exists; only `tickets` is generated.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    toolspec::Builder::new()
        .spec("../../specs/tickets.yaml")
        .spec("../../specs/orders.yaml")
        .generate_only("tickets")
        .compile()?;
    Ok(())
}
