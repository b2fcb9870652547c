fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Writes $OUT_DIR/notes.rs and $OUT_DIR/notes_gauntlet.rs; a spec problem fails the
    // build with the same file:line:column report `toolspec check` prints.
    toolspec::Builder::new().spec("notes.yaml").compile()?;
    Ok(())
}
