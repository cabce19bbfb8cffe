//! Every `[tool.torchcts-lsp]` key x every command and the server (issue 31, "every setting,
//! every command"): one row per cell says what the key does there, and the test shows it,
//! black-box: the command run with the key and without it, on the same project.
//!
//! - [`Cell::Shows`]: the key changes what the command answers (the probe's answer with the
//!   key holds `expected`; without it, it does not).
//! - [`Cell::NotUsed`]: the command has nothing the key could change (the reason says why);
//!   its answer is the same with and without the key.
//!
//! Every key of the parser's own list (`project_config::KEYS`) must have one row per
//! command, so a new key without rows fails here; docs/configuration.md's table of where each
//! key applies is checked against the rows. A bad value of every key is refused by every
//! command, naming the file, line and key (exit 2), and by the server as a diagnostic on the
//! pyproject.toml at that line.

mod support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;
use support::lsp_client::{file_uri, vscode_capabilities, LspClient};
use torchcts_lsp::host::project_config::KEYS;

const COMMANDS: [&str; 8] = ["check", "analyze", "skips", "diff", "report", "run", "config", "server"];

/// No `semantic_level`, a duplicated key (an own `duplicate-key` finding), float32 claimed,
/// `sub` skipped.
const MANIFEST: &str = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {torch.float32: True},\n    \"capabilities\": {\"inference\": True},\n    \"skip_ops\": [\"sub\", \"div\"],\n    \"device_name\": \"cpu\",\n}\n";

/// What the cell of a key and a command shows.
#[derive(Clone, Copy)]
enum Cell {
    Shows { value: &'static str, probe: Probe, expected: &'static str },
    NotUsed(&'static str),
}

/// A probe runs the command on the fixture and answers with what the key may change.
type Probe = fn(&Path) -> String;

/// Also written (present with and without the key) for this command: a run (`run`, the
/// server's on-save run) needs a Python that can start.
fn context(command: &str, key: &str) -> &'static str {
    match (command, key) {
        ("run", "python") => "",
        ("run", _) | ("server", "on-save") => "python = \"venv/bin/python\"\n",
        _ => "",
    }
}

