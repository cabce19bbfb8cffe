//! What the user's disk and Python environment hold, read from the file system without
//! running any Python: used by the language server to check `custom_test_dirs` and to warn
//! when the inventory's versions differ from the installed ones.

use std::path::Path;

/// Whether a `custom_test_dirs` entry names an existing folder, relative to `base` (the
/// manifest's folder) unless absolute.
pub fn dir_exists_relative_to(base: &Path) -> impl Fn(&str) -> bool + '_ {
    move |entry: &str| {
        let p = Path::new(entry);
        let full = if p.is_absolute() { p.to_path_buf() } else { base.join(p) };
        full.is_dir()
    }
}

/// Versions of torchcts and torch installed in a Python environment, read from the
/// `*.dist-info` folders of its site-packages.
pub fn installed_versions(python: &Path) -> Option<(String, String)> {
    // <venv>/bin/python -> <venv>/lib/python3.*/site-packages
    let venv = python.parent()?.parent()?;
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    for entry in lib.flatten() {
        let site = entry.path().join("site-packages");
        let Ok(dir) = std::fs::read_dir(&site) else { continue };
        let mut torchcts = None;
        let mut torch = None;
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if let Some(rest) = name.strip_suffix(".dist-info") {
                if let Some(v) = rest.strip_prefix("torchcts-") {
                    torchcts = Some(v.to_string());
                } else if let Some(v) = rest.strip_prefix("torch-") {
                    torch = Some(v.split('+').next().unwrap_or(v).to_string());
                }
            }
        }
        if let (Some(a), Some(b)) = (torchcts, torch) {
            return Some((a, b));
        }
    }
    None
}
