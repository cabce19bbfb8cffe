//! The workspace folders (every one the client names, kept up to date by
//! `workspace/didChangeWorkspaceFolders`) and which documents are manifests.
//!
//! Editors that attach a server per language (Helix, a plain `vim.lsp.enable`) send every
//! Python file; the server answers only for manifests: a file named `manifest.py`, one
//! matching a `manifests` glob (relative to the workspace folder holding it, or absolute;
//! with no folder open, matched at any depth),
//! or a document without a path (an unsaved buffer the user asked the server about).

use std::path::{Path, PathBuf};

/// The workspace folders, in the order the client gave them.
#[derive(Clone, Debug, Default)]
pub struct Folders {
    folders: Vec<PathBuf>,
}

impl Folders {
    pub fn new(folders: Vec<PathBuf>) -> Folders {
        let mut out = Folders::default();
        for f in folders {
            out.add(f);
        }
        out
    }

    pub fn add(&mut self, folder: PathBuf) {
        if !self.folders.contains(&folder) {
            self.folders.push(folder);
        }
    }

    pub fn remove(&mut self, folder: &Path) {
        self.folders.retain(|f| f != folder);
    }

    pub fn all(&self) -> &[PathBuf] {
        &self.folders
    }

    /// The innermost folder holding `path` (nested folders: the deepest wins).
    pub fn folder_of(&self, path: &Path) -> Option<&PathBuf> {
        self.folders.iter().filter(|f| path.starts_with(f)).max_by_key(|f| f.components().count())
    }

    /// The folder of `path`, else the first folder: where a run of that file looks for a
    /// workspace `.venv`.
    pub fn folder_for(&self, path: Option<&Path>) -> Option<PathBuf> {
        path.and_then(|p| self.folder_of(p)).or(self.folders.first()).cloned()
    }
}

/// Whether the document at `path` (`None`: no file path) is a manifest.
pub fn is_manifest(path: Option<&Path>, globs: &[String], folders: &Folders) -> bool {
    let Some(path) = path else { return true };
    if path.file_name().is_some_and(|n| n == "manifest.py") {
        return true;
    }
    let absolute = slashes(path);
    globs.iter().any(|glob| {
        let glob = glob.replace('\\', "/");
        if glob.starts_with('/') {
            return glob_match(&glob, &absolute);
        }
        let glob = glob.trim_start_matches("./");
        match folders.folder_of(path).and_then(|f| path.strip_prefix(f).ok()) {
            Some(relative) => glob_match(glob, &slashes(relative)),
            // No folder open (a single file): the glob may match anywhere.
            None if folders.all().is_empty() => glob_match(&format!("/**/{glob}"), &absolute),
            // Outside every folder: not this workspace's manifest.
            None => false,
        }
    })
}

fn slashes(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// A glob over `/`-separated paths: `**` is any number of whole segments, `*` any run of
/// characters within a segment, `?` one character, `{a,b}` either; the rest literally.
pub fn glob_match(glob: &str, path: &str) -> bool {
    let pattern: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if glob.starts_with('/') != path.starts_with('/') && !glob.starts_with("**") {
        return false;
    }
    segments_match(&pattern, &segments)
}

fn segments_match(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| segments_match(rest, &path[skip..])),
        Some((first, rest)) => path
            .split_first()
            .is_some_and(|(segment, others)| segment_match(first, segment) && segments_match(rest, others)),
    }
}

fn segment_match(pattern: &str, segment: &str) -> bool {
    if let (Some(open), Some(close)) = (pattern.find('{'), pattern.find('}')) {
        if open < close {
            let (head, tail) = (&pattern[..open], &pattern[close + 1..]);
            return pattern[open + 1..close]
                .split(',')
                .any(|alternative| segment_match(&format!("{head}{alternative}{tail}"), segment));
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = segment.chars().collect();
    // Wildcard matching with one backtrack point (the last `*`): linear in practice.
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < s.len() {
        if i < p.len() && (p[i] == '?' || p[i] == s[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(st) = star {
            i = st + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("devices/*.py", "devices/cuda.py"));
        assert!(!glob_match("devices/*.py", "devices/sub/cuda.py"));
        assert!(glob_match("**/manifests/*.py", "a/b/manifests/x.py"));
        assert!(glob_match("**/manifests/*.py", "manifests/x.py"));
        assert!(glob_match("**/*_manifest.py", "x/cuda_manifest.py"));
        assert!(glob_match("m?.{py,pyi}", "m1.pyi"));
        assert!(!glob_match("m?.py", "m12.py"));
        assert!(glob_match("/abs/**/*.py", "/abs/x/y.py"));
        assert!(!glob_match("/abs/*.py", "abs/y.py"));
    }

    #[test]
    fn manifests_by_name_glob_and_folder() {
        let folders = Folders::new(vec![PathBuf::from("/ws/a"), PathBuf::from("/ws/b")]);
        let globs = vec!["devices/*.py".to_string()];
        let yes = |p: &str| is_manifest(Some(Path::new(p)), &globs, &folders);
        assert!(yes("/ws/a/x/manifest.py"));
        assert!(yes("/ws/a/devices/cuda.py"));
        assert!(yes("/ws/b/devices/npu.py"));
        assert!(!yes("/ws/b/setup.py"));
        assert!(!yes("/ws/b/x/devices/npu.py"));
        assert!(!yes("/elsewhere/devices/npu.py"));
        assert!(yes("/elsewhere/manifest.py"));
        let none = Folders::default();
        assert!(is_manifest(Some(Path::new("/elsewhere/devices/npu.py")), &globs, &none));
        assert!(!is_manifest(Some(Path::new("/elsewhere/tools/npu.py")), &globs, &none));
        assert!(is_manifest(None, &[], &folders));
    }

    #[test]
    fn innermost_folder_wins() {
        let folders = Folders::new(vec![PathBuf::from("/ws"), PathBuf::from("/ws/inner"), PathBuf::from("/ws")]);
        assert_eq!(folders.all().len(), 2);
        assert_eq!(folders.folder_of(Path::new("/ws/inner/m.py")), Some(&PathBuf::from("/ws/inner")));
        assert_eq!(folders.folder_for(Some(Path::new("/other/m.py"))), Some(PathBuf::from("/ws")));
    }
}
