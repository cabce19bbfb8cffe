//! One answer to one question in every view (issue 31, "One answer"): over every parity case
//! manifest (`tests/parity/check`, `tests/parity/skips`) and `examples/manifest.py`, at the
//! manifest's own level and device, the counts `analyze --format json`, `report --format json`
//! (levels, matrix, entries, skip_ops) and `diff` (the manifest against itself without one
//! entry) give for the same quantity are equal:
//!
//! - per level: collected, run and filtered are analyze's in the report's level chart;
//! - the tests that run: analyze's `executable`, the report's headline, the sum of its selected
//!   levels' run, of its matrix cells' run, its evidence summary, its `semantic_level` entry,
//!   and `diff`'s `new_running`;
//! - what an entry decides: a dtype entry lets in the tests `diff` says start running when it
//!   is added, a `True` capability those that start when it turns from `False` to `True`; a
//!   `skip_ops` item removes those `diff` says stop running when it is added, and the report's
//!   skip_ops table says the same;
//! - `diff`'s text lists levels lowest first and leaves out no selected level.
//!
//! - the editor's status line (`torchcts/status`: run and filtered up to the level) is
//!   analyze's, and so are the run lens ("▶ Run level N on D (M tests)") and the inlay hint
//!   after `semantic_level`; the hover on an entry and the inlay hint after each dtype and
//!   `True` capability name the report's number of tests for it, for the same file with the
//!   same defaults.
//!
//! Every case counts with torch 2.12.1's inventory and `--rooted-at-package`, whatever the
//! environment, so the numbers do not depend on the machine.

mod support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::lsp_client::LspClient;

fn root() -> PathBuf {
    support::repo_root()
}

/// Every manifest the property is checked on.
fn manifests() -> Vec<PathBuf> {
    let mut out = vec![root().join("examples/manifest.py")];
    for suite in ["tests/parity/check/cases", "tests/parity/skips/cases"] {
        let mut cases: Vec<PathBuf> = std::fs::read_dir(root().join(suite))
            .unwrap()
            .flatten()
            .map(|e| e.path().join("manifest.py"))
            .filter(|p| p.is_file())
            .collect();
        cases.sort();
        out.extend(cases);
    }
    // The same manifest under several cases (one per torch release) is checked once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(std::fs::read(p).unwrap_or_default()));
    out
}

/// The binary's JSON on stdout (`None` when it wrote none: a manifest it cannot count).
fn run_json(dir: &Path, args: &[&str]) -> Option<Value> {
    run_json_with(dir, args, &["--torch", "2.12.1", "--rooted-at-package"])
}

fn run_json_with(dir: &Path, args: &[&str], pinned: &[&str]) -> Option<Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(args)
        .args(pinned)
        .current_dir(dir)
        .output()
        .expect("run torchcts-lsp");
    serde_json::from_slice(&output.stdout).ok()
}

fn run_text(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(args)
        .args(["--torch", "2.12.1", "--rooted-at-package"])
        .current_dir(dir)
        .output()
        .expect("run torchcts-lsp");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("a count, not {v}"))
}

/// The manifest's text without one entry, when it can be cut out by its line (an entry alone
/// on its line) or, for a `skip_ops` item, by its string literal; a `True` capability turned
/// `False`.
fn without_entry(text: &str, entry: &Value) -> Option<String> {
    let line = entry["line"].as_u64()? as usize;
    let lines: Vec<&str> = text.lines().collect();
    let at = *lines.get(line.checked_sub(1)?)?;
    if entry["kind"] == "skip_op" {
        let name = entry["key_path"][1].as_str()?;
        for quote in ['"', '\''] {
            let literal = format!("{quote}{name}{quote}");
            for form in [format!("{literal}, "), format!(", {literal}"), format!("{literal},"), literal.clone()] {
                if at.contains(&form) {
                    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                    out[line - 1] = at.replacen(&form, "", 1);
                    return Some(out.join("\n") + "\n");
                }
            }
        }
        return None;
    }
    if entry["kind"] == "capability" {
        // A capability's entry counts the tests it gates: `True` against `False` (a missing
        // one is not always `False`: torchcts defaults some).
        let cap = entry["key_path"][1].as_str()?;
        let claim = [format!("\"{cap}\": True"), format!("'{cap}': True")].into_iter().find(|c| at.contains(c))?;
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        out[line - 1] = at.replacen(&claim, &claim.replace(": True", ": False"), 1);
        return Some(out.join("\n") + "\n");
    }
    let trimmed = at.trim_end();
    let code = trimmed.split('#').next().unwrap_or(trimmed).trim_end();
    let balanced = |open: char, close: char| code.matches(open).count() == code.matches(close).count();
    if !code.ends_with(',') || !balanced('(', ')') || !balanced('[', ']') || !balanced('{', '}') {
        return None;
    }
    let mut out: Vec<&str> = lines.clone();
    out.remove(line - 1);
    Some(out.join("\n") + "\n")
}

