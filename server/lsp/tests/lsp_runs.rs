//! Black-box test of runs from the editor: a code action's command starts a run with a fake
//! `python` (tests/fixtures/runs), progress begin/report/end arrive, the results land as a
//! diagnostic on the entry the run was about, and cancel ends a hanging run.

mod support;

use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;
use support::lsp_client::{file_uri, vscode_capabilities, LspClient};
use support::{real_python, TempDir};

/// The message a finished run shows (other messages, such as what the server says about
/// the fake Python's environment, are not about the run).
fn run_summary(m: &Value) -> bool {
    (m["method"] == "window/showMessage" || m["method"] == "window/showMessageRequest")
        && m["params"]["message"].as_str().is_some_and(|t| t.starts_with("TorchCTS run"))
}

const MANIFEST: &str = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"semantic_level\": 1,\n    \"supported_dtypes\": {torch.float32: True},\n    \"capabilities\": {\"inference\": True},\n}\n";

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/runs")
        .join(name)
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

/// The manifest in a folder of its own, removed when the test ends (declared before the
/// client, it goes after the server).
fn workspace(name: &str) -> TempDir {
    let dir = TempDir::fresh(&format!("torchcts-lsp-runs-{name}"));
    std::fs::write(dir.join("manifest.py"), MANIFEST).unwrap();
    dir
}

fn start(python: &str) -> LspClient {
    let mut client = LspClient::spawn();
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": null,
               "capabilities": vscode_capabilities(),
               "initializationOptions": {"torchcts": {"python": python, "timeoutSeconds": 60}}}),
    );
    client.notify("initialized", json!({}));
    client
}

fn progress_kinds(messages: &[Value]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m["method"] == "$/progress")
        .map(|m| m["params"]["value"]["kind"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn a_run_from_a_code_action_reports_progress_and_lands_on_the_entry() {
    let dir = workspace("action");
    let uri = file_uri(&dir.join("manifest.py"));
    let mut client = start(&fixture("python_fail"));
    client.open(&uri, MANIFEST, 1);
    client.diagnostics(&uri, Some(1));
    // Cursor on `torch.float32` (line 5).
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 5, "character": 26}, "end": {"line": 5, "character": 26}}, "context": {"diagnostics": []}}),
    );
    let run = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap_or("").starts_with("Run affected tests on cpu"))
        .unwrap_or_else(|| panic!("no run action in {actions:#}"))
        .clone();
    assert!(run["title"].as_str().unwrap().contains("torch.float32"), "{run:#}");
    let command = &run["command"];
    let result = client
        .request("workspace/executeCommand", json!({"command": command["command"], "arguments": command["arguments"]}));
    assert_eq!(result["started"], true);
    let message = client.wait_for(run_summary);
    let text = message["params"]["message"].as_str().unwrap();
    assert!(text.contains("1 passed, 1 failed"), "{text}");
    let diags = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["diagnostics"].as_array().is_some_and(|d| d.iter().any(|x| x["code"] == "run-result"))
    });
    let d =
        diags["params"]["diagnostics"].as_array().unwrap().iter().find(|x| x["code"] == "run-result").unwrap().clone();
    assert_eq!(d["range"]["start"], json!({"line": 5, "character": 25}), "on the float32 entry: {d:#}");
    assert!(d["message"].as_str().unwrap().contains("1 of"), "{d:#}");
    assert!(d["message"].as_str().unwrap().contains("values differ"), "{d:#}");
    let kinds = progress_kinds(&client.backlog);
    assert_eq!(kinds.first().map(String::as_str), Some("begin"), "{kinds:?}");
    assert_eq!(kinds.last().map(String::as_str), Some("end"), "{kinds:?}");
    assert!(kinds.iter().any(|k| k == "report"), "no progress report: {kinds:?}");
    // Editing the entry clears its run results.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 5, "character": 40}, "end": {"line": 5, "character": 44}}, "text": "False"}]}),
    );
    let d = client.diagnostics(&uri, Some(2));
    assert!(d["diagnostics"].as_array().unwrap().iter().all(|x| x["code"] != "run-result"), "{d:#}");
    client.shutdown();
}

