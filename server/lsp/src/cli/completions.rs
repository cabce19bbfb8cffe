//! `torchcts-lsp completions bash|zsh|fish`: the shell completion script (clap_complete).

use super::OutputArgs;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    about = "Print the shell completion script for bash, zsh or fish",
    after_help = "Install:\n  bash  torchcts-lsp completions bash > ~/.local/share/bash-completion/completions/torchcts-lsp\n  \
        zsh   torchcts-lsp completions zsh > \"${fpath[1]}/_torchcts-lsp\"\n  \
        fish  torchcts-lsp completions fish > ~/.config/fish/completions/torchcts-lsp.fish"
)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: Shell,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

pub fn run(args: &CompletionsArgs) -> ExitCode {
    use clap::CommandFactory;
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut super::Cli::command(), "torchcts-lsp", &mut buffer);
    let script = String::from_utf8_lossy(&buffer);
    super::output::write_text_stdout(|out| out.write_str(&script));
    ExitCode::SUCCESS
}
