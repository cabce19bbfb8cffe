//! Black-box tests of the team features of the command line (issue 24): several FILEs,
//! folders and stdin; `check --fix`/`--diff`; suppression comments; the project
//! configuration (`[tool.torchcts-lsp]`) and `config`; SARIF and GitHub output; `-o`;
//! shell completions. Bad input included: a missing file among several, a folder with a
//! venv inside, an invalid or unreadable configuration, stdin that is not UTF-8.

mod support;

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::check_case as corpus;

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("torchcts-cli-team-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(args)
        .current_dir(dir)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run torchcts-lsp");
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const GOOD: &str =
    "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"capabilities\": {},\n}\n";
const BAD: &str = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": 3,\n    \"capabilities\": {},\n}\n";
/// A missing comma (CPython names one repair) and a capability torchcts renamed: both safe.
const FIXABLE: &str =
    "manifest = {\n    \"manifest_version\": 1\n    \"device_name\": \"cpu\",\n    \"capabilities\": {\"generator\": True},\n}\n";

#[test]
fn one_file_keeps_its_output_and_several_get_a_block_each_with_the_highest_exit_code() {
    let dir = scratch("many");
    std::fs::write(dir.join("good.py"), GOOD).unwrap();
    std::fs::write(dir.join("bad.py"), BAD).unwrap();
    let one = run_in(&dir, &["check", "good.py"], None);
    assert_eq!((one.status.code(), out(&one), err(&one)), (Some(0), "Manifest is valid!\n".into(), String::new()));

    let many = run_in(&dir, &["check", "good.py", "missing.py", "bad.py"], None);
    assert_eq!(many.status.code(), Some(1), "{}", err(&many));
    assert_eq!(out(&many), "== good.py\nManifest is valid!\n== missing.py\n== bad.py\n");
    assert!(err(&many).contains("Manifest file not found: missing.py"), "{}", err(&many));
    assert!(err(&many).contains("Error: 'device_name' must be a string"), "{}", err(&many));

    // JSON: one object per line, each with its file; the missing one says why.
    let o = run_in(&dir, &["check", "--format", "json", "good.py", "missing.py", "bad.py"], None);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<Value> = out(&o).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let files: Vec<&str> = lines.iter().map(|l| l["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["good.py", "missing.py", "bad.py"]);
    assert_eq!(lines.iter().map(|l| l["exit_code"].as_i64().unwrap()).collect::<Vec<_>>(), [0, 1, 1]);
    assert!(lines[1]["error"].as_str().unwrap().contains("not found"));

    // analyze and skips too.
    let o = run_in(&dir, &["analyze", "good.py", "bad.py"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(out(&o).starts_with("== good.py\n== Diagnostics for good.py"), "{}", out(&o));
    assert!(out(&o).contains("\n== bad.py\n== Diagnostics for bad.py"), "{}", out(&o));
    let o = run_in(&dir, &["skips", "--format", "json", "good.py", "bad.py"], None);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o).lines().count(), 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_folder_is_searched_past_venvs_git_ignored_paths_and_our_own_folder() {
    let dir = scratch("walk");
    for sub in ["a", "b/deep", "venv/lib/pip/_vendor", "ignored", ".torchcts-lsp/scratch", "extra"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("venv/pyvenv.cfg"), "home = /usr\n").unwrap();
    for file in ["a/manifest.py", "b/deep/manifest.py", "venv/lib/pip/_vendor/manifest.py", "ignored/manifest.py"] {
        std::fs::write(dir.join(file), GOOD).unwrap();
    }
    std::fs::write(dir.join(".torchcts-lsp/scratch/manifest.py"), BAD).unwrap();
    std::fs::write(dir.join("extra/cuda.py"), BAD).unwrap();
    std::fs::write(dir.join(".gitignore"), "ignored/\n").unwrap();
    let git = Command::new("git").args(["init", "-q", "."]).current_dir(&dir).status();
    assert!(git.is_ok_and(|s| s.success()), "git init");

    let o = run_in(&dir, &["check", "."], None);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert_eq!(out(&o), "== a/manifest.py\nManifest is valid!\n== b/deep/manifest.py\nManifest is valid!\n");

    // The project's `manifests` globs add files not named manifest.py.
    std::fs::write(dir.join("pyproject.toml"), "[tool.torchcts-lsp]\nmanifests = [\"extra/*.py\"]\n").unwrap();
    let o = run_in(&dir, &["check", "."], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(out(&o).contains("== extra/cuda.py\n"), "{}", out(&o));

    // A folder with no manifest says so.
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    let o = run_in(&dir, &["check", "empty"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("no manifest.py"), "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stdin_is_read_under_its_stdin_filename_and_must_be_utf8() {
    let dir = scratch("stdin");
    let o =
        run_in(&dir, &["check", "-", "--stdin-filename", "sub/manifest.py", "--format", "json"], Some(BAD.as_bytes()));
    assert_eq!(o.status.code(), Some(1));
    let report: Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(report["file"], "sub/manifest.py");
    let o = run_in(&dir, &["check", "-"], Some(GOOD.as_bytes()));
    assert_eq!((o.status.code(), out(&o)), (Some(0), "Manifest is valid!\n".into()));
    let o = run_in(&dir, &["check", "-"], Some(b"manifest = {'\xff'}\n"));
    assert_eq!(o.status.code(), Some(1));
    // CPython 3.11's words for the byte, as compile() of the file's bytes says them.
    assert!(
        err(&o).contains(
            "(unicode error) 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte (<stdin>, line 1)"
        ),
        "{}",
        err(&o)
    );
    let o = run_in(&dir, &["check", "--stdin-filename", "x.py", "good.py"], None);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn fix_applies_the_safe_fixes_and_diff_writes_nothing() {
    let dir = scratch("fix");
    let path = dir.join("manifest.py");
    std::fs::write(&path, FIXABLE).unwrap();
    let o = run_in(&dir, &["check", "--diff", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(out(&o).starts_with("--- a/manifest.py\n+++ b/manifest.py\n"), "{}", out(&o));
    assert!(out(&o).contains("+    \"manifest_version\": 1,\n"), "{}", out(&o));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), FIXABLE, "--diff wrote the file");

    let o = run_in(&dir, &["check", "-", "--fix"], Some(FIXABLE.as_bytes()));
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).contains("\"device_generator\": True"), "{}", out(&o));

    let o = run_in(&dir, &["check", "--fix", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let fixed = std::fs::read_to_string(&path).unwrap();
    assert!(fixed.contains("\"manifest_version\": 1,\n") && fixed.contains("device_generator"), "{fixed}");
    assert!(err(&o).contains("manifest.py:2: fixed [syntax-error]"), "{}", err(&o));
    assert!(err(&o).contains("fixed 3 findings, 0 findings left"), "{}", err(&o));
    assert_eq!(out(&o), "Manifest is valid!\n");

    // A guess among several names waits for --unsafe-fixes.
    let guess = GOOD.replace("\"capabilities\": {}", "\"capabilities\": {\"quantized\": True}");
    std::fs::write(&path, &guess).unwrap();
    let o = run_in(&dir, &["check", "--fix", "manifest.py"], None);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), guess);
    assert!(err(&o).contains("with --unsafe-fixes"), "{}", err(&o));
    let o = run_in(&dir, &["check", "--fix", "--unsafe-fixes", "manifest.py"], None);
    assert!(std::fs::read_to_string(&path).unwrap().contains("quantized_container_plumbing"), "{}", err(&o));
    let o = run_in(&dir, &["check", "--unsafe-fixes", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let o = run_in(&dir, &["check", "--fix", "--diff", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn fix_says_why_it_left_a_silenced_finding_and_counts_what_analyze_shows() {
    let dir = scratch("fix-silenced");
    let text = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"capabilities\": {\"inference\": True},\n    \"supported_dtypes\": {\"float32\": True},  # torchcts-lsp: ignore[dtype-key-ignored]\n}\n";
    std::fs::write(dir.join("manifest.py"), text).unwrap();
    let o = run_in(&dir, &["check", "--diff", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        err(&o).contains(
            "would fix 0 findings, 0 findings left; 1 silenced by a suppression comment, not fixed (line 5: dtype-key-ignored)"
        ),
        "{}",
        err(&o)
    );
    // A misspelt code in the project's `ignore` is refused, naming the closest.
    std::fs::write(dir.join("pyproject.toml"), "[tool.torchcts-lsp]\nignore = [\"dtype-key-ignord\"]\n").unwrap();
    let o = run_in(&dir, &["check", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("pyproject.toml:2: [tool.torchcts-lsp] ignore: unknown finding code `dtype-key-ignord`: did you mean `dtype-key-ignored`?"), "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_misspelt_key_is_renamed_and_named_while_check_manifest_lines_stay() {
    let dir = scratch("did-you-mean");
    let path = dir.join("manifest.py");
    let text = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"capabilites\": {\"inference\": True},\n}\n";
    std::fs::write(&path, text).unwrap();
    // check-manifest's lines as the real tool prints them (tests/parity: the same rules).
    let o = run_in(&dir, &["check", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(1));
    // Then, at its place, what we add to the real tool's line.
    assert_eq!(
        err(&o),
        "Error: Missing required key 'capabilities'\nError: Unknown top-level manifest key 'capabilites'\n\
         manifest.py:4:5: unknown-key Unknown top-level manifest key 'capabilites' (did you mean 'capabilities'?)\n"
    );
    // The finding itself says what the key probably stands for.
    let o = run_in(&dir, &["check", "--format", "json", "manifest.py"], None);
    let report: Value = serde_json::from_str(&out(&o)).unwrap();
    let unknown = report["findings"].as_array().unwrap().iter().find(|f| f["code"] == "unknown-key").unwrap();
    assert_eq!(unknown["message"], "Unknown top-level manifest key 'capabilites' (did you mean 'capabilities'?)");
    assert_eq!(report["check_manifest_output"][1]["text"], "Error: Unknown top-level manifest key 'capabilites'");
    // A rename is a guess: --fix leaves it to --unsafe-fixes, which renames the key and keeps
    // its value rather than adding an empty `capabilities`.
    let o = run_in(&dir, &["check", "--fix", "manifest.py"], None);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert!(err(&o).contains("fixed 0 findings, 2 findings left (1 more fix with --unsafe-fixes)"), "{}", err(&o));
    let o = run_in(&dir, &["check", "--diff", "--unsafe-fixes", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(
        out(&o)
            .contains("-    \"capabilites\": {\"inference\": True},\n+    \"capabilities\": {\"inference\": True},\n"),
        "{}",
        out(&o)
    );
    assert!(!out(&o).contains("\"capabilities\": {}"), "{}", out(&o));
    assert!(err(&o).contains("manifest.py: would fix 2 findings, 0 findings left"), "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_string_dtype_alias_is_fixed_to_the_canonical_key() {
    let dir = scratch("dtype-alias");
    let path = dir.join("manifest.py");
    let with_torch = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"capabilities\": {},\n    \"supported_dtypes\": {\"torch.half\": True},\n}\n";
    std::fs::write(&path, with_torch).unwrap();
    let o = run_in(&dir, &["check", "manifest.py"], None);
    assert!(
        err(&o).contains("manifest.py:6:26: dtype-key-ignored 'torch.half' passes check-manifest but test selection ignores it: selection matches only the dtype torch.float16 (unquoted) or the exact string 'torch.float16'"),
        "{}",
        err(&o)
    );
    let o = run_in(&dir, &["check", "--fix", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains("manifest.py:6: fixed [dtype-key-ignored] Write the key as torch.float16"), "{}", err(&o));
    assert!(std::fs::read_to_string(&path).unwrap().contains("{torch.float16: True}"));
    // Without `import torch` the key becomes torchcts's string for the dtype.
    std::fs::write(&path, with_torch.replace("import torch\n", "").replace("torch.half", "half")).unwrap();
    let o = run_in(&dir, &["check", "--fix", "manifest.py"], None);
    assert!(err(&o).contains("fixed 1 finding, 0 findings left"), "{}", err(&o));
    assert!(std::fs::read_to_string(&path).unwrap().contains("{\"torch.float16\": True}"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn suppression_comments_silence_our_findings_and_say_when_they_cannot() {
    let dir = scratch("suppress");
    let text = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",  # torchcts-lsp: ignore[duplicate-key]\n    \"capabilities\": {},  # torchcts-lsp: ignore[duplicate-key]\n    \"device_name\": \"cpu\",\n    \"frobnicate\": 1,  # torchcts-lsp: ignore[unknown-key]\n}\n";
    std::fs::write(dir.join("manifest.py"), text).unwrap();
    let o = run_in(&dir, &["check", "--format", "json", "manifest.py"], None);
    let report: Value = serde_json::from_str(&out(&o)).unwrap();
    let codes: Vec<(&str, i64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["range"]["start"]["line"].as_i64().unwrap()))
        .collect();
    assert!(!codes.iter().any(|(c, _)| *c == "duplicate-key"), "{codes:?}");
    assert!(codes.contains(&("unused-suppression", 4)), "{codes:?}");
    // check-manifest's finding stays, and the comment says it cannot silence it.
    assert!(codes.contains(&("unknown-key", 6)) && codes.contains(&("suppression-ineffective", 6)), "{codes:?}");
    assert_eq!(o.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_project_configuration_is_read_reported_and_refused_clearly() {
    let dir = scratch("config");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let dup = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"capabilities\": {},\n    \"device_name\": \"cpu\",\n}\n";
    std::fs::write(dir.join("sub/manifest.py"), dup).unwrap();
    std::fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"x\"\n\n[tool.torchcts-lsp]\nlevel = 5\nignore = [\"duplicate-key\"]\ndevice = \"cuda\"\n",
    )
    .unwrap();

    let o = run_in(&dir, &["config", "sub/manifest.py"], None);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    assert!(text.contains("level = 5  # ") && text.contains("pyproject.toml:5"), "{text}");
    assert!(text.contains("inventory = \"\"  # default: "), "{text}");

    let o = run_in(&dir, &["check", "--format", "json", "sub/manifest.py"], None);
    let report: Value = serde_json::from_str(&out(&o)).unwrap();
    assert!(!report["findings"].as_array().unwrap().iter().any(|f| f["code"] == "duplicate-key"), "{report}");
    let o = run_in(&dir, &["analyze", "sub/manifest.py"], None);
    assert!(out(&o).contains("<- level of pyproject.toml"), "{}", out(&o));
    assert!(out(&o).contains("== Accounting on `cuda`"), "{}", out(&o));
    // check-manifest's own findings are not silenced, and it says so.
    std::fs::write(dir.join("pyproject.toml"), "[tool.torchcts-lsp]\nignore = [\"unknown-key\"]\n").unwrap();
    std::fs::write(dir.join("other.py"), dup.replace("\"capabilities\": {}", "\"capabilities\": {}, \"x\": 1"))
        .unwrap();
    let o = run_in(&dir, &["check", "other.py"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("Error: Unknown top-level manifest key 'x'"), "{}", err(&o));
    assert!(
        err(&o).contains("ignores `unknown-key`, which is check-manifest's own finding: not silenced"),
        "{}",
        err(&o)
    );
    std::fs::write(dir.join("pyproject.toml"), "[tool.torchcts-lsp]\nlevel = 5\ndevice = \"cuda\"\n").unwrap();
    // A flag overrides it.
    let o = run_in(&dir, &["analyze", "sub/manifest.py", "--device", "cpu", "--level", "2"], None);
    assert!(out(&o).contains("== Accounting on `cpu`") && out(&o).contains("<- requested"), "{}", out(&o));

    // The nearest pyproject.toml with the table wins, not merged.
    std::fs::write(dir.join("sub/pyproject.toml"), "[tool.torchcts-lsp]\ndevice = \"mps\"\n").unwrap();
    let o = run_in(&dir, &["config", "--format", "json", "sub"], None);
    let c: Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(
        (c["settings"]["device"]["value"].as_str(), c["settings"]["level"]["value"].as_i64()),
        (Some("mps"), Some(3))
    );
    std::fs::remove_file(dir.join("sub/pyproject.toml")).unwrap();

    // Bad values: exit 2, naming the file, line and key; never a crash.
    let cases: &[(&[u8], &str)] = &[
        (
            b"[tool.torchcts-lsp]\nlevel = 9\n",
            "pyproject.toml:2: [tool.torchcts-lsp] level: must be an integer from 1 to 8",
        ),
        (b"[tool.torchcts-lsp]\ndevice = 3\n", "[tool.torchcts-lsp] device:"),
        (b"[tool.torchcts-lsp]\ndevcie = \"cuda\"\n", "devcie"),
        (b"[tool.torchcts-lsp\n", "pyproject.toml:1:"),
        (b"[tool.torchcts-lsp]\ndevice = \"\xff\"\n", "not valid UTF-8"),
    ];
    for (content, said) in cases {
        std::fs::write(dir.join("pyproject.toml"), content).unwrap();
        for command in [&["check", "sub/manifest.py"][..], &["analyze", "sub/manifest.py"], &["config", "sub"]] {
            let o = run_in(&dir, command, None);
            assert_eq!(o.status.code(), Some(2), "{command:?} {said}: {}", err(&o));
            assert!(err(&o).contains(said), "{command:?}: expected {said:?} in {}", err(&o));
            assert!(!err(&o).contains("panicked"), "{}", err(&o));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sarif_github_and_output_files() {
    let dir = scratch("formats");
    let bad = corpus("combined_everything");
    let good = corpus("real_privateuse1");
    let (bad, good) = (bad.to_str().unwrap(), good.to_str().unwrap());
    let json_lines = run_in(&dir, &["check", "--format", "json", bad, good], None);
    let findings: usize = out(&json_lines)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["findings"].as_array().unwrap().len())
        .sum();
    for command in ["check", "analyze"] {
        let o = run_in(&dir, &[command, "--format", "sarif", bad, good, "missing.py", "-o", "out.sarif"], None);
        assert_eq!(o.status.code(), Some(1), "{}", err(&o));
        assert!(out(&o).is_empty(), "-o left output on stdout");
        let sarif: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("out.sarif")).unwrap()).unwrap();
        assert_eq!(sarif["version"], "2.1.0");
        let run = &sarif["runs"][0];
        assert_eq!(run["tool"]["driver"]["name"], "torchcts-lsp");
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), findings, "{command}");
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        for r in results {
            let index = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], r["ruleId"]);
            assert!(r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap() >= 1);
        }
        let notes = run["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
        assert_eq!(notes.len(), 1);
        assert_eq!(run["invocations"][0]["executionSuccessful"], false);

        let o = run_in(&dir, &[command, "--format", "github", bad, good], None);
        assert_eq!(out(&o).lines().count(), findings, "{command}");
        assert!(out(&o).lines().all(|l| l.starts_with("::")), "{}", out(&o));
    }
    let o = run_in(&dir, &["skips", good, "-o", "skips.txt"], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(std::fs::read_to_string(dir.join("skips.txt")).unwrap().contains("tests collected"));
    let o = run_in(&dir, &["check", good, "-o", "/nonexistent/dir/out.txt"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("cannot write /nonexistent/dir/out.txt"), "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn completions_for_each_shell() {
    let dir = std::env::temp_dir();
    for (shell, marker) in
        [("bash", "complete -F"), ("zsh", "#compdef torchcts-lsp"), ("fish", "complete -c torchcts-lsp")]
    {
        let o = run_in(&dir, &["completions", shell], None);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        assert!(out(&o).contains(marker) && out(&o).contains("stdin-filename"), "{shell}: {}", out(&o));
    }
    assert_eq!(run_in(&dir, &["completions", "tcsh"], None).status.code(), Some(2));
}

/// Valid for check-manifest, with two findings of ours: a string dtype key selection ignores
/// and an operator regex that CPython 3.10 refuses (an atomic group) and 3.11 to 3.13 accept.
const OURS: &str = "import torch\n\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {\"float64\": True, torch.float32: \"^(?>add|mul)$\"},\n    \"capabilities\": {},\n}\n";

#[test]
fn check_text_prints_our_findings_as_path_line_col_after_check_manifests_lines() {
    let dir = scratch("own-lines");
    std::fs::write(dir.join("manifest.py"), OURS).unwrap();
    let o = run_in(&dir, &["check", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(0), "ours never change the exit code: {}", err(&o));
    assert_eq!(out(&o), "Manifest is valid!\n");
    let stderr = err(&o);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines[0].starts_with("manifest.py:6:26: dtype-key-ignored 'float64' passes check-manifest"), "{stderr}");
    assert!(lines.iter().all(|l| l.starts_with("manifest.py:") || l.starts_with("Note: ")), "{stderr}");
    // The regex's answer depends on the Python: said once, last.
    assert_eq!(stderr.matches("Note: ").count(), 1, "{stderr}");
    assert!(
        lines.last().unwrap().starts_with("Note: manifest.py has a regex that Python versions judge differently"),
        "{stderr}"
    );

    // A check-manifest error: its line first, byte for byte, then ours.
    std::fs::write(
        dir.join("manifest.py"),
        OURS.replace("\"capabilities\": {}", "\"capabilities\": {\"generator\": True}"),
    )
    .unwrap();
    let o = run_in(&dir, &["check", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(1));
    let stderr = err(&o);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines[0], "Error: Unknown capabilities key 'generator'", "{stderr}");
    assert!(lines[1..].iter().any(|l| l.starts_with("manifest.py:7:22: stale-capability ")), "{stderr}");

    // --check-manifest-only: the real tool's lines alone (and the one note on the regexes).
    let o = run_in(&dir, &["check", "--check-manifest-only", "manifest.py"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(!err(&o).contains("manifest.py:"), "{}", err(&o));
    assert!(
        err(&o).starts_with("Error: Unknown capabilities key 'generator'\nNote: manifest.py has a regex"),
        "{}",
        err(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_quiet_prints_errors_only() {
    let dir = scratch("quiet");
    std::fs::write(dir.join("manifest.py"), OURS).unwrap();
    let o = run_in(&dir, &["check", "--quiet", "manifest.py"], None);
    assert_eq!((o.status.code(), out(&o), err(&o)), (Some(0), String::new(), String::new()));
    std::fs::write(dir.join("bad.py"), BAD).unwrap();
    let o = run_in(&dir, &["check", "-q", "bad.py"], None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out(&o), "");
    assert!(err(&o).starts_with("Error: "), "{}", err(&o));
    assert!(err(&o).lines().all(|l| l.starts_with("Error: ")), "{}", err(&o));
    let o = run_in(&dir, &["check", "--quiet", "--check-manifest-only", "bad.py"], None);
    assert_eq!(o.status.code(), Some(2), "two ways to narrow the output is a usage error");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_python_note_is_said_once_per_command_and_only_when_it_can_change_an_answer() {
    let dir = scratch("python-note");
    for name in ["a", "b"] {
        std::fs::create_dir_all(dir.join(name)).unwrap();
        std::fs::write(dir.join(name).join("manifest.py"), OURS).unwrap();
    }
    // A regex every Python judges alike: nothing to say.
    std::fs::create_dir_all(dir.join("c")).unwrap();
    std::fs::write(dir.join("c/manifest.py"), OURS.replace("^(?>add|mul)$", "^(add|mul)$")).unwrap();
    let o = run_in(&dir, &["check", "c/manifest.py"], None);
    assert!(!err(&o).contains("Note: "), "{}", err(&o));
    let o = run_in(&dir, &["check", "."], None);
    let stderr = err(&o);
    assert_eq!(stderr.matches("Note: ").count(), 1, "{stderr}");
    assert!(stderr.contains("Note: a/manifest.py, b/manifest.py have regexes that Python versions judge"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
