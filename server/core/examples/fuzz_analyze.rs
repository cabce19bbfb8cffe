//! Robustness probe: random edits of the check corpus through `analyze` (with the inventory)
//! and the accounting;
//! prints how many panicked and keeps up to two inputs in /tmp.
//!
//!     cargo run --release -p torchcts-core --example fuzz_analyze -- 20000
use torchcts_core::{analyze, AnalysisInput};
fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check/cases");
    let mut texts = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if let Ok(t) = std::fs::read_to_string(e.path().join("manifest.py")) { texts.push(t); }
    }
    let pieces = ["(", ")", "[", "]", "{", "}", ",", ":", "=", "\"", "'", "\\", "\n", " ", "é", "😀", "#", "lambda", "if", "def", "**", ".", "0x", "1e", "r'", "'''", "\t", "\r", "not", "torch."];
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut rnd = |n: usize| { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; (seed % n as u64) as usize };
    let inv = torchcts_core::accounting_view::Inventory::embedded();
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20000);
    let mut panics = 0;
    for i in 0..n {
        let mut t = texts[rnd(texts.len())].clone();
        for _ in 0..(1 + rnd(4)) {
            let mut at = rnd(t.len() + 1);
            while !t.is_char_boundary(at) { at -= 1; }
            if rnd(2) == 0 { t.insert_str(at, pieces[rnd(pieces.len())]); } else {
                let mut end = (at + 1 + rnd(3)).min(t.len());
                while !t.is_char_boundary(end) { end += 1; }
                t.replace_range(at..end, "");
            }
        }
        let r = std::panic::catch_unwind(|| {
            let analysis = analyze(&t, &AnalysisInput { inventory: Some(inv), ..AnalysisInput::default() });
            // And the accounting of whatever the manifest evaluated to.
            if let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) {
                let facts = torchcts_core::accounting_view::facts(manifest);
                let summary = torchcts_core::accounting_view::summarize(inv, &facts, None);
                std::hint::black_box(summary.records);
            }
        });
        if r.is_err() { panics += 1; if panics < 3 { std::fs::write(format!("/tmp/fuzz_panic_{i}.py"), &t).unwrap(); } }
    }
    println!("{n} inputs, {panics} panics");
}
