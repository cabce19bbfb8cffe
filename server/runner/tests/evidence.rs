//! The evidence index on the artifacts of real torchcts 0.4.1 runs
//! (`tests/fixtures/runs/artifacts/`, see `tools/runs/README.md`), laid out in results
//! folders as `torchcts run` lays them out, and on broken ones made from them.
//!
//! What the fixtures hold (decoded by hand with torchcts's compact rules):
//! - `focused`: a completed session (`session_completed` true, `timestamp`
//!   2026-11-30T16:24:12.093778Z, torch 2.12.1+cu130, hardware `cpu_vm_23gb`, device `cpu`,
//!   selection label "requested <= 2"): `_latest.json` is a reference to
//!   `cpu_vm_23gb_history/2026-11-30T16-24-12Z.json`, whose `results` are `add` PASS
//!   (last_tested 2026-11-30T16:24:12.015060Z) and `sub` ERROR ("All sample inputs for sub
//!   failed before comparison. ..."); the backward test is only in `skips` (filtered).
//! - `crash`: a later run of `add` and `sub` that segfaulted in `sub`: a plain
//!   `_latest.json` with `session_completed` false, `timestamp` 2026-11-30T16:24:21.657267Z,
//!   one result, `add` PASS (last_tested 2026-11-30T16:24:21.657212Z).

mod support;
use support::Scratch;

use std::path::{Path, PathBuf};

use runner::evidence::{EvidenceIndex, EvidenceStatus, Limits};
use serde_json::Value;

const ADD: &str = "opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]";
const SUB: &str = "opinfo/test_opinfo_forward.py::test_op_forward[clean-sub-torch.float32]";
const BACKWARD: &str = "opinfo/test_opinfo_backward.py::test_op_backward[add-torch.float32]";
const HISTORY: &str = "cpu_vm_23gb_history/2026-11-30T16-24-12Z.json";
const LATEST: &str = "cpu_vm_23gb_latest.json";

fn artifacts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/runs/artifacts")
}

/// A scratch folder for the test, removed when it ends (`support::Scratch`).
fn workdir(name: &str) -> Scratch {
    Scratch::new("torchcts-evidence", name, "")
}

fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(artifacts().join(from), to).unwrap();
}

/// The focused run's results folder as torchcts left it.
fn completed_run(results: &Path) {
    copy(&format!("focused/results/{LATEST}"), &results.join(LATEST));
    copy(&format!("focused/results/{HISTORY}"), &results.join(HISTORY));
    copy("focused/results/cpu_vm_23gb_report.md", &results.join("cpu_vm_23gb_report.md"));
}

fn read(folders: &[PathBuf], device: &str) -> EvidenceIndex {
    EvidenceIndex::read(folders, device, Limits::default())
}

#[test]
fn a_completed_real_run_is_evidence_for_its_tests() {
    let scratch = workdir("completed");
    let results = scratch.join("results");
    completed_run(&results);
    let index = read(std::slice::from_ref(&results), "cpu");
    assert_eq!(index.problems(), &[]);
    // The reference and the history file it names are one run.
    assert_eq!(index.runs().len(), 1);
    let run = &index.runs()[0];
    assert_eq!(run.path, results.join(HISTORY));
    assert_eq!(run.timestamp.as_deref(), Some("2026-11-30T16:24:12.093778Z"));
    assert_eq!(run.torch_version.as_deref(), Some("2.12.1+cu130"));
    assert_eq!(run.hardware_key.as_deref(), Some("cpu_vm_23gb"));
    assert_eq!(run.device_name.as_deref(), Some("cpu"));
    assert!(run.session_completed && !run.partial);
    assert_eq!(run.tests, 2);
    let selection = run.semantic_level_selection.as_ref().unwrap();
    assert_eq!(selection["label"], "requested <= 2");
    assert_eq!(selection["max_level"], 2);

    let add = index.record(ADD).unwrap();
    assert_eq!(add.status, EvidenceStatus::Passed);
    assert_eq!(add.error, None);
    assert_eq!(add.tested_at.as_deref(), Some("2026-11-30T16:24:12.015060Z"));
    assert_eq!((add.op.as_deref(), add.dtype.as_deref()), (Some("add"), Some("torch.float32")));
    let sub = index.record(SUB).unwrap();
    assert_eq!(sub.status, EvidenceStatus::Error);
    // The first line only; the traceback follows on the next lines.
    let error = sub.error.as_deref().unwrap();
    assert!(error.starts_with("All sample inputs for sub failed before comparison."), "{error}");
    assert!(!error.contains('\n') && !error.contains("File \""), "{error}");
    assert_eq!(sub.run.path, results.join(HISTORY));
    // Filtered at collection (`skips`): no run outcome.
    assert!(index.record(BACKWARD).is_none());
    assert_eq!(index.records().count(), 2);

    // Another device: the cpu run is no evidence.
    let cuda = read(&[results], "cuda");
    assert!(cuda.runs().is_empty() && cuda.record(ADD).is_none() && cuda.problems().is_empty());
    // ... but it is said: one run on cpu (the reference and its history file are one run).
    assert_eq!(cuda.other_devices(), &std::collections::BTreeMap::from([("cpu".to_string(), 1)]));
    assert!(index.other_devices().is_empty());
}

