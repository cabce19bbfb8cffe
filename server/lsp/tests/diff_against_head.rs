//! Black-box tests of `torchcts-lsp diff --against REV` in a temporary git repository: the
//! committed version is read with `git show` (from a subfolder too), the exit code gates CI
//! with `--fail-on-removed`, and the markdown is a pull-request comment.

mod support;

use std::path::Path;
use std::process::{Command, Output};
use support::{git, stdout, TempDir};

const MANIFEST: &str = r#"import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: True,
    },
    "semantic_level": 3,
    "capabilities": {"inference": True, "training": True},
    "skip_ops": [],
}
"#;

/// A repository with `backend/manifest.py` committed.
fn repo(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("torchcts-diff-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("backend")).unwrap();
    git(&dir, &["init", "-q"]);
    std::fs::write(dir.join("backend/manifest.py"), MANIFEST).unwrap();
    git(&dir, &["add", "backend/manifest.py"]);
    git(&dir, &["commit", "-q", "-m", "manifest"]);
    TempDir(dir)
}

fn diff(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_torchcts-lsp")).current_dir(cwd).arg("diff").args(args).output().expect("run diff")
}

#[test]
fn against_head_reads_the_committed_version() {
    let repo = repo("head");
    let file = repo.0.join("backend/manifest.py");
    // Unchanged: nothing starts or stops, exit 0 even with --fail-on-removed.
    let same = diff(&repo.0, &["--against", "HEAD", "backend/manifest.py", "--fail-on-removed"]);
    assert_eq!(same.status.code(), Some(0), "{}", String::from_utf8_lossy(&same.stderr));
    assert!(stdout(&same).contains("no test starts or stops running"), "{}", stdout(&same));

    std::fs::write(&file, MANIFEST.replace("torch.float16: True", "torch.float16: False")).unwrap();
    // From the repository root and from the manifest's folder (path relative to the root).
    for (cwd, arg) in [(repo.0.clone(), "backend/manifest.py"), (repo.0.join("backend"), "manifest.py")] {
        let out = diff(&cwd, &["--against", "HEAD", arg, "--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let stopped = report["stopped"].as_u64().unwrap();
        assert!(stopped > 0, "{report}");
        assert_eq!(report["started"], 0);
        assert_eq!(report["changes"][0]["cause"], serde_json::json!({"kind": "dtype", "name": "torch.float16"}));
        assert_eq!(report["old"]["file"], format!("HEAD:{arg}"));
        assert!(
            report["summary"].as_str().unwrap().starts_with(&format!("float16 entry: -{stopped} tests up to level 3")),
            "{}",
            report["summary"]
        );
        // Every node id is listed in json.
        let listed: usize = report["levels"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|l| l["groups"].as_array().unwrap())
            .map(|g| g["nodes"].as_array().unwrap().len())
            .sum();
        assert_eq!(listed as u64, stopped);
    }
    // A CI gate: tests stop running -> exit 1.
    let gate = diff(&repo.0, &["--against", "HEAD", "backend/manifest.py", "--fail-on-removed"]);
    assert_eq!(gate.status.code(), Some(1), "{}", stdout(&gate));
    // The pull-request comment.
    let md = diff(&repo.0, &["--against", "HEAD", "backend/manifest.py", "--format", "markdown", "--show", "2"]);
    let md = stdout(&md);
    assert!(
        md.starts_with("### torchcts manifest review: `backend/manifest.py` vs `HEAD:backend/manifest.py`"),
        "{md}"
    );
    assert!(md.contains("**float16 entry: -") && md.contains("<details><summary>"), "{md}");
    assert!(md.contains("| stop | float16 entry | `dtype_not_supported` |"), "{md}");
}

#[test]
fn against_a_missing_revision_or_outside_a_repository_is_a_usage_error() {
    let repo = repo("errors");
    let out = diff(&repo.0, &["--against", "no-such-branch", "backend/manifest.py"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read backend/manifest.py at no-such-branch"));
    let outside = std::env::temp_dir().join(format!("torchcts-diff-nogit-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("manifest.py"), MANIFEST).unwrap();
    let out = diff(&outside, &["--against", "HEAD"]);
    let _ = std::fs::remove_dir_all(&outside);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    // Two files and --against together make no sense.
    let out = diff(&repo.0, &["--against", "HEAD", "a.py", "b.py"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn two_files_and_a_level_override() {
    let repo = repo("files");
    let new = repo.0.join("new.py");
    std::fs::write(&new, MANIFEST.replace(r#""skip_ops": []"#, r#""skip_ops": ["add"]"#)).unwrap();
    let out = diff(&repo.0, &["backend/manifest.py", "new.py", "--level", "2", "--format", "text", "--show", "1"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.contains("skip_ops += add: -"), "{text}");
    assert!(text.contains("requested <= 2"), "{text}");
    assert!(!text.contains("level 3: -") && !text.contains("level 3: +"), "levels above 2 do not run: {text}");
    // Generated OpInfo items of `add` are not generated any more: that is skip_ops too.
    assert!(text.contains("skip_ops += add [not_collected]"), "{text}");
    assert!(!text.contains("float16 entry"), "{text}");
}

#[test]
fn a_manifest_new_since_rev_is_compared_with_nothing() {
    let repo = repo("new");
    std::fs::create_dir_all(repo.0.join("added")).unwrap();
    std::fs::write(repo.0.join("added/manifest.py"), MANIFEST).unwrap();
    // Text: every test it runs starts, none stops; the note says why the old side is empty.
    let out = diff(&repo.0, &["--against", "HEAD", "added/manifest.py", "--fail-on-removed"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    assert!(text.starts_with("nothing (new since HEAD) -> added/manifest.py on cpu"), "{text}");
    assert!(!text.contains("stop running"), "{text}");
    assert!(!text.contains("not-run records"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("added/manifest.py is not in HEAD: a new manifest"));
    // Json: the counts equal those of the same manifest against an empty old side.
    let out = diff(&repo.0, &["--against", "HEAD", "added/manifest.py", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["old"]["file"], serde_json::Value::Null);
    assert_eq!(report["old"]["absent_at"], "HEAD");
    assert_eq!(report["old_running"], 0);
    assert_eq!(report["stopped"], 0);
    let running = report["new_running"].as_u64().unwrap();
    assert!(running > 0);
    assert_eq!(report["started"].as_u64().unwrap(), running, "{report}");
    // The same count as the committed copy of that manifest runs (diff against itself).
    let committed = diff(&repo.0, &["--against", "HEAD", "backend/manifest.py", "--format", "json"]);
    let committed: serde_json::Value = serde_json::from_slice(&committed.stdout).unwrap();
    assert_eq!(committed["new_running"].as_u64().unwrap(), running);
}
