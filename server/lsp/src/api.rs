//! Entry points for library callers (the Python package `torchcts_lsp`): the reports that
//! `check --format json` and `skips --format json` print, as `serde_json::Value`, with typed
//! errors where the CLI prints to stderr and exits.
//!
//! Pure functions of their inputs plus the file system reads a path asks for; nothing here
//! prints, exits or touches the process environment.

use crate::cli::{AccountingArgs, LevelArgs};
use serde_json::{json, Value};
use std::fmt;
use std::path::{Path, PathBuf};
use torchcts_core::accounting_view::{self as av, Inventory, LevelSelection};

/// What to analyse: a manifest file, or manifest text (taken as `manifest.py` in the current
/// folder, for `custom_test_dirs`).
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    Path(&'a Path),
    Text(&'a str),
}

/// Why a report could not be made. The Python package maps `NotFound` to `FileNotFoundError`
/// and `Invalid` to `ValueError`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiError {
    /// The manifest or inventory file does not exist or cannot be read.
    NotFound(String),
    /// A bad argument (level, inventory file) or a manifest the command cannot use.
    Invalid(String),
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::NotFound(m) | ApiError::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ApiError {}

/// The manifest's text and the name reports show for it.
struct Loaded {
    text: String,
    display: String,
}

/// The error for a manifest path that cannot be read (`message` is the CLI's).
fn unreadable(path: &Path, message: String) -> ApiError {
    if path.exists() {
        // check-manifest's words, and what the caller probably meant (a folder, a non-.py name).
        match crate::cli::path_hint(path) {
            Some(hint) => ApiError::Invalid(format!("{message} ({})", hint.trim_start_matches("hint: "))),
            None => ApiError::Invalid(message),
        }
    } else {
        ApiError::NotFound(message)
    }
}

fn load(source: Source) -> Result<Loaded, ApiError> {
    match source {
        Source::Text(text) => Ok(Loaded { text: text.to_string(), display: TEXT_NAME.to_string() }),
        Source::Path(path) => Ok(Loaded {
            text: crate::cli::read_manifest(path).map_err(|message| unreadable(path, message))?,
            display: path.display().to_string(),
        }),
    }
}

/// The `file` of reports on manifest text.
const TEXT_NAME: &str = "<text>";

/// What `torchcts-lsp check FILE --format json` prints: `file`, `exit_code` (check-manifest's),
/// `check_manifest_output` (`{stream, text}` lines) and `findings` (each with `code`,
/// `message`, `severity`, `origin`, optional `data` and a 1-based `range` whose columns count
/// Unicode code points). Manifest text is analysed as a `manifest.py` in the current folder.
pub fn check_report(source: Source) -> Result<Value, ApiError> {
    let inventory = Some(Inventory::embedded());
    // The same steps as `check` on one file: the host's surroundings under the project
    // configuration, the evidence of its `results`, its `ignore`.
    let (input, shown) = match source {
        Source::Path(path) => {
            (crate::cli::inputs::Input { path: path.to_path_buf(), stdin: false, empty_folder: false }, path)
        }
        Source::Text(_) => {
            let path = std::env::current_dir().unwrap_or_default().join("manifest.py");
            (crate::cli::inputs::Input { path, stdin: true, empty_folder: false }, Path::new(TEXT_NAME))
        }
    };
    let config = crate::cli::inputs::config_for(&input).map_err(|e| ApiError::Invalid(e.to_string()))?;
    let flags = AccountingArgs::default().for_manifest(config.as_ref());
    let surroundings = flags.surroundings(&input.path, config.as_ref());
    let mut analysis = match source {
        Source::Path(path) => {
            crate::cli::analyze_file(path, inventory, &surroundings).map_err(|message| unreadable(path, message))?
        }
        Source::Text(text) => surroundings.analyze_whole(text, inventory),
    };
    let results = crate::cli::evidence::ResultsArgs::default();
    // Results that cannot be read leave the findings as they are (the CLI notes why on stderr).
    if let Ok(Some((_, placed))) =
        crate::cli::evidence::read(&results, &input, config.as_ref(), &flags, &analysis, inventory, &surroundings)
    {
        analysis = placed;
    }
    surroundings.drop_ignored(&mut analysis);
    Ok(crate::cli::check::report_json(shown, &analysis))
}

/// The level options of `skips`, as given (at most one may be set).
#[derive(Clone, Debug, Default)]
pub struct LevelOptions {
    pub level: Option<i64>,
    pub level_exact: Option<i64>,
    /// `"A:B"` (or `"A-B"`, or `"N"`), as `--level-range` takes it.
    pub level_range: Option<String>,
}

/// The selection the options ask for, checked with torchcts' own rules and messages; `None`
/// when none is set (the manifest's `semantic_level` decides).
pub fn level_selection(options: &LevelOptions) -> Result<Option<LevelSelection>, ApiError> {
    if options.level.is_none() && options.level_exact.is_none() && options.level_range.is_none() {
        return Ok(None);
    }
    LevelSelection::from_cli(options.level, options.level_exact, options.level_range.as_deref(), &Default::default())
        .map(Some)
        .map_err(ApiError::Invalid)
}

/// Loads an inventory file (`skips --inventory PATH`).
pub fn load_inventory(path: &Path) -> Result<Inventory, ApiError> {
    if !path.exists() {
        return Err(ApiError::NotFound(format!("inventory file not found: {}", path.display())));
    }
    std::fs::read(path)
        .map_err(|e| format!("{}: {e}", path.display()))
        .and_then(|bytes| Inventory::from_bytes(&bytes))
        .map_err(|e| ApiError::Invalid(format!("cannot load inventory {}: {e}", path.display())))
}

/// The inventory compiled into the binary (decoded on first use, about a tenth of a second).
pub fn embedded_inventory() -> &'static Inventory {
    Inventory::embedded()
}

