//! Black-box tests of the command line (`torchcts-lsp check | analyze | skips | inventory`):
//! exit codes, usage errors, `--help`, output order and formats, a closed stdout, a
//! directory given as the manifest. Each runs the built binary as a user would.

mod support;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::{check_case, repo_root as root, stderr, stdout};

/// A manifest of the check corpus: `combined_everything` has errors (exit 1) and 38
/// findings the core lists out of line order; `real_privateuse1` is valid with warnings.
fn corpus(case: &str) -> String {
    check_case(case).to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_torchcts-lsp")).args(args).stdin(Stdio::null()).output().expect("run torchcts-lsp")
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", stdout(o), stderr(o)))
}

#[test]
fn version_and_help() {
    let o = run(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), format!("torchcts-lsp {}\n", env!("CARGO_PKG_VERSION")));

    let o = run(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    for command in ["check", "analyze", "skips", "inventory", "--stdio"] {
        assert!(stdout(&o).contains(command), "--help does not name {command}:\n{}", stdout(&o));
    }
}

#[test]
fn help_of_each_command_explains_its_output() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["check", "--help"], &["Manifest is valid!", "findings", "github", "Exit code"]),
        (&["help", "check"], &["Manifest is valid!", "findings", "github", "Exit code"]),
        (&["skips", "--help"], &["filtered", "requested <= N", "records", "deselected", "--level-range", "Exit code"]),
        (
            &["analyze", "--help"],
            &["filtered", "requested <= N", "records", "deselected", "--device", "--format", "Exit code"],
        ),
        (&["inventory", "--help"], &["--python", "--out", "Exit code"]),
    ];
    for (args, words) in cases {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        for word in *words {
            assert!(stdout(&o).contains(word), "{args:?} does not explain `{word}`:\n{}", stdout(&o));
        }
    }
}

#[test]
fn unknown_options_and_values_are_usage_errors() {
    let manifest = corpus("real_privateuse1");
    let m = manifest.as_str();
    let cases: &[&[&str]] = &[
        &["--bogus"],
        &["frobnicate"],
        &["check", m, "--bogus"],
        &["check", m, "--format", "yaml"],
        &["check", m, "--format"],
        &["analyze", m, "--bogus"],
        &["analyze", m, "--format", "yaml"],
        &["analyze", m, "--level", "9"],
        &["skips", m, "--bogus"],
        &["skips", m, "--format", "yaml"],
        &["skips", m, "--level", "0"],
        &["skips", m, "--level", "two"],
        &["skips", m, "--level-range", "5:2"],
        &["skips", m, "--level", "2", "--level-exact", "3"],
        &["skips", m, "--device"],
        &["inventory", "--bogus"],
        &["inventory"],
        &["--stdio", "check", m],
    ];
    for args in cases {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?} exited {:?}: {}{}", o.status.code(), stdout(&o), stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?} printed on stdout: {}", stdout(&o));
        assert!(stderr(&o).contains("error"), "{args:?} did not say what is wrong: {}", stderr(&o));
    }
}

#[test]
fn analyze_exits_with_check_manifests_exit_code() {
    for case in ["combined_everything", "real_privateuse1", "syntax_constants_splat_assign"] {
        let check = run(&["check", &corpus(case)]);
        let analyze = run(&["analyze", &corpus(case)]);
        assert_eq!(analyze.status.code(), check.status.code(), "{case}: {}", stderr(&analyze));
        let line = format!("would print (exit code {})", check.status.code().unwrap());
        assert!(stdout(&analyze).contains(&line), "{case}: analyze does not say `{line}`");
    }
    assert_eq!(run(&["check", &corpus("combined_everything")]).status.code(), Some(1));
    assert_eq!(run(&["check", &corpus("real_privateuse1")]).status.code(), Some(0));
}

#[test]
fn analyze_takes_the_accounting_options_of_skips() {
    let m = corpus("template_smoke");
    let default = stdout(&run(&["analyze", &m]));
    assert!(default.contains("<- semantic_level"), "{default}");

    let o = run(&["analyze", &m, "--level", "5", "--device", "mps"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("== Accounting on `mps`") && text.contains("requested <= 5"), "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("5 ") && l.ends_with("<- requested")), "{text}");

    // The JSON accounting is the one `skips` reports for the same flags.
    for flags in [&["--level-exact", "4", "--device", "cpu"][..], &["--level-range", "2:5", "--device", "mps"][..]] {
        let analyze = json(&run(&[&["analyze", m.as_str(), "--format", "json"][..], flags].concat()));
        let skips = json(&run(&[&["skips", m.as_str(), "--format", "json"][..], flags].concat()));
        let acc = &analyze["accounting"];
        for field in ["selection", "collected", "deselected", "included", "executable", "levels", "device"] {
            assert_eq!(acc[field], skips[field], "{flags:?}: {field}");
        }
        assert_eq!(acc["record_count"], skips["records"].as_array().unwrap().len(), "{flags:?}: records");
        assert!(analyze["findings"].is_array() && analyze["exit_code"] == 0, "{flags:?}: {analyze}");
    }
}

/// `(line, column)` of each finding's start, in output order.
fn starts(report: &Value) -> Vec<(u64, u64)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["range"]["start"]["line"].as_u64().unwrap(), f["range"]["start"]["column"].as_u64().unwrap()))
        .collect()
}

