//! Command-line entry points: the argument grammar (clap derive; `--help` on each command
//! explains its output) and thin wrappers that read files, call the core and print.

pub mod analyze;
pub mod check;
pub mod completions;
pub mod config;
pub mod diff;
pub mod evidence;
pub mod fix;
pub mod formats;
pub mod heap;
pub mod inputs;
pub mod inventory;
pub mod levels;
pub mod output;
pub mod places;
pub mod regex_note;
pub mod report;
pub mod run;
pub mod skips;

use crate::host::project_config::ProjectConfig;
use crate::host::{Place, Surroundings};
use clap::{Parser, Subcommand};
pub use levels::LevelArgs;
use std::path::{Path, PathBuf};
use torchcts_core::accounting_view::{Inventory, LevelSelection};
use torchcts_core::regex_check::PythonVersion;
use torchcts_core::Analysis;

/// The whole command line. Without a command, the language server runs on stdio.
#[derive(Parser, Debug)]
#[command(
    name = "torchcts-lsp",
    version,
    about = "Language server and checks for TorchCTS manifest.py files",
    long_about = "Language server and checks for TorchCTS manifest.py files.\n\n\
        Without a command (or with --stdio) it serves the Language Server Protocol on\n\
        stdin/stdout, as editors start it. The commands answer from the command line what\n\
        `torchcts check-manifest` and `torchcts show-skips` answer, without running Python.",
    after_help = "Exit codes: a command's own (check-manifest's for check and analyze), 1 for a\n\
        file that cannot be read or is over the size limit, 2 for a usage error.\n\
        `torchcts-lsp help COMMAND` (or COMMAND --help) explains a command's output.\n\n\
        Manifests over 512 KiB are not analysed (a manifest is a few KB; such a file would cost\n\
        over a second and 100 MB): the message names the literal that makes the file large.\n\
        TORCHCTS_LSP_MAX_BYTES=N sets the limit in bytes, 0 for none.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Serve LSP over stdin/stdout (the default without a command; editors pass it).
    #[arg(long)]
    pub stdio: bool,
    /// The server's log level: error, warn, info, debug (the `logLevel` setting overrides it;
    /// else $TORCHCTS_LSP_LOG_LEVEL, else info)
    #[arg(long, value_name = "LEVEL", value_parser = ["error", "warn", "info", "debug"])]
    pub log_level: Option<String>,
    /// Append the server's log to FILE (the `logFile` setting overrides it; else
    /// $TORCHCTS_LSP_LOG_FILE)
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    Check(check::CheckArgs),
    Analyze(analyze::AnalyzeArgs),
    Skips(skips::SkipsArgs),
    Inventory(inventory::InventoryArgs),
    Diff(diff::DiffArgs),
    Report(report::ReportArgs),
    Run(run::RunArgs),
    Config(config::ConfigArgs),
    Completions(completions::CompletionsArgs),
}

impl Command {
    /// `-o/--output-file` of the command.
    pub fn output_file(&self) -> Option<&Path> {
        let output = match self {
            Command::Check(a) => &a.output,
            Command::Analyze(a) => &a.output,
            Command::Skips(a) => &a.output,
            Command::Inventory(a) => &a.output,
            Command::Diff(a) => &a.output,
            // `report -o` is a file or, for several manifests, a folder: the command writes it.
            Command::Report(_) => return None,
            Command::Run(a) => &a.output,
            Command::Config(a) => &a.output,
            Command::Completions(a) => &a.output,
        };
        output.output_file.as_deref()
    }
}

/// `-o/--output-file`, on every command.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Write what the command prints on stdout to FILE instead (messages stay on stderr)
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
}

/// A usage problem with the FILE arguments (exit 2) or a project configuration that cannot
/// be used (exit 2, naming the file and key).
pub fn input_error(command: &str, error: inputs::InputError) -> std::process::ExitCode {
    match error {
        inputs::InputError::Usage(message) => output::errln!("torchcts-lsp {command}: {message}"),
        inputs::InputError::Config(error) => output::errln!("torchcts-lsp {command}: {error}"),
    }
    std::process::ExitCode::from(2)
}

