fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The importer's golden drafts, as imported: what a team gets on the first day.
    toolspec::Builder::new()
        .spec("../import/drafts/petstore.yaml")
        .spec("../import/drafts/svix.yaml")
        .spec("../import/drafts/github.yaml")
        .compile()?;
    Ok(())
}
