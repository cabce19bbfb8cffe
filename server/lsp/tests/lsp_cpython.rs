//! CPython's own verdict on a syntax error (issue 34): the server publishes the emulation's
//! diagnostics first, then asks its environment's CPython (`-I -S`, `compile()` only) in
//! the background and publishes again with CPython's message and line where they differ;
//! `cpythonCompile: false` keeps the emulation's. The CLI asks one process and says once
//! when the emulation answered instead.
//!
//! The text: a case the emulation words differently from CPython 3.10-3.13 (found by the
//! check differential): CPython stops at `1@,` on line 2 (`invalid syntax`), the emulation
//! names the missing comma on line 3. Needs a CPython 3.10+ (`TORCHCTS_PYTHON`, else
//! `python3`); without one the test says SKIPPED.

mod support;

use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;
use support::lsp_client::{file_uri, LspClient};

const TEXT: &str = "manifest = {\n    \"manifest_version\": 1@,\n    \"device_name\": \"auto\" \"x\" 5,\n}\n";
const CPYTHON: &str = "Failed to parse manifest: invalid syntax (manifest.py, line 2)";
const EMULATION: &str = "Failed to parse manifest: invalid syntax. Perhaps you forgot a comma? (manifest.py, line 3)";

fn python() -> Option<PathBuf> {
    let python = std::env::var_os("TORCHCTS_PYTHON").map(PathBuf::from).unwrap_or_else(|| "python3".into());
    // Resolved on PATH: the project's `python` is a path.
    let python = runner::environment::PythonEnvironment::of_python(&python).python;
    match torchcts_lsp::host::cpython::Worker::start(&python) {
        Ok(_) => Some(python),
        Err(e) => {
            println!("SKIPPED: no CPython 3.10+ to ask ({e})");
            None
        }
    }
}

/// An empty scratch folder, removed when dropped (a failed test included).
fn scratch(name: &str) -> support::TempDir {
    support::TempDir::fresh(&format!("torchcts-lsp-cpython-{name}"))
}

fn syntax_messages(published: &Value) -> Vec<String> {
    published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "syntax-error" && d["source"] == "torchcts")
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect()
}

fn session(python: &std::path::Path, options: Value) -> LspClient {
    let mut client = LspClient::spawn();
    let mut options = options;
    options["python"] = json!(python.to_string_lossy());
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": {}, "initializationOptions": options}),
    );
    client.notify("initialized", json!({}));
    client
}

#[test]
fn the_server_publishes_the_emulation_then_cpythons_verdict() {
    let Some(python) = python() else { return };
    let dir = scratch("server");
    let manifest = dir.join("manifest.py");
    std::fs::write(&manifest, TEXT).unwrap();
    let uri = file_uri(&manifest);

    let mut client = session(&python, json!({}));
    client.open(&uri, TEXT, 1);
    let first = client.diagnostics(&uri, Some(1));
    assert_eq!(syntax_messages(&first), vec![EMULATION], "the first answer is the emulation's");
    // Then CPython's (the inventory's loading may publish the emulation's once more first).
    let mut exact = client.diagnostics(&uri, Some(1));
    for _ in 0..3 {
        if syntax_messages(&exact) == vec![CPYTHON] {
            break;
        }
        exact = client.diagnostics(&uri, Some(1));
    }
    assert_eq!(syntax_messages(&exact), vec![CPYTHON], "then CPython's");
    // The range follows CPython's line (0-based 1).
    let range =
        &exact["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "syntax-error").unwrap()["range"];
    assert_eq!(range["start"]["line"], 1);
    // An edit elsewhere that keeps the error: the emulation again, then CPython again.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": format!("# x\n{TEXT}")}]}),
    );
    let moved = |line: usize| CPYTHON.replace("line 2", &format!("line {line}"));
    let mut last = Vec::new();
    for _ in 0..3 {
        last = syntax_messages(&client.diagnostics(&uri, Some(2)));
        if last == vec![moved(3)] {
            break;
        }
    }
    assert_eq!(last, vec![moved(3)]);
    client.shutdown();

    // Turned off: the emulation's, however often it is published again (the inventory
    // loading publishes once more), and the log says so once.
    let mut client = session(&python, json!({"cpythonCompile": false}));
    client.open(&uri, TEXT, 1);
    assert_eq!(syntax_messages(&client.diagnostics(&uri, Some(1))), vec![EMULATION]);
    let later = client.drain_for(Duration::from_millis(1500));
    for m in later.iter().filter(|m| m["method"] == "textDocument/publishDiagnostics") {
        assert_eq!(syntax_messages(&m["params"]), vec![EMULATION]);
    }
    client.shutdown();
}

