//! Results folders damaged at random (issue 35, item 6): truncation, byte flips, wrong
//! types, `NaN`, huge values, FIFOs, symlinks to devices, hostile node ids, reference tricks,
//! applied to the variants of `tests/fixtures/runs/artifacts/variants/`. Each case is read
//! beside an undamaged folder, in a thread with a time-out, and must: finish (no hang),
//! keep the index's accounted bytes under what its record budget allows, and give the
//! undamaged folder's tests their records, unchanged.
//!
//! The seed is fixed (CI); `EVIDENCE_FUZZ_SEED=random` (or a number) draws others, and the
//! seed is printed so a failure can be replayed. `EVIDENCE_FUZZ_CASES` sets how many.

mod support;
use support::Scratch;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use runner::evidence::{EvidenceIndex, EvidenceStatus, Limits};

const FIXED_SEED: u64 = 0x35_2026_1203;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn seed() -> u64 {
    match std::env::var("EVIDENCE_FUZZ_SEED").as_deref() {
        Ok("random") => {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
        }
        Ok(n) => n.parse().expect("EVIDENCE_FUZZ_SEED: a number or `random`"),
        Err(_) => FIXED_SEED,
    }
}

fn variants() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/runs/artifacts/variants")
}

/// One damage applied to the bytes of a results file, or to the folder.
fn damage(rng: &mut Rng, bytes: &[u8], folder: &Path, name: &str) -> Option<Vec<u8>> {
    let mut out = bytes.to_vec();
    let at = rng.below(out.len());
    let text = String::from_utf8_lossy(bytes).into_owned();
    let replace = |from: &str, to: &str| text.replacen(from, to, 1).into_bytes();
    let kind = rng.below(14);
    if std::env::var_os("EVIDENCE_FUZZ_DEBUG").is_some() {
        eprintln!("  damage {kind} on {name}");
    }
    Some(match kind {
        0 => {
            out.truncate(at);
            out
        }
        1 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            out
        }
        2 => replace("\"PASS\"", ["null", "1", "[\"PASS\"]", "\"Passed\"", "{}", "NaN"][rng.below(6)]),
        3 => replace("\"op\"", "\"cosim\":NaN,\"maxerr\":-Infinity,\"big\":1e999999,\"n\":-0,\"op\""),
        4 => replace("\"status\"", "\"error_message\":\"<script>alert(1)</script>\\n`x`\",\"status\""),
        5 => replace("opinfo/", ["../../", "\u{202e}", "`|<img src=x>", "torchcts/torchcts/", ""][rng.below(5)]),
        6 => replace("{\"$\":0}", ["{\"$\":-1}", "{\"$\":99}", "{\"$\":0,\"$\":0}", "{\"$\":1e0}"][rng.below(4)]),
        7 => replace(
            "\"format_version\":1",
            ["\"format_version\":\"1\"", "\"format_version\":1.0", "\"format_version\":null"][rng.below(3)],
        ),
        8 => {
            // A reference to itself, out of the folder, to a device, or to a folder.
            let artifact = [name, "../../etc/passwd", "/dev/zero", ".", "cpu_fixture_history/"][rng.below(5)];
            format!(r#"{{"format":"torchcts_result_reference","format_version":1,"artifact":{artifact:?}}}"#)
                .into_bytes()
        }
        9 => {
            let deep = 2000;
            let mut t = "[".repeat(deep);
            t.push_str(&"]".repeat(deep));
            replace("\"op\":", &format!("\"deep\":{t},\"op\":"))
        }
        10 => replace("\"op\"", &format!("\"huge\":\"{}\",\"op\"", "x".repeat(1 << 20))),
        11 => {
            let _ = std::os::unix::fs::symlink("/dev/zero", folder.join(format!("{}.json", rng.below(3))));
            let _ = std::os::unix::fs::symlink("/dev/stdin", folder.join("z_latest.json"));
            out
        }
        12 => {
            mkfifo(&folder.join("fifo_latest.json"));
            let history = folder.join("cpu_fixture_history");
            let _ = std::fs::create_dir_all(&history);
            mkfifo(&history.join("2099-01-01T00-00-00Z.json"));
            out
        }
        _ => return None,
    })
}

/// Runs `read` in a thread; a read that does not finish in a minute hung.
fn within<T: Send + 'static>(case: usize, name: &str, seed: u64, read: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let _ = send.send(read());
        })
        .unwrap();
    receive
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("case {case} ({name}, EVIDENCE_FUZZ_SEED={seed}) hung"))
}