// One row a line: the table reads as the matrix it is.
#[rustfmt::skip]
fn cells() -> Vec<(&'static str, &'static str, Cell)> {
    use Cell::{NotUsed, Shows};
    const NO_COUNTS: &str = "check reports findings; nothing it reports is counted for a device or level";
    const EDITOR_ONLY: &str = "on-save runs are the editor's";
    // The verdict on a syntax error only (its message and line); the server's is tested in lsp_cpython.rs.
    const SYNTAX_ONLY: &str = "only a manifest with a syntax error is judged (check's cell; lsp_cpython.rs for the server)";
    const ONE_FILE: &str = "it takes the manifest files it is given, not folders";
    vec![
        ("device", "check", NotUsed(NO_COUNTS)),
        ("device", "analyze", Shows { value: "\"cuda\"", probe: |d| json_at(d, &["analyze", M], "/accounting/device/name"), expected: "cuda" }),
        ("device", "skips", Shows { value: "\"cuda\"", probe: |d| json_at(d, &["skips", M], "/device"), expected: "cuda" }),
        ("device", "diff", Shows { value: "\"cuda\"", probe: |d| json_at(d, &["diff", OLD, M], "/device"), expected: "cuda" }),
        ("device", "report", Shows { value: "\"cuda\"", probe: |d| json_at(d, &["report", M], "/device/name"), expected: "cuda" }),
        ("device", "run", Shows { value: "\"cuda\"", probe: |d| run_argv(d, &[]), expected: "--device=cuda" }),
        ("device", "config", Shows { value: "\"cuda\"", probe: |d| config_value(d, "device"), expected: "\"cuda\" from pyproject.toml:2" }),
        ("device", "server", Shows { value: "\"cuda\"", probe: |d| server_status(d, "device"), expected: "cuda" }),

        ("level", "check", NotUsed(NO_COUNTS)),
        ("level", "analyze", Shows { value: "2", probe: |d| json_at(d, &["analyze", M], "/accounting/selection"), expected: "requested <= 2" }),
        ("level", "skips", Shows { value: "2", probe: |d| json_at(d, &["skips", M], "/selection"), expected: "requested <= 2" }),
        ("level", "diff", Shows { value: "2", probe: |d| json_at(d, &["diff", OLD, M], "/new_selection"), expected: "requested <= 2" }),
        ("level", "report", Shows { value: "2", probe: |d| json_at(d, &["report", M], "/selection"), expected: "requested <= 2" }),
        ("level", "run", Shows { value: "2", probe: |d| run_argv(d, &[]), expected: "--level=2" }),
        ("level", "config", Shows { value: "2", probe: |d| config_value(d, "level"), expected: "2 from pyproject.toml:2" }),
        ("level", "server", Shows { value: "2", probe: |d| server_status(d, "level"), expected: "2" }),
        // The venv's torch is 2.9.1 and it can import `orch`'s absence: the counts and the
        // modules are the venv's with the key, python3's without.

        ("python", "check", Shows { value: PYTHON, probe: |d| stdout(&cli(d, &["check", "--format", "json", "m/imports/manifest.py"])), expected: "No module named 'orch'" }),
        ("python", "analyze", Shows { value: PYTHON, probe: |d| json_at(d, &["analyze", M], "/accounting/inventory/torch"), expected: "2.9.1" }),
        ("python", "skips", Shows { value: PYTHON, probe: |d| json_at(d, &["skips", M], "/inventory/torch"), expected: "2.9.1" }),
        ("python", "diff", Shows { value: PYTHON, probe: |d| json_at(d, &["diff", OLD, M], "/inventory/torch"), expected: "2.9.1" }),
        ("python", "report", Shows { value: PYTHON, probe: |d| json_at(d, &["report", M], "/inventory/torch"), expected: "2.9.1" }),
        ("python", "run", Shows { value: PYTHON, probe: |d| run_argv(d, &[]), expected: "venv/bin/python -m torchcts run" }),
        ("python", "config", Shows { value: PYTHON, probe: |d| config_value(d, "python"), expected: "venv/bin/python\" from pyproject.toml:2" }),
        ("python", "server", Shows { value: PYTHON, probe: |d| server_status(d, "countsFor"), expected: "with torch 2.9.1" }),

        ("manifests", "check", Shows { value: GLOBS, probe: |d| stdout(&cli(d, &["check", "--format", "json", "."])), expected: "extra/x.py" }),
        ("manifests", "analyze", Shows { value: GLOBS, probe: |d| stdout(&cli(d, &["analyze", "."])), expected: "== extra/x.py" }),
        ("manifests", "skips", Shows { value: GLOBS, probe: |d| stdout(&cli(d, &["skips", "."])), expected: "== extra/x.py" }),
        ("manifests", "diff", NotUsed(ONE_FILE)),
        ("manifests", "report", Shows { value: GLOBS, probe: |d| stdout(&cli(d, &["report", "--format", "json", "."])), expected: "extra/x.py" }),
        ("manifests", "run", NotUsed(ONE_FILE)),
        ("manifests", "config", Shows { value: GLOBS, probe: |d| config_value(d, "manifests"), expected: "[\"extra/*.py\"] from pyproject.toml:2" }),
        ("manifests", "server", Shows { value: GLOBS, probe: server_extra_diagnostics, expected: "duplicate-key" }),
        // `ci/` holds a run where the float32 entry's `add` test failed.

        ("results", "check", Shows { value: RESULTS, probe: |d| stdout(&cli(d, &["check", "--format", "json", M])), expected: "run-evidence" }),
        ("results", "analyze", Shows { value: RESULTS, probe: |d| json_at(d, &["analyze", M], "/evidence/runs"), expected: "1" }),
        ("results", "skips", NotUsed("skips counts what the manifest selects; run results are not counted")),
        ("results", "diff", NotUsed("diff compares two manifests; run results are not compared")),
        ("results", "report", Shows { value: RESULTS, probe: |d| json_at(d, &["report", M], "/evidence/tests/failed"), expected: "1" }),
        ("results", "run", Shows { value: RESULTS, probe: |d| run_argv(d, &["--failed"]), expected: "clean-add-torch.float32" }),
        ("results", "config", Shows { value: RESULTS, probe: |d| config_value(d, "results"), expected: "ci\"] from pyproject.toml:2" }),
        ("results", "server", Shows { value: RESULTS, probe: server_manifest_diagnostics, expected: "run-evidence" }),
        // An inventory file that is not the embedded one: its torch says `+cu130`.

        // A file that is no inventory: check says so, and takes its hints from the embedded one.
        ("inventory", "check", Shows { value: "\"not-an-inventory.json\"", probe: |d| stderr(&cli(d, &["check", M])), expected: "pyproject.toml:2: [tool.torchcts-lsp] inventory: cannot load inventory" }),
        ("inventory", "analyze", Shows { value: INVENTORY, probe: |d| json_at(d, &["analyze", M], "/accounting/inventory/torch"), expected: "2.12.1+cu130" }),
        ("inventory", "skips", Shows { value: INVENTORY, probe: |d| json_at(d, &["skips", M], "/inventory/torch"), expected: "2.12.1+cu130" }),
        ("inventory", "diff", Shows { value: INVENTORY, probe: |d| json_at(d, &["diff", OLD, M], "/inventory/torch"), expected: "2.12.1+cu130" }),
        ("inventory", "report", Shows { value: INVENTORY, probe: |d| json_at(d, &["report", M], "/inventory/torch"), expected: "2.12.1+cu130" }),
        // `run --against` counts with it: a file that is no inventory stops it, naming the line.
        ("inventory", "run", Shows { value: "\"not-an-inventory.json\"", probe: |d| stderr(&cli(d, &["run", "--against", "HEAD", M])), expected: "pyproject.toml:2: [tool.torchcts-lsp] inventory: cannot load inventory" }),
        ("inventory", "config", Shows { value: INVENTORY, probe: |d| config_value(d, "inventory"), expected: "inv.json.gz\" from pyproject.toml:2" }),
        ("inventory", "server", Shows { value: INVENTORY, probe: |d| server_status(d, "countsFor"), expected: "with torch 2.12.1+cu130" }),
        // `run --against HEAD` starts the float32 tests: 2,788 with the venv's torch 2.9.1,
        // 2,784 with 2.7.0, and 2,784 with torchcts 0.4.0's suite for torch 2.9.1
        // (`diff --torch`/`--torchcts` count the same).

        // check's hints: `hash_tensor` is an operator of torch 2.12.1's suite, not 2.7.0's.
        ("torch", "check", Shows { value: "\"2.7.0\"", probe: |d| has(&stdout(&cli(d, &["check", "--format", "json", "m/hash/manifest.py"])), "unknown-operator"), expected: "with unknown-operator" }),
        ("torch", "analyze", Shows { value: "\"2.7.0\"", probe: |d| json_at(d, &["analyze", M], "/accounting/inventory/torch"), expected: "2.7.0" }),
        ("torch", "skips", Shows { value: "\"2.7.0\"", probe: |d| json_at(d, &["skips", M], "/inventory/torch"), expected: "2.7.0" }),
        ("torch", "diff", Shows { value: "\"2.7.0\"", probe: |d| json_at(d, &["diff", OLD, M], "/inventory/torch"), expected: "2.7.0" }),
        ("torch", "report", Shows { value: "\"2.7.0\"", probe: |d| json_at(d, &["report", M], "/inventory/torch"), expected: "2.7.0" }),
        ("torch", "run", Shows { value: "\"2.7.0\"", probe: run_against_nodes, expected: "2784 tests" }),
        ("torch", "config", Shows { value: "\"2.7.0\"", probe: |d| config_value(d, "torch"), expected: "\"2.7.0\" from pyproject.toml:2" }),
        ("torch", "server", Shows { value: "\"2.7.0\"", probe: |d| server_status(d, "countsFor"), expected: "with torch 2.7.0" }),

        // check's hints: `aten::flip` is an operator of torchcts 0.4.1's suite, not 0.4.0's.
        ("torchcts", "check", Shows { value: "\"0.4.0\"", probe: |d| has(&stdout(&cli(d, &["check", "--format", "json", "m/hash/manifest.py"])), "unknown-operator"), expected: "with unknown-operator" }),
        ("torchcts", "analyze", Shows { value: "\"0.4.0\"", probe: |d| json_at(d, &["analyze", M], "/accounting/inventory/torchcts"), expected: "0.4.0" }),
        ("torchcts", "skips", Shows { value: "\"0.4.0\"", probe: |d| json_at(d, &["skips", M], "/inventory/torchcts"), expected: "0.4.0" }),
        ("torchcts", "diff", Shows { value: "\"0.4.0\"", probe: |d| json_at(d, &["diff", OLD, M], "/inventory/torchcts"), expected: "0.4.0" }),
        ("torchcts", "report", Shows { value: "\"0.4.0\"", probe: |d| json_at(d, &["report", M], "/inventory/torchcts"), expected: "0.4.0" }),
        ("torchcts", "run", Shows { value: "\"0.4.0\"", probe: run_against_nodes, expected: "2784 tests" }),
        ("torchcts", "config", Shows { value: "\"0.4.0\"", probe: |d| config_value(d, "torchcts"), expected: "\"0.4.0\" from pyproject.toml:2" }),
        ("torchcts", "server", Shows { value: "\"0.4.0\"", probe: |d| server_status(d, "countsFor"), expected: "torchcts 0.4.0 with" }),

        ("on-save", "check", NotUsed(EDITOR_ONLY)),
        ("on-save", "analyze", NotUsed(EDITOR_ONLY)),
        ("on-save", "skips", NotUsed(EDITOR_ONLY)),
        ("on-save", "diff", NotUsed(EDITOR_ONLY)),
        ("on-save", "report", NotUsed(EDITOR_ONLY)),
        ("on-save", "run", NotUsed(EDITOR_ONLY)),
        ("on-save", "config", Shows { value: "\"level\"", probe: |d| config_value(d, "on-save"), expected: "\"level\" from pyproject.toml:2" }),
        ("on-save", "server", Shows { value: "\"level\"", probe: server_save, expected: "level 3" }),

        // A syntax error: without the key the system's CPython judges it; with it the emulation does, and check says so.
        ("cpython-compile", "check", Shows { value: "false", probe: |d| stderr(&cli(d, &["check", "broken.py"])), expected: "torchcts-lsp's emulation" }),
        ("cpython-compile", "analyze", NotUsed(SYNTAX_ONLY)),
        ("cpython-compile", "skips", NotUsed(SYNTAX_ONLY)),
        ("cpython-compile", "diff", NotUsed(SYNTAX_ONLY)),
        ("cpython-compile", "report", NotUsed(SYNTAX_ONLY)),
        ("cpython-compile", "run", NotUsed(SYNTAX_ONLY)),
        ("cpython-compile", "config", Shows { value: "false", probe: |d| config_value(d, "cpython-compile"), expected: "false from pyproject.toml:2" }),
        ("cpython-compile", "server", NotUsed(SYNTAX_ONLY)),

        ("ignore", "check", Shows { value: IGNORE, probe: |d| has(&stdout(&cli(d, &["check", "--format", "json", M])), "duplicate-key"), expected: "without duplicate-key" }),
        ("ignore", "analyze", Shows { value: IGNORE, probe: |d| has(&stdout(&cli(d, &["analyze", "--format", "json", M])), "duplicate-key"), expected: "without duplicate-key" }),
        ("ignore", "skips", NotUsed("skips reports counts, no findings")),
        ("ignore", "diff", NotUsed("diff reports counts, no findings")),
        ("ignore", "report", NotUsed("the support record reports counts and evidence, no findings")),
        ("ignore", "run", NotUsed("run reports test outcomes, no findings")),
        ("ignore", "config", Shows { value: IGNORE, probe: |d| config_value(d, "ignore"), expected: "[\"duplicate-key\"] from pyproject.toml:2" }),
        ("ignore", "server", Shows { value: IGNORE, probe: |d| has(&server_manifest_diagnostics(d), "duplicate-key"), expected: "without duplicate-key" }),
    ]
}

