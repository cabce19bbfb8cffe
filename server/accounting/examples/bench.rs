//! Timing of the accounting (run with `--release`): inventory load, first
//! accounting (regex cache cold) and warm accountings for every parity case
//! manifest at all eight levels.
//!
//!     cargo run -p accounting --release --example bench

use std::time::Instant;

use accounting::{account, Inventory, LevelSelection, ManifestFacts};

fn main() {
    let t = Instant::now();
    let inv = Inventory::embedded();
    println!("load embedded inventory: {:.1} ms ({} items)", t.elapsed().as_secs_f64() * 1e3, inv.item_count());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/skips/cases");
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if let Ok(only) = std::env::var("BENCH_CASE") {
            if !e.file_name().to_string_lossy().contains(&only) {
                continue;
            }
        }
        let Ok(text) = std::fs::read_to_string(e.path().join("manifest.json")) else { continue };
        let facts = ManifestFacts::from_tagged_json(&serde_json::from_str(&text).unwrap()).unwrap();
        let device = facts.resolve_device(None);
        let t = Instant::now();
        let acc = account(inv, &facts, &device, LevelSelection::Cumulative(8));
        let cold = t.elapsed();
        // Minimum over repetitions per level (the machine is shared), then the
        // worst level.
        let mut worst = std::time::Duration::ZERO;
        let mut sink = 0;
        for level in 1..=8u8 {
            let mut best = std::time::Duration::MAX;
            for _ in 0..std::env::var("BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(40) {
                let t = Instant::now();
                let acc = account(inv, &facts, &device, LevelSelection::Cumulative(level));
                best = best.min(t.elapsed());
                sink += acc.record_count;
            }
            worst = worst.max(best);
        }
        let warm = worst;
        println!(
            "{:<22} cold {:>8.3} ms  warm {:>8.3} ms/accounting (min of 40, worst level)  records@8 {} ({sink})",
            e.file_name().to_string_lossy(),
            cold.as_secs_f64() * 1e3,
            warm.as_secs_f64() * 1e3,
            acc.record_count
        );
    }
}
