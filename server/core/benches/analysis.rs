//! Benchmark of the analysis core on a ~200-line manifest, beside the real tool.
//!
//! `cargo bench -p torchcts-core` prints the median time of: a full analysis (parse,
//! evaluation, validation, check emulation), an incremental re-analysis after a one-key
//! edit, hover and completion. When `TORCHCTS` names a real `torchcts` executable, the same
//! file is also checked with `torchcts check-manifest` (5 runs) and the ratio is printed.

use std::path::PathBuf;
use std::time::{Duration, Instant};
use torchcts_core::{analyze, AnalysisInput};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(iterations: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut samples = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let start = Instant::now();
        std::hint::black_box(f());
        samples.push(start.elapsed());
    }
    median(samples)
}

fn manifest_200_lines() -> String {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check/cases/template_complete/manifest.py");
    let mut text = std::fs::read_to_string(root).expect("template_complete is committed");
    // Pad to ~200 lines with realistic entries: a long skip_ops list.
    let ops: String = (0..65).map(|i| format!("    \"_op_{i}\",\n")).collect();
    text.push_str(&format!("manifest[\"skip_ops\"] = [\n{ops}]\n"));
    text
}

fn main() {
    let text = manifest_200_lines();
    let lines = text.lines().count();
    let full = time(200, || analyze(&text, &AnalysisInput::default()));
    let base = analyze(&text, &AnalysisInput::default());
    // Incremental: change one capability value, reparse with the edited old tree.
    let at = text.find("True").expect("a True in the template");
    let mut edited = text.clone();
    let mut old = base.tree.clone();
    torchcts_core::syntax::apply_edit(&mut edited, Some(&mut old), at..at + 4, "False");
    let incremental =
        time(200, || analyze(&edited, &AnalysisInput { old_tree: Some(&old), ..AnalysisInput::default() }));
    let inventory_for_hints = torchcts_core::accounting_view::Inventory::embedded();
    let with_hints = time(100, || {
        analyze(
            &edited,
            &AnalysisInput { old_tree: Some(&old), inventory: Some(inventory_for_hints), ..AnalysisInput::default() },
        )
    });
    let hover_at = text.find("\"semantic_level\"").unwrap_or(0) + 2;
    let hover = time(2000, || torchcts_core::hover::hover(&base, hover_at, None));
    // Accounting: the whole show-skips computation for this manifest, all levels.
    let inventory = torchcts_core::accounting_view::Inventory::embedded();
    let manifest = base.model.manifest.as_ref().and_then(|m| m.as_dict()).expect("manifest dict");
    let facts = torchcts_core::accounting_view::facts(manifest);
    let accounting = time(200, || torchcts_core::accounting_view::summarize(inventory, &facts, None));
    let summary = torchcts_core::accounting_view::summarize(inventory, &facts, None);
    let counts = torchcts_core::hover::Counts { inventory, summary: &summary };
    let hover_counts = time(200, || torchcts_core::hover::hover(&base, hover_at, Some(&counts)));
    let inlay = time(20, || torchcts_core::accounting_view::entry_counts(inventory, manifest, &summary));
    let entries = torchcts_core::accounting_view::entry_counts(inventory, manifest, &summary).len();
    let cap_at = text.find("\"training\"").unwrap_or(0) + 2;
    let hover_cap = time(200, || torchcts_core::hover::hover(&base, cap_at, Some(&counts)));
    let complete_at = text.find("\"capabilities\": {").map(|i| i + "\"capabilities\": {".len()).unwrap_or(0);
    let completion = time(2000, || torchcts_core::completion::complete(&base, complete_at, None));

    println!("manifest: {lines} lines");
    println!("full analysis (parse + evaluate + validate + check): {full:?}");
    println!("re-analysis after an edit (incremental parse):       {incremental:?}");
    println!("re-analysis with inventory hints (the LSP's keystroke path): {with_hints:?}");
    println!("hover on semantic_level:                             {hover:?}");
    println!("completion in capabilities:                          {completion:?}");
    println!("accounting, all levels (show-skips equivalent):      {accounting:?}");
    println!("hover on semantic_level with per-level counts:       {hover_counts:?}");
    println!("hover on a capability (what flipping it changes):    {hover_cap:?}");
    println!("inlay hints ({entries} entries, one what-if accounting each): {inlay:?}");

    if let Ok(torchcts) = std::env::var("TORCHCTS") {
        let dir = std::env::temp_dir().join("torchcts-lsp-bench");
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join("manifest.py");
        std::fs::write(&file, &text).expect("write bench manifest");
        let real = time(5, || {
            std::process::Command::new(&torchcts)
                .args(["check-manifest", "--manifest"])
                .arg(&file)
                .output()
                .expect("run torchcts")
        });
        println!("real `torchcts check-manifest` on the same file:      {real:?}");
        println!(
            "ratio real/ours (full analysis):                      {:.0}x",
            real.as_secs_f64() / full.as_secs_f64()
        );
    } else {
        println!("(set TORCHCTS=/path/to/torchcts to time the real check-manifest beside it)");
    }
}
