//! Compiles `my_shop.yaml` into `$OUT_DIR/my_shop.rs` (what src/lib.rs includes) and
//! `$OUT_DIR/my_shop_gauntlet.rs` (what tests/gauntlet.rs includes). A mistake in the
//! spec fails the build with the same file:line:column report `toolspec check` prints.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    toolspec::Builder::new().spec("my_shop.yaml").compile()?;
    Ok(())
}
