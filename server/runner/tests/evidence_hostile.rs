//! Results folders that are hostile, huge or written by torchcts itself (issue 35): the
//! index never waits on a FIFO or a device, reads torchcts's own JSON (`NaN`, `1e999`,
//! `-0`, `format_version` `1.0`, an `artifact` ending in `/`), names damage with its file
//! instead of miscounting, and says each bound it reaches. Every read runs under a time-out
//! in a thread: a hang fails the test instead of freezing the suite.

mod support;
use support::Scratch;

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use runner::evidence::{EvidenceIndex, EvidenceStatus, Limits};

/// A `results` folder for the test, removed with its scratch folder when the test ends.
fn workdir(name: &str) -> Scratch {
    Scratch::new("torchcts-evidence-hostile", name, "results")
}

/// Reads under a time-out: a read that waits on a FIFO or a device never returns.
fn read_within(results: &Path, limits: Limits, now: SystemTime) -> EvidenceIndex {
    let (send, receive) = mpsc::channel();
    let folder = results.to_path_buf();
    std::thread::spawn(move || {
        let _ = send.send(EvidenceIndex::read_at(&[folder], "cpu", limits, now));
    });
    receive.recv_timeout(Duration::from_secs(60)).expect("the read hung (waiting on a FIFO or a device?)")
}

fn read(results: &Path) -> EvidenceIndex {
    read_within(results, Limits::default(), clock_2026())
}

/// 2026-12-01T00:00:00Z.
fn clock_2026() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200)
}

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
}

const METADATA: &str = r#"{"timestamp":"2026-11-30T16:24:12.093778Z","pytorch_version":"2.12.1","hardware_key":"cpu_vm_23gb","device_name":"cpu","session_completed":true}"#;

