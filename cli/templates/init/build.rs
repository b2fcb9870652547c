//! Compiles `{{service}}.yaml` into `$OUT_DIR/{{service}}.rs` (what src/lib.rs includes) and
//! `$OUT_DIR/{{service}}_gauntlet.rs` (what tests/gauntlet.rs includes). A mistake in the
//! spec fails the build with the same file:line:column report `toolspec check` prints.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    toolspec::Builder::new().spec("{{service}}.yaml").compile()?;
    Ok(())
}
