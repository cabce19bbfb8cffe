//! The `torchcts-lsp` library: the language server and the CLI commands (test runs live in the `runner` crate).
//! The binary (`main.rs`) and the Python package call [`run_main`].

pub mod cli;
pub mod server;

use std::process::ExitCode;

const USAGE: &str = "\
torchcts-lsp: language server and checks for TorchCTS manifest.py files

Usage:
  torchcts-lsp [--stdio]                     serve LSP over stdin/stdout
  torchcts-lsp check FILE [--format text|json]
                                             what `torchcts check-manifest --manifest FILE` prints,
                                             with the same exit code (json: findings with ranges)
  torchcts-lsp analyze FILE                  every diagnostic (torchcts's and ours) with positions,
                                             then the check-manifest output
  torchcts-lsp skips FILE [--level N | --level-exact N | --level-range A:B] [--device D]
                    [--format text|json] [--inventory PATH]
                                             what `torchcts show-skips` reports, from the inventory
  torchcts-lsp inventory --python PY [--out FILE]
                                             re-extract the suite inventory from your environment
                                             (runs PY; cached by torchcts/torch version)
  torchcts-lsp --version | --help
";

/// Runs the server or a CLI command for `args` (without the program name) and returns the
/// process exit code.
pub fn run_main(args: Vec<String>) -> ExitCode {
    match args.first().map(String::as_str) {
        None | Some("--stdio") => server::serve_stdio(),
        Some("check") => cli::check::run(&args[1..]),
        Some("analyze") => cli::analyze::run(&args[1..]),
        Some("skips") => cli::skips::run(&args[1..]),
        Some("inventory") => cli::inventory::run(&args[1..]),
        Some("--version") | Some("-V") => {
            println!("torchcts-lsp {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("--help") | Some("-h") | Some("help") => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("torchcts-lsp: unknown command or option `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