#[test]
fn the_cli_asks_one_cpython_and_says_when_it_could_not() {
    let Some(python) = python() else { return };
    let dir = scratch("cli");
    let manifest = dir.join("manifest.py");
    std::fs::write(&manifest, TEXT).unwrap();
    std::fs::write(dir.join("pyproject.toml"), format!("[tool.torchcts-lsp]\npython = {:?}\n", python)).unwrap();
    let check = |env: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"));
        command.args(["check", "--check-manifest-only", "manifest.py"]).current_dir(&dir);
        for (k, v) in env {
            command.env(k, v);
        }
        let output = command.output().unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let (code, stderr) = check(&[]);
    assert_eq!((code, stderr.lines().collect::<Vec<_>>()), (Some(1), vec![CPYTHON]));
    let (code, stderr) = check(&[("TORCHCTS_LSP_NO_CPYTHON", "1")]);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!((code, lines[0]), (Some(1), EMULATION));
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[1].starts_with("Note: the syntax error above is torchcts-lsp's emulation"), "{stderr}");
    // The project turns it off too.
    std::fs::write(
        dir.join("pyproject.toml"),
        format!("[tool.torchcts-lsp]\npython = {:?}\ncpython-compile = false\n", python),
    )
    .unwrap();
    let (_, stderr) = check(&[]);
    assert!(stderr.starts_with(EMULATION), "{stderr}");
}

/// A manifest that imports `orch` beside a venv (isolated, torch and torchcts, its Python a
/// link to the CPython found) whose folders the server lists and keeps: `orch`, installed
/// or removed while the server runs, is in the kept listing or not until a new listing
/// (site-packages' modification time changed) or CPython's `find_spec` on the venv's folders
/// says otherwise.
const IMPORTS_ORCH: &str = "import orch\nimport torch\n\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {torch.float32: True},\n    \"semantic_level\": 2,\n    \"capabilities\": {\"inference\": True},\n}\n";
const NO_ORCH: &str = "Failed to parse manifest: No module named 'orch'";

/// The project: `manifest.py` (importing `orch`), `.venv` (its `bin/python` a link to
/// `python`'s real interpreter, `pyvenv.cfg` naming its home and version, torch 2.12.1 and
/// torchcts 0.4.1 in site-packages), `pyproject.toml` choosing it. Returns the folder and
/// the site-packages.
fn venv_project(name: &str, python: &std::path::Path) -> (support::TempDir, PathBuf) {
    let dir = scratch(name);
    let about = Command::new(python)
        .args([
            "-I",
            "-c",
            "import os, sys; print(os.path.realpath(sys.executable)); print('%d.%d.%d' % sys.version_info[:3])",
        ])
        .output()
        .unwrap();
    let about = String::from_utf8(about.stdout).unwrap();
    let (real, version) = about.trim().split_once('\n').unwrap();
    let minor: Vec<&str> = version.split('.').collect();
    let venv = dir.join(".venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::os::unix::fs::symlink(real, venv.join("bin/python")).unwrap();
    let home = std::path::Path::new(real).parent().unwrap().display().to_string();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        format!("home = {home}\ninclude-system-site-packages = false\nversion = {version}\n"),
    )
    .unwrap();
    let site = venv.join(format!("lib/python{}.{}/site-packages", minor[0], minor[1]));
    for (package, version) in [("torch", "2.12.1"), ("torchcts", "0.4.1")] {
        support::install_package(&site, package, version);
    }
    std::fs::write(dir.join("pyproject.toml"), "[tool.torchcts-lsp]\npython = \".venv/bin/python\"\n").unwrap();
    std::fs::write(dir.join("manifest.py"), IMPORTS_ORCH).unwrap();
    (dir, site)
}