#[test]
fn cancel_ends_a_hanging_run_and_leaves_nothing_running() {
    let dir = workspace("cancel");
    let uri = file_uri(&dir.join("manifest.py"));
    let mut client = start(&fixture("python_hang"));
    client.open(&uri, MANIFEST, 1);
    client.diagnostics(&uri, Some(1));
    let started = client.request(
        "workspace/executeCommand",
        json!({"command": "torchcts.runLevel", "arguments": [{"uri": uri, "level": 1}]}),
    );
    assert_eq!(started["started"], true);
    // Wait until the fake test has started (it writes its pids), then cancel.
    let pids_file = dir.join(".torchcts-lsp/results/pids");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !pids_file.exists() {
        assert!(std::time::Instant::now() < deadline, "the fake run never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pids: Vec<i32> =
        std::fs::read_to_string(&pids_file).unwrap().split_whitespace().filter_map(|p| p.parse().ok()).collect();
    let cancelled = client
        .request("workspace/executeCommand", json!({"command": "torchcts.cancelRun", "arguments": [{"uri": uri}]}));
    assert_eq!(cancelled["cancelled"], true);
    let message = client.wait_for(run_summary);
    assert!(message["params"]["message"].as_str().unwrap().contains("cancelled"), "{message:#}");
    // The server still answers, and the fake's processes are gone (reaping may lag a bit).
    client
        .request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 6}}));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    for pid in pids {
        loop {
            let status = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let alive = !status.is_empty() && !status.contains(") Z ");
            if !alive {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "process {pid} still running after cancel");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    client.shutdown();
}

#[test]
fn a_skip_ops_entry_runs_its_tests_on_a_scratch_copy_and_leaves_the_manifest_alone() {
    let text = MANIFEST.replace("    \"semantic_level\": 1,\n", "    \"semantic_level\": 2,\n").replace(
        "    \"capabilities\": {\"inference\": True},\n",
        "    \"capabilities\": {\"inference\": True},\n    \"skip_ops\": [\"abs\"],\n",
    );
    let dir = workspace("skip");
    std::fs::write(dir.join("manifest.py"), &text).unwrap();
    let uri = file_uri(&dir.join("manifest.py"));
    let mut client = start(&fixture("python_argv"));
    client.open(&uri, &text, 1);
    client.diagnostics(&uri, Some(1));
    // Cursor inside "abs" (line 7: `    "skip_ops": ["abs"],`).
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 7, "character": 19}, "end": {"line": 7, "character": 19}}, "context": {"diagnostics": []}}),
    );
    let run = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap_or("").contains("skipped operator abs"))
        .unwrap_or_else(|| panic!("no run action for the skip_ops entry in {actions:#}"))
        .clone();
    assert!(run["title"].as_str().unwrap().contains("scratch copy"), "{run:#}");
    let command = &run["command"];
    let result = client
        .request("workspace/executeCommand", json!({"command": command["command"], "arguments": command["arguments"]}));
    assert_eq!(result["started"], true);
    client.wait_for(run_summary);
    let results = dir.join(".torchcts-lsp/results");
    let scratch = dir.join(".torchcts-lsp/scratch");
    let cwd = std::fs::read_to_string(results.join("cwd.txt")).unwrap();
    assert_eq!(Path::new(cwd.trim()), scratch.canonicalize().unwrap(), "the run happens in the scratch folder");
    let copy = std::fs::read_to_string(scratch.join("manifest.py")).unwrap();
    assert!(copy.contains(&text), "the scratch copy holds the saved manifest:\n{copy}");
    assert!(copy.contains("if op != \"abs\"]"), "the scratch copy takes the entry out:\n{copy}");
    assert_eq!(std::fs::read_to_string(dir.join("manifest.py")).unwrap(), text, "the user's manifest is untouched");
    let argv = std::fs::read_to_string(results.join("argv.txt")).unwrap();
    assert!(argv.contains("test_unary_float_op[dtype0-abs]"), "the run names the tests the entry removes:\n{argv}");
    assert!(!argv.contains("-neg]"), "and only those:\n{argv}");
    client.shutdown();
}

