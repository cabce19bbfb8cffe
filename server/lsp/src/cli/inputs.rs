//! The manifests a command is given: FILEs, folders walked for manifests, and `-` (stdin,
//! named by `--stdin-filename`). One FILE (or `-`) is "single" and keeps each command's
//! one-file output; anything else is reported file by file.
//!
//! A folder is walked for files named `manifest.py` and those the `manifests` globs of its
//! project configuration match, skipping `.git`, `.torchcts-lsp`, virtual environments (any
//! folder with a `pyvenv.cfg`: a venv holds `pip/_vendor/.../manifest.py`) and what git
//! ignores (`.gitignore`, `.git/info/exclude`, the global excludes file, inside a git work tree).

use crate::host::project_config::{self, ConfigError, ProjectConfig};
use std::path::{Path, PathBuf};

/// The FILE arguments shared by `check`, `analyze` and `skips`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct InputArgs {
    /// Manifests, folders to search for manifests, or `-` for stdin [default: ./manifest.py]
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The path stdin's manifest stands for (its name in messages, the folder its
    /// custom_test_dirs and project configuration are found from) [default: <stdin>]
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<PathBuf>,
}

/// One manifest to report on.
#[derive(Clone, Debug)]
pub struct Input {
    /// As given or found (the name in the output).
    pub path: PathBuf,
    /// Read from stdin; `path` is `--stdin-filename` or `<stdin>`.
    pub stdin: bool,
    /// A folder given that holds no manifest.
    pub empty_folder: bool,
}

impl Input {
    /// The path messages show.
    pub fn shown(&self) -> String {
        self.path.display().to_string()
    }
}

/// What a command's arguments name.
pub struct Inputs {
    pub inputs: Vec<Input>,
    /// One FILE or `-`: the command's one-file output, unchanged.
    pub single: bool,
}

/// The name stdin's manifest goes by without `--stdin-filename`.
pub const STDIN_NAME: &str = "<stdin>";

impl InputArgs {
    /// The manifests, in argument order, each folder's sorted by path. `Err`: a usage
    /// problem (stdin named twice) or a project configuration that cannot be read.
    pub fn expand(&self, default: &str) -> Result<Inputs, InputError> {
        let files = if self.files.is_empty() { vec![default_file(default)] } else { self.files.clone() };
        if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
            return Err(InputError::Usage("`-` (stdin) can be given once".into()));
        }
        if self.stdin_filename.is_some() && !files.iter().any(|f| f.as_os_str() == "-") {
            return Err(InputError::Usage("--stdin-filename names stdin's manifest: give `-` as a FILE".into()));
        }
        let single = files.len() == 1 && !files[0].is_dir();
        let mut inputs = Vec::new();
        for file in files {
            if file.as_os_str() == "-" {
                let path = self.stdin_filename.clone().unwrap_or_else(|| PathBuf::from(STDIN_NAME));
                inputs.push(Input { path, stdin: true, empty_folder: false });
            } else if file.is_dir() {
                let found = walk(&file).map_err(InputError::Config)?;
                if found.is_empty() {
                    inputs.push(Input { path: file, stdin: false, empty_folder: true });
                } else {
                    inputs.extend(found.into_iter().map(|path| Input { path, stdin: false, empty_folder: false }));
                }
            } else {
                inputs.push(Input { path: file, stdin: false, empty_folder: false });
            }
        }
        Ok(Inputs { inputs, single })
    }
}

/// The FILE a command reads when given none: `default` in the working folder, named by its
/// absolute path where it is not there, as check-manifest names it
/// (`os.path.join(os.getcwd(), "manifest.py")`: `Manifest file not found: /abs/cwd/manifest.py`).
fn default_file(default: &str) -> PathBuf {
    let relative = PathBuf::from(default);
    if relative.exists() {
        relative
    } else {
        super::python_abspath(&relative)
    }
}

/// Why the arguments name no manifests to report on.
pub enum InputError {
    Usage(String),
    Config(ConfigError),
}

/// The folder a manifest's custom_test_dirs and configuration are found from (stdin
/// without `--stdin-filename`: the working folder).
pub fn config_for(input: &Input) -> Result<Option<ProjectConfig>, ConfigError> {
    if input.stdin && input.path.as_os_str() == STDIN_NAME {
        return project_config::load_for(&std::env::current_dir().unwrap_or_default().join("manifest.py"));
    }
    project_config::load_for(&input.path)
}

/// The manifests under `dir`, sorted: `manifest.py` files and the configured globs' matches.
pub fn walk(dir: &Path) -> Result<Vec<PathBuf>, ConfigError> {
    let config = project_config::load_for(dir)?;
    let mut walker = ignore::WalkBuilder::new(dir);
    walker
        .hidden(false)
        .parents(true)
        .ignore(false)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(true)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let name = entry.file_name();
            !(is_dir && (name == ".git" || name == ".torchcts-lsp" || entry.path().join("pyvenv.cfg").is_file()))
        });
    let mut out = Vec::new();
    for entry in walker.build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let named = path.file_name().is_some_and(|n| n == "manifest.py");
        if named || config.as_ref().is_some_and(|c| c.matches_manifest_glob(path)) {
            // `check .` names `a/manifest.py`, not `./a/manifest.py`.
            out.push(path.strip_prefix(".").unwrap_or(path).to_path_buf());
        }
    }
    Ok(out)
}

/// Reads stdin as a manifest's text, decoded as CPython decodes a file
/// ([`super::decode_manifest`]).
pub fn read_stdin(shown: &str) -> Result<String, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("Failed to parse manifest: cannot read stdin: {e}"))?;
    super::decode_manifest(bytes, Path::new(shown))
}
