//! The `toolspec` command line. See `toolspec --help`.

fn main() -> std::process::ExitCode {
    toolspec::cli::main()
}
