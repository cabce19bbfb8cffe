//! Print the show-skips text for a manifest in tagged JSON (as committed in
//! tests/parity/skips/cases/*/manifest.json).
//!
//!     cargo run -p accounting --example skips -- MANIFEST.json [--device D] [--level N | --level-exact N | --level-range A:B] [--inventory FILE]

use accounting::{account, render_show_skips, Inventory, LevelSelection, ManifestFacts};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let path = args.first().expect("usage: skips MANIFEST.json [--device D] [--level N]");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let facts = ManifestFacts::from_tagged_json(&json).unwrap();
    let owned;
    let inv = match get("--inventory") {
        Some(p) => {
            owned = Inventory::from_bytes(&std::fs::read(p).unwrap()).unwrap();
            &owned
        }
        None => Inventory::embedded(),
    };
    let device = facts.resolve_device(get("--device").as_deref());
    let sel = if let Some(n) = get("--level") {
        LevelSelection::Cumulative(n.parse().unwrap())
    } else if let Some(n) = get("--level-exact") {
        LevelSelection::Exact(n.parse().unwrap())
    } else if let Some(r) = get("--level-range") {
        let (a, b) = r.split_once(':').unwrap();
        LevelSelection::Range(a.parse().unwrap(), b.parse().unwrap())
    } else {
        LevelSelection::from_manifest(&facts).unwrap()
    };
    let acc = account(inv, &facts, &device, sel);
    print!("{}", render_show_skips(&acc));
    for p in &acc.problems {
        eprintln!("problem: {}", p.message);
    }
    for n in &acc.not_modelled {
        eprintln!("not modelled: {n}");
    }
    for l in &acc.levels {
        eprintln!("level {}: collected {} runnable {} filtered {}", l.level, l.collected, l.runnable, l.filtered);
    }
}
