//! Which top-level modules the Python that runs `torchcts check-manifest` can import, read
//! from the folders of its `sys.path` without running it (the answer the core's
//! `eval::modules` needs for `import orch`): the environment's site-packages (and the
//! folders its `.pth` files name), the interpreter's folder, the manifest's folder. Only
//! where that list is complete: a venv that does not see the system's site-packages, no
//! `PYTHONPATH`, no `.pth` that runs code; else `None` and nothing is claimed.
//!
//! The environment's part is kept as a [`Listing`] with its folders' modification times:
//! `pip install` / `pip uninstall` adds or removes an entry of the folder that holds the
//! module, so a kept listing knows at one `stat` per folder ([`Listing::is_current`])
//! that it must be made again.

use super::folder_stamps::{stamps, Stamps};
use runner::environment::PythonEnvironment;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use torchcts_core::eval::modules::{module_name_of_entry, ImportableModules};

/// The importable modules for a manifest in `manifest_folder` loaded by `env`'s Python.
pub fn importable_modules(env: &PythonEnvironment, manifest_folder: &Path) -> Option<ImportableModules> {
    with_manifest_folder(&environment_modules(env)?, manifest_folder)
}

/// The modules `env`'s own `sys.path` folders hold (site-packages, the folders its `.pth`
/// files add, the interpreter's folder): `None` where that list cannot be complete. The
/// manifest's folder, which the user edits, is listed on each question
/// ([`with_manifest_folder`]).
pub fn environment_modules(env: &PythonEnvironment) -> Option<HashSet<String>> {
    if env.torchcts.is_none() || std::env::var_os("PYTHONPATH").is_some_and(|p| !p.is_empty()) {
        return None;
    }
    let site = env.site_packages.as_deref()?;
    if !isolated_venv(site) {
        return None;
    }
    let mut folders = vec![site.to_path_buf()];
    folders.extend(env.python.parent().map(Path::to_path_buf));
    folders.extend(pth_folders(site)?);
    let mut names = HashSet::new();
    for folder in &folders {
        list_modules(folder, &mut names)?;
    }
    Some(names)
}

/// [`environment_modules`] as listed at one time, with the modification times its folders
/// had just before (a change while it lists is not taken as listed).
#[derive(Clone, Debug)]
pub struct Listing {
    pub modules: Option<HashSet<String>>,
    folders: Vec<PathBuf>,
    stamps: Stamps,
}

impl Listing {
    /// Lists `env`'s folders now (a `read_dir` of each: see docs/performance.md for a
    /// large venv).
    pub fn of(env: &PythonEnvironment) -> Listing {
        let folders = environment_folders(env);
        let stamps = stamps(&folders);
        Listing { modules: environment_modules(env), folders, stamps }
    }

    /// No listed folder changed since it was listed (one `stat` per folder: site-packages,
    /// the interpreter's folder, each `.pth` folder). A `.pth` file rewritten in place (not
    /// added or removed) is not seen.
    pub fn is_current(&self) -> bool {
        stamps(&self.folders) == self.stamps
    }
}

/// The environment's own folders of `sys.path` besides its standard library:
/// site-packages, the interpreter's folder, the folders its `.pth` files name (those of a
/// `.pth` that also runs code included).
fn environment_folders(env: &PythonEnvironment) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = env.site_packages.iter().cloned().collect();
    folders.extend(env.python.parent().map(Path::to_path_buf));
    if let Some(site) = env.site_packages.as_deref() {
        folders.extend(pth_path_lines(site));
    }
    folders
}

/// The folders the Python that loads a manifest in `manifest_folder` searches for a
/// top-level module besides its standard library (as [`environment_modules`] lists them,
/// `.pth` folders included even where a `.pth` also runs code): where CPython's
/// `PathFinder.find_spec` confirms a module we would say is missing (`host::cpython`).
pub fn search_folders(env: &PythonEnvironment, manifest_folder: &Path) -> Vec<PathBuf> {
    let mut folders = environment_folders(env);
    folders.push(manifest_folder.to_path_buf());
    folders
}

/// The folder lines of the `.pth` files in `site` (their `import` lines left out).
fn pth_path_lines(site: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(site) else { return Vec::new() };
    let mut out = Vec::new();
    for path in entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "pth")) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lines = text.lines().map(str::trim_end).filter(|l| !l.is_empty() && !l.starts_with('#'));
        out.extend(lines.filter(|l| !l.starts_with("import ") && !l.starts_with("import\t")).map(|l| site.join(l)));
    }
    out
}

/// `environment`'s modules and those of the manifest's folder.
pub fn with_manifest_folder(environment: &HashSet<String>, manifest_folder: &Path) -> Option<ImportableModules> {
    let mut names = environment.clone();
    list_modules(manifest_folder, &mut names)?;
    Some(ImportableModules { names })
}

/// Adds the module names `folder` holds; `None` if it cannot be listed (a folder that is
/// not there holds nothing).
fn list_modules(folder: &Path, names: &mut HashSet<String>) -> Option<()> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(()),
        Err(_) => return None,
    };
    for entry in entries.flatten() {
        // (The entry's type comes with the listing: no stat per entry but for links.)
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir() || t.is_symlink() && entry.path().is_dir());
        if let Some(name) = entry.file_name().to_str().and_then(|n| module_name_of_entry(n, is_dir)) {
            names.insert(name.to_string());
        }
    }
    Some(())
}

/// The venv's `pyvenv.cfg` (above its site-packages) says it does not see the system's.
fn isolated_venv(site: &Path) -> bool {
    let Some(cfg) = site.ancestors().skip(1).take(4).map(|a| a.join("pyvenv.cfg")).find(|c| c.is_file()) else {
        return false;
    };
    let Ok(text) = std::fs::read_to_string(cfg) else { return false };
    text.lines().any(|line| {
        let mut parts = line.splitn(2, '=');
        let key = parts.next().unwrap_or("").trim();
        let value = parts.next().unwrap_or("").trim();
        key == "include-system-site-packages" && value.eq_ignore_ascii_case("false")
    })
}

/// The folders `.pth` files in `site` add to `sys.path`; `None` if one runs code (an
/// `import` line: an editable install's finder, say) or cannot be read.
fn pth_folders(site: &Path) -> Option<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(site).ok()?.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "pth") {
            continue;
        }
        // setuptools' and virtualenv's shims: their code only redirects `distutils` (and
        // `pip`'s use of it), both importable anyway.
        if path.file_name().is_some_and(|n| n == "distutils-precedence.pth" || n == "_virtualenv.pth") {
            continue;
        }
        let text = std::fs::read_to_string(&path).ok()?;
        for line in text.lines() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if line.starts_with("import ") || line.starts_with("import\t") {
                return None;
            }
            out.push(site.join(line));
        }
    }
    Some(out)
}
