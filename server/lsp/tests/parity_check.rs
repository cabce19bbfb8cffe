//! Parity with the real `torchcts check-manifest`, on the committed corpus.
//!
//! `tests/parity/check/cases/*/expected.json` were produced by torchcts 0.4.1 with
//! torch 2.12.1 (`tests/parity/check/regenerate.py`). For every case, both
//! `torchcts-lsp check` and the language server's diagnostics must say the same thing:
//! the same lines in the same order and the same exit code; for a syntax error, the same
//! `Failed to parse manifest:` prefix and line number (CPython's wording may differ).

mod support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::lsp_client::{file_uri, LspClient};

/// Cases whose real outcome depends on running Python, which the server never does on its
/// own: for these we must not claim the real result, but we must say what we could not
/// evaluate (an information note), instead of silently answering wrong.
const NEEDS_PYTHON: &[(&str, &str)] =
    &[("parse_import_error", "whether a module can be imported is only known by importing it")];

fn needs_python(case: &Case) -> bool {
    NEEDS_PYTHON.iter().any(|(name, _)| *name == case.name)
}

struct Case {
    name: String,
    manifest: PathBuf,
    expected: Value,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check/cases");
    let mut out: Vec<Case> = std::fs::read_dir(&root)
        .expect("the parity corpus is committed")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("expected.json").exists())
        .map(|e| {
            let dir = e.path().canonicalize().expect("case dir");
            let expected: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).expect("read expected"))
                    .expect("expected.json is JSON");
            Case { name: e.file_name().to_string_lossy().into_owned(), manifest: dir.join("manifest.py"), expected }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(out.len() >= 40, "the corpus has only {} cases", out.len());
    out
}

/// Compares our lines with the real ones; a parse failure compares prefix and line.
fn compare(case: &Case, ours: &[String], our_exit: i64) -> Option<String> {
    compare_lines(case, ours, our_exit, |_| true)
}

/// [`compare`] for the editor, which shows findings, not what the manifest's `print()`
/// writes (the real tool's stdout but `Manifest is valid!`).
fn compare_without_printed(case: &Case, ours: &[String], our_exit: i64) -> Option<String> {
    let stdout = case.expected["stdout"].as_str().unwrap_or("");
    let printed: Vec<&str> = stdout.lines().filter(|l| *l != "Manifest is valid!").collect();
    compare_lines(case, ours, our_exit, |line| !printed.contains(&line))
}

fn compare_lines(case: &Case, ours: &[String], our_exit: i64, kept: impl Fn(&str) -> bool) -> Option<String> {
    let expected_lines: Vec<String> = (case.expected["lines"].as_array().unwrap().iter())
        .map(|l| l.as_str().unwrap().to_string())
        .filter(|l| kept(l))
        .collect();
    let expected_exit = case.expected["exit_code"].as_i64().unwrap();
    let mut problems = Vec::new();
    if our_exit != expected_exit {
        problems.push(format!("exit code {our_exit}, expected {expected_exit}"));
    }
    if let Some(line) = case.expected["parse_error_line"].as_i64() {
        let ours_line = ours.first().and_then(|l| parse_error_line(l));
        if !ours.first().is_some_and(|l| l.starts_with("Failed to parse manifest: ")) || ours_line != Some(line) {
            problems.push(format!("expected a parse failure on line {line}, got {ours:?}"));
        }
    } else if ours.len() != expected_lines.len() || !ours.iter().zip(&expected_lines).all(|(o, e)| same_line(e, o)) {
        problems.push(format!("lines differ:\n  ours:     {ours:?}\n  expected: {expected_lines:?}"));
    }
    (!problems.is_empty()).then(|| format!("{}: {}", case.name, problems.join("; ")))
}

/// Where the tool's Python keeps its modules, as `regenerate.py` records them in an
/// ImportError's file (`(<STDLIB>/typing.py)`): ours may name another Python's folders.
const MACHINE_FOLDERS: [&str; 2] = ["(<STDLIB>/", "(<SITE>/"];

/// The same line, but for the folder an expected line records as a placeholder: ours has
/// an absolute folder there, and everything else (the module's file in it) the same.
fn same_line(expected: &str, ours: &str) -> bool {
    let Some((placeholder, at)) = MACHINE_FOLDERS.iter().find_map(|p| expected.find(p).map(|at| (p, at))) else {
        return expected == ours;
    };
    let (head, tail) = (&expected[..at + 1], &expected[at + placeholder.len() - 1..]);
    ours.len() > head.len() + tail.len()
        && ours.starts_with(head)
        && ours.ends_with(tail)
        && ours[head.len()..ours.len() - tail.len()].starts_with('/')
        && !ours[head.len()..ours.len() - tail.len()].contains([')', '('])
}