/// An entry that decides no test offers no run of it (issue 31: "Run affected tests on cpu
/// (0 tests of ...)"); the level's run stays.
#[test]
fn an_entry_that_decides_no_test_offers_no_run_of_it() {
    let text = MANIFEST.replace("    \"semantic_level\": 1,\n", "    \"semantic_level\": 2,\n").replace(
        "    \"capabilities\": {\"inference\": True},\n",
        "    \"capabilities\": {\"inference\": True},\n    \"skip_ops\": [\"no_such_op\", \"abs\"],\n",
    );
    let dir = workspace("zero");
    std::fs::write(dir.join("manifest.py"), &text).unwrap();
    let uri = file_uri(&dir.join("manifest.py"));
    let mut client = start(&fixture("python_argv"));
    client.open(&uri, &text, 1);
    client.diagnostics(&uri, Some(1));
    let mut titles = |character: usize| -> Vec<String> {
        let actions = client.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 7, "character": character}, "end": {"line": 7, "character": character}}, "context": {"diagnostics": []}}),
        );
        actions.as_array().unwrap().iter().filter_map(|a| a["title"].as_str().map(str::to_string)).collect()
    };
    // Line 7: `    "skip_ops": ["no_such_op", "abs"],`: inside "no_such_op", then inside "abs".
    let on_unknown = titles(20);
    assert!(on_unknown.iter().all(|t| !t.starts_with("Run affected tests")), "{on_unknown:#?}");
    assert!(on_unknown.iter().any(|t| t.starts_with("Run level 2 on cpu")), "{on_unknown:#?}");
    let on_abs = titles(35);
    assert!(
        on_abs.iter().any(|t| t.starts_with("Run affected tests on cpu (") && t.contains("skipped operator abs")),
        "{on_abs:#?}"
    );
    assert!(on_abs.iter().all(|t| !t.contains("(0 tests")), "{on_abs:#?}");
    client.shutdown();
}

/// A run that dies asks with a button for the isolated re-run; the button starts the same
/// tests with `--subprocess-per-test`, and that run's summary says so (and asks nothing).
#[test]
fn a_crashed_run_offers_the_isolated_rerun_as_a_button() {
    let dir = workspace("crash-button");
    let uri = file_uri(&dir.join("manifest.py"));
    let mut client = start(&fixture("python_segv"));
    client.open(&uri, MANIFEST, 1);
    client.diagnostics(&uri, Some(1));
    client.answer("window/showMessageRequest", json!({"title": "Re-run isolated"}));
    let run_level = json!({"command": "torchcts.runLevel", "arguments": [{"uri": uri, "level": 1}]});
    assert_eq!(client.request("workspace/executeCommand", run_level)["started"], true);
    let first = client.wait_for(run_summary);
    assert_eq!(first["method"], "window/showMessageRequest", "{first:#}");
    let text = first["params"]["message"].as_str().unwrap();
    assert!(text.starts_with("TorchCTS run of level 1 on cpu crashed: "), "{text}");
    assert!(text.contains("(crashed in opinfo/test_fake.py::test_boom)"), "{text}");
    assert!(text.contains(". Re-run isolated: the same tests, each in its own process"), "{text}");
    let titles: Vec<&str> =
        first["params"]["actions"].as_array().unwrap().iter().filter_map(|a| a["title"].as_str()).collect();
    assert_eq!(titles, ["Re-run isolated"]);
    // The button's run: isolated, said in its summary; the fake Python crashes again, and
    // no second question comes.
    let second =
        client.wait_for(|m| run_summary(m) && m["params"]["message"].as_str().unwrap_or("").contains("own process)"));
    assert_eq!(second["method"], "window/showMessage", "{second:#}");
    let text = second["params"]["message"].as_str().unwrap();
    assert!(text.starts_with("TorchCTS run of level 1 on cpu (each test in its own process) crashed"), "{text}");
    assert!(!text.contains("Re-run isolated"), "{text}");
    client.shutdown();
}

