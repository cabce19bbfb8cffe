//! Benchmark of the inlay hints: the per-entry counts of a whole manifest (`entry_counts`:
//! one what-if question per capability and dtype entry), beside one whole accounting of the
//! same manifest in the same run.
//!
//! `cargo bench -p torchcts-core --bench inlay_hints [-- FILE...]` prints, per manifest (by
//! default the `complete` template and `examples/manifest.py`), the best and median of 300
//! runs of each, after the summary the server keeps per facts has been computed (the
//! hints are asked of that summary).

use std::path::PathBuf;
use std::time::Duration;
use torchcts_core::accounting_view as av;
use torchcts_core::{analyze, AnalysisInput};

include!("support/timing.rs");

fn best_and_median(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    let samples = sorted_timings(runs, &mut f);
    (samples[0], samples[runs / 2])
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<PathBuf> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).map(PathBuf::from).collect();
    if files.is_empty() {
        files = vec![
            root.join("tests/parity/check/cases/template_complete/manifest.py"),
            root.join("examples/manifest.py"),
        ];
    }
    let inventory = av::Inventory::embedded();
    println!("{:<60} {:>7} {:>22} {:>22}", "manifest", "entries", "hints best / median", "accounting best / median");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let analysis = analyze(&text, &AnalysisInput::default());
        let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else {
            println!("{}: no manifest dict", path.display());
            continue;
        };
        let facts = av::facts(manifest);
        let summary = av::summarize(inventory, &facts, None);
        let entries = av::entry_counts(inventory, manifest, &summary).len();
        let hints =
            best_and_median(300, || drop(std::hint::black_box(av::entry_counts(inventory, manifest, &summary))));
        let whole = best_and_median(300, || drop(std::hint::black_box(av::summarize(inventory, &facts, None))));
        println!(
            "{:<60} {entries:>7} {:>10.2?} / {:>9.2?} {:>10.2?} / {:>9.2?}",
            path.strip_prefix(&root).unwrap_or(&path).display(),
            hints.0,
            hints.1,
            whole.0,
            whole.1
        );
    }
}
