//! Reading a manifest's committed version from git: `git show REV:path` (git as a
//! subprocess, no shell) for `torchcts-lsp diff --against` and the editor's "vs HEAD", and
//! what `.git/HEAD` looks like, so the editor reads the committed text again only when HEAD
//! moved. Nothing here runs on its own; the callers decide when.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The text of `file` as committed at `rev`, read with `git show REV:path` (git as a
/// subprocess, no shell), the path taken relative to the repository root.
pub fn committed_text(file: &Path, rev: &str) -> Result<String, String> {
    committed_text_if_any(file, rev)?.ok_or_else(|| format!("{} does not exist at {rev}", file.display()))
}

/// [`committed_text`], with `Ok(None)` when `rev` is a commit that does not hold the file (a
/// manifest the change adds). An unknown revision or a git failure stays an error.
pub fn committed_text_if_any(file: &Path, rev: &str) -> Result<Option<String>, String> {
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
    // The revision first, so that a typo in it is not read as "the file is new".
    git(&["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")])
        .map_err(|_| format!("{rev} is not a commit of this repository"))?;
    let spec = format!("{rev}:{}{name}", prefix.trim_end_matches(['\n', '\r']));
    if git(&["cat-file", "-e", &spec]).is_err() {
        return Ok(None);
    }
    let bytes = git(&["show", &spec])?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| format!("{spec} is not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()))
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

/// When each line of `file` (as on disk) was last committed, in Unix seconds (the
/// committer time of `git blame --line-porcelain`); `None` for a line not committed yet.
/// An error when the file is not in a repository or git fails.
pub fn line_commit_times(file: &Path) -> Result<Vec<Option<i64>>, String> {
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = file.file_name().ok_or_else(|| format!("{} is not a file name", file.display()))?;
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["blame", "--line-porcelain", "--"])
        .arg(name)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_string());
    }
    Ok(parse_blame(&String::from_utf8_lossy(&output.stdout)))
}

/// The committer times of `git blame --line-porcelain` output, per line in order.
fn parse_blame(porcelain: &str) -> Vec<Option<i64>> {
    let mut times = Vec::new();
    let (mut uncommitted, mut time) = (false, None);
    for line in porcelain.lines() {
        if line.starts_with('\t') {
            times.push(if uncommitted { None } else { time });
            (uncommitted, time) = (false, None);
        } else if let Some(t) = line.strip_prefix("committer-time ") {
            time = t.trim().parse().ok();
        } else if line.len() > 40
            && line.as_bytes()[..40].iter().all(u8::is_ascii_hexdigit)
            && line.as_bytes()[40] == b' '
        {
            uncommitted = line[..40].bytes().all(|b| b == b'0');
        }
    }
    times
}

#[cfg(test)]
mod blame_tests {
    #[test]
    fn committer_times_per_line_and_uncommitted_lines() {
        let porcelain = "\
1111111111111111111111111111111111111111 1 1 1\nauthor a\ncommitter-time 1700000000\nfilename m.py\n\timport torch\n\
0000000000000000000000000000000000000000 2 2 1\nauthor Not Committed Yet\ncommitter-time 1800000000\nfilename m.py\n\tmanifest = {}\n";
        assert_eq!(super::parse_blame(porcelain), vec![Some(1_700_000_000), None]);
    }
}
