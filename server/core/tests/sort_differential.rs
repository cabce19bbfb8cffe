//! `sorted()` against the CPython on this machine (`TORCHCTS_PYTHON`, else `python3`):
//! random lists of ints, floats, strs, None and tuples, 0 to 70 items, each sorted by
//! CPython (the list, or the exception's type and message) and by the analysis. Every answer
//! the analysis gives must be CPython's; on CPython 3.10-3.12 below 64 items it must give
//! one for every list (`eval/sorting.rs` runs CPython's comparisons one by one there).
//! Without a CPython the test says it skipped.

use std::io::Write;
use std::process::{Command, Stdio};
use torchcts_core::regex_check::PythonVersion;
use torchcts_core::{analyze, AnalysisInput};

/// A small deterministic generator (the lists are the same on every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

const ITEMS: [&str; 12] = ["0", "1", "2", "5", "1.5", "True", "'a'", "'b'", "'ab'", "None", "(1, 'a')", "(1, 2)"];

/// Each list's text and its length.
fn cases() -> Vec<(String, usize)> {
    let mut rng = Lcg(34);
    (0..600)
        .map(|i| {
            // Mostly one kind, so that most lists sort and some raise late.
            let len = rng.next(if i % 10 == 0 { 71 } else { 12 }) as usize;
            let pool: &[&str] = match rng.next(4) {
                0 => &ITEMS[..6],
                1 => &ITEMS[6..9],
                2 => &ITEMS[10..],
                _ => &ITEMS,
            };
            let mut items: Vec<&str> = (0..len).map(|_| pool[rng.next(pool.len() as u64) as usize]).collect();
            // A stranger at a random place, sometimes.
            if len > 0 && rng.next(3) == 0 {
                let at = rng.next(len as u64) as usize;
                items[at] = ITEMS[rng.next(ITEMS.len() as u64) as usize];
            }
            (format!("[{}]", items.join(", ")), len)
        })
        .collect()
}

fn cpython_answers(python: &str, cases: &[(String, usize)]) -> Option<(PythonVersion, Vec<String>)> {
    let script = "import sys, json\n\
        print(json.dumps(list(sys.version_info[:2])))\n\
        for line in sys.stdin:\n\
        \x20   try:\n\
        \x20       out = repr(sorted(eval(line)))\n\
        \x20   except Exception as e:\n\
        \x20       out = '!' + type(e).__name__ + ': ' + str(e)\n\
        \x20   print(json.dumps(out))\n";
    let mut child = Command::new(python)
        .args(["-I", "-S", "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let texts: Vec<&str> = cases.iter().map(|(text, _)| text.as_str()).collect();
    child.stdin.take()?.write_all(texts.join("\n").as_bytes()).ok()?;
    let output = child.wait_with_output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let mut lines = text.lines();
    let version: Vec<u32> = serde_json::from_str(lines.next()?).ok()?;
    let version = match version.as_slice() {
        [3, 10] => PythonVersion::V3_10,
        [3, 11] => PythonVersion::V3_11,
        [3, 12] => PythonVersion::V3_12,
        [3, 13] => PythonVersion::V3_13,
        _ => return None,
    };
    let answers: Vec<String> = lines.filter_map(|l| serde_json::from_str(l).ok()).collect();
    (answers.len() == cases.len()).then_some((version, answers))
}

fn ours(case: &str, python: PythonVersion) -> Option<String> {
    let text = format!("manifest = {{'v': sorted({case})}}\n");
    let analysis = analyze(&text, &AnalysisInput { python, ..AnalysisInput::default() });
    if let Some(error) = &analysis.model.load_error {
        return Some(format!("!{}: {}", error.exception, error.message));
    }
    let manifest = analysis.model.manifest?;
    let value = &manifest.as_dict()?.get("v")?.value;
    value.repr_is_exact().then(|| value.repr())
}

#[test]
fn sorted_gives_what_cpython_gives() {
    let python = std::env::var("TORCHCTS_PYTHON").unwrap_or_else(|_| "python3".into());
    let cases = cases();
    let Some((version, answers)) = cpython_answers(&python, &cases) else {
        println!("SKIPPED: no CPython 3.10-3.13 (TORCHCTS_PYTHON or python3)");
        return;
    };
    let (mut known, mut must_know, mut raised) = (0, 0, 0);
    for ((case, items), real) in cases.iter().zip(&answers) {
        let ours = ours(case, version);
        if let Some(ours) = &ours {
            assert_eq!(ours, real, "sorted({case}) on {version:?}");
            known += 1;
            raised += usize::from(real.starts_with('!'));
        }
        if version < PythonVersion::V3_13 && *items < 64 {
            must_know += 1;
            assert!(ours.is_some(), "sorted({case}) not evaluated on {version:?}; CPython: {real}");
        }
    }
    println!("{known} of {} answered as CPython {version:?} ({raised} raising; {must_know} had to be)", cases.len());
    assert!(raised > 50 && known > 400, "too few lists exercised: {known} answered, {raised} raising");
}