const M: &str = "m/manifest.py";
const OLD: &str = "m/old.py";
const PYTHON: &str = "\"venv/bin/python\"";
const GLOBS: &str = "[\"extra/*.py\"]";
const RESULTS: &str = "[\"ci\"]";
const INVENTORY: &str = "\"inv.json.gz\"";
const IGNORE: &str = "[\"duplicate-key\"]";

/// A bad value of each key, and what the refusal says after `KEY: `.
const BAD: [(&str, &str, &str); 11] = [
    ("device", "device = 3", "must be a device name such as \"cuda\", not the integer 3"),
    ("level", "level = \"2\"", "must be an integer from 1 to 8, not the string \"2\": write `level = 2` (no quotes)"),
    ("python", "python = \"\"", "must be a path, not empty"),
    ("manifests", "manifests = \"extra/*.py\"", "must be a list of glob patterns"),
    ("results", "results = \"ci\"", "must be a list of folders"),
    ("inventory", "inventory = \"tools/inventory.bin\"", "tools/inventory.bin does not exist"),
    ("torch", "torch = \"1.0\"", "no inventory of torchcts 0.4.1 with torch 1.0 is embedded"),
    ("torchcts", "torchcts = \"9.9\"", "no inventory of torchcts 9.9 is embedded"),
    ("on-save", "on-save = \"always\"", "must be one of \"off\", \"affected\", \"level\", not \"always\""),
    (
        "ignore",
        "ignore = [\"unknwon-operator\"]",
        "unknown finding code `unknwon-operator`: did you mean `unknown-operator`?",
    ),
    ("cpython-compile", "cpython-compile = \"no\"", "must be true or false, not the string \"no\""),
];