#[derive(Default)]
struct Checked {
    manifests: usize,
    entries: usize,
    diffs: usize,
}

fn check_manifest(path: &Path, checked: &mut Checked) {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.strip_prefix(root()).unwrap_or(path).display().to_string();
    let dir = std::env::temp_dir().join(format!("torchcts-one-answer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("manifest.py"), &text).unwrap();
    let Some(analyze) = run_json(&dir, &["analyze", "--format", "json", "manifest.py"]) else { return };
    let acc = &analyze["accounting"];
    if !acc.is_object() {
        return; // a manifest torchcts cannot count (no accounting): nothing to compare
    }
    // A manifest the report refuses with an error (an invalid semantic_level analyze counts at
    // a default) has no record to compare.
    let Some(report) = run_json(&dir, &["report", "--format", "json", "manifest.py"]) else { return };
    checked.manifests += 1;
    let executable = n(&acc["executable"]);

    // The level chart is analyze's accounting, level by level.
    for key in ["collected", "deselected", "included", "executable"] {
        assert_eq!(n(&report[key]), n(&acc[key]), "{name}: report {key} vs analyze");
    }
    let levels = report["levels"].as_array().unwrap();
    for (ours, theirs) in levels.iter().zip(acc["levels"].as_array().unwrap()) {
        for key in ["collected", "run", "filtered", "run_cumulative"] {
            assert_eq!(ours[key], theirs[key], "{name}: level {} {key}: report vs analyze", theirs["level"]);
        }
    }
    let selected_run: u64 = levels.iter().filter(|l| l["selected"] == true).map(|l| n(&l["run"])).sum();
    assert_eq!(selected_run, executable, "{name}: the selected levels' run vs the tests that run");

    // The matrix partitions the tests that run by (operator, dtype).
    let matrix_run: u64 = report["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|row| row["cells"].as_array().unwrap())
        .map(|cell| n(&cell["tally"]["run"]))
        .sum();
    assert_eq!(matrix_run, executable, "{name}: matrix cells' run vs the tests that run");
    assert_eq!(n(&report["evidence"]["tests"]["run"]), executable, "{name}: evidence summary");

    let entries = report["entries"].as_array().unwrap();
    for entry in entries.iter().filter(|e| e["kind"] == "semantic_level") {
        assert_eq!(n(&entry["tally"]["tests"]), executable, "{name}: the semantic_level entry");
    }
    // The skip_ops table's "tests it removes" is the item's entry's answer.
    for row in report["skip_ops"].as_array().unwrap() {
        let entry = entries.iter().find(|e| e["kind"] == "skip_op" && e["key_path"][1] == row["name"]);
        if let Some(entry) = entry {
            assert_eq!(row["removes"], entry["tally"]["tests"], "{name}: skip_ops {} removes", row["name"]);
        }
    }

    let mut text_checked = false;
    for entry in entries {
        let kind = entry["kind"].as_str().unwrap_or_default();
        let line_text = entry["line"].as_u64().and_then(|l| text.lines().nth(l as usize - 1)).unwrap_or_default();
        // A capability's entry counts the tests it gates (True against False): compared where
        // its value is True, with the same manifest where it is False.
        let comparable = match kind {
            "dtype" | "skip_op" => true,
            "capability" => {
                let cap = entry["key_path"][1].as_str().unwrap_or_default();
                line_text.contains(&format!("\"{cap}\": True")) || line_text.contains(&format!("'{cap}': True"))
            }
            _ => false,
        };
        // Removing the line removes the entry only where the line makes no other one (a
        // comprehension makes one per item on its line).
        let alone = entries.iter().filter(|e| e["line"] == entry["line"]).count() == 1;
        if !comparable || !alone {
            continue;
        }
        checked.entries += 1;
        let Some(without) = without_entry(&text, entry) else { continue };
        std::fs::write(dir.join("without.py"), &without).unwrap();
        let Some(diff) = run_json(&dir, &["diff", "--format", "json", "without.py", "manifest.py"]) else { continue };
        if !diff["new_running"].is_u64() {
            continue; // the text without the entry is not a manifest it counts
        }
        checked.diffs += 1;
        let label = entry["label"].as_str().unwrap_or_default();
        assert_eq!(n(&diff["new_running"]), executable, "{name}: diff's new_running vs analyze");
        let decided = n(&entry["tally"]["tests"]);
        if kind == "skip_op" {
            assert_eq!(n(&diff["stopped"]), decided, "{name}: {label}: diff stopped vs the entry's tests");
        } else {
            assert_eq!(n(&diff["started"]), decided, "{name}: {label}: diff started vs the entry's tests");
        }
        if !text_checked {
            text_checked = true;
            let shown = run_text(&dir, &["diff", "without.py", "manifest.py"]);
            let printed: Vec<u64> =
                shown.lines().filter_map(|l| l.strip_prefix("level ")?.split(':').next()?.parse().ok()).collect();
            assert!(printed.windows(2).all(|w| w[0] < w[1]), "{name}: levels lowest first: {shown}");
            for level in levels.iter().filter(|l| l["selected"] == true) {
                assert!(printed.contains(&n(&level["level"])), "{name}: level {} left out: {shown}", level["level"]);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_view_gives_one_answer_to_one_question() {
    let mut checked = Checked::default();
    for path in manifests() {
        check_manifest(&path, &mut checked);
    }
    // The property must have been checked, not skipped: the corpus counts most manifests and
    // their entries.
    assert!(checked.manifests >= 90, "manifests counted: {}", checked.manifests);
    assert!(checked.diffs >= 100, "entries compared with diff: {} of {}", checked.diffs, checked.entries);
    eprintln!("{} manifests, {} of {} entries compared with diff", checked.manifests, checked.diffs, checked.entries);
}

/// The status the server sends for the example is analyze's count of the same file, and the
/// hover on each entry names the report's number of tests for that entry: they all find
/// the environment, inventory and run layout the same way, so neither is pinned here.
#[test]
fn the_status_line_is_analyzes_count() {
    let dir = std::env::temp_dir().join(format!("torchcts-one-answer-status-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // On cpu, with a real run's records (`tests/fixtures/runs/artifacts/focused`): the hover
    // shows an entry's runs only where some exist.
    let text = std::fs::read_to_string(root().join("examples/manifest.py"))
        .unwrap()
        .replace("\"device_name\": \"mps\"", "\"device_name\": \"cpu\"");
    let artifacts = root().join("tests/fixtures/runs/artifacts/focused/results");
    for file in ["cpu_vm_23gb_latest.json", "cpu_vm_23gb_history/2026-11-30T16-24-12Z.json"] {
        std::fs::create_dir_all(dir.join("results").join(file).parent().unwrap()).unwrap();
        std::fs::copy(artifacts.join(file), dir.join("results").join(file)).unwrap();
    }
    let manifest = dir.join("manifest.py");
    std::fs::write(&manifest, &text).unwrap();
    let analyze = run_json_with(&dir, &["analyze", "--format", "json", "manifest.py"], &[]).expect("analyze json");
    let levels = analyze["accounting"]["levels"].as_array().unwrap().clone();

    let uri = support::lsp_client::file_uri(&manifest);
    let mut client = LspClient::spawn();
    client.initialize(json!({}));
    client.open(&uri, &text, 1);
    let status = client.wait_for(|m| m["method"] == "torchcts/status");
    // The hover on each entry names the tests it decides: the report's entries table's number.
    let report = run_json_with(&dir, &["report", "--format", "json", "manifest.py"], &[]).expect("report json");
    let mut hovered = 0;
    for entry in report["entries"].as_array().unwrap() {
        let (Some(line), Some(label)) = (entry["line"].as_u64(), entry["label"].as_str()) else { continue };
        let line_text = text.lines().nth(line as usize - 1).unwrap_or_default();
        let key = entry["key_path"].as_array().unwrap().last().unwrap().as_str().unwrap_or_default();
        let short = key.trim_start_matches("torch.");
        let Some(character) = line_text.find(short) else { continue };
        let at = json!({"textDocument": {"uri": uri}, "position": {"line": line - 1, "character": character + 1}});
        let hover = client.request("textDocument/hover", at);
        let markdown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
        let Some(start) = markdown.find(&format!("({label}, ")) else { continue };
        let shown: u64 = markdown[start + label.len() + 3..].split(' ').next().unwrap().parse().unwrap();
        assert_eq!(shown, n(&entry["tally"]["tests"]), "hover on {label} vs the report's entry: {markdown}");
        hovered += 1;
    }
    // The inlay hint after each dtype and True capability entry ("N tests") is the report's
    // entries table's number for it; the one after semantic_level is the status line's.
    let whole =
        json!({"start": {"line": 0, "character": 0}, "end": {"line": text.lines().count() + 1, "character": 0}});
    let hints = client.request("textDocument/inlayHint", json!({"textDocument": {"uri": uri}, "range": whole}));
    let hint_on = |line: u64| -> Option<String> {
        hints.as_array()?.iter().find(|h| n(&h["position"]["line"]) == line - 1).map(|h| match &h["label"] {
            Value::String(s) => s.clone(),
            parts => parts.as_array().into_iter().flatten().filter_map(|p| p["value"].as_str()).collect(),
        })
    };
    let mut hinted = 0;
    for entry in report["entries"].as_array().unwrap() {
        let (Some(line), Some(label)) = (entry["line"].as_u64(), entry["label"].as_str()) else { continue };
        let line_text = text.lines().nth(line as usize - 1).unwrap_or_default();
        let counted = match entry["kind"].as_str() {
            Some("dtype") => !line_text.trim_start().starts_with('"'),
            Some("capability") => line_text.contains(": True"),
            _ => false,
        };
        if !counted {
            continue;
        }
        let Some(hint) = hint_on(line) else { panic!("no inlay hint on line {line} ({label}): {hints}") };
        let shown: u64 = hint.trim().split(' ').next().unwrap().parse().unwrap();
        assert_eq!(shown, n(&entry["tally"]["tests"]), "inlay hint on {label} vs the report's entry: {hint}");
        hinted += 1;
    }
    assert!(hinted >= 8, "entries whose inlay hint was compared: {hinted}");
    // The run lens above semantic_level counts the tests that run.
    let lenses = client.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    let run_lens = lenses
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["command"]["title"].as_str())
        .find(|t| t.starts_with("▶ Run level"))
        .expect("the run lens")
        .to_string();
    let semantic_line = text.lines().position(|l| l.contains("\"semantic_level\"")).unwrap() as u64 + 1;
    let level_hint = hint_on(semantic_line).expect("the semantic_level inlay hint");
    client.shutdown();
    // The hover names an entry's tests where a run recorded some of them (here the float32
    // entry: `add` and `sub` in float32).
    assert!(hovered >= 1, "entries whose hover names their tests: {hovered}");
    let params = &status["params"];
    let lens_run: u64 = run_lens.rsplit('(').next().unwrap().split(' ').next().unwrap().parse().unwrap();
    assert_eq!(lens_run, n(&params["run"]), "the run lens vs the status line: {run_lens}");
    assert_eq!(
        level_hint.trim(),
        format!("{} run · {} filtered", n(&params["run"]), n(&params["filtered"])),
        "the semantic_level hint vs the status line"
    );
    let level = n(&params["level"]);
    let up_to: Vec<&Value> = levels.iter().filter(|l| n(&l["level"]) <= level).collect();
    let run: u64 = up_to.iter().map(|l| n(&l["run"])).sum();
    let filtered: u64 = up_to.iter().map(|l| n(&l["filtered"])).sum();
    assert_eq!(n(&params["run"]), run, "status run vs analyze's run up to level {level}: {params}");
    assert_eq!(n(&params["filtered"]), filtered, "status filtered vs analyze's up to level {level}: {params}");
    assert_eq!(n(&params["run"]), n(&analyze["accounting"]["executable"]), "status run vs analyze's executable");
    let _ = std::fs::remove_dir_all(&dir);
}
