//! What the runner's integration tests share: scratch folders that go away (issue 35: the
//! tests had left hundreds of `torchcts-evidence-<pid>-*` folders in the system's temporary
//! folder). Every test file is its own crate and uses a part of it.

#![allow(dead_code)]

use std::ops::Deref;
use std::path::{Path, PathBuf};

/// A folder `<temp>/<prefix>-<pid>-<name>`, made empty, removed with all it holds when this
/// is dropped: at the end of the test, and when the test fails (a failing assertion
/// unwinds). It dereferences to `path`, a folder inside it (the folder itself when `sub` is
/// empty).
pub struct Scratch {
    root: PathBuf,
    path: PathBuf,
}

impl Scratch {
    pub fn new(prefix: &str, name: &str, sub: &str) -> Scratch {
        let root = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let path = if sub.is_empty() { root.clone() } else { root.join(sub) };
        std::fs::create_dir_all(&path).unwrap();
        Scratch { root, path }
    }

    /// [`Scratch::new`] under its canonical path (links resolved), as runs name it.
    pub fn new_canonical(prefix: &str, name: &str, sub: &str) -> Scratch {
        let mut scratch = Scratch::new(prefix, name, sub);
        scratch.root = scratch.root.canonicalize().unwrap();
        scratch.path = scratch.path.canonicalize().unwrap();
        scratch
    }

    /// The folder as an owned path (for what takes a `PathBuf`).
    pub fn to_path_buf(&self) -> PathBuf {
        self.path.clone()
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