#[test]
fn a_narrow_partial_run_updates_only_the_tests_it_reached() {
    // The crash run came after the focused one: its plain `_latest.json` replaced the
    // reference, the focused run stays in the history. It reached `add` only.
    let scratch = workdir("partial");
    let results = scratch.join("results");
    completed_run(&results);
    copy(&format!("crash/results/{LATEST}"), &results.join(LATEST));
    let index = read(std::slice::from_ref(&results), "cpu");
    assert_eq!(index.problems(), &[]);
    let runs = index.runs();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].path, results.join(LATEST));
    assert!(runs[0].partial && !runs[0].session_completed);
    assert_eq!(runs[0].timestamp.as_deref(), Some("2026-11-30T16:24:21.657267Z"));
    assert_eq!(runs[1].path, results.join(HISTORY));
    assert!(!runs[1].partial);

    let add = index.record(ADD).unwrap();
    assert_eq!(add.status, EvidenceStatus::Passed);
    assert!(add.run.partial);
    assert_eq!(add.tested_at.as_deref(), Some("2026-11-30T16:24:21.657212Z"));
    // Not reached by the crash run: the completed run's record stands.
    let sub = index.record(SUB).unwrap();
    assert_eq!(sub.status, EvidenceStatus::Error);
    assert!(!sub.run.partial);
    assert_eq!(sub.run.path, results.join(HISTORY));
}

#[test]
fn node_ids_under_different_pytest_roots_are_the_same_test() {
    // Folder A: the focused run (rootdir = the torchcts package). Folder B: the crash run as
    // if pytest's rootdir had been the venv (node ids under `lib/.../site-packages/torchcts/`).
    let dir = workdir("roots");
    let a = dir.join("a");
    completed_run(&a);
    let mut crash: Value =
        serde_json::from_str(&std::fs::read_to_string(artifacts().join("crash/results").join(LATEST)).unwrap())
            .unwrap();
    let results = crash["results"].as_object_mut().unwrap();
    let renamed: serde_json::Map<String, Value> = std::mem::take(results)
        .into_iter()
        .map(|(k, v)| (format!("lib/python3.11/site-packages/torchcts/{k}"), v))
        .collect();
    *results = renamed;
    let b = dir.join("b");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(b.join(LATEST), serde_json::to_string(&crash).unwrap()).unwrap();

    let index = read(&[a.clone(), b.clone()], "cpu");
    assert_eq!(index.problems(), &[]);
    assert_eq!(index.runs().len(), 2);
    // Two tests, not three: `add` of both roots is one test, the newer (crash) record wins.
    assert_eq!(index.records().count(), 2);
    for query in [ADD.to_string(), format!("torchcts/{ADD}"), format!("/abs/site-packages/torchcts/{ADD}")] {
        let add = index.record(&query).unwrap();
        assert_eq!(add.run.path, b.join(LATEST), "{query}");
        assert_eq!(add.node_id, format!("lib/python3.11/site-packages/torchcts/{ADD}"));
    }
    assert_eq!(index.record(&format!("torchcts/{SUB}")).unwrap().run.path, a.join(HISTORY));
}

#[test]
fn a_truncated_artifact_is_one_problem() {
    let scratch = workdir("truncated");
    let results = scratch.join("results");
    completed_run(&results);
    let history = results.join(HISTORY);
    let bytes = std::fs::read(&history).unwrap();
    std::fs::write(&history, &bytes[..bytes.len() / 2]).unwrap();
    let index = read(std::slice::from_ref(&results), "cpu");
    // Listed once as a history file and once as the `_latest.json` reference's target: one
    // problem, on the history file.
    assert_eq!(index.problems().len(), 1, "{:?}", index.problems());
    assert_eq!(index.problems()[0].path, history);
    assert!(index.problems()[0].message.contains("invalid result JSON"), "{:?}", index.problems());
    assert!(index.runs().is_empty() && index.record(ADD).is_none());
}

