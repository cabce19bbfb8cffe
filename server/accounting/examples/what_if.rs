//! Timing of what-if questions (run with `--release`): for each parity case manifest, the
//! questions inlay hints ask (each dtype entry removed, each declared capability set to
//! False), answered incrementally (`what_if_levels`) and by a whole accounting, each the
//! minimum of 20 runs, in the same run.
//!
//!     cargo run -p accounting --release --example what_if [CASE]

use std::time::{Duration, Instant};

use accounting::{account, what_if_levels, Baseline, Inventory, LevelSelection, ManifestFacts, PyValue};

fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// (question, changed facts) as the inlay hints ask them.
fn questions(facts: &ManifestFacts) -> Vec<(String, ManifestFacts)> {
    let mut out = Vec::new();
    for i in 0..facts.supported_dtypes.len() {
        let mut f = facts.clone();
        f.supported_dtypes.remove(i);
        out.push((format!("dtype {} removed", facts.supported_dtypes[i].0.repr()), f));
    }
    for (name, value) in &facts.capabilities {
        if !value.truthy() || name == "ieee754" {
            continue;
        }
        let mut f = facts.clone();
        f.capabilities.retain(|(k, _)| k != name);
        f.capabilities.push((name.clone(), PyValue::Bool(false)));
        out.push((format!("capability {name} False"), f));
    }
    out
}

fn main() {
    let inv = Inventory::embedded();
    let only = std::env::args().nth(1);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/skips/cases");
    let mut cases: Vec<_> = std::fs::read_dir(&dir).expect("corpus").flatten().map(|e| e.path()).collect();
    cases.sort();
    for case in cases {
        let name = case.file_name().unwrap_or_default().to_string_lossy().to_string();
        if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(case.join("manifest.json")) else { continue };
        let facts = ManifestFacts::from_tagged_json(&serde_json::from_str(&text).expect("json")).expect("facts");
        let device = facts.resolve_device(None);
        let selection = LevelSelection::from_manifest(&facts).unwrap_or(LevelSelection::Cumulative(3));
        let levels = account(inv, &facts, &device, selection).levels;
        let base = Baseline { facts: &facts, device: &device, selection, levels };
        let questions = questions(&facts);
        let (mut incremental, mut whole) = (Duration::ZERO, Duration::ZERO);
        let (mut dtypes, mut capabilities) = (Duration::ZERO, Duration::ZERO);
        for (question, changed) in &questions {
            let i = best_of(20, || {
                std::hint::black_box(what_if_levels(inv, &base, changed));
            });
            let w = best_of(20, || {
                std::hint::black_box(account(inv, changed, &device, selection).levels);
            });
            incremental += i;
            whole += w;
            if question.starts_with("dtype") {
                dtypes += i;
            } else {
                capabilities += i;
            }
        }
        println!(
            "{name:<26} {:>2} questions: incremental {:>7.3} ms (dtypes {:.3}, capabilities {:.3}), whole accountings {:>7.3} ms",
            questions.len(),
            incremental.as_secs_f64() * 1e3,
            dtypes.as_secs_f64() * 1e3,
            capabilities.as_secs_f64() * 1e3,
            whole.as_secs_f64() * 1e3
        );
    }
}