#[test]
fn check_json_lists_findings_by_position() {
    for case in ["combined_everything", "dtypes_regex_errors", "syntax_constants_splat_assign"] {
        let o = run(&["check", "--format", "json", &corpus(case)]);
        let report = json(&o);
        let starts = starts(&report);
        assert!(starts.len() > 3, "{case}: {starts:?}");
        let mut sorted = starts.clone();
        sorted.sort();
        assert_eq!(starts, sorted, "{case}: findings out of position order");
        assert_eq!(o.status.code(), Some(report["exit_code"].as_i64().unwrap() as i32), "{case}");
    }
}

#[test]
fn check_github_prints_one_annotation_per_finding() {
    for case in ["combined_everything", "real_privateuse1", "syntax_constants_splat_assign"] {
        let report = json(&run(&["check", "--format", "json", &corpus(case)]));
        let o = run(&["check", "--format", "github", &corpus(case)]);
        assert_eq!(o.status.code(), run(&["check", &corpus(case)]).status.code(), "{case}: check-manifest's exit code");
        let findings = report["findings"].as_array().unwrap();
        let lines: Vec<&str> = std::str::from_utf8(&o.stdout).unwrap().lines().collect();
        assert_eq!(lines.len(), findings.len(), "{case}: {lines:?}");
        for (line, finding) in lines.iter().zip(findings) {
            let command = match finding["severity"].as_str().unwrap() {
                "error" => "error",
                "warning" => "warning",
                _ => "notice",
            };
            let r = &finding["range"];
            let file = corpus(case).replace(':', "%3A").replace(',', "%2C");
            let expected_start = format!(
                "::{command} file={file},line={},col={},endLine={},endColumn={},title=",
                r["start"]["line"], r["start"]["column"], r["end"]["line"], r["end"]["column"]
            );
            assert!(line.starts_with(&expected_start), "{case}: {line}\nexpected it to start with {expected_start}");
            let message = line.split_once("::").unwrap().1.split_once("::").unwrap().1;
            let unescaped = message.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%");
            assert_eq!(unescaped, finding["message"].as_str().unwrap(), "{case}");
        }
    }
    let o = run(&["check", "--format", "github", "/nonexistent/manifest.py"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("::error file=/nonexistent/manifest.py::Manifest file not found"), "{}", stdout(&o));
}

/// A folder given as the manifest: `check` prints what check-manifest prints (recorded from
/// torchcts 0.4.1: importlib finds no loader for a name without `.py`, and fails with
/// IsADirectoryError on the absolute path of a `*.py` folder); `analyze` and `skips` add a hint.
#[test]
fn a_directory_reads_as_check_manifest_says_it_with_our_hint_only_in_analyze() {
    let dir = root().join("tests/parity/check/cases/real_privateuse1");
    let dir = dir.to_string_lossy();
    let no_loader = "Failed to parse manifest: 'NoneType' object has no attribute 'loader'\n";
    // `--manifest DIR` reads it as check-manifest does; a positional folder is searched.
    let o = run(&["check", "--manifest", &dir]);
    assert_eq!((o.status.code(), stderr(&o)), (Some(1), no_loader.to_string()));
    let o = run(&["check", &dir]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("== ") && stdout(&o).contains("manifest.py\n"), "{}", stdout(&o));
    for command in ["analyze", "skips"] {
        let o = run(&[command, &dir]);
        assert_eq!(o.status.code(), Some(0), "{command}: {}", stderr(&o));
        assert!(stdout(&o).starts_with("== ") && stdout(&o).contains("real_privateuse1/manifest.py\n"), "{command}");
    }
    let tmp = std::env::temp_dir().join(format!("torchcts-cli-dir-{}", std::process::id()));
    let py_dir = tmp.join("sub/x.py");
    std::fs::create_dir_all(&py_dir).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(["check", "--manifest", "sub/../sub/x.py"])
        .current_dir(&tmp)
        .output()
        .unwrap();
    let expected = format!("Failed to parse manifest: [Errno 21] Is a directory: '{}'\n", py_dir.display());
    assert_eq!((o.status.code(), stderr(&o)), (Some(1), expected));
    // A file importlib does not take as source.
    let txt = tmp.join("manifest.txt");
    std::fs::write(&txt, "manifest = {}\n").unwrap();
    let o = run(&["check", &txt.to_string_lossy()]);
    assert_eq!((o.status.code(), stderr(&o)), (Some(1), no_loader.to_string()));
    std::fs::remove_dir_all(&tmp).ok();
    let o = run(&["check", "/nonexistent/manifest.py"]);
    assert_eq!((o.status.code(), stderr(&o)), (Some(1), "Manifest file not found: /nonexistent/manifest.py\n".into()));
}

#[test]
fn a_file_over_the_size_limit_is_refused_with_the_literal_that_makes_it_large() {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-cli-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("manifest.py");
    // 13,000 entries of 45 bytes: 572 KiB, over the 512 KiB limit.
    let entries: String =
        (0..13_000).map(|i| format!("        'op{i:05}:float32': {{'rtol': 0.1, 'atol': 0.1}},\n")).collect();
    let text =
        format!("manifest = {{\n    \"manifest_version\": 1,\n    \"tolerance_overrides\": {{\n{entries}    }},\n}}\n");
    std::fs::write(&path, &text).expect("write");
    let file = path.to_string_lossy();
    for command in ["check", "analyze", "skips"] {
        let o = run(&[command, &file]);
        assert_eq!(o.status.code(), Some(1), "{command}");
        let err = stderr(&o);
        assert!(err.contains("analyses manifests up to 512 KiB"), "{command}: {err}");
        assert!(err.contains("`\"tolerance_overrides\": ...` at line 3"), "{command}: {err}");
        assert!(err.contains("about 13,001 entries") && err.contains("TORCHCTS_LSP_MAX_BYTES=0"), "{command}: {err}");
        assert_eq!(stdout(&o), "", "{command}");
    }
    // Lifted, the file is checked as check-manifest checks it (every key is an error).
    let with_limit = |limit: &str| {
        Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
            .args(["check", &file])
            .env("TORCHCTS_LSP_MAX_BYTES", limit)
            .output()
            .expect("run")
    };
    let lifted = with_limit("0");
    assert_eq!(lifted.status.code(), Some(1));
    assert!(stderr(&lifted).ends_with("category 'op12999'\n"), "{}", stdout(&lifted));
    let bad = with_limit("lots");
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("is not a number of bytes"), "{}", stderr(&bad));
    std::fs::remove_dir_all(&dir).ok();
}