/// The versions the inventory was extracted from: `torchcts`, `torch`, `extracted_at`.
pub fn inventory_meta(inventory: &Inventory) -> Value {
    json!({"torchcts": inventory.meta.torchcts_version, "torch": inventory.meta.torch_version, "extracted_at": inventory.meta.extracted_at})
}

/// What `skips` counts with, besides the levels: `skips --device`, `--inventory`, `--torch`.
#[derive(Clone, Debug, Default)]
pub struct SkipsOptions {
    pub levels: LevelOptions,
    pub device: Option<String>,
    /// Another inventory file instead of the embedded one for the environment's torch.
    pub inventory: Option<PathBuf>,
    /// Count for this torch release's embedded inventory.
    pub torch: Option<String>,
}

/// The CLI's flags for `options` and the level selection they asked for.
fn accounting_args(options: &SkipsOptions, requested: Option<LevelSelection>) -> AccountingArgs {
    AccountingArgs {
        levels: LevelArgs { level: requested, ..LevelArgs::default() },
        device: options.device.clone(),
        inventory: options.inventory.clone(),
        torch: options.torch.clone(),
        ..AccountingArgs::default()
    }
}

/// What `torchcts-lsp skips FILE --format json` prints for the same options: per-level
/// counts, reason counts, records and notes; the inventory is chosen as the CLI chooses it
/// (for manifest text, as for a `manifest.py` in the current folder).
pub fn skips_report(source: Source, options: &SkipsOptions) -> Result<Value, ApiError> {
    let requested = level_selection(&options.levels)?;
    if let Some(path) = options.inventory.as_deref().filter(|p| !p.exists()) {
        return Err(ApiError::NotFound(format!("inventory file not found: {}", path.display())));
    }
    let loaded = load(source)?;
    let path = match source {
        Source::Path(path) => path,
        Source::Text(_) => Path::new("manifest.py"),
    };
    let args = accounting_args(options, requested);
    let inventory = args.load_inventory(path).map_err(ApiError::Invalid)?;
    let surroundings = args.surroundings(path, None);
    let python = surroundings.python;
    let analysis = surroundings.analyze_whole(&loaded.text, None);
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else {
        let lines: Vec<String> = analysis.check_lines().into_iter().map(|(_, line)| line).collect();
        return Err(ApiError::Invalid(format!(
            "{}: the manifest does not evaluate: {}",
            loaded.display,
            lines.join("\n")
        )));
    };
    let mut facts = av::facts(manifest);
    facts.layout = args.run_layout(path);
    facts.python = python;
    let selection = match requested {
        Some(s) => s,
        None => {
            LevelSelection::from_manifest(&facts).map_err(|e| ApiError::Invalid(format!("{}: {e}", loaded.display)))?
        }
    };
    let device = facts.resolve_device(options.device.as_deref());
    let acc = accounting::account(&inventory, &facts, &device, selection);
    let unknown = av::unknown_inputs(manifest);
    Ok(crate::cli::skips::report_json(Path::new(&loaded.display), &inventory, &acc, selection, &unknown))
}

/// What `report --format json` prints for the manifest at `path`, with the `skips` options
/// and the results folders `results` (besides `results/` beside the manifest, at the
/// workspace root, `.torchcts-lsp/results` and the project's): the accounting's tables and
/// the evidence, each test's newest record counted as passed, failed, errored, crashed,
/// known backend crash, skipped or no record (`evidence.tests`, and per entry in `entries`).
pub fn support_record(path: &Path, options: &SkipsOptions, results: &[PathBuf]) -> Result<Value, ApiError> {
    let requested = level_selection(&options.levels)?;
    if !path.is_file() {
        return Err(unreadable(path, format!("{}: no such manifest file", path.display())));
    }
    let args = accounting_args(options, requested);
    crate::cli::report::record_json(path, &args, results).map_err(ApiError::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_checked_as_torchcts_checks_them() {
        let opts = |level, level_exact, level_range: Option<&str>| LevelOptions {
            level,
            level_exact,
            level_range: level_range.map(str::to_string),
        };
        assert_eq!(level_selection(&opts(None, None, None)), Ok(None));
        assert_eq!(level_selection(&opts(Some(2), None, None)), Ok(Some(LevelSelection::Cumulative(2))));
        assert_eq!(level_selection(&opts(None, None, Some("2:4"))), Ok(Some(LevelSelection::Range(2, 4))));
        for bad in [
            opts(Some(9), None, None),
            opts(None, Some(0), None),
            opts(None, None, Some("4:2")),
            opts(Some(1), Some(1), None),
            opts(None, None, Some("two")),
        ] {
            assert!(matches!(level_selection(&bad), Err(ApiError::Invalid(_))), "{bad:?}");
        }
    }

    #[test]
    fn missing_file_is_not_found_and_text_is_checked() {
        let missing = check_report(Source::Path(Path::new("/nonexistent/manifest.py")));
        assert!(matches!(missing, Err(ApiError::NotFound(_))));
        let report = check_report(Source::Text("manifest = {'semantic_level': 'x'}\n")).expect("text is analysed");
        assert_eq!(report["file"], "<text>");
        assert!(report["exit_code"].as_i64().is_some());
        let skips = skips_report(Source::Text("manifest = 42\n"), &SkipsOptions::default());
        assert!(matches!(skips, Err(ApiError::Invalid(_))));
    }
}
