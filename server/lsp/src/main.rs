//! `torchcts-lsp`: the language server (no arguments, or `--stdio`) and its CLI commands.

use std::process::ExitCode;

fn main() -> ExitCode {
    torchcts_lsp::run_main(std::env::args().skip(1).collect())
}