/// Spawns a command whose stdout pipe the reader closes after `keep_lines` lines.
fn run_with_stdout_closed_after(args: &[&str], keep_lines: usize) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn torchcts-lsp");
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..keep_lines {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
    }
    drop(reader); // `| head -N` exits: the next write gets EPIPE
    child.wait_with_output().expect("wait torchcts-lsp")
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let m = corpus("combined_everything");
    let smoke = corpus("template_complete");
    // The reader leaves before the first write (the command first reads and analyzes),
    // or after one line of an output far larger than a pipe's buffer.
    let cases: &[(&[&str], usize, i32)] = &[
        (&["analyze", &m], 0, 1),
        (&["analyze", &m], 1, 1),
        (&["analyze", &m, "--format", "json"], 0, 1),
        (&["check", "--format", "json", &m], 0, 1),
        (&["check", "--format", "github", &m], 0, 1),
        (&["skips", &smoke, "--device", "cpu", "--level", "8"], 1, 0),
        (&["skips", &smoke, "--device", "cpu", "--level", "8", "--format", "json"], 1, 0),
        (&["--help"], 0, 0),
    ];
    for (args, keep, code) in cases {
        let o = run_with_stdout_closed_after(args, *keep);
        let err = stderr(&o);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe") && !err.contains("backtrace"),
            "{args:?}: {err}"
        );
        assert_eq!(o.status.code(), Some(*code), "{args:?}: {err}");
    }
}

#[test]
fn a_closed_stderr_keeps_the_exit_code() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(["check", &corpus("combined_everything")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn torchcts-lsp");
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(1), "check-manifest's exit code, not a panic (101)");
}

/// Issue 22, item 2: the tests that need the real torchcts show as ignored, not as passed.
#[test]
fn tests_that_need_the_real_tool_are_ignored_not_passed() {
    let files = [
        "server/runner/tests/runs.rs",
        "server/lsp/tests/check_differential.rs",
        "server/lsp/tests/cli_run.rs",
        "server/lsp/tests/lsp_runs.rs",
    ];
    for file in files {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // `let Some(python) = real_python(..) else { return };` (the lsp crate's is in support).
        let needing: Vec<usize> =
            (0..lines.len()).filter(|&i| lines[i].contains("real_python(") && lines[i].contains(") else")).collect();
        assert!(!needing.is_empty(), "{file}: no test asks for the real Python (the pattern is out of date)");
        for i in needing {
            let head = lines[..i].iter().rev().find(|l| l.contains("fn ")).unwrap();
            let at = lines.iter().position(|l| l == head).unwrap();
            assert!(
                lines[at.saturating_sub(3)..at].iter().any(|l| l.contains("#[ignore = \"needs TORCHCTS_PYTHON")),
                "{file}: `{}` needs the real torchcts but is not #[ignore]d",
                head.trim()
            );
        }
    }
}

