//! Reading a manifest's committed version from git: `git show REV:path` (git as a
//! subprocess, no shell) for `torchcts-lsp diff --against` and the editor's "vs HEAD", and
//! what `.git/HEAD` looks like, so the editor reads the committed text again only when HEAD
//! moved. Nothing here runs on its own; the callers decide when.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The text of `file` as committed at `rev`, read with `git show REV:path` (git as a
/// subprocess, no shell), the path taken relative to the repository root.
pub fn committed_text(file: &Path, rev: &str) -> Result<String, String> {
    let absolute =
        if file.is_absolute() { file.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(file) };
    let dir = absolute.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = absolute
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{} is not a file name", file.display()))?;
    let git = |args: &[&str]| -> Result<Vec<u8>, String> {
        let output = std::process::Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if output.status.success() {
            Ok(output.stdout)
        } else {
            Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
        }
    };
    let prefix = String::from_utf8(git(&["rev-parse", "--show-prefix"])?).map_err(|e| e.to_string())?;
    let spec = format!("{rev}:{}{name}", prefix.trim_end_matches(['\n', '\r']));
    let bytes = git(&["show", &spec])?;
    String::from_utf8(bytes).map_err(|e| format!("{spec} is not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()))
}

/// What `.git/HEAD` and the branch it points to looked like: (path, modified, length) of
/// each file, and HEAD's content. A commit, checkout or reset changes one of them.
pub type HeadKey = (String, Vec<(PathBuf, Option<SystemTime>, u64)>);

/// The `.git` folder of the repository holding `file` (a `.git` file of a worktree or
/// submodule points to it with `gitdir: PATH`).
pub fn git_dir(file: &Path) -> Option<PathBuf> {
    for dir in file.ancestors().skip(1) {
        let candidate = dir.join(".git");
        if candidate.is_dir() {
            return Some(candidate);
        }
        if candidate.is_file() {
            let text = std::fs::read_to_string(&candidate).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            return Some(dir.join(target));
        }
    }
    None
}

/// What `.git/HEAD` and the branch it points to look like now.
pub fn head_key(git_dir: &Path) -> HeadKey {
    let mut head = std::fs::read_to_string(git_dir.join("HEAD")).unwrap_or_default();
    let mut files = vec![git_dir.join("HEAD"), git_dir.join("packed-refs")];
    if let Some(reference) = head.trim().strip_prefix("ref:").map(|r| git_dir.join(r.trim())) {
        // The commit the branch points to (a commit within the same mtime tick changes it).
        head.push_str(&std::fs::read_to_string(&reference).unwrap_or_default());
        files.push(reference);
    }
    let stats = files
        .into_iter()
        .map(|f| {
            let meta = std::fs::metadata(&f).ok();
            let modified = meta.as_ref().and_then(|m| m.modified().ok());
            (f, modified, meta.map_or(0, |m| m.len()))
        })
        .collect();
    (head, stats)
}
