//! Time and peak memory of the evidence index on a large results folder (issue 26: "a 200 MB
//! results folder with a long `_history`"). Not a test: figures go in `docs/performance.md`.
//!
//!     cargo run --release -p runner --example evidence_bench -- generate DIR [MB]
//!     cargo run --release -p runner --example evidence_bench -- read DIR [MAX_HISTORY_FILES]
//!     cargo run --release -p runner --example evidence_bench -- generate-short DIR
//!     cargo run --release -p runner --example evidence_bench -- generate-history DIR
//!
//! `generate-short` (issue 35): one valid 60 MiB `_latest.json` of about 1.18M short records
//! (`{"status":"PASS"}` under distinct node ids). `generate-history`: a `_history` of 64
//! real-size files (3.7 MB each, the real records repeated: a folder after 64 full runs) and
//! a `_latest.json` reference to the newest.
//!
//! `generate` writes, from the real artifact of `tests/fixtures/runs/artifacts/workers`
//! (torchcts 0.4.1, cpu), a folder of about MB megabytes (default 200): a `_history` of
//! 1000 files of equal size (the real records repeated under other node ids, plain JSON as
//! torchcts writes a run it could not compact), a `_latest.json` reference to the newest, a
//! truncated copy, and one file of 70 MB, over the index's 64 MB bound. `read` is a fresh
//! process (so its peak resident memory is the index's): it reads the folder, refreshes it
//! unchanged, and prints the times, the counts and the peak RSS.

use std::path::{Path, PathBuf};
use std::time::Instant;

use runner::evidence::{EvidenceIndex, Limits};
use serde_json::{json, Map, Value};

const HISTORY_FILES: usize = 1000;
const HARDWARE: &str = "cpu_vm_23gb";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("generate") if args.len() >= 2 => {
            generate(Path::new(&args[1]), args.get(2).and_then(|m| m.parse().ok()).unwrap_or(200))
        }
        Some("generate-short") if args.len() >= 2 => generate_short(Path::new(&args[1])),
        Some("generate-history") if args.len() >= 2 => generate_history(Path::new(&args[1])),
        Some("read") if args.len() >= 2 => read(Path::new(&args[1]), args.get(2).and_then(|m| m.parse().ok())),
        _ => eprintln!("usage: evidence_bench generate DIR [MB] | read DIR [MAX_HISTORY_FILES]"),
    }
}

fn real_payload() -> Value {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/runs/artifacts/workers/results")
        .join(format!("{HARDWARE}_latest.json"));
    runner::decode_artifact(&fixture).expect("the workers fixture").0
}

/// A run payload of `records` results made from the real ones, at `second` of the day.
fn payload(real: &Value, records: usize, index: usize) -> Value {
    let templates: Vec<&Value> = real["results"].as_object().unwrap().values().collect();
    let mut results = Map::new();
    for i in 0..records {
        let mut record = templates[i % templates.len()].clone();
        // A status of each kind, as a long history would have them.
        record["status"] = json!(["PASS", "PASS", "PASS", "FAIL", "ERROR", "SKIP"][(i + index) % 6]);
        results.insert(format!("opinfo/test_opinfo_forward.py::test_op_forward[clean-op{i}-torch.float32]"), record);
    }
    let mut metadata = real["metadata"].clone();
    let name = time_of(index);
    let (date, time) = name.split_once('T').unwrap();
    metadata["timestamp"] = json!(format!("{date}T{}", time.replace('-', ":")));
    metadata["session_completed"] = json!(true);
    json!({"metadata": metadata, "results": results, "skips": {}})
}

/// `2026-11-DDTHH-MM-SSZ`, increasing with `index`.
fn time_of(index: usize) -> String {
    let s = index * 97;
    format!("2026-11-{:02}T{:02}-{:02}-{:02}Z", 1 + s / 86400, s / 3600 % 24, s / 60 % 60, s % 60)
}

