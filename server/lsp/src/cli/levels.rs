//! The level flags every counting command takes, parsed as torchcts parses them.

use torchcts_core::accounting_view::LevelSelection;

/// The level flags of `torchcts show-skips` (at most one).
#[derive(clap::Args, Debug, Clone, Default)]
#[group(multiple = false)]
pub struct LevelArgs {
    /// Levels 1..=N, like `torchcts run --level N` [default: the manifest's semantic_level, else 3]
    #[arg(long, value_name = "N", value_parser = parse_level)]
    pub level: Option<LevelSelection>,
    /// Level N only
    #[arg(long, value_name = "N", value_parser = parse_level_exact)]
    pub level_exact: Option<LevelSelection>,
    /// Levels A..=B
    #[arg(long, value_name = "A:B", value_parser = parse_level_range)]
    pub level_range: Option<LevelSelection>,
}

impl LevelArgs {
    /// The selection the flags ask for, if any.
    pub fn selection(&self) -> Option<LevelSelection> {
        self.level.or(self.level_exact).or(self.level_range)
    }
}

// The checks and their messages are torchcts' own (`LevelSelection::from_cli`).
fn parse_level(text: &str) -> Result<LevelSelection, String> {
    let n = parse_level_number(text, "--level")?;
    LevelSelection::from_cli(Some(n), None, None, &Default::default())
}

fn parse_level_exact(text: &str) -> Result<LevelSelection, String> {
    let n = parse_level_number(text, "--level-exact")?;
    LevelSelection::from_cli(None, Some(n), None, &Default::default())
}

fn parse_level_range(text: &str) -> Result<LevelSelection, String> {
    LevelSelection::from_cli(None, None, Some(text), &Default::default())
}

fn parse_level_number(text: &str, flag: &str) -> Result<i64, String> {
    text.trim().parse().map_err(|_| format!("{flag} must be an integer from 1 to 8"))
}