/// What the index says of every test, in order.
fn snapshot(index: &EvidenceIndex) -> Vec<String> {
    let mut tests: Vec<String> = index
        .records()
        .map(|(id, e)| format!("{id} {:?} {:?} {:?} {}", e.status, e.tested_at, e.error, e.run.path.display()))
        .collect();
    tests.sort();
    tests
}

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    unsafe { libc::mkfifo(name.as_ptr(), 0o644) };
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.is_file() {
            out.push(path);
        }
    }
}

#[test]
fn damaged_results_folders_never_hang_bloat_or_change_the_undamaged_counts() {
    let seed = seed();
    let cases: usize = std::env::var("EVIDENCE_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(150);
    eprintln!("EVIDENCE_FUZZ_SEED={seed} ({cases} cases)");
    let mut rng = Rng(seed);
    let mut names: Vec<String> = std::fs::read_dir(variants())
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // Removed when the test ends, passed or failed (a FIFO a case made included).
    let root = Scratch::new("torchcts-evidence-fuzz", "cases", "");
    // The undamaged folder: the compact variant, its node ids moved under `intact/`.
    let intact = root.join("intact");
    std::fs::create_dir_all(&intact).unwrap();
    let compact = std::fs::read_to_string(variants().join("compact/cpu_fixture_latest.json")).unwrap();
    std::fs::write(intact.join("cpu_fixture_latest.json"), compact.replace("opinfo/", "intact/")).unwrap();
    let limits = Limits { max_records: 50, ..Limits::default() };
    for case in 0..cases {
        let name = &names[rng.below(names.len())];
        if std::env::var_os("EVIDENCE_FUZZ_DEBUG").is_some() {
            eprintln!("case {case}: {name}");
        }
        let folder = root.join(format!("case{case}"));
        let _ = std::fs::remove_dir_all(&folder);
        copy_dir(&variants().join(name), &folder);
        let mut targets = Vec::new();
        files(&folder, &mut targets);
        targets.sort();
        for _ in 0..1 + rng.below(3) {
            let target = &targets[rng.below(targets.len())];
            let bytes = std::fs::read(target).unwrap_or_default();
            let file_name = target.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(damaged) = damage(&mut rng, &bytes, &folder, &file_name) {
                let _ = std::fs::write(target, damaged);
            }
        }
        let folders = vec![folder.clone(), intact.clone()];
        let mut index = within(case, name, seed, {
            let folders = folders.clone();
            move || EvidenceIndex::read(&folders, "cpu", limits)
        });
        // Half the cases damage once more and refresh: the refreshed index must equal a
        // fresh read of the same files (the incremental merge loses and keeps nothing).
        if rng.below(2) == 0 {
            let target = &targets[rng.below(targets.len())];
            let bytes = std::fs::read(target).unwrap_or_default();
            let file_name = target.file_name().unwrap().to_string_lossy().into_owned();
            match damage(&mut rng, &bytes, &folder, &file_name) {
                Some(damaged) => {
                    let _ = std::fs::write(target, damaged);
                    // A rewrite keeping both length and mtime is not seen (documented in
                    // `evidence/mod.rs`); a real one moves the mtime, which a fast test may not.
                    if let Ok(file) = std::fs::File::options().write(true).open(target) {
                        let _ = file.set_modified(std::time::SystemTime::now() + Duration::from_secs(5));
                    }
                }
                None => {
                    let _ = std::fs::remove_file(target);
                }
            }
            index = within(case, name, seed, move || {
                index.refresh();
                index
            });
            let fresh = within(case, name, seed, {
                let folders = folders.clone();
                move || EvidenceIndex::read(&folders, "cpu", limits)
            });
            assert_eq!(snapshot(&index), snapshot(&fresh), "case {case} ({name}, seed {seed}): refresh != fresh read");
        }
        // Bounded: at most `max_records` tests, each no larger than what a record may hold.
        assert!(index.records().count() <= limits.max_records, "case {case} ({name}, seed {seed})");
        assert!(index.accounted_bytes() <= limits.max_records * 64 * 1024, "case {case} ({name}, seed {seed})");
        // The undamaged folder counts as it does alone.
        let intact_records: Vec<_> = index.records().filter(|(id, _)| id.starts_with("intact/")).collect();
        assert_eq!(intact_records.len(), 4, "case {case} ({name}, seed {seed}): {:?}", index.problems());
        let failed = intact_records.iter().filter(|(_, e)| e.status == EvidenceStatus::Failed).count();
        assert_eq!(failed, 1, "case {case} ({name}, seed {seed})");
        let _ = std::fs::remove_dir_all(&folder);
    }
}