#[test]
fn a_second_run_asks_before_replacing_the_running_one() {
    let dir = workspace("replace");
    let uri = file_uri(&dir.join("manifest.py"));
    let mut client = start(&fixture("python_hang"));
    client.open(&uri, MANIFEST, 1);
    client.diagnostics(&uri, Some(1));
    let run_level = json!({"command": "torchcts.runLevel", "arguments": [{"uri": uri, "level": 1}]});
    assert_eq!(client.request("workspace/executeCommand", run_level.clone())["started"], true);
    let pids_file = dir.join(".torchcts-lsp/results/pids");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !pids_file.exists() {
        assert!(std::time::Instant::now() < deadline, "the fake run never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Dismissed (the client answers null): the running one stays.
    assert_eq!(client.request("workspace/executeCommand", run_level.clone())["started"], false);
    let asked = client.backlog.iter().find(|m| m["method"] == "window/showMessageRequest").cloned();
    let asked = asked.unwrap_or_else(|| panic!("no question in {:#?}", client.backlog));
    let titles: Vec<&str> =
        asked["params"]["actions"].as_array().unwrap().iter().filter_map(|a| a["title"].as_str()).collect();
    assert_eq!(titles, ["Replace it", "Keep running"]);
    assert!(
        client.backlog.iter().all(|m| !(m["method"] == "window/showMessage"
            && m["params"]["message"].as_str().unwrap_or("").contains("cancelled"))),
        "the running one was not cancelled"
    );
    // "Replace it": the running one is cancelled and a new one starts.
    client.answer("window/showMessageRequest", json!({"title": "Replace it"}));
    assert_eq!(client.request("workspace/executeCommand", run_level)["started"], true);
    let message = client.wait_for(run_summary);
    assert!(message["params"]["message"].as_str().unwrap().contains("cancelled"), "{message:#}");
    client.request("workspace/executeCommand", json!({"command": "torchcts.cancelRun", "arguments": [{"uri": uri}]}));
    client.shutdown();
}

/// How long a real torchcts run may take here (a busy 2-core machine: minutes).
const REAL_RUN_LIMIT: Duration = Duration::from_secs(600);

#[test]
#[ignore = "needs TORCHCTS_PYTHON: real torchcts"]
fn a_real_crash_on_simdev_is_counted_apart_named_and_offers_the_isolated_rerun() {
    let Some(python) = real_python("real torchcts runs not executed") else { return };
    let python = python.display().to_string();
    let simdev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/simdev").canonicalize().unwrap();
    let text = std::fs::read_to_string(simdev.join("manifest.py"))
        .unwrap()
        .replace(r#""skip_ops": []"#, r#""skip_ops": ["cos"]"#);
    let dir = workspace("simdev-crash");
    std::fs::write(dir.join("manifest.py"), &text).unwrap();
    let uri = file_uri(&dir.join("manifest.py"));
    // The backend importable, and cos aborting the process.
    let simdev_path = simdev.display().to_string();
    let mut client = LspClient::spawn_with_env(
        &[],
        &["VIRTUAL_ENV"],
        &[("PYTHONPATH", simdev_path.as_str()), ("SIMDEV_ABORT", r"^aten\.cos\.")],
    );
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": null,
               "capabilities": vscode_capabilities(),
               "initializationOptions": {"torchcts": {"python": python, "timeoutSeconds": 600}}}),
    );
    client.notify("initialized", json!({}));
    client.open(&uri, &text, 1);
    client.diagnostics(&uri, Some(1));
    let line = text.lines().position(|l| l.contains("skip_ops")).unwrap();
    let character = text.lines().nth(line).unwrap().find("\"cos\"").unwrap() + 1;
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": line, "character": character}, "end": {"line": line, "character": character}}, "context": {"diagnostics": []}}),
    );
    let run = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap_or("").contains("skipped operator cos"))
        .unwrap_or_else(|| panic!("no run action for the skip_ops entry in {actions:#}"))
        .clone();
    assert!(run["title"].as_str().unwrap().contains("on simdev"), "{run:#}");
    let command = &run["command"];
    let began = std::time::Instant::now();
    // The user clicks the button the crash offers.
    client.answer("window/showMessageRequest", json!({"title": "Re-run isolated"}));
    let result = client
        .request("workspace/executeCommand", json!({"command": command["command"], "arguments": command["arguments"]}));
    assert_eq!(result["started"], true);
    let message = client.wait_for_within(REAL_RUN_LIMIT, run_summary);
    println!("editor run on simdev with a crash: {:?}", began.elapsed());
    let text = message["params"]["message"].as_str().unwrap();
    assert_eq!(message["method"], "window/showMessageRequest", "a question with a button: {message:#}");
    assert_eq!(message["params"]["type"], 1, "an error: {text}");
    assert!(text.contains("crashed: killed by SIGABRT (abort)"), "{text}");
    assert!(text.contains("0 failed, 0 errors, 1 crashed"), "{text}");
    assert!(text.contains("(crashed in ") && text.contains("-cos"), "names the test: {text}");
    assert_eq!(message["params"]["actions"], json!([{"title": "Re-run isolated"}]), "offers the isolated re-run");
    // The button's run: the same tests, each in its own process; the crash is one test's
    // record and the run completes.
    let began = std::time::Instant::now();
    let isolated = client.wait_for_within(REAL_RUN_LIMIT, |m| {
        run_summary(m) && m["params"]["message"].as_str().unwrap_or("").contains("(each test in its own process)")
    });
    println!("the isolated re-run from the button: {:?}", began.elapsed());
    let text = isolated["params"]["message"].as_str().unwrap();
    assert!(text.contains("on simdev (each test in its own process) finished (exit 1): "), "{text}");
    // Every test of cos aborts (6 at level 2): each is now a record of its own.
    assert!(text.contains(": 0 passed, 0 failed, 0 errors, 6 crashed, 0 skipped"), "{text}");
    // What completed and the crash are evidence in the results folder.
    let history = std::fs::read_dir(dir.join(".torchcts-lsp/results"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with("_history"))
        .expect("a history folder");
    assert!(
        std::fs::read_dir(history.path())
            .unwrap()
            .flatten()
            .any(|f| f.file_name().to_string_lossy().ends_with("-torchcts-lsp-crash.json")),
        "our record of the crash"
    );
    client.shutdown();
}