/// A finding as the server and `check --format json` both say it: code, 1-based line,
/// message.
type Said = std::collections::BTreeSet<(String, u64, String)>;

fn said_in_diagnostics(diagnostics: &Value) -> Said {
    let said = |d: &Value| {
        let line = d["range"]["start"]["line"].as_u64().unwrap() + 1;
        (d["code"].as_str().unwrap_or_default().to_string(), line, d["message"].as_str().unwrap().to_string())
    };
    diagnostics.as_array().unwrap().iter().map(said).collect()
}

/// `check --format json manifest.py` in `dir`: what it says, and its report.
fn cli_said(dir: &std::path::Path) -> (Said, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .current_dir(dir)
        .env_remove("VIRTUAL_ENV")
        .env_remove("TORCHCTS_LSP_PYTHON")
        .env_remove("TORCHCTS_LSP_NO_CPYTHON")
        .args(["check", "--format", "json", "manifest.py"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {output:?}"));
    let said = |f: &Value| {
        let line = f["range"]["start"]["line"].as_u64().unwrap();
        (f["code"].as_str().unwrap_or_default().to_string(), line, f["message"].as_str().unwrap().to_string())
    };
    (report["findings"].as_array().unwrap().iter().map(said).collect(), report)
}

/// The server on the project in `dir` (the editor's `options`, the process's `env`) with
/// its manifest open as version 1.
fn project_session(dir: &std::path::Path, options: Value, env: &[(&str, &str)]) -> (LspClient, String) {
    let mut client =
        LspClient::spawn_with_env(&[], &["VIRTUAL_ENV", "TORCHCTS_LSP_PYTHON", "TORCHCTS_LSP_NO_CPYTHON"], env);
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": file_uri(dir), "capabilities": {}, "initializationOptions": options}),
    );
    client.notify("initialized", json!({}));
    let uri = file_uri(&dir.join("manifest.py"));
    client.open(&uri, IMPORTS_ORCH, 1);
    (client, uri)
}

/// Every diagnostics the server publishes for `uri` at `version` until it has been quiet
/// for 2 s (the inventory's loading and CPython's answers republish).
fn published_until_quiet(client: &mut LspClient, uri: &str, version: i64) -> Vec<Value> {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut all = Vec::new();
    loop {
        let published: Vec<Value> = client
            .drain_for(Duration::from_secs(2))
            .into_iter()
            .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
            .map(|m| m["params"].clone())
            .collect();
        if published.is_empty() && all.iter().any(|p: &Value| p["version"] == version) {
            return all.into_iter().filter(|p: &Value| p["version"] == version).collect();
        }
        all.extend(published);
        assert!(std::time::Instant::now() < deadline, "no diagnostics for version {version}: {all:#?}");
    }
}

/// `orch` installed into the venv while the server runs, then an edit: the server's kept
/// listing still says it is missing, CPython's `find_spec` on the venv's folders (or the new
/// listing, whichever answers first) finds it, and the server's diagnostics end as `check`'s
/// for the same text. Before
/// the install, both say `No module named 'orch'` (and CPython's answer for that is kept:
/// the install, a new entry in site-packages, makes the server ask again).
#[test]
fn the_server_confirms_a_missing_module_with_find_spec_as_check_does() {
    let Some(python) = python() else { return };
    let (dir, site) = venv_project("find-spec", &python);
    let (mut client, uri) = project_session(&dir, json!({}), &[]);
    let before = published_until_quiet(&mut client, &uri, 1);
    let last = &before.last().unwrap()["diagnostics"];
    let (cli_before, report) = cli_said(&dir);
    assert!(cli_before.iter().any(|(_, _, m)| m == NO_ORCH), "{report}");
    assert_eq!(said_in_diagnostics(last), cli_before, "before the install");

    install_orch(&site);
    let edited = format!("# orch is installed now\n{IMPORTS_ORCH}");
    std::fs::write(dir.join("manifest.py"), &edited).unwrap();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]}),
    );
    let after = published_until_quiet(&mut client, &uri, 2);
    let (cli_after, report) = cli_said(&dir);
    assert!(!cli_after.iter().any(|(_, _, m)| m.contains("No module named")), "{report}");
    assert_eq!(said_in_diagnostics(&after.last().unwrap()["diagnostics"]), cli_after, "then check's answer");
    client.shutdown();
}

