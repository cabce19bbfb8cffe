//! One Python environment as the host reads it, never running it: the interpreter found
//! (`runner::find_python`: an explicit `python`, `$VIRTUAL_ENV`, a `.venv` in the folder,
//! `python3`), its torch and torchcts versions (dist-info), the Python whose `re` answers for
//! regexes, the inventory its versions choose, and the modules its own folders hold (listed
//! once per environment: they change only with it; the manifest's folder is listed per
//! question, see [`importable`](super::importable)).

use super::{importable, torch_env};
use runner::environment::PythonEnvironment;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use torchcts_core::eval::modules::ImportableModules;
use torchcts_core::regex_check::PythonVersion;

#[derive(Clone, Debug)]
pub struct Environment {
    pub found: PythonEnvironment,
    /// The modules of the environment's own `sys.path` folders, listed on first use.
    modules: OnceLock<Option<HashSet<String>>>,
}

impl Environment {
    /// The environment of `python` (an explicit interpreter: the `python` setting or project
    /// key), else the one found for `folder`.
    pub fn detect(python: Option<&Path>, folder: Option<&Path>) -> Environment {
        Environment::of(torch_env::detect(python, folder))
    }

    pub fn of(found: PythonEnvironment) -> Environment {
        Environment { found, modules: OnceLock::new() }
    }

    /// The Python whose `re` answers for regexes, and the line outputs give about it.
    pub fn regex_python(&self) -> (PythonVersion, String) {
        torch_env::regex_python(&self.found)
    }

    /// The modules this environment's Python imports for a manifest in `manifest_folder`;
    /// `None` where that list cannot be complete.
    pub fn importable(&self, manifest_folder: &Path) -> Option<ImportableModules> {
        let modules = self.modules.get_or_init(|| importable::environment_modules(&self.found));
        importable::with_manifest_folder(modules.as_ref()?, manifest_folder)
    }

    /// The embedded inventory for the environment's torch and torchcts, with its note.
    pub fn inventory_choice(&self) -> accounting::InventoryChoice {
        torch_env::inventory_choice(&self.found)
    }

    /// The site-packages whose torchcts decides where a run roots node ids.
    pub fn layout_site_packages(&self) -> Option<PathBuf> {
        torch_env::layout_site_packages(&self.found)
    }

    /// The environment's torch release, as its dist-info says.
    pub fn torch(&self) -> Option<&str> {
        self.found.torch.as_deref()
    }
}
