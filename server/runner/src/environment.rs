//! What the user's disk and Python environment hold, read from the file system without
//! running any Python: used by the language server to check `custom_test_dirs`, and by the
//! server and CLI to choose the embedded inventory for the installed torch (`torch_env`).

use std::path::{Path, PathBuf};

/// Whether a `custom_test_dirs` entry names an existing folder, relative to `base` (the
/// manifest's folder) unless absolute.
pub fn dir_exists_relative_to(base: &Path) -> impl Fn(&str) -> bool + '_ {
    move |entry: &str| {
        let p = Path::new(entry);
        let full = if p.is_absolute() { p.to_path_buf() } else { base.join(p) };
        full.is_dir()
    }
}

/// What the file system says about the environment of one interpreter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PythonEnvironment {
    /// The interpreter the environment was found from (resolved on PATH if a bare name).
    pub python: PathBuf,
    /// The site-packages folder that holds torch (or the first one found).
    pub site_packages: Option<PathBuf>,
    /// `Version:` of torch's METADATA (`2.9.1`; a local suffix such as `+cu128` is kept).
    pub torch: Option<String>,
    pub torchcts: Option<String>,
    /// The interpreter's `(major, minor)` version, read without running it: the `version` /
    /// `version_info` of the environment's `pyvenv.cfg`, else its `lib/pythonX.Y` folder,
    /// else the interpreter's (or its link target's) name `pythonX.Y`.
    pub python_version: Option<(u32, u32)>,
    /// pytest-xdist's version (`workers` above 1 need it), from any of the environment's
    /// site-packages folders.
    pub xdist: Option<String>,
}

impl PythonEnvironment {
    /// Reads the environment of `python` (a path, or a bare name looked up on PATH): the
    /// folder above its `bin/` is the environment's root (`lib/python3.*/site-packages`,
    /// `lib64/...` or `Lib/site-packages`); a symlinked interpreter's real root is tried too.
    pub fn of_python(python: &Path) -> PythonEnvironment {
        let python = resolve_on_path(python);
        let mut env = PythonEnvironment { python: python.clone(), ..Default::default() };
        let sites = site_packages_of(&python);
        env.xdist = sites.iter().find_map(|site| xdist_version(site));
        for site in sites {
            let torch = dist_version(&site, "torch");
            if torch.is_some() || env.site_packages.is_none() {
                env.torchcts = dist_version(&site, "torchcts");
                env.torch = torch;
                env.site_packages = Some(site);
            }
            if env.torch.is_some() {
                break;
            }
        }
        env.python_version = python_version_of(&python, env.site_packages.as_deref());
        env
    }
}

/// `(major, minor)` of `X.Y...` (`3.12.1`, `3.12.1.final.0`, `3.12`).
fn major_minor(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.trim_end_matches(|c: char| !c.is_ascii_digit()).parse().ok()?;
    Some((major, minor))
}

/// `python3.12` (a folder or interpreter name) -> `(3, 12)`.
fn version_in_name(name: &str) -> Option<(u32, u32)> {
    major_minor(name.strip_prefix("python")?).filter(|_| name.contains('.'))
}

fn python_version_of(python: &Path, site_packages: Option<&Path>) -> Option<(u32, u32)> {
    let root = python.parent().and_then(Path::parent);
    let from_cfg = root.and_then(|root| std::fs::read_to_string(root.join("pyvenv.cfg")).ok()).and_then(|cfg| {
        cfg.lines().find_map(|line| {
            let (key, value) = line.split_once('=')?;
            matches!(key.trim(), "version" | "version_info").then(|| major_minor(value)).flatten()
        })
    });
    let from_site = || {
        let lib = site_packages?.parent()?;
        version_in_name(lib.file_name()?.to_str()?)
    };
    let name_of = |p: &Path| version_in_name(p.file_name()?.to_str()?);
    let from_name = || name_of(python).or_else(|| name_of(&std::fs::canonicalize(python).ok()?));
    from_cfg.or_else(from_site).or_else(from_name)
}

fn resolve_on_path(python: &Path) -> PathBuf {
    if python.is_absolute() || python.components().count() > 1 {
        return python.to_path_buf();
    }
    std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|dir| dir.join(python)).find(|p| p.is_file()))
        .unwrap_or_else(|| python.to_path_buf())
}

fn site_packages_of(python: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = python.parent().and_then(Path::parent).map(Path::to_path_buf).into_iter().collect();
    if let Some(real_root) =
        std::fs::canonicalize(python).ok().and_then(|r| r.parent()?.parent().map(Path::to_path_buf))
    {
        if !roots.contains(&real_root) {
            roots.push(real_root);
        }
    }
    let mut sites = Vec::new();
    for root in roots {
        for lib in ["lib", "lib64"] {
            let Ok(entries) = std::fs::read_dir(root.join(lib)) else { continue };
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("python")))
                .map(|p| p.join("site-packages"))
                .filter(|p| p.is_dir())
                .collect();
            found.sort();
            sites.extend(found);
        }
        let windows = root.join("Lib").join("site-packages");
        if windows.is_dir() {
            sites.push(windows);
        }
    }
    sites
}