/// Without CPython (`cpythonCompile: false`, or `TORCHCTS_LSP_NO_CPYTHON`), the listing's
/// word stands: `orch`, installed after the server listed the venv with site-packages'
/// modification time put back (an install the listing's `stat` cannot see), stays missing.
/// The editor's setting turned on (VS Code, once the workspace is trusted): CPython is asked
/// at once, and the diagnostics end as `check`'s.
#[test]
fn without_cpython_the_listing_says_which_modules_are_missing() {
    let Some(python) = python() else { return };
    for (name, options, env) in [
        ("find-spec-off", json!({"cpythonCompile": false}), vec![]),
        ("find-spec-env", json!({}), vec![("TORCHCTS_LSP_NO_CPYTHON", "1")]),
    ] {
        let (dir, site) = venv_project(name, &python);
        let (mut client, uri) = project_session(&dir, options, &env);
        published_until_quiet(&mut client, &uri, 1);
        let listed_at = std::fs::metadata(&site).unwrap().modified().unwrap();
        install_orch(&site);
        std::fs::File::open(&site).unwrap().set_modified(listed_at).unwrap();
        let edited = format!("# orch is installed now\n{IMPORTS_ORCH}");
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]}),
        );
        for published in published_until_quiet(&mut client, &uri, 2) {
            let said = said_in_diagnostics(&published["diagnostics"]);
            assert!(said.iter().any(|(_, line, m)| m == NO_ORCH && *line == 2), "{name}: {said:?}");
        }
        if env.is_empty() {
            client.notify(
                "workspace/didChangeConfiguration",
                json!({"settings": {"torchcts": {"cpythonCompile": true}}}),
            );
            let published = published_until_quiet(&mut client, &uri, 2);
            std::fs::write(dir.join("manifest.py"), &edited).unwrap();
            let (cli, report) = cli_said(&dir);
            assert!(!cli.iter().any(|(_, _, m)| m.contains("No module named")), "{report}");
            assert_eq!(said_in_diagnostics(&published.last().unwrap()["diagnostics"]), cli, "{name}, turned on");
        }
        client.shutdown();
    }
}

fn install_orch(site: &std::path::Path) {
    std::fs::create_dir_all(site.join("orch")).unwrap();
    std::fs::write(site.join("orch/__init__.py"), "").unwrap();
}

/// The manifest edited to `text` on disk and in the server (as `version`): what the server
/// publishes for it until quiet.
fn edit(client: &mut LspClient, dir: &std::path::Path, uri: &str, text: &str, version: i64) -> Vec<Value> {
    std::fs::write(dir.join("manifest.py"), text).unwrap();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
    );
    published_until_quiet(client, uri, version)
}

/// `orch` uninstalled while the server runs (its folder removed from site-packages), then
/// an edit: the server's listing, made while `orch` was there, lapses with site-packages'
/// modification time, and the diagnostics end as `check`'s: `No module named 'orch'`. With
/// CPython off and on (on: the listing found `orch`, so `find_spec` was never asked; only
/// a new listing says it is gone).
#[test]
fn an_uninstall_while_the_server_runs_ends_as_check_says() {
    let Some(python) = python() else { return };
    for (name, options) in [("uninstall-off", json!({"cpythonCompile": false})), ("uninstall-on", json!({}))] {
        let (dir, site) = venv_project(name, &python);
        install_orch(&site);
        let (mut client, uri) = project_session(&dir, options, &[]);
        let before = published_until_quiet(&mut client, &uri, 1);
        let (cli_before, report) = cli_said(&dir);
        assert!(!cli_before.iter().any(|(_, _, m)| m.contains("No module named")), "{name}: {report}");
        assert_eq!(said_in_diagnostics(&before.last().unwrap()["diagnostics"]), cli_before, "{name}: installed");

        std::fs::remove_dir_all(site.join("orch")).unwrap();
        let after = edit(&mut client, &dir, &uri, &format!("# orch is gone now\n{IMPORTS_ORCH}"), 2);
        let (cli_after, report) = cli_said(&dir);
        assert!(cli_after.iter().any(|(_, _, m)| m == NO_ORCH), "{name}: {report}");
        assert_eq!(said_in_diagnostics(&after.last().unwrap()["diagnostics"]), cli_after, "{name}: uninstalled");
        client.shutdown();
    }
}