fn plain(results: &str) -> String {
    format!(r#"{{"metadata":{METADATA},"results":{{{results}}},"skips":{{}}}}"#)
}

fn messages(index: &EvidenceIndex) -> Vec<String> {
    index
        .problems()
        .iter()
        .map(|p| format!("{}: {}", p.path.file_name().unwrap().to_string_lossy(), p.message))
        .collect()
}

#[test]
fn a_fifo_reached_through_a_latest_reference_is_a_named_problem() {
    let results = workdir("fifo");
    std::fs::create_dir_all(results.join("cpu_vm_23gb_history")).unwrap();
    mkfifo(&results.join("cpu_vm_23gb_history/2026-11-30T16-24-12Z.json"));
    // Outside the history folder too, so that only the reference leads to it.
    mkfifo(&results.join("pipe.json"));
    std::fs::write(
        results.join("cpu_vm_23gb_latest.json"),
        r#"{"format":"torchcts_result_reference","format_version":1,"artifact":"pipe.json"}"#,
    )
    .unwrap();
    let index = read(&results);
    let messages = messages(&index);
    assert!(messages.iter().any(|m| m.starts_with("pipe.json: not read: a FIFO")), "{messages:?}");
    assert!(messages.iter().any(|m| m.starts_with("2026-11-30T16-24-12Z.json: not read: a FIFO")), "{messages:?}");
    assert_eq!(index.runs().len(), 0);
}

#[test]
fn a_symlink_to_dev_stdin_under_results_is_a_named_problem() {
    let results = workdir("stdin");
    std::os::unix::fs::symlink("/dev/stdin", results.join("cpu_vm_23gb_latest.json")).unwrap();
    std::fs::create_dir_all(results.join("gpu_history")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", results.join("gpu_history/2026-11-30T16-24-12Z.json")).unwrap();
    let index = read(&results);
    let messages = messages(&index);
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[1].starts_with("cpu_vm_23gb_latest.json: not read: "), "{messages:?}");
    for m in &messages {
        assert!(m.contains(": not read: "), "{m}");
    }
}

#[test]
fn what_python_json_reads_is_read_nan_infinity_big_exponents_and_minus_zero() {
    let results = workdir("nan");
    let records = r#""a.py::t[0]":{"status":"FAIL","cosim":NaN,"maxerr":Infinity,"min":-Infinity,"big":1e999,"zero":-0,"error_message":"mismatch"},
        "a.py::t[1]":{"status":"PASS","cosim":1.0},"a.py::t[2]":{"status":"PASS","n":123456789012345678901234567890}"#;
    std::fs::write(results.join("cpu_vm_23gb_latest.json"), plain(records)).unwrap();
    let index = read(&results);
    assert_eq!(index.problems(), &[]);
    assert_eq!(index.runs()[0].tests, 3);
    assert_eq!(index.record("a.py::t[0]").unwrap().status, EvidenceStatus::Failed);
    assert_eq!(index.record("a.py::t[0]").unwrap().error.as_deref(), Some("mismatch"));
    assert_eq!(index.records().count(), 3);
}

#[test]
fn a_process_crash_and_a_known_backend_crash_are_errors_told_apart() {
    // torchcts records all four as `ERROR` (conftest.py: an isolated child killed by a signal
    // is `ProcessCrash`, one that failed otherwise `SubprocessFailure`; a known-segfault ledger
    // entry's record without execution has `failure_stage` `known_backend_crash`).
    let results = workdir("crash-kinds");
    let records = r#""a::crash":{"status":"ERROR","error_type":"ProcessCrash","failure_stage":"process_crash"},
        "a::known":{"status":"ERROR","phase":"known_segfault","failure_stage":"known_backend_crash"},
        "a::raised":{"status":"ERROR","error_type":"RuntimeError","failure_stage":"pytest_call"},
        "a::child":{"status":"ERROR","error_type":"SubprocessFailure"},
        "a::typed":{"status":"FAIL","error_type":"ProcessCrash"}"#;
    std::fs::write(results.join("cpu_vm_23gb_latest.json"), plain(records)).unwrap();
    let index = read(&results);
    assert_eq!(index.problems(), &[]);
    let status = |id: &str| index.record(id).unwrap().status;
    assert_eq!(status("a::crash"), EvidenceStatus::Crashed);
    assert_eq!(status("a::known"), EvidenceStatus::KnownCrash);
    assert_eq!(status("a::raised"), EvidenceStatus::Error);
    assert_eq!(status("a::child"), EvidenceStatus::Error);
    // Only an ERROR is a crash: the status decides first.
    assert_eq!(status("a::typed"), EvidenceStatus::Failed);
}

#[test]
fn statuses_of_the_wrong_type_are_left_out_and_named_not_counted_as_errors() {
    let results = workdir("status");
    let records = r#""a::ok":{"status":"PASS"},"a::null":{"status":null},"a::number":{"status":1},
        "a::list":{"status":["PASS"]},"a::word":{"status":"Passed"},"a::none":{},"a::string":"PASS","a::err":{"status":"ERROR"}"#;
    std::fs::write(results.join("cpu_vm_23gb_latest.json"), plain(records)).unwrap();
    let index = read(&results);
    // Two records; six entries that are not records, named with their file.
    assert_eq!(index.runs()[0].tests, 2);
    assert_eq!(index.records().count(), 2);
    assert_eq!(index.record("a::err").unwrap().status, EvidenceStatus::Error);
    assert!(index.record("a::null").is_none());
    assert_eq!(
        messages(&index),
        ["cpu_vm_23gb_latest.json: 6 entries of `results` left out, not records (an unknown status: 1, no status: 1, \
          not an object: 1, status a list: 1, status an integer: 1, status null: 1)"]
    );
}

#[test]
fn a_record_dated_in_the_future_is_dated_by_its_run_and_said() {
    let results = workdir("future");
    let records = r#""a::t":{"status":"PASS","last_tested":"2999-01-01T00:00:00Z"}"#;
    std::fs::write(results.join("cpu_vm_23gb_latest.json"), plain(records)).unwrap();
    let index = read(&results);
    assert_eq!(index.record("a::t").unwrap().tested_at.as_deref(), Some("2026-11-30T16:24:12.093778Z"));
    assert_eq!(
        messages(&index),
        ["cpu_vm_23gb_latest.json: 1 records dated after the clock (2026-12-01T00:00:00): dated by their run instead"]
    );
    // A run dated in the future has no date.
    let future_run = plain(r#""a::t":{"status":"PASS"}"#).replace("2026-11-30T16:24:12", "2999-11-30T16:24:12");
    std::fs::write(results.join("cpu_vm_23gb_latest.json"), future_run).unwrap();
    let index = read(&results);
    assert_eq!(index.runs()[0].timestamp, None);
    assert_eq!(index.record("a::t").unwrap().tested_at, None);
    assert!(messages(&index)[0].contains("the run is dated after the clock"), "{:?}", messages(&index));
}

#[test]
fn compact_variants_torchcts_accepts_are_read() {
    let results = workdir("compact");
    // format_version 1.0, a string index written -0, a reference version `1.0` naming its
    // artifact with a trailing `/` and a `./`.
    let compact = format!(
        r#"{{"format":"torchcts_compact_results","format_version":1.0,"key_table":["status","results"],
        "payload":{{"metadata":{METADATA},"1":{{"a::t":{{"0":{{"$":-0}}}},"a::u":{{"~status":"FAIL"}}}}}},"string_table":["PASS"]}}"#
    );
    std::fs::create_dir_all(results.join("cpu_vm_23gb_history")).unwrap();
    std::fs::write(results.join("cpu_vm_23gb_history/2026-11-30T16-24-12Z.json"), compact).unwrap();
    std::fs::write(
        results.join("cpu_vm_23gb_latest.json"),
        r#"{"format":"torchcts_result_reference","format_version":1.0,"artifact":"./cpu_vm_23gb_history/2026-11-30T16-24-12Z.json/"}"#,
    )
    .unwrap();
    let index = read(&results);
    assert_eq!(index.problems(), &[]);
    assert_eq!(index.runs().len(), 1);
    assert_eq!(index.runs()[0].tests, 2);
    assert_eq!(index.record("a::t").unwrap().status, EvidenceStatus::Passed);
    assert_eq!(index.record("a::u").unwrap().status, EvidenceStatus::Failed);
}