/// Issue 22, item 3: `diff` says which inventory its counts are for, in every format.
#[test]
fn diff_names_its_inventory() {
    let old = corpus("template_smoke");
    let new = corpus("real_privateuse1");
    let text = run(&["diff", &old, &new]);
    assert!(stderr(&text).contains("Note: counts for torchcts 0.4.1 with torch"), "{}", stderr(&text));
    let markdown = run(&["diff", &old, &new, "--format", "markdown"]);
    assert!(stdout(&markdown).contains("Counts for torchcts 0.4.1 with torch"), "{}", stdout(&markdown));
    let report = json(&run(&["diff", &old, &new, "--format", "json"]));
    assert_eq!(report["inventory"]["torchcts"], "0.4.1");
    assert!(report["inventory"]["torch"].as_str().is_some_and(|t| t.starts_with("2.")), "{}", report["inventory"]);
}

/// Issue 22, item 4: the table names each number, the counts add up as it says, the marker
/// says where the level comes from, and a manifest that does not load gets no table.
#[test]
fn analyze_accounting_says_what_each_number_is() {
    let text = stdout(&run(&["analyze", &corpus("template_smoke"), "--level", "4", "--device", "cpu"]));
    let header = text.lines().find(|l| l.trim_start().starts_with("level")).expect("a table header");
    for column in ["collected", "run", "filtered", "run up to here"] {
        assert!(header.contains(column), "{header}");
    }
    let rows: Vec<Vec<usize>> = text
        .lines()
        .filter_map(|l| {
            let cells: Vec<usize> = l.split_whitespace().take(5).map_while(|c| c.parse().ok()).collect();
            (cells.len() == 5).then_some(cells)
        })
        .collect();
    assert_eq!(rows.len(), 8, "{text}");
    let mut cumulative = 0;
    for row in &rows {
        cumulative += row[2];
        assert_eq!(row[4], cumulative, "{row:?}");
    }
    // The summary line: selected = executing + reported as skipped, executing = run up to 4.
    let summary = text.lines().find(|l| l.starts_with("show-skips at this level")).expect("summary");
    let numbers: Vec<usize> =
        summary.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(|w| w.parse().unwrap()).collect();
    // K/M (D); of the K selected, E execute and S report as skipped; R records
    let [k, m, d, k2, e, s, _r] = numbers[..] else { panic!("{summary}") };
    assert_eq!((k, k2, k + d, e + s, e), (k2, k, m, k, rows[3][4]), "{summary}");

    let dir = std::env::temp_dir().join(format!("torchcts-cli-acc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        p.to_string_lossy().into_owned()
    };
    let no_level = stdout(&run(&["analyze", &write("nolevel.py", "manifest = {'device_name': 'cpu'}\n")]));
    assert!(no_level.contains("<- default level 3 (no semantic_level)"), "{no_level}");
    assert!(!no_level.contains("<- semantic_level"), "{no_level}");
    let broken = stdout(&run(&["analyze", &write("broken.py", "manifest = {\n 'device_name': 'cpu'\n 'x': 1}\n")]));
    assert!(broken.contains("== No accounting: the manifest does not load"), "{broken}");
    assert!(!broken.contains("== Accounting"), "{broken}");
    let empty = run(&["analyze", &write("empty.py", "")]);
    assert!(stdout(&empty).contains("== No accounting: the file defines no `manifest` dict"), "{}", stdout(&empty));
    assert!(stdout(&empty).starts_with(&format!("== Diagnostics for {} (1 finding)\n", dir.join("empty.py").display())));
    let report = json(&run(&["analyze", &dir.join("broken.py").to_string_lossy(), "--format", "json"]));
    assert!(report["accounting"].is_null() && report["no_accounting"].is_string(), "{report}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 22, item 6: wording a newcomer reads.
#[test]
fn wording_counts_usage_and_devices() {
    let one = stdout(&run(&["analyze", &corpus("real_privateuse1")]));
    let first = one.lines().next().unwrap();
    assert!(!first.contains("(1 findings)"), "{first}");

    let typo = run(&["check", "--formt", "json"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(stderr(&typo).contains("Usage: torchcts-lsp check [OPTIONS] [FILE|DIR|-]..."), "{}", stderr(&typo));
    assert!(!stderr(&typo).contains("Usage: torchcts-lsp check --format"), "{}", stderr(&typo));

    let o = run(&["skips", &corpus("template_smoke"), "--device", "nosuchdevice"]);
    let err = stderr(&o);
    assert!(
        err.contains("`nosuchdevice` is not a device torch knows (cpu, cuda, mps")
            && err.contains("any other name is counted as a PrivateUse1"),
        "{err}"
    );
    let o = run(&["skips", &corpus("template_smoke"), "--device", "cuda"]);
    assert!(!stderr(&o).contains("not a device torch knows"), "{}", stderr(&o));
}

/// Issue 25, item 2: without an environment that has torchcts, the layout (and so torchcts'
/// known-crash ledger) does not depend on where an unrelated Python lives: two torchcts-less
/// venvs, one sharing a folder with the manifest and one sharing only `/`, give the same
/// counts and the same note. One with torchcts in the `/`-only place roots node ids at the
/// package (the ledger never fires), which the MPS excerpt shows as 0 crash records.
#[test]
fn without_a_torchcts_environment_the_layout_is_the_common_one_and_said() {
    let manifest = root().join("tests/parity/skips/cases/mps_excerpt_l4/manifest.py");
    let base = std::env::temp_dir().join(format!("torchcts-cli-layout-{}", std::process::id()));
    let far = Path::new("/var/tmp").join(format!("torchcts-cli-layout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let _ = std::fs::remove_dir_all(&far);
    std::fs::create_dir_all(base.join("proj")).unwrap();
    std::fs::copy(&manifest, base.join("proj/manifest.py")).unwrap();
    let venv = |dir: &Path, torchcts: bool| {
        let site = dir.join("lib/python3.11/site-packages");
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(dir.join("bin/python"), "").unwrap();
        std::fs::create_dir_all(&site).unwrap();
        if torchcts {
            let info = site.join("torchcts-0.4.1.dist-info");
            std::fs::create_dir_all(&info).unwrap();
            std::fs::write(info.join("METADATA"), "Metadata-Version: 2.1\nName: torchcts\nVersion: 0.4.1\n").unwrap();
            std::fs::create_dir_all(site.join("torchcts")).unwrap();
        }
    };
    venv(&base.join("proj/.venv"), false);
    venv(&far.join("venv"), false);
    venv(&far.join("with-torchcts"), true);
    let skips = |virtual_env: &Path| {
        let o = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
            .args(["skips", "manifest.py", "--device", "mps", "--level", "4"])
            .current_dir(base.join("proj"))
            .env("VIRTUAL_ENV", virtual_env)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        (stdout(&o), stderr(&o))
    };
    let (near_out, near_err) = skips(&base.join("proj/.venv"));
    let (far_out, far_err) = skips(&far.join("venv"));
    assert_eq!(near_out, far_out, "two torchcts-less environments give other counts");
    assert!(near_out.contains("known_backend_crash"), "the ledger applies in the common layout");
    for err in [&near_err, &far_err] {
        assert_eq!(
            err.matches("no environment with torchcts found: counts assume the common layout").count(),
            1,
            "{err}"
        );
    }
    let (decided_out, decided_err) = skips(&far.join("with-torchcts"));
    assert!(!decided_out.contains("known_backend_crash"), "rooted at the package, the ledger never matches");
    assert!(!decided_err.contains("no environment with torchcts found"), "{decided_err}");
    let _ = std::fs::remove_dir_all(&base);
    let _ = std::fs::remove_dir_all(&far);
}

/// Issue 25, item 3: the known-segfault ledger's expiry warnings equal what the real
/// `torchcts show-skips` printed on stderr (torchcts 0.4.1, torch 2.12.1, on the date in
/// `recorded_on.txt`), and none before the review dates.
#[test]
fn ledger_expiry_warnings_equal_the_real_show_skips_stderr() {
    let case = root().join("tests/parity/skips/cases/mps_excerpt_l4");
    let warnings = expiry_warnings;
    let real = warnings(&std::fs::read_to_string(case.join("stderr.txt")).unwrap());
    let day = std::fs::read_to_string(case.join("recorded_on.txt")).unwrap().trim().to_string();
    assert_eq!(real.len(), 13, "the recording has the 13 warnings of torchcts 0.4.1 on mps");
    let skips_on = |day: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
            .args(["skips", &case.join("manifest.py").to_string_lossy(), "--device", "mps", "--level", "4"])
            .args(["--torch", "2.12.1"])
            .env("TORCHCTS_LSP_TODAY", day)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        warnings(&stderr(&o))
    };
    assert_eq!(skips_on(&day), real);
    assert!(skips_on("2026-09-30").is_empty(), "no entry is due before its review date");
    let o = run(&["skips", &case.join("manifest.py").to_string_lossy(), "--device", "cuda", "--level", "4"]);
    assert!(warnings(&stderr(&o)).is_empty(), "the packaged ledger has mps entries only");
}

/// A folder with `manifest.py` and a `.venv` whose site-packages holds dist-info folders
/// of `torch` and `torchcts` (nothing can run: the versions are read, not imported).
fn workspace_with_venv(name: &str, torch: &str, torchcts: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-cli-venv-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let site = dir.join(".venv/lib/python3.11/site-packages");
    std::fs::create_dir_all(dir.join(".venv/bin")).unwrap();
    std::fs::write(dir.join(".venv/bin/python"), "").unwrap();
    for (package, version) in [("torch", torch), ("torchcts", torchcts)] {
        let info = site.join(format!("{package}-{version}.dist-info"));
        std::fs::create_dir_all(&info).unwrap();
        std::fs::write(info.join("METADATA"), format!("Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"))
            .unwrap();
    }
    std::fs::copy(corpus("template_smoke"), dir.join("manifest.py")).unwrap();
    dir
}

fn run_in_clean_env(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(args)
        .env_remove("VIRTUAL_ENV")
        .env_remove("TORCHCTS_LSP_PYTHON")
        .stdin(Stdio::null())
        .output()
        .expect("run torchcts-lsp")
}

/// Issue 25, item 1: a `.venv` with torchcts 0.4.0 gets 0.4.0's inventory (another suite
/// than 0.4.1's), and every output says so; `--torchcts` picks it explicitly.
#[test]
fn a_venv_with_torchcts_040_counts_with_its_inventory() {
    let dir = workspace_with_venv("040", "2.12.1+cu130", "0.4.0");
    let manifest = dir.join("manifest.py").to_string_lossy().into_owned();
    let text = run_in_clean_env(&["skips", &manifest, "--level", "8"]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    assert!(stderr(&text).contains("Note: counts for torchcts 0.4.0 with torch 2.12.1\n"), "{}", stderr(&text));
    let report = json(&run_in_clean_env(&["skips", &manifest, "--level", "8", "--format", "json"]));
    assert_eq!(report["inventory"]["torchcts"], "0.4.0", "{}", report["inventory"]);
    assert_eq!(report["inventory"]["torch"], "2.12.1");
    assert!(report["inventory"]["note"].is_null(), "{}", report["inventory"]);
    // The same manifest with 0.4.1 (the default): another suite, other counts.
    let newer =
        json(&run_in_clean_env(&["skips", &manifest, "--level", "8", "--format", "json", "--torchcts", "0.4.1"]));
    assert_eq!(newer["inventory"]["torchcts"], "0.4.1");
    assert_ne!(report["collected"], newer["collected"], "0.4.0 and 0.4.1 collect different suites");
    // Explicitly, from anywhere: `--torchcts 0.4.0 --torch 2.12.1`.
    let explicit = json(&run(&[
        "skips",
        &corpus("template_smoke"),
        "--level",
        "8",
        "--format",
        "json",
        "--torchcts",
        "0.4.0",
        "--torch",
        "2.12.1",
    ]));
    assert_eq!(explicit["inventory"]["torchcts"], "0.4.0");
    assert_eq!(explicit["collected"], report["collected"]);
    // A torchcts without inventories is refused by name.
    let o = run(&["skips", &corpus("template_smoke"), "--torchcts", "0.3.0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no inventory of torchcts 0.3.0 is embedded (embedded: 0.4.1, 0.4.0"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder with a manifest whose `supported_dtypes` regexes CPython 3.10 to 3.13 answer
/// differently, and a `.venv` on `version` (its `pyvenv.cfg` and `lib/pythonX.Y`; nothing
/// runs), with the Python read from `pyvenv.cfg` or, without one, the `lib` folder.
fn workspace_on_python(name: &str, version: &str, cfg: bool) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-cli-python-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let minor: String = version.split('.').take(2).collect::<Vec<_>>().join(".");
    std::fs::create_dir_all(dir.join(".venv/bin")).unwrap();
    std::fs::create_dir_all(dir.join(format!(".venv/lib/python{minor}/site-packages"))).unwrap();
    std::fs::write(dir.join(".venv/bin/python"), "").unwrap();
    if cfg {
        std::fs::write(dir.join(".venv/pyvenv.cfg"), format!("home = /usr/bin\nversion = {version}\n")).unwrap();
    }
    let template = std::fs::read_to_string(corpus("template_smoke")).unwrap();
    let regexes = "        torch.float32: True,\n        torch.float16: \"^(?>add|mul)$\",\n        \
                   torch.bfloat16: \"(?(+1)add)(mul)\",\n        torch.int32: \"(?t)add\",\n";
    std::fs::write(dir.join("manifest.py"), template.replacen("        torch.float32: True,\n", regexes, 1)).unwrap();
    dir
}

/// Issue 25, item 5: check-manifest compiles regexes with the Python torchcts runs on, so
/// a `.venv` on each CPython 3.10-3.13 gets that version's answers (the texts are the real
/// CPythons'), and every output says which Python answered.
#[test]
fn a_venv_gets_the_regex_answers_of_its_python() {
    let atomic = "supported_dtypes[torch.float16] regex is invalid: unknown extension ?> at position 2";
    let group = "supported_dtypes[torch.bfloat16] regex is invalid: bad character in group name '+1' at position 3";
    let template = "supported_dtypes[torch.int32] regex is invalid: unknown extension ?t at position 1";
    let cases: [(&str, &[&str]); 4] =
        [("3.10.13", &[atomic]), ("3.11.7", &[]), ("3.12.1", &[group]), ("3.13.0", &[group, template])];
    let in_dir = |dir: &Path, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
            .args(args)
            .current_dir(dir)
            .env_remove("VIRTUAL_ENV")
            .env_remove("TORCHCTS_LSP_PYTHON")
            .output()
            .unwrap()
    };
    for (version, errors) in cases {
        let minor: String = version.split('.').take(2).collect::<Vec<_>>().join(".");
        let dir = workspace_on_python(&minor, version, true);
        let text = in_dir(&dir, &["check", "manifest.py"]);
        let printed: Vec<String> =
            stderr(&text).lines().filter(|l| l.starts_with("Error: ")).map(|l| l[7..].to_string()).collect();
        assert_eq!(printed, errors, "Python {version}: {}", stderr(&text));
        assert_eq!(text.status.code(), Some(if errors.is_empty() { 0 } else { 1 }), "Python {version}");
        // Once, in words: these regexes are judged differently by 3.10 to 3.13.
        let said = format!(
            "Note: manifest.py has a regex that Python versions judge differently (valid in one, an error or a warning in another); they were judged as Python {minor} does, the Python of "
        );
        assert_eq!(stderr(&text).matches("Note: ").count(), 1, "{}", stderr(&text));
        assert!(stderr(&text).contains(&said), "Python {version}: {}", stderr(&text));
        let report = json(&in_dir(&dir, &["check", "manifest.py", "--format", "json"]));
        assert_eq!(report["python"], minor.as_str());
        let warned = report["findings"].as_array().unwrap().iter().any(|f| f["code"] == "regex-warning");
        assert_eq!(warned, minor == "3.11", "only 3.11 warns about `(?(+1)...)`: {report}");
        assert_eq!(json(&in_dir(&dir, &["analyze", "manifest.py", "--format", "json"]))["python"], minor.as_str());
        // The counts too: collection searches with the same `re`.
        let skips = json(&in_dir(&dir, &["skips", "manifest.py", "--level", "1", "--format", "json"]));
        let refused = skips["problems"].as_array().unwrap().iter().any(|p| {
            p.as_str().unwrap().starts_with("re.error for \"^(?>add|mul)$\": unknown extension ?> at position 2")
        });
        assert_eq!(refused, minor == "3.10", "{}", skips["problems"]);
        // `skips` and `diff` text name the Python as `check` does (issue 34, item 6).
        let skips_text = in_dir(&dir, &["skips", "manifest.py", "--level", "1"]);
        assert!(stderr(&skips_text).contains(&said), "skips, Python {version}: {}", stderr(&skips_text));
        let diff_text = in_dir(&dir, &["diff", "manifest.py", "manifest.py"]);
        assert!(stderr(&diff_text).contains(&said), "diff, Python {version}: {}", stderr(&diff_text));
        let _ = std::fs::remove_dir_all(&dir);
    }
    // No pyvenv.cfg: the `lib/python3.10` folder says it.
    let dir = workspace_on_python("lib-only", "3.10", false);
    let o = in_dir(&dir, &["check", "manifest.py"]);
    assert!(stderr(&o).contains(atomic), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
    // Newer than the newest tested: 3.13's answers, and a note.
    let dir = workspace_on_python("newer", "3.14.0", true);
    let o = in_dir(&dir, &["analyze", "manifest.py"]);
    assert!(stdout(&o).contains("regexes checked as CPython 3.13's re ("), "{}", stdout(&o));
    assert!(stdout(&o).contains("Python 3.14 is newer than the newest tested (3.13))"), "{}", stdout(&o));
    assert!(stdout(&o).contains(template), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `Warning: known segfault ... has expired` lines of a stderr.
fn expiry_warnings(text: &str) -> Vec<String> {
    text.lines().filter(|l| l.starts_with("Warning: known segfault")).map(str::to_string).collect()
}

/// Issue 25, item 3: a project `known_segfaults.json` beside the manifest counts as the real
/// show-skips counts it (the parity case `project_ledger_cpu_l2`: two tests recorded as
/// `known_backend_crash`), its expired entries warn as the real tool's stderr did on the day
/// it was recorded; a dispatcher entry is matched by the tests' metadata (none has that
/// dispatcher: no note, no count).
#[test]
fn a_project_ledger_counts_and_warns_as_the_real_show_skips() {
    let case = root().join("tests/parity/skips/cases/project_ledger_cpu_l2");
    let warnings = expiry_warnings;
    let real = warnings(&std::fs::read_to_string(case.join("stderr.txt")).unwrap());
    assert_eq!(real.len(), 2, "the recording warns about the two expired project entries");
    let day = std::fs::read_to_string(case.join("recorded_on.txt")).unwrap().trim().to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(["skips", &case.join("manifest.py").to_string_lossy(), "--device", "cpu", "--level", "2"])
        .args(["--torch", "2.12.1"])
        .env("TORCHCTS_LSP_TODAY", &day)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(warnings(&stderr(&o)), real);
    let out = stdout(&o);
    assert!(out.contains("    known_backend_crash      : 2\n"), "{out}");
    assert!(out.contains("test_matmul.py::test_addmm[dtype0]"));
    assert!(!stderr(&o).contains("team-no-such-dispatcher"), "{}", stderr(&o));
}

/// A project ledger torchcts refuses: `skips` stops as show-skips does (its `Exit:` line, the
/// same text as the real tool printed for this file, exit code 1) and says where; `analyze`
/// reports it on the ledger file, with the counts it could make without it.
#[test]
fn a_broken_project_ledger_is_reported_on_its_file() {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-cli-ledger-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("tests/parity/skips/cases/project_ledger_cpu_l2/manifest.py"), dir.join("manifest.py"))
        .unwrap();
    std::fs::write(dir.join("known_segfaults.json"), "{\"version\": 1, \"known_segfaults\": [}\n").unwrap();
    let shown = std::fs::canonicalize(&dir).unwrap().join("known_segfaults.json");
    let manifest = dir.join("manifest.py").to_string_lossy().into_owned();
    let o = run(&["skips", &manifest, "--device", "cpu"]);
    assert_eq!(o.status.code(), Some(1));
    // What torchcts 0.4.1's show-skips printed for this file (its folder aside).
    let real = format!(
        "Exit: Invalid known segfault ledger: {}: malformed JSON: Expecting value: line 1 column 36 (char 35)",
        shown.display()
    );
    assert!(stderr(&o).lines().any(|l| l == real), "{}", stderr(&o));
    assert!(stderr(&o).contains("known_segfaults.json:1:36: error: Invalid known segfault ledger"), "{}", stderr(&o));
    let o = run(&["analyze", &manifest, "--device", "cpu"]);
    assert!(stdout(&o).contains("known_segfaults.json:1:36: error: Invalid known segfault ledger"), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 25, item 4: `import orch` in a manifest beside a venv with torchcts that does not
/// see the system's site-packages fails as the real check-manifest fails (`No module named
/// 'orch'`, the text torchcts 0.4.1 printed for it); a module the venv or the manifest's
/// folder has, a standard-library one, or a venv whose `.pth` runs code stays a note.
#[test]
fn a_module_in_no_folder_of_the_environment_is_not_importable() {
    let dir = workspace_with_venv("orch", "2.12.1", "0.4.1");
    let site = dir.join(".venv/lib/python3.11/site-packages");
    std::fs::write(dir.join(".venv/pyvenv.cfg"), "home = /usr/bin\ninclude-system-site-packages = false\n").unwrap();
    for package in ["numpy", "torch", "torchcts"] {
        std::fs::create_dir_all(site.join(package)).unwrap();
    }
    std::fs::write(dir.join("helpers.py"), "X = 1\n").unwrap();
    let manifest = dir.join("manifest.py");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let check = |first_line: &str| {
        std::fs::write(&manifest, format!("{first_line}\n{text}")).unwrap();
        run_in_clean_env(&["check", &manifest.to_string_lossy()])
    };
    let o = check("import orch");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).trim_end(), "Failed to parse manifest: No module named 'orch'");
    let o = check("from orch.sub import x");
    assert_eq!(stderr(&o).trim_end(), "Failed to parse manifest: No module named 'orch'");
    for known in ["import numpy", "import helpers", "import tomllib", "import distutils"] {
        let o = check(known);
        assert!(!stderr(&o).contains("No module named"), "{known}: {}", stderr(&o));
    }
    // A `.pth` that runs code may make any module importable: nothing is claimed.
    std::fs::write(
        site.join("__editable__.orch.pth"),
        "import __editable___orch_finder; __editable___orch_finder.install()\n",
    )
    .unwrap();
    let o = check("import orch");
    assert!(!stderr(&o).contains("No module named"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn analyze_without_file_reads_manifest_py_as_check_does() {
    let dir = std::env::temp_dir().join(format!("torchcts-cli-default-file-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let in_dir =
        |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_torchcts-lsp")).args(args).current_dir(&dir).output().unwrap();
    // No manifest.py: the same "not found" as check, exit 1 (an unreadable file), not a usage error.
    let (analyze, check) = (in_dir(&["analyze"]), in_dir(&["check"]));
    assert_eq!(analyze.status.code(), Some(1), "{}", stderr(&analyze));
    assert_eq!(check.status.code(), Some(1));
    assert!(stderr(&analyze).contains("manifest.py"), "{}", stderr(&analyze));
    std::fs::copy(corpus("real_privateuse1"), dir.join("manifest.py")).unwrap();
    let (default, named) = (in_dir(&["analyze"]), in_dir(&["analyze", "manifest.py"]));
    assert_eq!(default.status.code(), named.status.code());
    assert_eq!(stdout(&default), stdout(&named));
    assert!(!stdout(&default).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn analyze_names_the_regex_python_only_where_it_can_change_an_answer() {
    // The example has no regex: nothing to say about which Python judged them.
    let o = run(&["analyze", &format!("{}/examples/manifest.py", root().display())]);
    assert!(!stdout(&o).contains("regexes checked as"), "{}", stdout(&o));
}