/// `orch` installed while the server runs with `cpythonCompile: false` (no `find_spec` to
/// confirm): the edit's analysis answers with the kept listing (`No module named 'orch'`:
/// no keystroke waits for a new listing), the new listing's analysis follows, and the
/// diagnostics end as `check`'s.
#[test]
fn an_install_without_cpython_ends_as_check_says() {
    let Some(python) = python() else { return };
    let (dir, site) = venv_project("install-off", &python);
    let (mut client, uri) = project_session(&dir, json!({"cpythonCompile": false}), &[]);
    let before = published_until_quiet(&mut client, &uri, 1);
    assert!(said_in_diagnostics(&before.last().unwrap()["diagnostics"]).iter().any(|(_, _, m)| m == NO_ORCH));

    install_orch(&site);
    let after = edit(&mut client, &dir, &uri, &format!("# orch is installed now\n{IMPORTS_ORCH}"), 2);
    let (cli_after, report) = cli_said(&dir);
    assert!(!cli_after.iter().any(|(_, _, m)| m.contains("No module named")), "{report}");
    // Each diagnostics published is the kept listing's or the new one's (the kept one's
    // is not published when the new listing comes before its analysis ends).
    for published in &after {
        let said = said_in_diagnostics(&published["diagnostics"]);
        assert!(said == cli_after || said.iter().any(|(_, _, m)| m == NO_ORCH), "{said:?}");
    }
    assert_eq!(said_in_diagnostics(&after.last().unwrap()["diagnostics"]), cli_after, "then check's answer");
    client.shutdown();
}

/// `from sys import exitcode`: the ImportError names where sys is (built in: no file),
/// which only the Python asked knows. The server first notes it cannot tell, then asks
/// its worker (`module_file`, nothing imported) and publishes the load error `check`
/// prints for the same text; `cpythonCompile: false` keeps the note.
#[test]
fn the_server_asks_cpython_for_the_file_a_from_import_error_names() {
    let Some(python) = python() else { return };
    const IMPORT: &str = "from sys import version_info, exitcode\nmanifest = {\"manifest_version\": 1}\n";
    const LOAD: &str = "Failed to parse manifest: cannot import name 'exitcode' from 'sys' (unknown location)";
    let dir = scratch("module-file");
    let manifest = dir.join("manifest.py");
    std::fs::write(&manifest, IMPORT).unwrap();
    let uri = file_uri(&manifest);
    let load_errors = |published: &Value| -> Vec<String> {
        let diagnostics = published["diagnostics"].as_array().unwrap().iter();
        diagnostics.filter(|d| d["code"] == "load-error").map(|d| d["message"].as_str().unwrap().to_string()).collect()
    };
    let mut client = session(&python, json!({}));
    client.open(&uri, IMPORT, 1);
    let first = client.diagnostics(&uri, Some(1));
    assert!(load_errors(&first).is_empty(), "first the note: {first}");
    let mut last = Vec::new();
    for _ in 0..4 {
        last = load_errors(&client.diagnostics(&uri, Some(1)));
        if !last.is_empty() {
            break;
        }
    }
    assert_eq!(last, vec![LOAD]);
    client.shutdown();
    let mut client = session(&python, json!({"cpythonCompile": false}));
    client.open(&uri, IMPORT, 1);
    assert!(load_errors(&client.diagnostics(&uri, Some(1))).is_empty());
    let later = client.drain_for(Duration::from_millis(1500));
    for m in later.iter().filter(|m| m["method"] == "textDocument/publishDiagnostics") {
        assert!(load_errors(&m["params"]).is_empty(), "{m}");
    }
    client.shutdown();
}