/// The project configuration of each input (`Err`: one cannot be used, said on stderr;
/// the command exits 2).
pub fn configs_for(
    command: &str,
    inputs: &[inputs::Input],
) -> Result<Vec<Option<crate::host::project_config::ProjectConfig>>, std::process::ExitCode> {
    inputs
        .iter()
        .map(inputs::config_for)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| input_error(command, inputs::InputError::Config(e)))
}

/// The project configuration of one manifest (`Err`: it cannot be used, said on stderr
/// under `command`'s name; the command exits 2).
pub fn config_for_manifest(command: &str, manifest: &Path) -> Result<Option<ProjectConfig>, std::process::ExitCode> {
    crate::host::project_config::load_for(manifest).map_err(|e| input_error(command, inputs::InputError::Config(e)))
}

/// Drops the findings the project configuration's `ignore` names (the host's one rule,
/// [`crate::host::project::ignores`]), saying on stderr which ignored codes are
/// check-manifest's own and so stay.
pub fn ignore_configured(analysis: &mut Analysis, surroundings: &Surroundings, config: Option<&ProjectConfig>) {
    if let Some(config) = config {
        for code in crate::host::project::ignored_but_kept(&surroundings.ignored, &analysis.findings) {
            output::errln!(
                "Note: {} ignores `{}`, which is check-manifest's own finding: not silenced (the real tool, and CI, still report it)",
                config.file.display(),
                code
            );
        }
    }
    surroundings.drop_ignored(analysis);
}

/// `--format` of the commands that report the accounting (`skips`, `analyze`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// for people
    Text,
    /// everything, for programs
    Json,
}

/// What the accounting is asked for, as `torchcts show-skips` takes it: shared by `skips`
/// and `analyze`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct AccountingArgs {
    #[command(flatten)]
    pub levels: LevelArgs,
    /// Device to count for, like `show-skips --device` [default: pyproject.toml's `device`,
    /// else the manifest's device_name; cpu for auto]
    #[arg(long, value_name = "D")]
    pub device: Option<String>,
    /// Another inventory (written by `torchcts-lsp inventory`) instead of the embedded one
    /// [default: pyproject.toml's `inventory`]
    #[arg(long, value_name = "PATH", conflicts_with = "torch")]
    pub inventory: Option<PathBuf>,
    /// Count for this torch release (one embedded inventory per release torchcts 0.4.1
    /// supports, 2.7.0 to 2.12.1) [default: pyproject.toml's `torch`, else the torch installed
    /// in $VIRTUAL_ENV, a .venv beside the manifest or python3's environment, read from its
    /// dist-info; else the newest]
    #[arg(long, value_name = "VERSION", value_parser = crate::host::torch_env::torch_release_option)]
    pub torch: Option<String>,
    /// Count for this torchcts release (embedded inventories: 0.4.1 for every torch release
    /// it supports, 0.4.0 for those extracted) [default: pyproject.toml's `torchcts`, else the
    /// torchcts installed in the environment found as for --torch, if embedded; else the newest]
    #[arg(long, value_name = "VERSION", value_parser = crate::host::torch_env::torchcts_release_option, conflicts_with = "inventory")]
    pub torchcts: Option<String>,
    /// How a real run names tests: the path from pytest's root folder to the torchcts
    /// package (`.venv/lib/python3.11/site-packages/torchcts/`), quoted in some details
    /// [default: from the environment's site-packages and the manifest's folder]
    #[arg(long, value_name = "PREFIX")]
    pub node_prefix: Option<String>,
    /// The real run roots node ids at the torchcts package (the venv and the manifest share
    /// no folder but `/`): torchcts' known-segfault ledger then never matches
    #[arg(long, conflicts_with = "node_prefix")]
    pub rooted_at_package: bool,
    /// The environment found for the manifest, read once for both the inventory and the
    /// run layout.
    #[arg(skip)]
    pub environment: std::sync::OnceLock<crate::host::Environment>,
    /// The project configuration's `python` (flags have none: the environment decides).
    #[arg(skip)]
    pub python: Option<PathBuf>,
    /// The project configuration's `level`: the default selection when the manifest has
    /// no `semantic_level` and no level flag is given.
    #[arg(skip)]
    pub default_level: Option<u8>,
    /// Where the inventory choice was made when the project configuration made it
    /// (`pyproject.toml:7: [tool.torchcts-lsp] inventory`): said when it cannot load.
    #[arg(skip)]
    pub inventory_origin: Option<String>,
}

