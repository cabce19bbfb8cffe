//! Robustness driver without libFuzzer (the equivalent of `fuzz/fuzz_targets/analyze.rs` on a
//! stable toolchain): random edits of the check corpus, and now and then a long repetition of
//! a piece (deep nesting, long chains), through the same `exercise` as the cargo-fuzz target:
//! analyze with the inventory, the accounting, hover, completion and every quick fix (applied
//! and re-analysed) at random positions. Prints how many inputs panicked and keeps up to three
//! of them in /tmp.
//!
//!     cargo run --release -p torchcts-core --example fuzz_analyze -- 20000       # inputs
//!     nice cargo run --release -p torchcts-core --example fuzz_analyze -- 600s   # seconds
//!     ... -- 600s 42                                                              # another seed

include!("../../../fuzz/exercise.rs");

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/check/cases");
    let mut texts = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if let Ok(t) = std::fs::read_to_string(e.path().join("manifest.py")) {
            texts.push(t);
        }
    }
    texts.sort();
    assert!(!texts.is_empty(), "the check corpus");
    let pieces = [
        "(", ")", "[", "]", "{", "}", ",", ":", "=", "\"", "'", "\\", "\n", " ", "é", "😀", "#", "lambda", "if", "def",
        "**", ".", "0x", "1e", "r'", "'''", "\t", "\r", "not", "torch.", "\\n", "\"\"\"", "+", "()", "[0]", ".b",
        "f'{", "\\N{",
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let budget = args.first().map(String::as_str).unwrap_or("20000");
    let (max_inputs, deadline) = match budget.strip_suffix('s') {
        Some(secs) => (usize::MAX, Some(std::time::Duration::from_secs(secs.parse().unwrap_or(600)))),
        None => (budget.parse().unwrap_or(20000), None),
    };
    let mut seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0x9e37_79b9_7f4a_7c15) | 1;
    let mut rnd = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let inventory = torchcts_core::accounting_view::Inventory::embedded();
    let started = std::time::Instant::now();
    // Quiet: a caught panic is counted, not printed.
    std::panic::set_hook(Box::new(|_| {}));
    let (mut inputs, mut panics) = (0usize, 0usize);
    while inputs < max_inputs && deadline.is_none_or(|d| started.elapsed() < d) {
        let mut t = texts[rnd(texts.len())].clone();
        for _ in 0..(1 + rnd(4)) {
            let mut at = rnd(t.len() + 1);
            while !t.is_char_boundary(at) {
                at -= 1;
            }
            match rnd(9) {
                0 => {
                    // A long repetition: deep nesting or a long chain.
                    let piece = pieces[rnd(pieces.len())];
                    t.insert_str(at, &piece.repeat(1 + rnd(3000)));
                }
                1..=4 => t.insert_str(at, pieces[rnd(pieces.len())]),
                _ => {
                    let mut end = (at + 1 + rnd(3)).min(t.len());
                    while !t.is_char_boundary(end) {
                        end += 1;
                    }
                    t.replace_range(at..end, "");
                }
            }
        }
        let offsets: Vec<usize> = (0..4).map(|_| rnd(t.len() + 1)).collect();
        inputs += 1;
        if std::panic::catch_unwind(|| exercise(&t, &offsets, inventory)).is_err() {
            panics += 1;
            if panics <= 3 {
                let _ = std::fs::write(format!("/tmp/fuzz_panic_{inputs}.py"), &t);
            }
        }
    }
    println!("{inputs} inputs in {:.0} s, {panics} panics", started.elapsed().as_secs_f64());
    if panics > 0 {
        std::process::exit(1);
    }
}
