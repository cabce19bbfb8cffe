//! The `torchcts-lsp` library: the language server and the CLI commands (test runs live in the `runner` crate).
//! The binary (`main.rs`) and the Python package call [`run_main`].

pub mod api;
pub mod cli;
pub mod host;
pub mod server;

use std::process::ExitCode;

/// Runs the server or a CLI command for `args` (without the program name) and returns the
/// process exit code.
pub fn run_main(args: Vec<String>) -> ExitCode {
    use clap::Parser;
    use cli::{Cli, Command};
    let cli = match Cli::try_parse_from(std::iter::once("torchcts-lsp".to_string()).chain(args)) {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version end here too (exit 0, on stdout); usage errors exit 2.
            let _ = e.print();
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    if let Some(file) = cli.command.as_ref().and_then(|c| c.output_file()) {
        if let Err(message) = cli::output::redirect_stdout_to(file) {
            eprintln!("torchcts-lsp: {message}");
            return ExitCode::from(2);
        }
    }
    let code = match &cli.command {
        None => {
            // The flags are read where the server reads its environment.
            if let Some(level) = &cli.log_level {
                std::env::set_var("TORCHCTS_LSP_LOG_LEVEL", level);
            }
            if let Some(file) = &cli.log_file {
                std::env::set_var("TORCHCTS_LSP_LOG_FILE", file);
            }
            return server::serve_stdio();
        }
        Some(Command::Check(args)) => cli::check::run(args),
        Some(Command::Analyze(args)) => cli::analyze::run(args),
        Some(Command::Skips(args)) => cli::skips::run(args),
        Some(Command::Inventory(args)) => cli::inventory::run(args),
        Some(Command::Diff(args)) => cli::diff::run(args),
        Some(Command::Report(args)) => cli::report::run(args),
        Some(Command::Run(args)) => cli::run::run(args),
        Some(Command::Config(args)) => cli::config::run(args),
        Some(Command::Completions(args)) => cli::completions::run(args),
    };
    cli::output::flush_stdout();
    code
}