impl AccountingArgs {
    /// These flags for one manifest, the project configuration filling what they leave
    /// unset (`device`, `inventory`, `python`, `level`), the environment not yet read.
    pub fn for_manifest(&self, config: Option<&crate::host::project_config::ProjectConfig>) -> AccountingArgs {
        let mut out = AccountingArgs {
            levels: self.levels.clone(),
            device: self.device.clone(),
            inventory: self.inventory.clone(),
            torch: self.torch.clone(),
            torchcts: self.torchcts.clone(),
            node_prefix: self.node_prefix.clone(),
            rooted_at_package: self.rooted_at_package,
            environment: std::sync::OnceLock::new(),
            python: self.python.clone(),
            default_level: self.default_level,
            inventory_origin: self.inventory_origin.clone(),
        };
        if let Some(config) = config {
            if out.device.is_none() {
                out.device = config.device.as_ref().map(|s| s.value.clone());
            }
            // The flags choose the inventory as a whole: any of them, and none of the file's.
            if out.inventory.is_none() && out.torch.is_none() && out.torchcts.is_none() {
                out.inventory = config.inventory.as_ref().map(|s| s.value.clone());
                out.torch = config.torch.as_ref().map(|s| s.value.clone());
                out.torchcts = config.torchcts.as_ref().map(|s| s.value.clone());
                let chosen_by = [
                    ("inventory", config.inventory.as_ref().map(|s| s.line)),
                    ("torch", config.torch.as_ref().map(|s| s.line)),
                    ("torchcts", config.torchcts.as_ref().map(|s| s.line)),
                ];
                out.inventory_origin = chosen_by.iter().find_map(|(key, line)| {
                    line.map(|line| {
                        format!("{}:{line}: [{}] {key}", config.file.display(), crate::host::project_config::TABLE)
                    })
                });
            }
            out.python = out.python.or_else(|| config.python.as_ref().map(|s| s.value.clone()));
            out.default_level = out.default_level.or(config.level.as_ref().map(|s| s.value));
        }
        out
    }

    /// The selection when no level flag is given: the manifest's `semantic_level`, else the
    /// project's `level`, else 3. `Err`: an invalid `semantic_level` (torchcts' message).
    pub fn default_selection(&self, facts: &accounting::ManifestFacts) -> Result<LevelSelection, String> {
        match (&facts.semantic_level, self.default_level) {
            (None, Some(level)) => Ok(LevelSelection::Cumulative(level)),
            _ => LevelSelection::from_manifest(facts),
        }
    }
    /// How `torchcts show-skips` run in the manifest's folder would name tests: the flags,
    /// else pytest's rule applied to the folder and the environment's torchcts package.
    pub fn run_layout(&self, manifest: &Path) -> accounting::RunLayout {
        if self.rooted_at_package {
            return accounting::RunLayout { rooted_at_package: true, node_prefix: String::new() };
        }
        if let Some(prefix) = &self.node_prefix {
            return accounting::RunLayout { rooted_at_package: false, node_prefix: prefix.clone() };
        }
        match self.environment(manifest).layout_site_packages() {
            Some(site) => accounting::RunLayout::for_paths(&manifest_folder(manifest), &site.join("torchcts")),
            None => accounting::RunLayout::default(),
        }
    }

