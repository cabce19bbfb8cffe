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
        let Ok(text) = std::fs::read_to_string(e.path().join("manifest.json")) else { continue };
        let facts = ManifestFacts::from_tagged_json(&serde_json::from_str(&text).unwrap()).unwrap();
        let device = facts.resolve_device(None);
        let t = Instant::now();
        let acc = account(inv, &facts, &device, LevelSelection::Cumulative(8));
        let cold = t.elapsed();
        let n = 200;
        let t = Instant::now();
        let mut sink = 0;
        for i in 0..n {
            let acc = account(inv, &facts, &device, LevelSelection::Cumulative((i % 8) as u8 + 1));
            sink += acc.records.len();
        }
        let warm = t.elapsed() / n;
        println!(
            "{:<22} cold {:>8.3} ms  warm {:>8.3} ms/accounting (all levels counted)  records@8 {} ({sink})",
            e.file_name().to_string_lossy(),
            cold.as_secs_f64() * 1e3,
            warm.as_secs_f64() * 1e3,
            acc.records.len()
        );
    }
}
