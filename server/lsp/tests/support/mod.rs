//! What the lsp crate's integration tests share, in one place: the LSP client over stdio
//! (`lsp_client`), the repository's folders (the parity corpus and fixtures stay in the
//! workspace's `tests/`), copying and removing scratch folders, git, a command's output.
//! Every test file is its own crate and uses a part of it.

#![allow(dead_code)]

pub mod lsp_client;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root: `tests/parity`, `tests/fixtures` and `examples` are below it.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The manifest of the check corpus's case `case` (`tests/parity/check/cases/CASE`).
pub fn check_case(case: &str) -> PathBuf {
    repo_root().join("tests/parity/check/cases").join(case).join("manifest.py")
}

/// The artifacts of real torchcts runs (`tests/fixtures/runs/artifacts`, written by
/// `tools/runs/make_fixtures.py`).
pub fn run_artifacts() -> PathBuf {
    repo_root().join("tests/fixtures/runs/artifacts")
}

/// Copies the folder `from` into `to` (made if missing), recursively; links are copied as
/// the files they point to.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Installs `package` `version` into the site-packages folder `site` as far as torchcts-lsp
/// reads it (no Python runs it): an empty package and its dist-info `METADATA`.
pub fn install_package(site: &Path, package: &str, version: &str) {
    std::fs::create_dir_all(site.join(package)).unwrap();
    std::fs::write(site.join(package).join("__init__.py"), "").unwrap();
    let info = site.join(format!("{package}-{version}.dist-info"));
    std::fs::create_dir_all(&info).unwrap();
    std::fs::write(info.join("METADATA"), format!("Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"))
        .unwrap();
}

/// Copies the file `from` to `to`, making `to`'s folder.
pub fn copy_file(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap();
}

/// Runs `git` in `dir` as a fixed user, without signing; panics when it fails.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The real TorchCTS's Python (`TORCHCTS_PYTHON`: torchcts 0.4.1, torch 2.12.1), for the
/// tests `#[ignore]`d without it; `None` after printing "SKIPPED: {skipped} (set
/// TORCHCTS_PYTHON)", so that the test passes, unless `TORCHCTS_REQUIRE_REAL_RUNS=1` (CI),
/// where its absence fails the test.
pub fn real_python(skipped: &str) -> Option<PathBuf> {
    match std::env::var_os("TORCHCTS_PYTHON").filter(|v| !v.is_empty()) {
        Some(python) => Some(PathBuf::from(python)),
        None => {
            assert!(
                std::env::var("TORCHCTS_REQUIRE_REAL_RUNS").as_deref() != Ok("1"),
                "TORCHCTS_REQUIRE_REAL_RUNS=1 but TORCHCTS_PYTHON is not set"
            );
            println!("SKIPPED: {skipped} (set TORCHCTS_PYTHON)");
            None
        }
    }
}

/// A folder removed when this is dropped (also when the test fails). It dereferences to
/// the folder's path. Every scratch folder of these tests is one, so that a run leaves
/// nothing in the temp folder (an `LspClient` can own one: [`lsp_client::LspClient::owns`]).
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// `<temp>/<name>-<pid>`, made empty.
    pub fn fresh(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// [`TempDir::fresh`] under its canonical path (links resolved), as the server and the
    /// CLI name it.
    pub fn fresh_canonical(name: &str) -> TempDir {
        let dir = TempDir::fresh(name);
        let canonical = dir.0.canonicalize().unwrap();
        std::mem::forget(dir);
        TempDir(canonical)
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A command's standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A command's standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