/// A compact file's payload is read once, its string table taken from the file's end
/// (torchcts writes it last); a file whose end only looks like the table is still read as the
/// loader reads it: the table the file gives wins.
#[test]
fn a_string_table_guessed_from_the_end_never_decides_alone() {
    let results = workdir("guess");
    let compact = |tables: &str, reference: usize| {
        format!(
            r#"{{"format":"torchcts_compact_results","format_version":1,"key_table":["status"],"payload":{{"metadata":{METADATA},"results":{{"a::t":{{"0":{{"$":{reference}}}}}}}}},{tables}}}"#
        )
    };
    let status = |text: String| {
        std::fs::write(results.join("cpu_vm_23gb_latest.json"), text).unwrap();
        let index = read(&results);
        assert_eq!(index.problems(), &[], "{:?}", messages(&index));
        index.record("a::t").unwrap().status
    };
    // As torchcts writes it.
    assert_eq!(status(compact(r#""string_table":["PASS","FAIL"]"#, 1)), EvidenceStatus::Failed);
    // A last key whose name ends in `"string_table` (an escaped quote): the end looks like
    // another table, which would make the record passed.
    assert_eq!(
        status(compact(r#""string_table":["FAIL","PASS"],"q\"string_table":["PASS"]"#, 0)),
        EvidenceStatus::Failed
    );
    // The look-alike is too short for the reference: the payload is read again.
    assert_eq!(
        status(compact(r#""string_table":["PASS","FAIL"],"q\"string_table":["PASS"]"#, 1)),
        EvidenceStatus::Failed
    );
    // The table before the payload, and given twice (the last counts).
    let early = format!(
        r#"{{"string_table":["PASS"],"format":"torchcts_compact_results","format_version":1,"key_table":["status"],"string_table":["FAIL"],"payload":{{"metadata":{METADATA},"results":{{"a::t":{{"0":{{"$":0}}}}}}}}}}"#
    );
    assert_eq!(status(early), EvidenceStatus::Failed);
}

#[test]
fn each_bound_reached_is_said_once() {
    let results = workdir("bounds");
    let records: Vec<String> = (0..10).map(|i| format!(r#""a::t{i}":{{"status":"PASS"}}"#)).collect();
    std::fs::write(results.join("cpu_vm_23gb_latest.json"), plain(&records.join(","))).unwrap();
    let limits = Limits { max_records: 4, ..Limits::default() };
    let index = read_within(&results, limits, clock_2026());
    assert_eq!(index.records().count(), 4);
    assert_eq!(index.runs()[0].tests, 10);
    assert_eq!(messages(&index), ["cpu_vm_23gb_latest.json: 6 records not kept: at most 4 are kept per file"]);

    // A refresh reads at most its byte budget; the next refresh reads the rest.
    std::fs::write(results.join("gpu_latest.json"), plain(&records.join(","))).unwrap();
    let size = std::fs::metadata(results.join("gpu_latest.json")).unwrap().len();
    let limits = Limits { max_refresh_bytes: size + 10, ..Limits::default() };
    let mut index = read_within(&results, limits, clock_2026());
    assert_eq!(index.files_read(), 1);
    assert!(
        messages(&index).iter().any(|m| m
            == "results: 1 results files not read yet: one refresh reads at most \
        1910 bytes"
            || m.starts_with("results: 1 results files not read yet")),
        "{:?}",
        messages(&index)
    );
    index.refresh_at(clock_2026());
    assert_eq!(index.files_read(), 2);
    assert!(messages(&index).is_empty(), "{:?}", messages(&index));
}

#[test]
fn a_new_history_file_costs_that_file_and_a_finished_run_no_rebuild() {
    let results = workdir("incremental");
    let history = results.join("cpu_vm_23gb_history");
    std::fs::create_dir_all(&history).unwrap();
    for k in 0..5 {
        let run = plain(&format!(r#""a::t{k}":{{"status":"PASS"}},"a::all":{{"status":"FAIL"}}"#))
            .replace("16:24:12", &format!("16:24:1{k}"));
        std::fs::write(history.join(format!("2026-11-30T16-24-1{k}Z.json")), run).unwrap();
    }
    let mut index = read(&results);
    assert_eq!(index.files_read(), 5);
    // Nothing changed: the same version (what the server's lenses are kept under).
    let version = index.version();
    assert_eq!(index.refresh_at(clock_2026()), 0);
    assert_eq!(index.version(), version);
    // A run going on: `_latest.json` plain, then a reference to its new history file.
    let running =
        plain(r#""a::all":{"status":"PASS","last_tested":"2026-11-30T16:25:00Z"}"#).replace("16:24:12", "16:25:00");
    std::fs::write(results.join("cpu_vm_23gb_latest.json"), &running).unwrap();
    assert_eq!(index.refresh_at(clock_2026()), 1);
    assert!(index.version() > version);
    assert_eq!(index.record("a::all").unwrap().status, EvidenceStatus::Passed);
    std::fs::write(history.join("2026-11-30T16-25-00Z.json"), &running).unwrap();
    std::fs::write(
        results.join("cpu_vm_23gb_latest.json"),
        r#"{"format":"torchcts_result_reference","format_version":1,"artifact":"cpu_vm_23gb_history/2026-11-30T16-25-00Z.json"}"#,
    )
    .unwrap();
    // The new history file, and the reference (which reuses it): one file parsed, no rebuild.
    assert_eq!(index.refresh_at(clock_2026()), 2);
    assert_eq!(index.files_read(), 8);
    let all = index.record("a::all").unwrap();
    assert_eq!(
        (all.status, all.run.path.parent().unwrap()),
        (EvidenceStatus::Passed, history.as_path()),
        "{:?}",
        index.problems()
    );
    assert_eq!(index.records().count(), 6);
    // A file removed whose records were the newest: the older evidence comes back, read
    // again from the runs that have a record of that test (the five older ones).
    std::fs::remove_file(history.join("2026-11-30T16-25-00Z.json")).unwrap();
    std::fs::remove_file(results.join("cpu_vm_23gb_latest.json")).unwrap();
    assert_eq!(index.refresh_at(clock_2026()), 5);
    assert_eq!(index.record("a::all").unwrap().status, EvidenceStatus::Failed);
    assert_eq!(index.records().count(), 6);
    // The newest left removed: its own test goes, `a::all` comes from the four older runs,
    // and only those (a test no other run has needs no file read).
    std::fs::remove_file(history.join("2026-11-30T16-24-14Z.json")).unwrap();
    let version = index.version();
    assert_eq!(index.refresh_at(clock_2026()), 4);
    assert!(index.version() > version);
    assert!(index.record("a::t4").is_none());
    assert_eq!(index.record("a::all").unwrap().run.timestamp.as_deref(), Some("2026-11-30T16:24:13.093778Z"));
    assert_eq!(index.records().count(), 5);
}
