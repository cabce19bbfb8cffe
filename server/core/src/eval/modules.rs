//! Which modules the manifest can import, as the caller read them (this crate reads no
//! folder): `import orch` certainly fails where the name is in no folder of the loading
//! Python's `sys.path` and in no standard library. Without that answer nothing is claimed.

use std::collections::HashSet;

/// The top-level module names found in every folder of the loading Python's `sys.path`
/// (site-packages, the manifest's folder, ...), read by the IO layer. Only given when that
/// list is complete: a `.pth` that runs code, a `PYTHONPATH`, or system site-packages make
/// the answer unknown, and then none is given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportableModules {
    pub names: HashSet<String>,
}

static STDLIB: &str = include_str!("../../data/stdlib_modules.txt");

/// In the standard library (or built in) of any CPython 3.10-3.13: importable whichever of
/// them loads the manifest.
pub fn in_stdlib(name: &str) -> bool {
    STDLIB.lines().any(|l| l == name)
}

impl ImportableModules {
    /// The top-level module of `module` (`a` of `a.b.c`) certainly cannot be imported.
    pub fn certainly_missing(&self, module: &str) -> Option<String> {
        let top = module.split('.').next().unwrap_or(module).trim();
        if top.is_empty() || in_stdlib(top) || self.names.contains(top) {
            return None;
        }
        Some(top.to_string())
    }
}

/// The top-level name a folder entry can be imported as: a folder (a package, or a
/// namespace package), a source, bytecode or extension module (`name.py`,
/// `name.cpython-311-x86_64-linux-gnu.so`); None for anything else.
pub fn module_name_of_entry(file_name: &str, is_dir: bool) -> Option<&str> {
    if is_dir {
        return (!file_name.contains('.')).then_some(file_name);
    }
    let (stem, _) = file_name.split_once('.')?;
    let suffix = file_name.rsplit('.').next().unwrap_or("");
    matches!(suffix, "py" | "pyc" | "so" | "pyd" | "pyw").then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdlib_names_of_every_version_and_entries_by_their_import_name() {
        assert!(in_stdlib("os") && in_stdlib("distutils") && in_stdlib("tomllib") && in_stdlib("sys"));
        assert!(!in_stdlib("orch"));
        assert_eq!(module_name_of_entry("numpy", true), Some("numpy"));
        assert_eq!(module_name_of_entry("numpy-2.4.6.dist-info", true), None);
        assert_eq!(module_name_of_entry("six.py", false), Some("six"));
        assert_eq!(module_name_of_entry("_cffi_backend.cpython-311-x86_64-linux-gnu.so", false), Some("_cffi_backend"));
        assert_eq!(module_name_of_entry("README.txt", false), None);
        let m = ImportableModules { names: ["numpy".to_string()].into() };
        assert_eq!(m.certainly_missing("orch.sub"), Some("orch".into()));
        assert_eq!(m.certainly_missing("numpy.linalg"), None);
        assert_eq!(m.certainly_missing("json"), None);
    }
}