#[test]
fn a_reference_loop_is_one_problem() {
    let scratch = workdir("loop");
    let results = scratch.join("results");
    let reference = |artifact: &str| {
        format!(r#"{{"artifact":"{artifact}","format":"torchcts_result_reference","format_version":1}}"#)
    };
    std::fs::create_dir_all(results.join("cpu_history")).unwrap();
    std::fs::write(results.join("cpu_latest.json"), reference("cpu_history/a.json")).unwrap();
    std::fs::write(results.join("cpu_history/a.json"), reference("b.json")).unwrap();
    std::fs::write(results.join("cpu_history/b.json"), reference("a.json")).unwrap();
    // A file that names itself.
    std::fs::write(results.join("self_latest.json"), reference("self_latest.json")).unwrap();
    let index = read(std::slice::from_ref(&results), "cpu");
    let problems = index.problems();
    // a -> b -> a, reached from three listed files, and self -> self.
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems
        .iter()
        .any(|p| p.message == "result reference loop: a.json -> b.json -> a.json"
            && p.path.ends_with("cpu_history/a.json")));
    assert!(problems.iter().any(|p| p.message == "result reference loop: self_latest.json -> self_latest.json"));
    assert!(index.runs().is_empty());
}

#[test]
fn foreign_files_are_problems_and_the_real_run_still_counts() {
    let scratch = workdir("foreign");
    let results = scratch.join("results");
    completed_run(&results);
    std::fs::write(results.join("notes_latest.json"), r#"{"hello": "world"}"#).unwrap();
    std::fs::write(results.join("cpu_vm_23gb_history/zz.json"), "[1, 2]").unwrap();
    std::fs::write(results.join("other.json"), "not even JSON").unwrap(); // not a torchcts name: not read
    let index = read(std::slice::from_ref(&results), "cpu");
    let mut paths: Vec<_> = index.problems().iter().map(|p| p.path.clone()).collect();
    paths.sort();
    assert_eq!(paths, [results.join("cpu_vm_23gb_history/zz.json"), results.join("notes_latest.json")]);
    assert!(index.problems().iter().all(|p| p.message.starts_with("not a torchcts result artifact")));
    assert_eq!(index.runs().len(), 1);
    assert_eq!(index.record(SUB).unwrap().status, EvidenceStatus::Error);
}

#[test]
fn the_history_is_read_newest_first_within_the_limits() {
    let scratch = workdir("limits");
    let results = scratch.join("results");
    completed_run(&results);
    // An older history file (by its name, the run's time), corrupt: beyond the bound it is
    // never read, so it is no problem either.
    std::fs::write(results.join("cpu_vm_23gb_history/2020-01-01T00-00-00Z.json"), "{").unwrap();
    let limits = Limits { max_history_files: 1, ..Limits::default() };
    let index = EvidenceIndex::read(std::slice::from_ref(&results), "cpu", limits);
    assert_eq!(index.omitted(), 1);
    assert_eq!(index.problems(), &[]);
    assert_eq!(index.record(ADD).unwrap().status, EvidenceStatus::Passed);

    // The history file is 7396 bytes, `_latest.json` 117: with a 1000-byte bound the
    // reference is read, its target is a problem.
    let limits = Limits { max_history_files: 8, max_file_bytes: 1000, ..Limits::default() };
    let index = EvidenceIndex::read(std::slice::from_ref(&results), "cpu", limits);
    let big: Vec<_> = index.problems().iter().filter(|p| p.path == results.join(HISTORY)).collect();
    assert_eq!(big.len(), 1, "{:?}", index.problems());
    assert!(big[0].message.contains("more than the limit of 1000"), "{:?}", big[0]);
    assert!(index.record(ADD).is_none());
}

#[test]
fn refresh_reads_only_what_changed() {
    let scratch = workdir("refresh");
    let results = scratch.join("results");
    completed_run(&results);
    let mut index = read(std::slice::from_ref(&results), "cpu");
    // The history file, then `_latest.json` (whose target is reused, not parsed again).
    assert_eq!(index.files_read(), 2);
    assert_eq!(index.refresh(), 0);
    assert!(!index.record(ADD).unwrap().run.partial);

    // A new run starts and is cut short: `_latest.json` becomes the crash run's plain file.
    copy(&format!("crash/results/{LATEST}"), &results.join(LATEST));
    assert_eq!(index.refresh(), 1);
    assert!(index.record(ADD).unwrap().run.partial);
    assert!(!index.record(SUB).unwrap().run.partial);
    assert_eq!(index.refresh(), 0);

    // A file goes bad, then away: its problem comes and goes with it.
    std::fs::write(results.join("x_latest.json"), "{\"trunc").unwrap();
    assert_eq!(index.refresh(), 1);
    assert_eq!(index.problems().len(), 1);
    assert_eq!(index.refresh(), 0);
    assert_eq!(index.problems().len(), 1, "reported once, not once per refresh");
    std::fs::remove_file(results.join("x_latest.json")).unwrap();
    assert_eq!(index.refresh(), 0);
    assert_eq!(index.problems(), &[]);
    assert_eq!(index.runs().len(), 2);
}

#[test]
fn a_long_reference_chain_stops_at_torchcts_depth() {
    // torchcts follows at most 8 references (`MAX_REFERENCE_DEPTH` in results.rs); a chain
    // of 20 is one problem after 9 files, not 20 reads.
    let scratch = workdir("chain");
    let results = scratch.join("results");
    std::fs::create_dir_all(results.join("cpu_history")).unwrap();
    let reference = |artifact: &str| {
        format!(r#"{{"artifact":"{artifact}","format":"torchcts_result_reference","format_version":1}}"#)
    };
    std::fs::write(results.join("cpu_latest.json"), reference("cpu_history/0.json")).unwrap();
    for i in 0..20 {
        std::fs::write(results.join(format!("cpu_history/{i}.json")), reference(&format!("{}.json", i + 1))).unwrap();
    }
    let limits = Limits { max_history_files: 0, ..Limits::default() };
    let index = EvidenceIndex::read(std::slice::from_ref(&results), "cpu", limits);
    assert_eq!(index.omitted(), 20);
    assert_eq!(index.files_read(), 9);
    assert_eq!(index.problems().len(), 1, "{:?}", index.problems());
    assert!(index.problems()[0].message.contains("depth exceeds 8"), "{:?}", index.problems());
}

#[test]
fn a_folder_given_twice_is_read_once() {
    let dir = workdir("twice");
    let results = dir.join("results");
    completed_run(&results);
    std::os::unix::fs::symlink(&results, dir.join("link")).unwrap();
    let index = read(&[results.clone(), dir.join("link"), results.clone()], "cpu");
    assert_eq!(index.problems(), &[]);
    assert_eq!(index.runs().len(), 1);
    assert_eq!(index.records().count(), 2);
}

/// Records per status of an artifact as torchcts wrote it (its `results` map, after the
/// reference and the compact format are undone).
fn artifact_counts(path: &Path) -> std::collections::BTreeMap<String, usize> {
    let (payload, _) = runner::decode_artifact(path).unwrap();
    let mut counts = std::collections::BTreeMap::new();
    for record in payload["results"].as_object().unwrap().values() {
        *counts.entry(record["status"].as_str().unwrap().to_string()).or_default() += 1;
    }
    counts
}

fn index_counts(index: &EvidenceIndex) -> std::collections::BTreeMap<String, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for (_, evidence) in index.records() {
        let status = evidence.status.torchcts_status();
        *counts.entry(status.to_string()).or_default() += 1;
    }
    counts
}

fn copy_results(fixture: &str, to: &Path) {
    let from = artifacts().join(fixture).join("results");
    for entry in walk(&from) {
        copy(
            &format!("{fixture}/results/{}", entry.strip_prefix(&from).unwrap().display()),
            &to.join(entry.strip_prefix(&from).unwrap()),
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_real_run_stopped_midway_is_partial_evidence_for_the_tests_it_reached() {
    // `killed`: add, cos, sub, exp with a backend whose sub hangs, stopped by SIGTERM to the
    // group after two results: a plain `_latest.json`, session_completed false.
    let scratch = workdir("killed");
    let results = scratch.join("results");
    copy_results("killed", &results);
    let index = read(std::slice::from_ref(&results), "cpu");
    assert_eq!(index.problems(), &[]);
    assert_eq!(index.runs().len(), 1);
    assert!(index.runs()[0].partial && !index.runs()[0].session_completed);
    assert_eq!(index.runs()[0].tests, 2);
    assert_eq!(index_counts(&index), artifact_counts(&results.join(LATEST)));
    assert_eq!(index_counts(&index)["PASS"], 2);
    assert!(index.record(ADD).unwrap().run.partial);
    assert!(index.record(SUB).is_none(), "sub hung: no record");
}

#[test]
fn a_completed_run_with_workers_is_evidence_like_any_other() {
    // `workers`: `-n 2`, a backend whose sub segfaults: xdist replaced the worker and the
    // session completed; torchcts recorded add and cos (the crashed test has no record).
    let scratch = workdir("workers");
    let results = scratch.join("results");
    copy_results("workers", &results);
    let index = read(std::slice::from_ref(&results), "cpu");
    assert_eq!(index.problems(), &[]);
    assert_eq!(index.runs().len(), 1);
    assert!(!index.runs()[0].partial);
    assert_eq!(index_counts(&index), artifact_counts(&results.join(LATEST)));
    assert_eq!(index.records().count(), 2);
    assert!(index.record(SUB).is_none());
}

#[test]
fn per_worker_files_of_a_stopped_parallel_run_are_partial_runs() {
    // `workers_killed`: `-n 2` stopped with one worker hung in sub: only
    // `cpu_vm_23gb_latest.gw0.json` (add and cos), beside an older completed run.
    let scratch = workdir("workers-killed");
    let results = scratch.join("results");
    completed_run(&results);
    copy_results("workers_killed", &results);
    let worker_file = results.join("cpu_vm_23gb_latest.gw0.json");
    let index = read(std::slice::from_ref(&results), "cpu");
    assert_eq!(index.problems(), &[]);
    assert_eq!(index.runs().len(), 2);
    assert_eq!(index.runs()[0].path, worker_file, "the newest run");
    assert!(index.runs()[0].partial);
    let add = index.record(ADD).unwrap();
    assert_eq!((add.status, add.run.path.clone()), (EvidenceStatus::Passed, worker_file.clone()));
    // Not reached by the stopped run: the completed run's record stands.
    assert_eq!(index.record(SUB).unwrap().run.path, results.join(HISTORY));
    let mut expected = artifact_counts(&worker_file);
    *expected.entry("ERROR".into()).or_default() += 1; // sub, from the completed run
    assert_eq!(index_counts(&index), expected);
}

#[test]
fn a_reference_outside_the_folder_is_one_problem() {
    let dir = workdir("outside");
    let results = dir.join("results");
    completed_run(&results);
    // A real run's history file just outside the results folder, named three ways.
    copy(&format!("focused/results/{HISTORY}"), &dir.join("elsewhere.json"));
    let reference = |artifact: &str| {
        format!(r#"{{"artifact":{artifact:?},"format":"torchcts_result_reference","format_version":1}}"#)
    };
    std::fs::write(results.join("a_latest.json"), reference("../elsewhere.json")).unwrap();
    std::fs::write(results.join("b_latest.json"), reference(&dir.join("elsewhere.json").to_string_lossy())).unwrap();
    std::fs::write(results.join("c_latest.json"), reference("cpu_vm_23gb_history/../../elsewhere.json")).unwrap();
    let index = read(std::slice::from_ref(&results), "cpu");
    let problems = index.problems();
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems.iter().all(|p| p.message.contains("escapes its directory")), "{problems:?}");
    // The real run in the folder still counts, once.
    assert_eq!(index.runs().len(), 1);
    assert_eq!(index.runs()[0].path, results.join(HISTORY));
}

#[test]
fn a_huge_file_is_skipped_unread_with_one_problem() {
    let scratch = workdir("huge");
    let results = scratch.join("results");
    completed_run(&results);
    // 4 GiB, sparse: costs no disk, and would cost minutes and gigabytes if it were read.
    let huge = results.join("big_latest.json");
    std::fs::File::create(&huge).unwrap().set_len(4 << 30).unwrap();
    let mut index = read(std::slice::from_ref(&results), "cpu");
    assert_eq!(index.problems().len(), 1, "{:?}", index.problems());
    assert_eq!(index.problems()[0].path, huge);
    assert!(index.problems()[0].message.contains("more than the limit"), "{:?}", index.problems());
    assert_eq!(index.files_read(), 2, "the history file and the reference; not the huge one");
    assert_eq!(index.refresh(), 0);
    assert_eq!(index.problems().len(), 1, "reported once");
    assert_eq!(index.records().count(), 2);
}