/// Issue 33: a project `known_segfaults.json` entry for the test that crashes simdev, shown
/// by a real run: torchcts records the test without running it, and every view counts it as
/// `known_backend_crash`: the run's outcome, `skips`, `report` and the editor's hover and
/// lens (the records read back from the run's results folder).
#[test]
#[ignore = "needs TORCHCTS_PYTHON: real torchcts"]
fn a_known_crash_ledger_entry_is_a_known_backend_crash_in_the_run_skips_report_and_hover() {
    let Some(python) = real_python("real torchcts runs not executed") else { return };
    let python = python.display().to_string();
    const ADD: &str = "opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]";
    const SUB: &str = "opinfo/test_opinfo_forward.py::test_op_forward[clean-sub-torch.float32]";
    let simdev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/simdev").canonicalize().unwrap();
    let dir = workspace("simdev-known-crash");
    let text = std::fs::read_to_string(simdev.join("manifest.py")).unwrap();
    std::fs::write(dir.join("manifest.py"), &text).unwrap();
    std::fs::copy(simdev.join("ledger/known_segfaults.json"), dir.join("known_segfaults.json")).unwrap();
    let simdev_path = simdev.display().to_string();
    let cli = |args: &[&str]| simdev_cli(&dir, args, &[("SIMDEV_ABORT", r"^aten\.sub\.")]);
    let began = std::time::Instant::now();
    let run = cli(&["run", "--python", &python, "--device", "simdev", "--node", ADD, "--node", SUB]);
    println!("run with a known-crash ledger entry: {:?}", began.elapsed());
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(run.status.code(), Some(1), "torchcts exits 1 for the known crash's ERROR record: {stdout}");
    assert!(
        stdout.starts_with(
            "torchcts run completed (torchcts exit 1): 1 passed, 0 failed, 0 errored, 0 crashed, 1 known backend crash (not run), 0 skipped"
        ),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("KNOWN_BACKEND_CRASH {SUB}: ")), "{stdout}");
    // Counted as the runner runs: node ids rooted at the package, the ledger matched as
    // `torchcts/...` (our plugin): `--node-prefix torchcts/`.
    let counted_as = ["--device", "simdev", "--torch", "2.12.1", "--node-prefix", "torchcts/"];
    let skips = cli(&[&["skips"], &counted_as[..]].concat());
    assert!(String::from_utf8_lossy(&skips.stdout).contains("    known_backend_crash      : 1\n"));
    let record = cli(&[&["report", "manifest.py", "--format", "json"], &counted_as[..]].concat());
    let record: Value = serde_json::from_slice(&record.stdout).unwrap();
    let known = record["reason_counts"].as_array().unwrap().iter().find(|r| r["reason"] == "known_backend_crash");
    assert_eq!(known.map(|r| r["count"].clone()), Some(json!(1)), "{:#}", record["reason_counts"]);
    // The editor: the hover on `device_name` lists the known crash; the float32 entry's lens
    // counts the run's record of it apart.
    let (mut client, uri) = simdev_editor(&dir, &text, &python, &simdev_path);
    let line = text.lines().position(|l| l.contains("\"device_name\"")).unwrap();
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 6}});
    let mut markdown = String::new();
    for _ in 0..200 {
        markdown = client.request("textDocument/hover", at.clone())["contents"]["value"].as_str().unwrap_or("").into();
        if markdown.contains("known backend crashes") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(markdown.contains("**1 known backend crashes** on `simdev`"), "{markdown}");
    assert!(markdown.contains("test_op_forward[clean-sub-torch.float32]`"), "{markdown}");
    let lenses = client.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    let titles: Vec<&str> = lenses.as_array().unwrap().iter().filter_map(|l| l["command"]["title"].as_str()).collect();
    assert!(titles.iter().any(|t| t.starts_with("simdev: 1 passed · 1 known crash (not run) · ")), "{titles:#?}");
    client.shutdown();
}

