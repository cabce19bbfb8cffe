//! `torchcts-lsp run` with the real torchcts (`TORCHCTS_PYTHON`; `#[ignore]`d without it, as
//! in `server/runner/tests/runs.rs`): `--against REV` runs exactly the tests `diff --against REV` lists as
//! starting to run; two shards together give the same evidence as one run; a crash exits 3
//! with the isolated re-run's command.

mod support;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;
use support::{real_python, TempDir};

const ADD_F32: &str = "opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]";
const SUB_F32: &str = "opinfo/test_opinfo_forward.py::test_op_forward[clean-sub-torch.float32]";
const COS_F32: &str = "opinfo/test_opinfo_forward.py::test_op_forward[clean-cos-torch.float32]";
const EXP_F32: &str = "opinfo/test_opinfo_forward.py::test_op_forward[clean-exp-torch.float32]";

/// Real runs one at a time (CPU-heavy).
static REAL_RUNS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn simdev() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/simdev").canonicalize().unwrap()
}

/// A fresh folder, removed when the test ends (or fails).
fn folder(name: &str) -> TempDir {
    TempDir::fresh_canonical(&format!("torchcts-lsp-cli-run-{name}"))
}

/// `torchcts-lsp ARGS` in `dir`, with the simdev backend importable and `env` set.
fn lsp(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"));
    command.args(args).current_dir(dir).stdin(Stdio::null()).env("PYTHONPATH", simdev()).env_remove("VIRTUAL_ENV");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    })
}

fn outcomes(report: &Value) -> BTreeMap<String, String> {
    report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["nodeid"].as_str().unwrap().to_string(), t["outcome"].as_str().unwrap().to_string()))
        .collect()
}