#[test]
fn every_key_has_one_row_per_command_and_the_docs_say_the_same() {
    let keys: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
    let expected: BTreeSet<(&str, &str)> = keys.iter().flat_map(|k| COMMANDS.iter().map(move |c| (*k, *c))).collect();
    let rows = cells();
    let got: BTreeSet<(&str, &str)> = rows.iter().map(|(k, c, _)| (*k, *c)).collect();
    assert_eq!(got.len(), rows.len(), "a key and command with two rows");
    assert_eq!(got, expected, "the rows are not every key of project_config::KEYS x every command");
    let bad: BTreeSet<&str> = BAD.iter().map(|(k, _, _)| *k).collect();
    assert_eq!(bad, keys.iter().copied().collect(), "a key without a bad value in BAD");

    // docs/configuration.md: `| `key` | ✓ | — | ... |` in COMMANDS' order.
    let docs = std::fs::read_to_string(support::repo_root().join("docs/configuration.md")).unwrap();
    for key in &keys {
        let line = docs
            .lines()
            .find(|l| l.starts_with(&format!("| `{key}` | ")) && (l.contains('✓') || l.contains('—')))
            .unwrap_or_else(|| {
                panic!("docs/configuration.md: no row for `{key}` in the table of where each key applies")
            });
        let marks: Vec<&str> = line.split('|').map(str::trim).filter(|c| *c == "✓" || *c == "—").collect();
        let rows_say: Vec<&str> = COMMANDS
            .iter()
            .map(|c| match rows.iter().find(|(k, cc, _)| k == key && cc == c).unwrap().2 {
                Cell::Shows { .. } => "✓",
                Cell::NotUsed(_) => "—",
            })
            .collect();
        assert_eq!(marks, rows_say, "docs/configuration.md's row for `{key}` (commands {COMMANDS:?})");
    }
}