/// `torchcts-lsp ARGS` in `dir` with the simdev backend importable and `faults` set.
fn simdev_cli(dir: &Path, args: &[&str], faults: &[(&str, &str)]) -> std::process::Output {
    let simdev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/simdev").canonicalize().unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(args)
        .current_dir(dir)
        .env("PYTHONPATH", simdev)
        .envs(faults.iter().copied())
        .env_remove("VIRTUAL_ENV")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// The server with `python` for runs and the simdev backend importable, `dir/manifest.py`
/// open with `text`, its first diagnostics in.
fn simdev_editor(dir: &Path, text: &str, python: &str, simdev_path: &str) -> (LspClient, String) {
    let mut client = LspClient::spawn_with_env(&[], &["VIRTUAL_ENV"], &[("PYTHONPATH", simdev_path)]);
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": vscode_capabilities(),
               "initializationOptions": {"torchcts": {"python": python}}}),
    );
    client.notify("initialized", json!({}));
    let uri = file_uri(&dir.join("manifest.py"));
    client.open(&uri, text, 1);
    client.diagnostics(&uri, Some(1));
    (client, uri)
}

/// Issue 33: a real FAIL, ERROR and crash on simdev (one isolated run: wrong values in sub,
/// an exception in exp, an abort in cos) as a user sees them: the run's summary, `report`,
/// and in the editor the float32 entry's lens, its `run-evidence` warning and its hover.
#[test]
#[ignore = "needs TORCHCTS_PYTHON: real torchcts"]
fn a_real_fail_error_and_crash_on_simdev_are_counted_apart_in_every_view() {
    let Some(python) = real_python("real torchcts runs not executed") else { return };
    let python = python.display().to_string();
    let forward = |op: &str| format!("opinfo/test_opinfo_forward.py::test_op_forward[clean-{op}-torch.float32]");
    let simdev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/simdev").canonicalize().unwrap();
    let dir = workspace("simdev-views");
    let text = std::fs::read_to_string(simdev.join("manifest.py")).unwrap();
    std::fs::write(dir.join("manifest.py"), &text).unwrap();
    let faults =
        [("SIMDEV_WRONG", r"^aten\.sub\."), ("SIMDEV_RAISE", r"^aten\.exp\."), ("SIMDEV_ABORT", r"^aten\.cos\.")];
    let mut args = vec!["run".to_string(), "--python".into(), python.clone(), "--device".into(), "simdev".into()];
    for op in ["add", "sub", "exp", "cos"] {
        args.extend(["--node".to_string(), forward(op)]);
    }
    args.push("--isolate".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let began = std::time::Instant::now();
    let run = simdev_cli(&dir, &args, &faults);
    println!("isolated run of 4 tests on simdev (PASS, FAIL, ERROR, crash): {:?}", began.elapsed());
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(run.status.code(), Some(3), "a crash: {stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert!(
        stdout.starts_with(
            "torchcts run completed (torchcts exit 1): 1 passed, 1 failed, 1 errored, 1 crashed, 0 skipped"
        ),
        "{stdout}"
    );
    for (word, op) in [("FAILED", "sub"), ("ERRORED", "exp"), ("CRASHED", "cos")] {
        assert!(stdout.contains(&format!("{word} {}: ", forward(op))), "{word} {op}: {stdout}");
    }
    let record = simdev_cli(
        &dir,
        &["report", "manifest.py", "--device", "simdev", "--torch", "2.12.1", "--format", "json"],
        &[],
    );
    let record: Value = serde_json::from_slice(&record.stdout).unwrap();
    let tests = &record["evidence"]["tests"];
    assert_eq!(
        [&tests["passed"], &tests["failed"], &tests["errored"], &tests["crashed"]],
        [&json!(1), &json!(1), &json!(1), &json!(1)],
        "{tests:#}"
    );
    // The editor: the records read back from the results folder.
    let (mut client, uri) = simdev_editor(&dir, &text, &python, &simdev.display().to_string());
    let line = text.lines().position(|l| l.contains("\"supported_dtypes\"")).unwrap();
    let mut lens = String::new();
    for _ in 0..200 {
        let lenses = client.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
        if let Some(title) = lenses.as_array().unwrap().iter().find_map(|l| {
            (l["range"]["start"]["line"] == line)
                .then(|| l["command"]["title"].as_str())
                .flatten()
                .filter(|t| t.starts_with("simdev: "))
        }) {
            lens = title.to_string();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(lens.starts_with("simdev: 1 passed · 1 failed · 1 errored · 1 crashed · "), "{lens}");
    let warning = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["diagnostics"].as_array().is_some_and(|d| d.iter().any(|x| x["code"] == "run-evidence"))
    });
    let warning = warning["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "run-evidence")
        .unwrap()
        .clone();
    assert!(
        warning["message"]
            .as_str()
            .unwrap()
            .starts_with("3 of the tests the torch.float32 entry lets in failed, errored or crashed"),
        "{warning:#}"
    );
    let character = text.lines().nth(line).unwrap().find("torch.float32").unwrap() + 2;
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
    );
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default();
    for (word, op) in [("FAIL", "sub"), ("ERROR", "exp"), ("CRASH", "cos")] {
        assert!(markdown.contains(&format!("- {word} `{}`", forward(op))), "{word} {op}: {markdown}");
    }
    client.shutdown();
}
