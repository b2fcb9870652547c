fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Writes $OUT_DIR/chat.rs (and chat_gauntlet.rs); a spec problem fails the build with
    // the same report `toolspec check` prints.
    toolspec::Builder::new().spec("chat.yaml").compile()?;
    Ok(())
}
