//! `torchcts-lsp`: the language server (no arguments, or `--stdio`) and its CLI commands.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The server runs without arguments or with `--stdio`; anything else is a command
    // (or its help), which builds its tables once and exits.
    if args.first().is_some_and(|first| !first.starts_with("--stdio") && !first.starts_with("--log-")) {
        torchcts_lsp::cli::heap::prefer_huge_pages();
    }
    torchcts_lsp::run_main(args)
}
