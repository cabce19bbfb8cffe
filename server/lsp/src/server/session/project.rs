//! The project configuration (`[tool.torchcts-lsp]` in the nearest `pyproject.toml`, read by
//! `crate::host::project_config`) as the server uses it: per manifest folder, read once and kept
//! until a `pyproject.toml` changes (`workspace/didChangeWatchedFiles` clears it). It adds
//! its `manifests` globs to what is a manifest and its `ignore` codes (the host's rule,
//! `crate::host::project::ignores`) to what is published;
//! editor settings still win where both say something. A file that cannot be read applies
//! nothing and gets a diagnostic on the pyproject.toml itself, never a crash.

use crate::host::project_config::{self, ConfigError, ProjectConfig};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Per manifest folder: the configuration that applies there (or none), or why it cannot
/// be read.
#[derive(Default)]
pub struct ProjectConfigs {
    by_folder: HashMap<PathBuf, Result<Option<ProjectConfig>, ConfigError>>,
    /// The config files a diagnostic was published for, with its message (cleared when they
    /// read well again; published again when the message changes).
    pub flagged: Vec<(PathBuf, String)>,
}

impl ProjectConfigs {
    /// The configuration for a document at `path`, read on first use. A file that cannot
    /// be read applies nothing (`torchcts-lsp config FILE` says why).
    pub fn for_path(&mut self, path: &Path) -> Option<&ProjectConfig> {
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let entry = self.by_folder.entry(folder).or_insert_with(|| project_config::load_for(path));
        entry.as_ref().ok().and_then(Option::as_ref)
    }

    /// Whether the configuration for a document at `path` is kept already (asking for it
    /// reads no file).
    pub fn is_kept(&self, path: &Path) -> bool {
        self.by_folder.contains_key(path.parent().unwrap_or(Path::new("")))
    }

    /// Keeps the configuration for a document at `path`, read elsewhere (on the blocking
    /// pool, outside the session's lock: `Session::read_project_files`); one kept already
    /// stays.
    pub fn keep(&mut self, path: &Path, read: Result<Option<ProjectConfig>, ConfigError>) {
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.by_folder.entry(folder).or_insert(read);
    }

    /// Why the configuration for a document at `path` cannot be read (it then applies
    /// nothing), if it cannot.
    pub fn error_for(&mut self, path: &Path) -> Option<ConfigError> {
        self.for_path(path);
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.by_folder.get(&folder).and_then(|r| r.as_ref().err()).cloned()
    }

    /// A `pyproject.toml` changed, appeared or went: read them again.
    pub fn forget(&mut self) {
        self.by_folder.clear();
    }
}

/// The inventory a project configuration chooses for its manifests' counts, as the CLI
/// takes it: `inventory`, else `torch`/`torchcts`, else the torch of its `python` (where
/// the editor names no Python).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProjectInventory {
    File(PathBuf),
    Embedded { torch: Option<String>, torchcts: Option<String> },
    Python(PathBuf),
}

impl ProjectInventory {
    pub fn of(config: &ProjectConfig, editor_python: bool) -> Option<ProjectInventory> {
        if let Some(file) = &config.inventory {
            return Some(ProjectInventory::File(file.value.clone()));
        }
        let version = |s: &Option<project_config::Setting<String>>| s.as_ref().map(|s| s.value.clone());
        if config.torch.is_some() || config.torchcts.is_some() {
            return Some(ProjectInventory::Embedded {
                torch: version(&config.torch),
                torchcts: version(&config.torchcts),
            });
        }
        config.python.as_ref().filter(|_| !editor_python).map(|p| ProjectInventory::Python(p.value.clone()))
    }
}