/// pytest-xdist's version when it is installed in the site-packages folder `site`
/// (`pytest_xdist-3.8.0.dist-info`, or the unnormalised `pytest-xdist-...` of old installers).
pub fn xdist_version(site: &Path) -> Option<String> {
    dist_version(site, "pytest_xdist").or_else(|| dist_version(site, "pytest-xdist"))
}

/// `Version:` of `<name>-<version>.dist-info/METADATA` in a site-packages folder.
fn dist_version(site: &Path, name: &str) -> Option<String> {
    let prefix = format!("{name}-");
    for entry in std::fs::read_dir(site).ok()?.filter_map(Result::ok) {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|d| d.strip_prefix(&prefix)) else { continue };
        // `torch-2.9.1.dist-info`, not `torchcts-0.4.1.dist-info` or `torch_geometric-...`.
        if !rest.ends_with(".dist-info") || !rest.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let metadata = std::fs::read_to_string(entry.path().join("METADATA")).unwrap_or_default();
        let from_metadata = metadata
            .lines()
            .take_while(|l| !l.is_empty())
            .find_map(|l| l.strip_prefix("Version:").map(|v| v.trim().to_string()));
        return from_metadata.or_else(|| Some(rest.trim_end_matches(".dist-info").to_string()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_env(dir: &Path, torch: Option<&str>, torchcts: Option<&str>) -> PathBuf {
        let site = dir.join("lib/python3.11/site-packages");
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(&site).unwrap();
        std::fs::write(dir.join("bin/python"), "").unwrap();
        for (name, version) in [("torch", torch), ("torchcts", torchcts)] {
            if let Some(v) = version {
                let info = site.join(format!("{name}-{v}.dist-info"));
                std::fs::create_dir_all(&info).unwrap();
                std::fs::write(
                    info.join("METADATA"),
                    format!("Metadata-Version: 2.1\nName: {name}\nVersion: {v}\n\nbody"),
                )
                .unwrap();
            }
        }
        // A look-alike that must not be taken for torch.
        std::fs::create_dir_all(site.join("torch_geometric-9.9.9.dist-info")).unwrap();
        dir.join("bin/python")
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("torchcts-lsp-env-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn reads_torch_and_torchcts_versions_from_dist_info() {
        let dir = scratch("both");
        let python = fake_env(&dir, Some("2.9.1"), Some("0.4.1"));
        let env = PythonEnvironment::of_python(&python);
        assert_eq!(env.torch.as_deref(), Some("2.9.1"));
        assert_eq!(env.torchcts.as_deref(), Some("0.4.1"));
        assert_eq!(env.xdist, None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn finds_pytest_xdist_by_its_dist_info() {
        let dir = scratch("xdist");
        let python = fake_env(&dir, Some("2.12.1"), Some("0.4.1"));
        let site = dir.join("lib/python3.11/site-packages");
        // `xdist` alone (a folder of that name) is not the distribution.
        std::fs::create_dir_all(site.join("xdist")).unwrap();
        assert_eq!(PythonEnvironment::of_python(&python).xdist, None);
        let info = site.join("pytest_xdist-3.8.0.dist-info");
        std::fs::create_dir_all(&info).unwrap();
        std::fs::write(info.join("METADATA"), "Metadata-Version: 2.4\nName: pytest-xdist\nVersion: 3.8.0\n\n").unwrap();
        assert_eq!(PythonEnvironment::of_python(&python).xdist.as_deref(), Some("3.8.0"));
        assert_eq!(xdist_version(&site).as_deref(), Some("3.8.0"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_python_version_comes_from_pyvenv_cfg_else_the_site_packages_folder() {
        let dir = scratch("version");
        let python = fake_env(&dir, None, None);
        assert_eq!(PythonEnvironment::of_python(&python).python_version, Some((3, 11)));
        std::fs::write(dir.join("pyvenv.cfg"), "home = /usr/bin\nversion_info = 3.12.1.final.0\n").unwrap();
        assert_eq!(PythonEnvironment::of_python(&python).python_version, Some((3, 12)));
        std::fs::write(dir.join("pyvenv.cfg"), "home = /usr/bin\nversion = 3.13.0\n").unwrap();
        assert_eq!(PythonEnvironment::of_python(&python).python_version, Some((3, 13)));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(version_in_name("python3.10"), Some((3, 10)));
        assert_eq!(version_in_name("python3"), None);
    }

    #[test]
    fn an_environment_without_torch_has_no_versions() {
        let dir = scratch("none");
        let python = fake_env(&dir, None, Some("0.4.1"));
        let env = PythonEnvironment::of_python(&python);
        assert_eq!((env.torch, env.torchcts.as_deref()), (None, Some("0.4.1")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