/// A case whose real line names a module's file (or says it has none, `(unknown
/// location)`), or a package's submodule it lacks (`No module named 'torch.x'`), which only
/// the tool's Python knows: where our side has no such Python to ask (none, or one without
/// torch; the server before it asked), it says it could not tell.
fn names_machine_folder(case: &Case) -> bool {
    case.expected["lines"].as_array().unwrap().iter().any(|l| {
        let l = l.as_str().unwrap();
        let submodule = l.split_once("No module named '").is_some_and(|(_, name)| name.contains('.'));
        MACHINE_FOLDERS.iter().any(|p| l.contains(p)) || l.ends_with(" (unknown location)") || submodule
    })
}

fn parse_error_line(line: &str) -> Option<i64> {
    let start = line.rfind("(manifest.py, line ")? + "(manifest.py, line ".len();
    line[start..].trim_end_matches(')').parse().ok()
}

#[test]
fn cli_check_matches_real_check_manifest() {
    let mut failures = Vec::new();
    let all = cases();
    // The real tool's environment, for the cases whose line names one of its files.
    let real_venv = std::env::var_os("TORCHCTS_PYTHON")
        .map(PathBuf::from)
        .and_then(|python| python.parent().and_then(Path::parent).map(Path::to_path_buf));
    for case in &all {
        let check = || {
            let mut command = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"));
            if let Some(venv) = real_venv.as_ref().filter(|_| names_machine_folder(case)) {
                command.env("VIRTUAL_ENV", venv);
            }
            command.arg("check");
            command
        };
        let output = check().arg(&case.manifest).output().expect("run torchcts-lsp check");
        if needs_python(case) {
            let stderr = String::from_utf8_lossy(&output.stderr);
            if !stderr.lines().any(|l| l.starts_with("Note: ")) {
                failures.push(format!("{}: needs Python, but we printed no note saying so: {stderr}", case.name));
            }
            continue;
        }
        // Our own findings are `PATH:LINE:COL: CODE message` lines after check-manifest's.
        let own = format!("{}:", case.manifest.display());
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let first_own = stderr.lines().position(|l| l.starts_with(&own)).unwrap_or(usize::MAX);
        if stderr.lines().skip(first_own).any(|l| l.starts_with("Warning: ") || l.starts_with("Error: ")) {
            failures.push(format!("{}: a check-manifest line after our own findings:\n{stderr}", case.name));
        }
        let mut lines: Vec<String> = stderr
            .lines()
            .chain(String::from_utf8_lossy(&output.stdout).lines())
            .filter(|l| {
                !l.starts_with("Note: ") && !l.starts_with("Traceback") && !l.starts_with(' ') && !l.starts_with(&own)
            })
            .map(str::to_string)
            .collect();
        // --check-manifest-only: the same lines with nothing of ours but the notes.
        let only = check()
            .arg("--check-manifest-only")
            .arg(&case.manifest)
            .output()
            .expect("run torchcts-lsp check --check-manifest-only");
        let only_stderr = String::from_utf8_lossy(&only.stderr);
        let kept: Vec<&str> = stderr.lines().filter(|l| !l.starts_with(&own)).collect();
        if only_stderr.lines().collect::<Vec<_>>() != kept
            || only.stdout != output.stdout
            || only.status != output.status
        {
            failures.push(format!("{}: --check-manifest-only differs from check without our lines", case.name));
        }
        // stdout holds only "Manifest is valid!", which the real tool prints last.
        lines.sort_by_key(|l| l == "Manifest is valid!");
        let noted = stderr.lines().any(|l| l.starts_with("Note: ") && l.contains("only known when Python loads"));
        if names_machine_folder(case) && noted && real_venv.is_none() {
            continue;
        }
        if let Some(f) = compare(case, &lines, output.status.code().unwrap_or(-1) as i64) {
            failures.push(f);
        }
    }
    println!(
        "check parity: {} cases ({} need Python and are checked for a note instead), {} differ",
        all.len(),
        NEEDS_PYTHON.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), all.len(), failures.join("\n"));
}

