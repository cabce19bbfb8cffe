//! The review step of the CI job in docs/ci.md, run for real: `docs/ci/review-diff.sh` in a
//! temporary git repository whose pull-request commit adds one manifest, removes one and
//! changes one, with the `torchcts-lsp` under test first on `PATH`. And the docs show that
//! script verbatim, so that what a team copies is what is tested here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MANIFEST: &str = r#"import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: True,
    },
    "semantic_level": 2,
    "capabilities": {"inference": True, "training": True},
    "skip_ops": [],
}
"#;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn script() -> PathBuf {
    root().join("docs/ci/review-diff.sh")
}

struct Repo {
    dir: PathBuf,
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Repo {
    fn new(name: &str) -> Repo {
        let dir = std::env::temp_dir().join(format!("torchcts-ci-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let repo = Repo { dir };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    fn git(&self, args: &[&str]) {
        let out = Command::new("git")
            .arg("-C")
            .arg(&self.dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
            .args(args)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    fn write(&self, path: &str, text: &str) {
        let file = self.dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// The job's step as the workflow runs it: from the checkout's root, BASE the base branch.
    fn review(&self, base: &str) -> Output {
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_torchcts-lsp")).parent().unwrap().to_path_buf();
        let path = std::env::join_paths(
            std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
        )
        .unwrap();
        Command::new("sh").arg(script()).arg(base).current_dir(&self.dir).env("PATH", path).output().expect("sh runs")
    }
}

/// A base commit with `changed/` and `removed/`, and a pull-request branch that adds `added/`,
/// deletes `removed/` and switches float16 off in `changed/`.
fn pull_request(name: &str) -> Repo {
    let repo = Repo::new(name);
    repo.write("changed/manifest.py", MANIFEST);
    repo.write("removed/manifest.py", MANIFEST);
    repo.write("README.md", "not a manifest\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "pr"]);
    repo.write("added/manifest.py", MANIFEST);
    std::fs::remove_file(repo.dir.join("removed/manifest.py")).unwrap();
    repo.write("changed/manifest.py", &MANIFEST.replace("torch.float16: True", "torch.float16: False"));
    repo.write("README.md", "still not a manifest\n");
    repo.commit("pr");
    repo
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

#[test]
fn the_review_step_names_added_removed_and_changed_manifests() {
    let repo = pull_request("all3");
    let out = repo.review("main");
    let (comment, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "stdout:\n{comment}\nstderr:\n{stderr}");
    // git lists them in path order: added, changed, removed; one section each, nothing else.
    let headers: Vec<&str> = comment.lines().filter(|l| l.starts_with("### ")).collect();
    assert_eq!(headers.len(), 3, "{comment}");
    assert!(headers[0].contains("`added/manifest.py` vs `nothing (new since "), "{}", headers[0]);
    assert!(headers[1].contains("`changed/manifest.py` vs `"), "{}", headers[1]);
    assert_eq!(headers[2], "### torchcts manifest review: `removed/manifest.py` removed");
    // The new manifest: from 0, every test it runs starts, none stops.
    let added = &comment[comment.find(headers[0]).unwrap()..comment.find(headers[1]).unwrap()];
    assert!(added.contains("Tests that run on `cpu` (requested <= 2): 0 → "), "{added}");
    assert!(!added.contains("| stop |"), "{added}");
    assert!(added.contains("A new manifest: `added/manifest.py` is not in "), "{added}");
    // The changed one: float16 switched off stops tests and starts none.
    let changed = &comment[comment.find(headers[1]).unwrap()..comment.find(headers[2]).unwrap()];
    assert!(changed.contains("**float16 entry: -"), "{changed}");
    assert!(!changed.contains("| start |"), "{changed}");
    assert!(comment.contains("The manifest is deleted"), "{comment}");
}

#[test]
fn a_manifest_that_cannot_be_reviewed_fails_the_step_and_keeps_the_others() {
    let repo = pull_request("broken");
    repo.write("broken/manifest.py", "x = 1\n");
    repo.commit("a broken manifest");
    let out = repo.review("main");
    let (comment, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "stdout:\n{comment}\nstderr:\n{stderr}");
    assert!(stderr.contains("broken/manifest.py"), "{stderr}");
    assert_eq!(comment.lines().filter(|l| l.starts_with("### ")).count(), 3, "{comment}");
    assert!(!comment.contains("`broken/manifest.py`"), "{comment}");
}

#[test]
fn no_manifest_changed_gives_an_empty_comment() {
    let repo = pull_request("none");
    repo.git(&["checkout", "-q", "-b", "docs-only", "main"]);
    repo.write("README.md", "only docs\n");
    repo.commit("docs");
    let out = repo.review("main");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn an_unknown_base_fails_the_step() {
    let repo = pull_request("nobase");
    let out = repo.review("no-such-branch");
    assert_eq!(out.status.code(), Some(2));
}

/// The fenced block of `doc` that follows the line `marker`.
fn block_after(doc: &str, marker: &str) -> String {
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    let start = text.find(marker).unwrap_or_else(|| panic!("{doc} has no {marker:?}"));
    let rest = &text[start..];
    let open = rest.find("```sh\n").expect("a ```sh block after the marker") + "```sh\n".len();
    let close = rest[open..].find("\n```").expect("the block ends") + 1;
    rest[open..open + close].to_string()
}

#[test]
fn the_docs_show_the_script_verbatim() {
    let script = std::fs::read_to_string(script()).unwrap();
    for doc in ["docs/ci.md", "docs/review-diff.md"] {
        assert_eq!(block_after(doc, "<!-- docs/ci/review-diff.sh -->"), script, "{doc}");
    }
}