#[test]
fn every_key_is_honoured_by_every_command_that_uses_it() {
    let dir = fixture("honoured");
    let mut failures = Vec::new();
    // SETTINGS_MATRIX_ONLY=KEY:COMMAND runs one cell (when looking into one).
    let only = std::env::var("SETTINGS_MATRIX_ONLY").ok();
    for (key, command, cell) in cells() {
        if only.as_ref().is_some_and(|o| *o != format!("{key}:{command}")) {
            continue;
        }
        let context = context(command, key);
        let without = format!("[tool.torchcts-lsp]\n{context}");
        match cell {
            Cell::Shows { value, probe, expected } => {
                write_pyproject(&dir, &format!("[tool.torchcts-lsp]\n{key} = {value}\n{context}"));
                let with = probe(&dir);
                write_pyproject(&dir, &without);
                let plain = probe(&dir);
                if !with.contains(expected) || plain.contains(expected) {
                    failures.push(format!(
                        "{key} x {command}: expected {expected:?} with the key, not without\n  with: {}\n  without: {}",
                        short(&with),
                        short(&plain)
                    ));
                }
            }
            Cell::NotUsed(why) => {
                let probe = default_probe(command);
                write_pyproject(&dir, &format!("[tool.torchcts-lsp]\n{key} = {}\n{context}", any_value(key)));
                let with = probe(&dir);
                write_pyproject(&dir, &without);
                let plain = probe(&dir);
                if with != plain {
                    failures.push(format!(
                        "{key} x {command}: said to be unused ({why}), but the answer changed\n  with: {}\n  without: {}",
                        short(&with),
                        short(&plain)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} cells failed:\n{}", failures.len(), failures.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_value_of_every_key_is_refused_by_every_command_naming_the_file_and_line() {
    let dir = fixture("refused");
    let invocations: [&[&str]; 7] = [
        &["check", M],
        &["analyze", M],
        &["skips", M],
        &["diff", OLD, M],
        &["report", "--format", "json", M],
        &["run", M],
        &["config", M],
    ];
    let mut failures = Vec::new();
    for (key, line, message) in BAD {
        write_pyproject(&dir, &format!("[tool.torchcts-lsp]\n# the team's settings\n{line}\n"));
        let expected = format!("pyproject.toml:3: [tool.torchcts-lsp] {key}: ");
        for args in invocations {
            let o = cli(&dir, args);
            let err = stderr(&o);
            let command = args[0];
            if o.status.code() != Some(2)
                || !err.contains(&format!("torchcts-lsp {command}: "))
                || !err.contains(&expected)
                || !err.contains(message)
            {
                failures.push(format!("{key} x {command}: exit {:?}, stderr {err}", o.status.code()));
            }
        }
    }
    // The server: a diagnostic on the pyproject.toml, on the value's line, naming the key.
    // A manifest open: its configuration is what the server reads.
    let mut client = server(&dir);
    client.open(&file_uri(&dir.join(M)), MANIFEST, 1);
    let pyproject = file_uri(&dir.join("pyproject.toml"));
    for (key, line, message) in BAD {
        write_pyproject(&dir, &format!("[tool.torchcts-lsp]\n# the team's settings\n{line}\n"));
        client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": pyproject, "type": 2}]}));
        let published = client.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == pyproject.as_str()
                && m["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|all| all.iter().any(|d| d["message"].as_str().is_some_and(|t| t.contains(message))))
        });
        let diagnostic = &published["params"]["diagnostics"][0];
        if diagnostic["range"]["start"]["line"] != 2 || !diagnostic["message"].as_str().unwrap_or("").contains(key) {
            failures.push(format!("{key} x server: {diagnostic}"));
        }
    }
    client.shutdown();
    assert!(failures.is_empty(), "{} refusals failed:\n{}", failures.len(), failures.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a command answers when a key is not used by it: its whole output on the manifest.
fn default_probe(command: &str) -> Probe {
    match command {
        "check" => |d| out_and_err(&cli(d, &["check", "--format", "json", M])),
        "analyze" => |d| out_and_err(&cli(d, &["analyze", "--format", "json", M])),
        "skips" => |d| out_and_err(&cli(d, &["skips", "--format", "json", M])),
        "diff" => |d| out_and_err(&cli(d, &["diff", "--format", "json", OLD, M])),
        "report" => |d| out_and_err(&cli(d, &["report", "--format", "json", M])),
        "run" => |d| run_argv(d, &[]),
        "server" => server_manifest_diagnostics,
        other => panic!("no default probe for {other}: every key is used there"),
    }
}

/// A good value of `key`, for the cells that say it is not used.
fn any_value(key: &str) -> &'static str {
    match key {
        "device" => "\"cuda\"",
        "level" => "2",
        "python" => PYTHON,
        "manifests" => GLOBS,
        "results" => RESULTS,
        "inventory" => INVENTORY,
        "torch" => "\"2.7.0\"",
        "torchcts" => "\"0.4.0\"",
        "on-save" => "\"level\"",
        "ignore" => IGNORE,
        "cpython-compile" => "false",
        other => panic!("no value for {other}: add one"),
    }
}

/// The project: `m/manifest.py` (committed without dtypes, so `--against HEAD` starts the
/// float32 tests), `m/old.py` (without `sub` skipped), `m/imports/manifest.py` (imports `orch`),
/// `extra/x.py` (a manifest only by the `manifests` globs), `ci/` (a run's history),
/// `venv/` (torch 2.9.1, torchcts 0.4.1, an isolated site-packages, a `python` that answers
/// the runner's probe and runs nothing), `inv.json.gz` (an inventory file).
fn fixture(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("torchcts-settings-matrix-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // `m/imports/`: a module beside a manifest is importable, so `orch`'s manifest has a folder of its own.
    for folder in ["m/imports", "m/hash", "extra", "ci/cpu_vm_23gb_history", "venv/bin"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    let dir = dir.canonicalize().unwrap();
    let without_dtypes = MANIFEST.replace("{torch.float32: True}", "{}");
    std::fs::write(dir.join(M), &without_dtypes).unwrap();
    support::git(&dir, &["init", "-q"]);
    support::git(&dir, &["add", M]);
    support::git(&dir, &["commit", "-q", "-m", "old"]);
    write_before_the_runs(&dir.join(M), MANIFEST);
    std::fs::write(dir.join(OLD), MANIFEST.replace("[\"sub\", \"div\"]", "[\"div\"]")).unwrap();
    std::fs::write(dir.join("m/imports/manifest.py"), format!("import orch\n{MANIFEST}")).unwrap();
    std::fs::write(dir.join("extra/x.py"), MANIFEST).unwrap();
    // Operators of the newest suite only: `hash_tensor` (not torch 2.7.0's), `aten::flip`
    // (not torchcts 0.4.0's).
    let newest_only = MANIFEST.replace("\"div\"]", "\"hash_tensor\", \"aten::flip\"]");
    std::fs::write(dir.join("m/hash/manifest.py"), newest_only).unwrap();
    std::fs::write(dir.join("broken.py"), "manifest = {\n    \"device_name\": \"cpu\"\n    \"x\": 1,\n}\n").unwrap();
    support::copy_file(
        &support::run_artifacts().join("derived/failing.json"),
        &dir.join("ci/cpu_vm_23gb_history/2026-12-01T09-00-00Z.json"),
    );
    support::copy_file(
        &support::repo_root().join("tools/inventory/out/inventory-base.json.gz"),
        &dir.join("inv.json.gz"),
    );
    std::fs::write(dir.join("not-an-inventory.json"), "{}").unwrap();
    let site = dir.join("venv/lib/python3.11/site-packages");
    std::fs::write(dir.join("venv/pyvenv.cfg"), "home = /usr/bin\ninclude-system-site-packages = false\n").unwrap();
    for (package, version) in [("torch", "2.9.1"), ("torchcts", "0.4.1")] {
        std::fs::create_dir_all(site.join(package)).unwrap();
        let info = site.join(format!("{package}-{version}.dist-info"));
        std::fs::create_dir_all(&info).unwrap();
        std::fs::write(info.join("METADATA"), format!("Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"))
            .unwrap();
    }
    let python = dir.join("venv/bin/python");
    std::fs::write(
        &python,
        format!(
            "#!/bin/sh\necho '{{\"package_dir\": \"{}\", \"cwd\": \"'\"$PWD\"'\"}}'\n",
            site.join("torchcts").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Writes the manifest as last changed on 2026-11-01, before the run in `ci/`.
fn write_before_the_runs(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let before = std::time::UNIX_EPOCH + Duration::from_secs(1_793_491_200);
    std::fs::File::options().write(true).open(path).unwrap().set_modified(before).unwrap();
}

fn write_pyproject(dir: &Path, text: &str) {
    std::fs::write(dir.join("pyproject.toml"), text).unwrap();
}

/// `torchcts-lsp ARGS` in `dir`, as a user with no virtual environment active.
fn cli(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(args)
        .current_dir(dir)
        .env_remove("VIRTUAL_ENV")
        .env_remove("TORCHCTS_LSP_PYTHON")
        .env_remove("PYTHONPATH")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn out_and_err(o: &Output) -> String {
    format!("exit {:?}\n{}\n{}", o.status.code(), stdout(o), stderr(o))
}

fn has(text: &str, what: &str) -> String {
    format!("{} {what}", if text.contains(what) { "with" } else { "without" })
}

fn short(text: &str) -> String {
    text.chars().take(400).collect()
}

/// `COMMAND --format json ARGS`'s value at `pointer` (or its error).
fn json_at(dir: &Path, args: &[&str], pointer: &str) -> String {
    let mut full = vec![args[0], "--format", "json"];
    full.extend(&args[1..]);
    let o = cli(dir, &full);
    match serde_json::from_slice::<Value>(&o.stdout) {
        Ok(v) => v.pointer(pointer).map(|x| x.to_string()).unwrap_or_else(|| format!("(no {pointer})")),
        Err(_) => format!("(no JSON; exit {:?}: {})", o.status.code(), stderr(&o).lines().next().unwrap_or_default()),
    }
}

/// `config --format json`'s value of `key` and where it comes from.
fn config_value(dir: &Path, key: &str) -> String {
    let o = cli(dir, &["config", "--format", "json", M]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", out_and_err(&o)));
    let setting = &v["settings"][key];
    let from = setting["from"].as_str().unwrap_or_default().replace(&format!("{}/", dir.display()), "");
    format!("{} from {from}", setting["value"])
}

/// The command line of `run --format json ARGS` (its status when it could not start).
fn run_argv(dir: &Path, args: &[&str]) -> String {
    let mut full = vec!["run", "--format", "json"];
    full.extend(args);
    full.push(M);
    let o = cli(dir, &full);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", out_and_err(&o)));
    let argv: Vec<String> = v["argv"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
    format!("{} ({})", argv.join(" "), v["status"])
}

/// How many tests `run --against HEAD` runs.
fn run_against_nodes(dir: &Path) -> String {
    let o = cli(dir, &["run", "--format", "json", "--against", "HEAD", M]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", out_and_err(&o)));
    let nodes = v["argv"].as_array().unwrap().iter().filter(|a| a.as_str().unwrap().contains("::")).count();
    format!("{nodes} tests ({})", v["status"])
}

/// A server on `dir`, as VS Code starts it (no settings of its own).
fn server(dir: &Path) -> LspClient {
    let mut client = LspClient::spawn_with(&[], &["VIRTUAL_ENV", "TORCHCTS_LSP_PYTHON", "PYTHONPATH"]);
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": file_uri(dir), "capabilities": vscode_capabilities()}),
    );
    client.notify("initialized", json!({}));
    client
}

/// The `torchcts/status` field of the manifest once opened.
fn server_status(dir: &Path, field: &str) -> String {
    let mut client = server(dir);
    let uri = file_uri(&dir.join(M));
    client.open(&uri, MANIFEST, 1);
    let status = client.wait_for(|m| m["method"] == "torchcts/status" && m["params"]["uri"] == uri.as_str());
    client.shutdown();
    status["params"][field].to_string()
}

/// The codes of the last diagnostics published for `path` within a few seconds of opening it
/// (the evidence comes after the first analysis).
fn server_diagnostics(dir: &Path, path: &str) -> String {
    let mut client = server(dir);
    let uri = file_uri(&dir.join(path));
    client.open(&uri, MANIFEST, 1);
    let messages = client.drain_for(Duration::from_secs(4));
    client.shutdown();
    let last = messages
        .iter()
        .rev()
        .find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str());
    match last {
        Some(m) => {
            let codes: Vec<String> =
                m["params"]["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].to_string()).collect();
            format!("codes {}", codes.join(", "))
        }
        None => "no diagnostics published".to_string(),
    }
}

fn server_manifest_diagnostics(dir: &Path) -> String {
    server_diagnostics(dir, M)
}

fn server_extra_diagnostics(dir: &Path) -> String {
    server_diagnostics(dir, "extra/x.py")
}

/// What a save of the manifest starts: the run's closing message, or none within 10 s.
fn server_save(dir: &Path) -> String {
    let mut client = server(dir);
    let uri = file_uri(&dir.join(M));
    client.open(&uri, MANIFEST, 1);
    client.wait_for(|m| m["method"] == "torchcts/status");
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut said = None;
    while said.is_none() && std::time::Instant::now() < deadline {
        said = client
            .drain_for(Duration::from_millis(250))
            .into_iter()
            .filter(|m| m["method"] == "window/showMessage")
            .filter_map(|m| m["params"]["message"].as_str().map(str::to_string))
            .find(|m| m.contains("run of"));
    }
    client.shutdown();
    said.unwrap_or_else(|| "no run".to_string())
}

/// The level of a manifest without `semantic_level` is decided once, in the same order
/// everywhere (the manifest's, the project's `level`, the editor's `defaultLevel`, 3): the
/// status, the code lens, the "Run level" action and an on-save `level` run all say it.
#[test]
fn the_level_is_decided_once_for_status_lens_run_action_and_save() {
    let dir = fixture("level");
    let uri = file_uri(&dir.join(M));
    let with_level = MANIFEST.replace("    \"capabilities\"", "    \"semantic_level\": 4,\n    \"capabilities\"");
    // (manifest, the project's level, the editor's defaultLevel) -> the level.
    let cases: [(&str, Option<u8>, Option<u8>, usize); 4] = [
        (MANIFEST, None, None, 3),
        (MANIFEST, None, Some(5), 5),
        (MANIFEST, Some(2), Some(5), 2),
        (&with_level, Some(2), Some(5), 4),
    ];
    for (text, project, editor, expected) in cases {
        let level_line = project.map(|l| format!("level = {l}\n")).unwrap_or_default();
        write_pyproject(&dir, &format!("[tool.torchcts-lsp]\npython = \"venv/bin/python\"\n{level_line}"));
        std::fs::write(dir.join(M), text).unwrap();
        let mut options = json!({"onSave": "level"});
        if let Some(level) = editor {
            options["defaultLevel"] = json!(level);
        }
        let case =
            format!("project level {project:?}, defaultLevel {editor:?}, semantic_level 4: {}", text == with_level);
        let mut client = LspClient::spawn_with(&[], &["VIRTUAL_ENV", "TORCHCTS_LSP_PYTHON", "PYTHONPATH"]);
        client.request(
            "initialize",
            json!({"processId": null, "rootUri": file_uri(&dir), "capabilities": vscode_capabilities(), "initializationOptions": options}),
        );
        client.notify("initialized", json!({}));
        client.open(&uri, text, 1);
        let status = client.wait_for(|m| m["method"] == "torchcts/status" && m["params"]["uri"] == uri.as_str());
        assert_eq!(status["params"]["level"], expected, "{case}: status");
        let lenses = client.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
        let titles: Vec<&str> =
            lenses.as_array().unwrap().iter().filter_map(|l| l["command"]["title"].as_str()).collect();
        assert!(
            titles.iter().any(|t| t.starts_with(&format!("▶ Run level {expected} on cpu ("))),
            "{case}: lenses {titles:?}"
        );
        let range = json!({"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}});
        let actions = client.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": []}}),
        );
        let titles: Vec<&str> = actions.as_array().unwrap().iter().filter_map(|a| a["title"].as_str()).collect();
        assert!(titles.contains(&format!("Run level {expected} on cpu").as_str()), "{case}: actions {titles:?}");
        client.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
        let finished = client.wait_for(|m| {
            m["method"] == "window/showMessage" && m["params"]["message"].as_str().is_some_and(|t| t.contains("run of"))
        });
        let said = finished["params"]["message"].as_str().unwrap().to_string();
        assert!(said.starts_with(&format!("TorchCTS run of level {expected} on cpu")), "{case}: {said}");
        client.shutdown();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// One server serving several workspace folders (Neovim's `reuse_client`, a VS Code
/// multi-root workspace) says that no torch was found once, not once per folder, nor again
/// when a setting that does not change the environment changes.
#[test]
fn the_no_torch_warning_is_said_once_per_server() {
    let dirs: Vec<PathBuf> = ["warn-a", "warn-b", "warn-c"]
        .iter()
        .map(|name| {
            let dir = std::env::temp_dir().join(format!("torchcts-settings-matrix-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("manifest.py"), MANIFEST).unwrap();
            dir
        })
        .collect();
    let folder = |d: &PathBuf| json!({"uri": file_uri(d), "name": d.file_name().unwrap().to_str().unwrap()});
    // A Python with no torch, whatever this machine's python3 has.
    let python = dirs[0].join("no-venv/bin/python");
    let mut client = LspClient::spawn_with(&[], &["VIRTUAL_ENV", "TORCHCTS_LSP_PYTHON", "PYTHONPATH"]);
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": file_uri(&dirs[0]), "capabilities": vscode_capabilities(),
               "workspaceFolders": [folder(&dirs[0]), folder(&dirs[1])],
               "initializationOptions": {"python": {"interpreter": python}}}),
    );
    client.notify("initialized", json!({}));
    client.open(&file_uri(&dirs[0].join("manifest.py")), MANIFEST, 1);
    client.open(&file_uri(&dirs[1].join("manifest.py")), MANIFEST, 1);
    client
        .notify("workspace/didChangeWorkspaceFolders", json!({"event": {"added": [folder(&dirs[2])], "removed": []}}));
    client.open(&file_uri(&dirs[2].join("manifest.py")), MANIFEST, 1);
    client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"torchcts": {"python": {"interpreter": python}, "inlayHints": {"enabled": false}}}}),
    );
    let messages = client.drain_for(Duration::from_secs(5));
    let text_of = |method: &str| -> Vec<String> {
        messages
            .iter()
            .filter(|m| m["method"] == method)
            .filter_map(|m| m["params"]["message"].as_str().map(str::to_string))
            .collect()
    };
    let warnings: Vec<String> =
        text_of("window/showMessage").into_iter().filter(|m| m.contains("no torch found")).collect();
    client.shutdown();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    // One line of an 80-column Neovim (`v:echospace` 68: a longer message stops it at a "Press
    // ENTER" prompt); the interpreter, the counts' versions and both ways to fix it are in the log.
    assert!(warnings[0].chars().count() <= 68, "{} chars: {}", warnings[0].chars().count(), warnings[0]);
    let logged = text_of("window/logMessage");
    let detail =
        logged.iter().find(|m| m.contains("no torch found in the environment of")).expect("the note in the log");
    assert!(
        detail.contains(&python.display().to_string()) && detail.contains("torchcts-lsp inventory --python PY"),
        "{detail}"
    );
    for dir in dirs {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