/// The node ids `diff --format json` lists as started, sorted.
fn started_in(diff: &Value) -> Vec<String> {
    let mut started: Vec<String> = diff["levels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["groups"].as_array().unwrap().iter())
        .filter(|g| g["change"] == "started")
        .flat_map(|g| g["nodes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()))
        .collect();
    started.sort();
    started
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
#[ignore = "needs TORCHCTS_PYTHON: real torchcts"]
fn run_against_a_commit_runs_exactly_the_tests_diff_lists() {
    let Some(python) = real_python("real torchcts runs not executed") else { return };
    let _serial = REAL_RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let dir = folder("against");
    let manifest = std::fs::read_to_string(simdev().join("manifest.py"))
        .unwrap()
        .replace(r#""device_name": "simdev""#, r#""device_name": "cpu""#)
        .replace(r#""backend_import": "simdev_backend""#, r#""backend_import": None"#);
    // Committed: cos in skip_ops; the working version drops it, so cos's tests start running.
    std::fs::write(dir.join("manifest.py"), manifest.replace(r#""skip_ops": []"#, r#""skip_ops": ["cos"]"#)).unwrap();
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "manifest.py"]);
    git(&dir, &["commit", "-qm", "cos skipped"]);
    std::fs::write(dir.join("manifest.py"), &manifest).unwrap();
    let venv = python.parent().and_then(Path::parent).unwrap().to_string_lossy().into_owned();
    // What diff lists (the environment's torch decides the inventory, as for the run).
    let diff =
        lsp(&dir, &["diff", "--against", "HEAD", "--rooted-at-package", "--format", "json"], &[("VIRTUAL_ENV", &venv)]);
    let listed = started_in(&json(&diff));
    assert!(!listed.is_empty() && listed.iter().all(|n| n.contains("cos")), "{listed:?}");
    let began = Instant::now();
    let python = python.to_string_lossy().into_owned();
    let run =
        lsp(&dir, &["run", "--against", "HEAD", "--python", &python, "--format", "json"], &[("VIRTUAL_ENV", &venv)]);
    println!("run --against HEAD ({} tests): {:?}", listed.len(), began.elapsed());
    let report = json(&run);
    assert_eq!(run.status.code(), Some(0), "{report:#}\n{}", String::from_utf8_lossy(&run.stderr));
    let ran: Vec<String> = outcomes(&report).into_keys().collect();
    assert_eq!(ran, listed);
    assert_eq!(report["passed"].as_u64(), Some(listed.len() as u64));
    // The committed version's `skip_ops[0]`, as the editor's run action on it: the same tests
    // (those the entry removes), on a scratch copy; the manifest stays as committed.
    git(&dir, &["checkout", "-q", "manifest.py"]);
    let committed = std::fs::read_to_string(dir.join("manifest.py")).unwrap();
    let began = Instant::now();
    let run = lsp(
        &dir,
        &["run", "--entry", "skip_ops[0]", "--python", &python, "--format", "json"],
        &[("VIRTUAL_ENV", &venv)],
    );
    println!("run --entry skip_ops[0] ({} tests): {:?}", listed.len(), began.elapsed());
    let report = json(&run);
    assert_eq!(run.status.code(), Some(0), "{report:#}\n{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(outcomes(&report).into_keys().collect::<Vec<_>>(), listed);
    assert!(String::from_utf8_lossy(&run.stderr).contains(&format!("skip_ops[0]: {} tests", listed.len())));
    assert_eq!(std::fs::read_to_string(dir.join("manifest.py")).unwrap(), committed);
    assert!(dir.join(".torchcts-lsp/scratch/manifest.py").is_file());

    // A commit that enables a dtype by a regex: float16 for cos only. `run --against` runs
    // exactly the float16 cos tests `diff` lists as started.
    std::fs::write(dir.join("manifest.py"), &manifest).unwrap();
    git(&dir, &["commit", "-qam", "cos runs"]);
    let regex = manifest.replace("torch.bool: True}", r#"torch.bool: True, torch.float16: r"^cos$"}"#);
    assert_ne!(regex, manifest, "the fixture's supported_dtypes changed: update this test");
    std::fs::write(dir.join("manifest.py"), &regex).unwrap();
    let diff =
        lsp(&dir, &["diff", "--against", "HEAD", "--rooted-at-package", "--format", "json"], &[("VIRTUAL_ENV", &venv)]);
    let started = started_in(&json(&diff));
    // (Node ids name the dtype as pytest ids it: `torch.float16` or `dtype1`.)
    assert!(!started.is_empty() && started.iter().all(|n| n.contains("cos")), "{started:?}");
    assert!(started.iter().any(|n| n.contains("torch.float16")), "{started:?}");
    let began = Instant::now();
    let run =
        lsp(&dir, &["run", "--against", "HEAD", "--python", &python, "--format", "json"], &[("VIRTUAL_ENV", &venv)]);
    println!("run --against HEAD, a dtype regex ({} tests): {:?}", started.len(), began.elapsed());
    let report = json(&run);
    assert_eq!(outcomes(&report).into_keys().collect::<Vec<_>>(), started, "{report:#}");
}

/// `--entry` names what it cannot run: no real torchcts needed (nothing starts).
#[test]
fn run_entry_refuses_what_it_cannot_run_and_says_what_is_there() {
    let dir = folder("entry-usage");
    let manifest = std::fs::read_to_string(simdev().join("manifest.py"))
        .unwrap()
        .replace(r#""skip_ops": []"#, r#""skip_ops": ["cos"]"#);
    std::fs::write(dir.join("manifest.py"), &manifest).unwrap();
    let mut messages = Vec::new();
    for key_path in ["capabilities.nothing_such", "skip_ops[3]", "semantic_level.x", "skip_ops"] {
        let out = lsp(&dir, &["run", "--entry", key_path, "--python", "/nonexistent/python"], &[]);
        assert_eq!(out.status.code(), Some(2), "{key_path}");
        messages.push(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    assert!(
        messages[0].starts_with("torchcts-lsp run: `capabilities.nothing_such`: the keys of `capabilities` are "),
        "{}",
        messages[0]
    );
    assert_eq!(messages[1], r#"torchcts-lsp run: `skip_ops[3]`: `skip_ops` holds 1 items: "cos""#);
    assert_eq!(messages[2], "torchcts-lsp run: `semantic_level.x`: `semantic_level` is no list or dict");
    assert!(messages[3].contains("expected SECTION.NAME or SECTION[INDEX]"), "{}", messages[3]);
    // A capability that is False gates tests that do not run: nothing to run for it.
    std::fs::write(dir.join("manifest.py"), manifest.replace(r#""device_api": True"#, r#""device_api": False"#))
        .unwrap();
    let out = lsp(&dir, &["run", "--entry", "capabilities.device_api", "--python", "/nonexistent/python"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("decides no tests to run"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "needs TORCHCTS_PYTHON: real torchcts"]
fn two_shards_together_equal_one_run() {
    let Some(python) = real_python("real torchcts runs not executed") else { return };
    let _serial = REAL_RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let python = python.to_string_lossy().into_owned();
    let dir = folder("shards");
    std::fs::copy(simdev().join("manifest.py"), dir.join("manifest.py")).unwrap();
    let faults = [("SIMDEV_WRONG", r"^aten\.sub\."), ("SIMDEV_RAISE", r"^aten\.exp\.")];
    let nodes = [ADD_F32, SUB_F32, COS_F32, EXP_F32];
    let run = |results: &str, shard: Option<&str>| {
        let mut args = vec!["run", "--python", &python, "--device", "simdev", "--results", results, "--format", "json"];
        for n in &nodes {
            args.extend(["--node", n]);
        }
        if let Some(shard) = shard {
            args.extend(["--shard", shard]);
        }
        let began = Instant::now();
        let out = lsp(&dir, &args, &faults);
        println!("run {shard:?}: {:?}", began.elapsed());
        out
    };
    let whole = run("whole", None);
    assert_eq!(whole.status.code(), Some(1), "a FAIL and an ERROR: {}", String::from_utf8_lossy(&whole.stdout));
    let whole = json(&whole);
    assert_eq!(
        (whole["passed"].as_u64(), whole["failed"].as_u64(), whole["errored"].as_u64()),
        (Some(2), Some(1), Some(1))
    );
    let first = json(&run("shard1", Some("1/2")));
    let second = json(&run("shard2", Some("2/2")));
    let (a, b) = (outcomes(&first), outcomes(&second));
    assert!(a.keys().all(|k| !b.contains_key(k)), "disjoint: {a:?} {b:?}");
    let mut merged = a.clone();
    merged.extend(b.clone());
    assert_eq!(merged, outcomes(&whole));
    // The results folders merged as docs/ci.md says: every history file into one folder.
    let into = dir.join("merged");
    for shard in ["shard1", "shard2"] {
        for entry in std::fs::read_dir(dir.join(shard)).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with("_history") {
                let target = into.join(&name);
                std::fs::create_dir_all(&target).unwrap();
                for file in std::fs::read_dir(entry.path()).unwrap().flatten() {
                    let copy = target.join(format!("{shard}-{}", file.file_name().to_string_lossy()));
                    std::fs::copy(file.path(), copy).unwrap();
                }
            }
        }
    }
    let statuses = |folder: PathBuf| {
        let index = runner::evidence::EvidenceIndex::read(&[folder], "simdev", Default::default());
        assert_eq!(index.problems(), &[]);
        index.records().map(|(id, e)| (id.to_string(), format!("{:?}", e.status))).collect::<BTreeMap<_, _>>()
    };
    let single = statuses(dir.join("whole"));
    assert_eq!(single.len(), 4);
    assert_eq!(statuses(into), single);
}

#[test]
#[ignore = "needs TORCHCTS_PYTHON: real torchcts"]
fn a_crash_exits_3_and_says_how_to_rerun_isolated() {
    let Some(python) = real_python("real torchcts runs not executed") else { return };
    let _serial = REAL_RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let python = python.to_string_lossy().into_owned();
    let dir = folder("crash");
    std::fs::copy(simdev().join("manifest.py"), dir.join("manifest.py")).unwrap();
    let faults = [("SIMDEV_ABORT", r"^aten\.sub\.")];
    let began = Instant::now();
    let out =
        lsp(&dir, &["run", "--python", &python, "--device", "simdev", "--node", ADD_F32, "--node", SUB_F32], &faults);
    println!("run with a crash: {:?}", began.elapsed());
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with("torchcts run crashed: killed by SIGABRT (abort): 1 passed, 0 failed, 0 errored, 1 crashed"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("CRASHED {SUB_F32}: ")), "{stdout}");
    let hint = stderr.lines().find(|l| l.starts_with("Hint: run the same tests again")).expect("the re-run hint");
    let command = format!(
        "torchcts-lsp run {}/manifest.py --node '{ADD_F32}' --node '{SUB_F32}' --isolate --device simdev --python {python}",
        dir.display()
    );
    assert!(hint.ends_with(&format!(": {command}")), "{hint}");
    // The hint's command, as a shell reads it: the crash is now one test's record and the
    // run completes.
    let words = shell_words(command.strip_prefix("torchcts-lsp ").unwrap());
    let mut words: Vec<&str> = words.iter().map(String::as_str).collect();
    words.extend(["--format", "json"]);
    let began = Instant::now();
    let again = lsp(&dir, &words, &faults);
    println!("the isolated re-run: {:?}", began.elapsed());
    let report = json(&again);
    assert_eq!(again.status.code(), Some(3), "{report:#}");
    assert_eq!(
        outcomes(&report),
        BTreeMap::from([(ADD_F32.to_string(), "passed".to_string()), (SUB_F32.to_string(), "crashed".to_string())])
    );
    assert_eq!(report["status"], "completed (torchcts exit 1)");
    // The support record: add's pass from the run that died is kept (torchcts's `_latest.json`
    // of that run has since been rewritten), and sub's crash is the newest record.
    let venv = Path::new(&python).parent().and_then(Path::parent).unwrap().to_string_lossy().into_owned();
    let record =
        lsp(&dir, &["report", "manifest.py", "--device", "simdev", "--format", "json"], &[("VIRTUAL_ENV", &venv)]);
    let record = json(&record);
    let tests = &record["evidence"]["tests"];
    // The crash is counted apart from the tests that errored.
    assert_eq!(
        (tests["passed"].as_u64(), tests["errored"].as_u64(), tests["crashed"].as_u64()),
        (Some(1), Some(0), Some(1)),
        "{:#}",
        record["evidence"]
    );
}

/// A command line split as a POSIX shell splits one with single-quoted words only.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '\'' => (quoted, any) = (!quoted, true),
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => (word, any) = (word + &c.to_string(), true),
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// A `requires capabilities: a, b` detail with its names sorted: torchcts prints a Python
/// set there, whose order changes from run to run.
fn capability_order_free(line: &str) -> String {
    match line.split_once("requires capabilities: ") {
        Some((head, names)) => {
            let mut names: Vec<&str> = names.split(", ").collect();
            names.sort();
            format!("{head}requires capabilities: {}", names.join(", "))
        }
        None => line.to_string(),
    }
}

/// `skips` on simdev with the project ledger entry for the test that crashes simdev counts it
/// as `known_backend_crash`, as the real `torchcts show-skips --device simdev --level 2` did in
/// a folder beside the venv (`/tmp/sdskips`, venv `/tmp/tv`: pytest's rootdir `/tmp`), with
/// `tests/fixtures/simdev` on PYTHONPATH, torchcts 0.4.1, torch 2.12.1, 2026-12-03: its NOT-RUN
/// AUDIT up to `collected ...` is `ledger/show-skips-simdev-l2.txt.gz` (1932 s of collection).
#[test]
fn skips_counts_a_project_ledger_entry_on_simdev_as_the_real_show_skips_did() {
    use std::io::Read;
    let dir = folder("ledger-skips");
    std::fs::copy(simdev().join("manifest.py"), dir.join("manifest.py")).unwrap();
    std::fs::copy(simdev().join("ledger/known_segfaults.json"), dir.join("known_segfaults.json")).unwrap();
    let out = lsp(
        &dir,
        &[
            "skips",
            "--device",
            "simdev",
            "--level",
            "2",
            "--torch",
            "2.12.1",
            "--node-prefix",
            "tv/lib/python3.11/site-packages/torchcts/",
        ],
        &[],
    );
    let ours = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(ours.contains("    known_backend_crash      : 1\n"), "{ours}");
    let mut real = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(simdev().join("ledger/show-skips-simdev-l2.txt.gz")).unwrap())
        .read_to_string(&mut real)
        .unwrap();
    // The real output after its banner and pytest's header; ours up to the same line.
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.contains("NOT-RUN AUDIT"))
            .take_while(|l| !l.starts_with("collected "))
            .filter(|l| !l.trim().is_empty())
            .map(capability_order_free)
            .collect()
    };
    let (real, ours_lines) = (lines(&real), lines(&ours));
    assert!(real.len() > 4000, "{}", real.len());
    assert_eq!(ours_lines, real);
    assert!(ours.contains("3290/7639 tests collected (4349 deselected)"), "{ours}");
}