    /// The note the counts owe the user when no environment with torchcts decided the layout.
    pub fn layout_note(&self, manifest: &Path) -> Option<&'static str> {
        let decided = self.rooted_at_package
            || self.node_prefix.is_some()
            || self.environment(manifest).layout_site_packages().is_some();
        (!decided).then_some(crate::host::torch_env::ASSUMED_LAYOUT_NOTE)
    }

    /// The environment of the manifest: the project's `python`, else the one found for its
    /// folder (`$VIRTUAL_ENV`, its `.venv`, `python3`), read once.
    pub fn environment(&self, manifest: &Path) -> &crate::host::Environment {
        self.environment
            .get_or_init(|| crate::host::Environment::detect(self.python.as_deref(), Some(&manifest_folder(manifest))))
    }

    /// The Python whose `re` answers for `manifest`'s regexes, and the line saying so.
    pub fn regex_python(&self, manifest: &Path) -> (PythonVersion, String) {
        self.environment(manifest).regex_python()
    }

    /// What the world gives the analysis of `manifest` (the host's one builder): its
    /// environment's Python and modules, its folder, the project configuration's `ignore`.
    pub fn surroundings(&self, manifest: &Path, config: Option<&ProjectConfig>) -> Surroundings {
        Surroundings::of(Place::File(manifest), Some(self.environment(manifest)), config)
    }

    /// The inventory to count `manifest` with: `--inventory`, `--torch`, else the embedded
    /// one for the environment's torch. `Err` says why it cannot load.
    pub fn load_inventory(&self, manifest: &Path) -> Result<SelectedInventory, String> {
        self.load_inventory_as_chosen(manifest).map_err(|e| match &self.inventory_origin {
            Some(origin) => format!("{origin}: {e}"),
            None => e,
        })
    }

    fn load_inventory_as_chosen(&self, manifest: &Path) -> Result<SelectedInventory, String> {
        if let Some(p) = &self.inventory {
            return std::fs::read(p)
                .map_err(|e| format!("{}: {e}", p.display()))
                .and_then(|bytes| Inventory::from_bytes(&bytes))
                .map(|inventory| SelectedInventory::Loaded(Box::new(inventory)))
                .map_err(|e| format!("cannot load inventory {}: {e}", p.display()));
        }
        let choice = match (&self.torch, &self.torchcts) {
            (Some(version), torchcts) => {
                crate::host::torch_env::inventory_for_torch_option(torchcts.as_deref(), version)?
            }
            (None, Some(torchcts)) => {
                crate::host::torch_env::inventory_for_torchcts_option(torchcts, &self.environment(manifest).found)
            }
            (None, None) => self.environment(manifest).inventory_choice(),
        };
        Ok(SelectedInventory::Embedded(choice))
    }
}

/// What `torchcts show-skips` and `run` print on stderr for the known-segfault ledgers'
/// (packaged, then the project's) active entries past their review date
/// (`Warning: known segfault ...`).
pub fn ledger_expiry_warnings(
    inventory: &SelectedInventory,
    device: &str,
    facts: &accounting::ManifestFacts,
) -> Vec<String> {
    crate::host::ledger_warnings::expired(&inventory.meta.torchcts_version, &inventory.torch(), device, facts)
}

/// The project's `known_segfaults.json` beside `manifest`, read as torchcts reads it for a
/// run counted with `inventory`.
pub fn project_ledger(
    manifest: &Path,
    inventory: &SelectedInventory,
) -> Result<accounting::ledger::ProjectLedger, crate::host::project_ledger::LedgerProblem> {
    crate::host::project_ledger::read(manifest, &inventory.meta.torchcts_version, &inventory.torch())
}