fn generate(dir: &Path, megabytes: usize) {
    let real = real_payload();
    let history = dir.join(format!("{HARDWARE}_history"));
    std::fs::create_dir_all(&history).unwrap();
    // Size one record, then fill the budget less the 70 MB file.
    let probe = serde_json::to_vec(&payload(&real, 100, 0)).unwrap().len();
    let budget = megabytes.saturating_sub(70) * 1024 * 1024;
    let per_file = (budget / HISTORY_FILES).max(probe / 100);
    let records = (per_file * 100 / probe).max(1);
    let mut total = 0u64;
    let mut newest = PathBuf::new();
    for index in 0..HISTORY_FILES {
        let path = history.join(format!("{}.json", time_of(index)));
        let bytes = serde_json::to_vec(&payload(&real, records, index)).unwrap();
        total += bytes.len() as u64;
        std::fs::write(&path, bytes).unwrap();
        newest = path;
    }
    let reference = json!({"format": "torchcts_result_reference", "format_version": 1,
        "artifact": format!("{HARDWARE}_history/{}", newest.file_name().unwrap().to_string_lossy())});
    std::fs::write(dir.join(format!("{HARDWARE}_latest.json")), reference.to_string()).unwrap();
    // A truncated artifact, and one over the size bound (real records, 70 MB).
    let newest_bytes = std::fs::read(&newest).unwrap();
    std::fs::write(dir.join("truncated_latest.json"), &newest_bytes[..newest_bytes.len() / 2]).unwrap();
    let big_records = records * 70 * 1024 * 1024 / newest_bytes.len();
    let big = serde_json::to_vec(&payload(&real, big_records, HISTORY_FILES)).unwrap();
    total += (big.len() + newest_bytes.len() / 2) as u64;
    std::fs::write(dir.join("big_latest.json"), big).unwrap();
    println!(
        "generated {}: {HISTORY_FILES} history files of {records} records ({} KB each), {:.1} MB in all",
        dir.display(),
        newest_bytes.len() / 1024,
        total as f64 / 1048576.0
    );
}

fn generate_short(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let real = real_payload();
    let mut text = String::from("{\"metadata\":");
    let mut metadata = real["metadata"].clone();
    metadata["session_completed"] = json!(true);
    text.push_str(&metadata.to_string());
    text.push_str(",\"results\":{");
    let mut i = 0usize;
    while text.len() < 60 * 1024 * 1024 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!("\"opinfo/test_x.py::test[{i}]\":{{\"status\":\"PASS\"}}"));
        i += 1;
    }
    text.push_str("},\"skips\":{}}");
    std::fs::write(dir.join(format!("{HARDWARE}_latest.json")), &text).unwrap();
    println!("generated {}: {i} records, {:.1} MiB", dir.display(), text.len() as f64 / 1048576.0);
}

fn generate_history(dir: &Path) {
    let real = real_payload();
    let history = dir.join(format!("{HARDWARE}_history"));
    std::fs::create_dir_all(&history).unwrap();
    let probe = serde_json::to_vec(&payload(&real, 100, 0)).unwrap().len();
    let records = 3_700_000 * 100 / probe;
    let mut newest = PathBuf::new();
    for index in 0..64 {
        let path = history.join(format!("{}.json", time_of(index)));
        std::fs::write(&path, serde_json::to_vec(&payload(&real, records, index)).unwrap()).unwrap();
        newest = path;
    }
    let reference = json!({"format": "torchcts_result_reference", "format_version": 1,
        "artifact": format!("{HARDWARE}_history/{}", newest.file_name().unwrap().to_string_lossy())});
    std::fs::write(dir.join(format!("{HARDWARE}_latest.json")), reference.to_string()).unwrap();
    println!(
        "generated {}: 64 history files of {records} records, {} bytes each",
        dir.display(),
        std::fs::metadata(&newest).unwrap().len()
    );
}

fn read(dir: &Path, max_history_files: Option<usize>) {
    let mut limits = Limits::default();
    if let Some(n) = max_history_files {
        limits.max_history_files = n;
    }
    let started = Instant::now();
    let mut index = EvidenceIndex::read(&[dir.to_path_buf()], "cpu", limits);
    let read_time = started.elapsed();
    let started = Instant::now();
    let reread = index.refresh();
    let refresh_time = started.elapsed();
    println!("limits: {limits:?}");
    println!(
        "read: {read_time:?} ({} files parsed, {} history files left out), refresh unchanged: {refresh_time:?} ({reread} parsed)",
        index.files_read(),
        index.omitted()
    );
    println!("runs: {}, tests with evidence: {}", index.runs().len(), index.records().count());
    for problem in index.problems() {
        println!("problem: {}: {}", problem.path.file_name().unwrap().to_string_lossy(), problem.message);
    }
    println!("peak RSS: {:.1} MB", peak_rss_kb() as f64 / 1024.0);
}

fn peak_rss_kb() -> i64 {
    // SAFETY: getrusage writes only into the zeroed struct we own.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage.ru_maxrss
    }
}