#[test]
fn cli_json_reports_python_regex_warnings() {
    let mut failures = Vec::new();
    let all = cases();
    let mut checked = 0;
    for case in &all {
        let expected: Vec<String> = case.expected["python_warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect();
        if case.expected["parse_error_line"].is_i64() {
            continue;
        }
        let output = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
            .args(["check", "--format", "json"])
            .arg(&case.manifest)
            .output()
            .expect("run torchcts-lsp check --format json");
        let report: Value = serde_json::from_slice(&output.stdout).expect("json output");
        let mut ours: Vec<String> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "regex-warning")
            .map(|f| {
                f["message"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("Python warns when compiling this regex: ")
                    .to_string()
            })
            .collect();
        // Python prints a warning once per call site and text; compare the distinct texts.
        ours.sort();
        ours.dedup();
        let mut expected = expected;
        expected.sort();
        expected.dedup();
        checked += 1;
        if ours != expected {
            failures.push(format!("{}: ours {ours:?}, expected {expected:?}", case.name));
        }
        for f in report["findings"].as_array().unwrap() {
            let r = &f["range"];
            if !(r["start"]["line"].as_u64().unwrap_or(0) >= 1 && r["start"]["column"].as_u64().unwrap_or(0) >= 1) {
                failures.push(format!("{}: finding without a 1-based range: {f}", case.name));
            }
        }
    }
    println!("python warning parity: {checked} cases, {} differ", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn lsp_diagnostics_match_real_check_manifest() {
    let all = cases();
    let mut client = LspClient::spawn();
    client.initialize(json!({}));
    let mut failures = Vec::new();
    for case in &all {
        let text = std::fs::read_to_string(&case.manifest).expect("read manifest");
        let uri = file_uri(&case.manifest);
        client.open(&uri, &text, 1);
        let published = client.diagnostics(&uri, Some(1));
        let diags = published["diagnostics"].as_array().unwrap();
        if needs_python(case) {
            if !diags.iter().any(|d| d["code"] == "not-evaluated" && d["severity"] == 3) {
                failures.push(format!("{}: needs Python, but no information diagnostic says so", case.name));
            }
            client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
            continue;
        }
        // Published before CPython is asked for the module's file: a note, no claim.
        let noted = diags.iter().any(|d| d["code"] == "not-evaluated" && d["severity"] == 3);
        if names_machine_folder(case) && noted && !diags.iter().any(|d| d["code"] == "load-error") {
            client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
            continue;
        }
        let parity: Vec<&Value> = diags.iter().filter(|d| d["source"] == "torchcts").collect();
        let render = |d: &&Value| -> String {
            // A misspelt key's diagnostic is the real tool's text and what the key probably
            // stands for (`... 'capabilites' (did you mean 'capabilities'?)`).
            let message = d["message"].as_str().unwrap();
            let message = match message.rfind(" (did you mean ") {
                Some(at) if message.ends_with("?)") && d["code"] == "unknown-key" => &message[..at],
                _ => message,
            };
            match (d["code"].as_str().unwrap(), d["severity"].as_i64().unwrap()) {
                ("syntax-error" | "load-error", _) => message.to_string(),
                ("check-crash", _) => message.trim_start_matches("check-manifest crashes: ").to_string(),
                (_, 1) => format!("Error: {message}"),
                (_, 2) => format!("Warning: {message}"),
                _ => message.to_string(),
            }
        };
        // `sys.exit` ends the real tool with its status, printing only a code that is no int.
        fn exit_message(d: &Value) -> Option<&str> {
            d["message"].as_str().and_then(|m| m.strip_prefix("sys.exit ends check-manifest"))
        }
        if let Some(d) = parity.iter().find(|d| d["code"] == "load-error" && exit_message(d).is_some()) {
            let (lines, exit) =
                (case.expected["lines"].as_array().unwrap(), case.expected["exit_code"].as_i64().unwrap());
            let printed: Vec<&str> = lines.iter().filter_map(|l| l.as_str()).collect();
            let mut expected = format!(" here with exit status {exit}");
            if !printed.is_empty() {
                expected.push_str(&format!(", printing {:?}", printed.join("\n")));
            }
            if exit_message(d) != Some(expected.as_str()) {
                failures
                    .push(format!("{}: the real tool{expected}, but the diagnostic says {}", case.name, d["message"]));
            }
            client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
            continue;
        }
        // The real tool stops at the first exception while loading.
        let load_failure =
            parity.iter().find(|d| matches!(d["code"].as_str(), Some("syntax-error" | "load-error" | "check-crash")));
        let mut lines: Vec<String> = match load_failure {
            Some(d) => vec![render(d)],
            None => {
                let mut w: Vec<String> = parity.iter().filter(|d| d["severity"] == 2).map(render).collect();
                let e: Vec<String> = parity.iter().filter(|d| d["severity"] == 1).map(render).collect();
                w.extend(e);
                w
            }
        };
        let exit = if lines.iter().any(|l| !l.starts_with("Warning: ")) { 1 } else { 0 };
        if exit == 0 {
            lines.push("Manifest is valid!".into());
        }
        if let Some(f) = compare_without_printed(case, &lines, exit) {
            failures.push(f);
        }
        client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    }
    client.shutdown();
    println!("lsp parity: {} cases, {} differ", all.len(), failures.len());
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), all.len(), failures.join("\n"));
}

/// `check` with no FILE where the working folder holds no manifest.py: check-manifest's
/// line names the file by its absolute path (`tests/parity/check/no_manifest.json`, recorded
/// by `regenerate.py` in an empty folder shown as `<CASE>`).
#[test]
fn cli_check_without_file_names_the_absolute_path_as_check_manifest() {
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check/no_manifest.json");
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(recorded).expect("recorded")).unwrap();
    let folder = std::env::temp_dir().join(format!("torchcts-lsp-no-manifest-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let folder = folder.canonicalize().unwrap();
    let output =
        Command::new(env!("CARGO_BIN_EXE_torchcts-lsp")).arg("check").current_dir(&folder).output().expect("run check");
    let _ = std::fs::remove_dir_all(&folder);
    let stderr = String::from_utf8_lossy(&output.stderr).replace(&folder.display().to_string(), "<CASE>");
    let lines: Vec<&str> = stderr.lines().chain(std::str::from_utf8(&output.stdout).unwrap().lines()).collect();
    assert_eq!(json!(lines), expected["lines"], "{stderr}");
    assert_eq!(i64::from(output.status.code().unwrap_or(-1)), expected["exit_code"].as_i64().unwrap());
}

/// Manifests whose bytes are not all UTF-8 (`tests/parity/check/encoding`): `check` decodes
/// them as CPython's `compile()` does (a Latin-1 byte in a comment is accepted, a coding
/// cookie decodes, a byte in a string or name is CPython's `(unicode error)` on its line),
/// and prints what the real check-manifest printed. The server receives text the editor
/// decoded: Neovim, not finding UTF-8, reads such a file as Latin-1, and a comment is
/// judged as the real tool judges it.
#[test]
fn encodings_read_as_cpython_reads_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check/encoding");
    let mut names: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.file_name()).collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let dir = root.join(name).canonicalize().unwrap();
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
        let case = Case { name: name.to_string_lossy().into_owned(), manifest: dir.join("manifest.py"), expected };
        let output = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
            .args(["check", "--check-manifest-only"])
            .arg(&case.manifest)
            .output()
            .expect("run check");
        let lines: Vec<String> = String::from_utf8_lossy(&output.stderr)
            .lines()
            .chain(String::from_utf8_lossy(&output.stdout).lines())
            .map(str::to_string)
            .collect();
        // The whole line, CPython's words included.
        if json!(lines) != case.expected["lines"] {
            failures.push(format!("{}: {lines:?}, expected {}", case.name, case.expected["lines"]));
        }
        if let Some(f) = compare(&case, &lines, i64::from(output.status.code().unwrap_or(-1))) {
            failures.push(f);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // The editor's text of the Latin-1 comment case: no error, as check-manifest says.
    let manifest = root.join("encoding_latin1_comment/manifest.py").canonicalize().unwrap();
    let latin1: String = std::fs::read(&manifest).unwrap().iter().map(|&b| char::from(b)).collect();
    assert!(latin1.starts_with("# café backend\n"));
    let mut client = LspClient::spawn();
    client.initialize(json!({}));
    let uri = file_uri(&manifest);
    client.open(&uri, &latin1, 1);
    let published = client.diagnostics(&uri, Some(1));
    let errors: Vec<&Value> =
        published["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == 1).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// A recorded folder stands for any absolute folder, and nothing else of the line.
#[test]
fn a_recorded_python_folder_matches_only_the_same_file() {
    let expected = "Failed to parse manifest: cannot import name 'A' from 'typing' (<STDLIB>/typing.py)";
    assert!(same_line(
        expected,
        "Failed to parse manifest: cannot import name 'A' from 'typing' (/usr/lib/python3.11/typing.py)"
    ));
    assert!(!same_line(
        expected,
        "Failed to parse manifest: cannot import name 'B' from 'typing' (/usr/lib/python3.11/typing.py)"
    ));
    assert!(!same_line(
        expected,
        "Failed to parse manifest: cannot import name 'A' from 'typing' (/usr/lib/python3.11/types.py)"
    ));
    assert!(!same_line(expected, "Failed to parse manifest: cannot import name 'A' from 'typing' (unknown location)"));
    assert!(!same_line(expected, "Failed to parse manifest: cannot import name 'A' from 'typing' (/typing.py)"));
    assert!(same_line("Manifest is valid!", "Manifest is valid!") && !same_line("Manifest is valid!", "x"));
}