/// The manifest's folder, absolute (show-skips runs there).
fn manifest_folder(manifest: &Path) -> PathBuf {
    std::path::absolute(manifest)
        .ok()
        .and_then(|m| m.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The inventory a command counts with.
pub enum SelectedInventory {
    /// Embedded, chosen for a torch release.
    Embedded(accounting::InventoryChoice),
    Loaded(Box<Inventory>),
}

impl SelectedInventory {
    /// The torch release the counts are for.
    pub fn torch(&self) -> String {
        match self {
            SelectedInventory::Embedded(choice) => choice.torch.clone(),
            SelectedInventory::Loaded(inventory) => inventory.meta.torch_version.clone(),
        }
    }

    /// "torchcts 0.4.1 with torch 2.9.1".
    pub fn label(&self) -> String {
        format!("torchcts {} with torch {}", self.meta.torchcts_version, self.torch())
    }

    /// Why the counts may not be for the user's environment (said once, on stderr).
    pub fn note(&self) -> Option<&str> {
        match self {
            SelectedInventory::Embedded(choice) => choice.note.as_deref(),
            SelectedInventory::Loaded(_) => None,
        }
    }
}

/// The note for a device name the inventory has no facts for: which names torch knows, and
/// that any other is counted as a PrivateUse1 backend (as torchcts treats it).
pub fn assumed_device_note(inventory: &Inventory, device: &str) -> String {
    let known: Vec<&str> =
        inventory.known_devices().into_iter().filter(|(_, torch_type, _)| torch_type.is_some()).map(|d| d.0).collect();
    format!(
        "`{device}` is not a device torch knows ({}); any other name is counted as a PrivateUse1 (custom) backend",
        known.join(", ")
    )
}

impl std::ops::Deref for SelectedInventory {
    type Target = Inventory;
    fn deref(&self) -> &Inventory {
        match self {
            SelectedInventory::Embedded(choice) => choice.inventory,
            SelectedInventory::Loaded(inventory) => inventory,
        }
    }
}

/// The environment variable that sets the largest manifest the commands analyse, in bytes
/// (0: no limit); by default [`torchcts_core::size_limit::ANALYSIS_MAX_BYTES`].
pub const MAX_BYTES_VARIABLE: &str = "TORCHCTS_LSP_MAX_BYTES";

fn max_manifest_bytes() -> Result<usize, String> {
    match std::env::var(MAX_BYTES_VARIABLE) {
        Err(_) => Ok(torchcts_core::size_limit::ANALYSIS_MAX_BYTES),
        Ok(text) => match text.trim().parse::<usize>() {
            Ok(0) => Ok(usize::MAX),
            Ok(n) => Ok(n),
            Err(_) => Err(format!("{MAX_BYTES_VARIABLE}={text:?} is not a number of bytes (0 for no limit)")),
        },
    }
}

/// Reads a manifest for a command, with a clear message instead of a panic. A file over
/// the size limit ([`MAX_BYTES_VARIABLE`]) is refused with a message that names the
/// literal that makes it large. The messages
/// are check-manifest's where it has one (`Manifest file not found`, `Failed to parse
/// manifest: ...`).
pub fn read_manifest(path: &Path) -> Result<String, String> {
    if path.is_dir() {
        // check-manifest's own words: importlib reads a `*.py` folder and fails
        // (IsADirectoryError on the absolute path), and finds no loader for any other name.
        if !has_source_suffix(path) {
            return Err(NO_LOADER.to_string());
        }
        let shown = accounting::pyfmt::str_repr(&python_abspath(path).to_string_lossy());
        return Err(format!("Failed to parse manifest: [Errno 21] Is a directory: {shown}"));
    }
    let limit = max_manifest_bytes()?;
    if let Some(size) = std::fs::metadata(path).ok().map(|m| m.len() as usize).filter(|&n| n > limit) {
        // Reading a file far over the limit only to name its largest literal is not worth it.
        let text = (size <= 64 << 20).then(|| std::fs::read(path).ok()).flatten();
        let text = text.as_deref().map(String::from_utf8_lossy);
        let message = torchcts_core::size_limit::too_large_message(size, limit, text.as_deref());
        return Err(format!(
            "{}: not analysed. {message} Set {MAX_BYTES_VARIABLE}=0 to analyse it anyway, or run `torchcts check-manifest` on it.",
            path.display()
        ));
    }
    match std::fs::read(path) {
        Ok(bytes) => decode_manifest(bytes, path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("Manifest file not found: {}", path.display()))
        }
        Err(e) => Err(format!("Failed to parse manifest: cannot read {}: {e}", path.display())),
    }
}

/// A manifest's bytes as CPython's `compile()` reads them (a coding cookie, else UTF-8, and
/// any bytes inside comments): the text, or check-manifest's line for a file CPython cannot
/// decode (`(unicode error) 'utf-8' codec can't decode byte 0xe9 ...`, under the file's name).
pub fn decode_manifest(bytes: Vec<u8>, path: &Path) -> Result<String, String> {
    use torchcts_core::cpython::source_bytes::{decode_source, SourceText};
    match decode_source(&bytes) {
        SourceText::Text(text) => Ok(text),
        SourceText::Error { message, line } => {
            let name = path.file_name().map_or("manifest.py".into(), |n| n.to_string_lossy());
            Err(format!("Failed to parse manifest: {message} ({name}, line {line})"))
        }
        SourceText::UnknownEncoding(name) => Err(format!(
            "{}: its coding cookie names {name}, which torchcts-lsp does not decode; run torchcts check-manifest",
            path.display()
        )),
    }
}

/// What check-manifest prints for a path importlib has no loader for (a name not ending in
/// `.py`: `spec_from_file_location` returns None).
const NO_LOADER: &str = "Failed to parse manifest: 'NoneType' object has no attribute 'loader'";

/// Whether importlib would load `path` as Python source (`importlib.machinery.SOURCE_SUFFIXES`).
fn has_source_suffix(path: &Path) -> bool {
    path.to_string_lossy().ends_with(".py")
}

/// For a manifest path check-manifest cannot load (a directory, a name not ending in
/// `.py`), what the user probably meant (`analyze` says it; `check` keeps check-manifest's
/// output alone).
pub fn path_hint(path: &Path) -> Option<String> {
    let inside = path.join("manifest.py");
    match (path.is_dir(), inside.is_file()) {
        (true, true) => Some(format!("hint: {} is a directory; did you mean {}?", path.display(), inside.display())),
        (true, false) => Some(format!("hint: {} is a directory with no manifest.py in it", path.display())),
        _ if path.is_file() && !has_source_suffix(path) => Some(format!(
            "hint: check-manifest loads a manifest with importlib, which takes only files named *.py; rename {}",
            path.display()
        )),
        _ => None,
    }
}

/// Reads and analyzes a manifest as check-manifest would load it, in the host's
/// `surroundings` of it (`custom_test_dirs` relative to its folder, syntax errors under the
/// file's own name).
pub fn analyze_file(
    path: &Path,
    inventory: Option<&Inventory>,
    surroundings: &Surroundings,
) -> Result<Analysis, String> {
    let text = read_manifest(path)?;
    if !has_source_suffix(path) {
        return Err(NO_LOADER.to_string());
    }
    Ok(surroundings.analyze_whole(&text, inventory))
}

/// The text of a manifest to report on: stdin's, or the file's ([`read_manifest`]); a
/// folder with no manifest in it says so.
pub fn read_input(input: &inputs::Input) -> Result<String, String> {
    if input.stdin {
        return inputs::read_stdin(&input.shown());
    }
    if input.empty_folder {
        return Err(format!(
            "{}: no manifest.py (nor a file the project's `manifests` globs match) in this folder",
            input.path.display()
        ));
    }
    read_manifest(&input.path)
}

/// [`analyze_file`] of an input: stdin's text is analysed whatever its name.
pub fn analyze_input(
    input: &inputs::Input,
    inventory: Option<&Inventory>,
    surroundings: &Surroundings,
) -> Result<(String, Analysis), String> {
    let text = read_input(input)?;
    if !input.stdin && !has_source_suffix(&input.path) {
        return Err(NO_LOADER.to_string());
    }
    let analysis = surroundings.analyze_whole(&text, inventory);
    Ok((text, analysis))
}

/// `os.path.abspath(path)`: joined to the working folder and normalised lexically (`.` and
/// `..` resolved, no links followed).
fn python_abspath(path: &Path) -> PathBuf {
    use std::path::Component;
    let joined = std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
