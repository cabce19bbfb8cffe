//! Scaling benchmark: each pathological construct at sizes N, 2N, 4N and 8N, timed through
//! the paths a keystroke takes (analysis with the inventory hints, the accounting) and the
//! cursor features (hover, quick fixes, completion at the construct's far end).
//!
//!     cargo bench -p torchcts-core --bench scaling            # the table in docs/performance.md
//!     SCALING_CASES=dict_int,chain_attr cargo bench -p torchcts-core --bench scaling
//!
//! For every size it prints the median time of the whole path and the peak heap growth
//! (a counting allocator), then the slope: time(8N) / time(N) is about 8 when the cost is
//! linear and about 64 when it is quadratic. A second table splits the path at 8N into its
//! steps (each the median of 3 runs).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use torchcts_core::accounting_view::Inventory;

/// Counts live heap bytes and their high-water mark.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size - layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

include!("support/scaling_cases.rs");
include!("support/timing.rs");

fn measure(text: &str, inventory: &Inventory, runs: usize) -> (Duration, usize) {
    let mut samples = Vec::new();
    let mut peak = 0;
    for _ in 0..runs {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let start = Instant::now();
        std::hint::black_box(whole_path(text, inventory));
        samples.push(start.elapsed());
        peak = peak.max(PEAK.load(Ordering::Relaxed) - before);
    }
    samples.sort();
    (samples[samples.len() / 2], peak)
}

fn main() {
    let wanted: Option<Vec<String>> =
        std::env::var("SCALING_CASES").ok().map(|s| s.split(',').map(str::to_string).collect());
    let inventory = Inventory::embedded();
    println!("| construct | N | 2N | 4N | 8N | time 8N / N | peak heap at 8N |");
    println!("|---|---|---|---|---|---|---|");
    for case in cases() {
        if wanted.as_ref().is_some_and(|w| !w.iter().any(|c| c == case.name)) {
            continue;
        }
        let mut times = Vec::new();
        let mut peak = 0;
        for factor in [1, 2, 4, 8] {
            let text = (case.text)(case.n * factor);
            let runs = if factor >= 4 { 3 } else { 5 };
            let (time, bytes) = measure(&text, inventory, runs);
            times.push(time);
            peak = bytes;
        }
        let cells: Vec<String> = times.iter().map(|t| format!("{:.1} ms", t.as_secs_f64() * 1e3)).collect();
        println!(
            "| {} ({}; N = {}) | {} | {:.1} | {:.1} MB |",
            case.name,
            case.what,
            case.n,
            cells.join(" | "),
            times[3].as_secs_f64() / times[0].as_secs_f64().max(1e-9),
            peak as f64 / 1e6
        );
    }
    println!();
    println!("| construct at 8N | analyze | accounting | hover | quick fixes | completion |");
    println!("|---|---|---|---|---|---|");
    for case in cases() {
        if wanted.as_ref().is_some_and(|w| !w.iter().any(|c| c == case.name)) {
            continue;
        }
        let text = (case.text)(case.n * 8);
        let cells: Vec<String> =
            steps(&text, inventory).iter().map(|t| format!("{:.1} ms", t.as_secs_f64() * 1e3)).collect();
        println!("| {} | {} |", case.name, cells.join(" | "));
    }
}

/// The steps of [`whole_path`] timed one by one (median of 3): analysis with the inventory
/// hints, accounting, then hover, quick fixes and completion at both cursor places together
/// (quick fixes also on the middle finding).
fn steps(text: &str, inventory: &Inventory) -> [Duration; 5] {
    use torchcts_core::accounting_view as av;
    use torchcts_core::{analyze, AnalysisInput};
    let median = |f: &mut dyn FnMut()| sorted_timings(3, f)[1];
    let input = AnalysisInput { inventory: Some(inventory), ..AnalysisInput::default() };
    let analyze_time = median(&mut || drop(std::hint::black_box(analyze(text, &input))));
    let analysis = analyze(text, &input);
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else {
        return [analyze_time, Duration::ZERO, Duration::ZERO, Duration::ZERO, Duration::ZERO];
    };
    let facts = av::facts(manifest);
    let accounting = median(&mut || drop(std::hint::black_box(av::summarize(inventory, &facts, None))));
    let summary = av::summarize(inventory, &facts, None);
    let counts = torchcts_core::hover::Counts { inventory, summary: &summary };
    let places = [text.trim_end().len().saturating_sub(1), text.len() / 2];
    let hover = median(&mut || {
        for at in places {
            std::hint::black_box(torchcts_core::hover::hover(&analysis, at, Some(&counts)));
        }
    });
    // Quick fixes also on the middle finding (an unknown key has fixes to check).
    let middle_finding = analysis.findings.get(analysis.findings.len() / 2).map(|f| f.span.clone());
    let fixes = median(&mut || {
        for range in places.iter().map(|&at| at..at).chain(middle_finding.clone()) {
            std::hint::black_box(torchcts_core::actions::quick_fixes(&analysis, range));
        }
    });
    let completion = median(&mut || {
        for at in places {
            std::hint::black_box(torchcts_core::completion::complete(&analysis, at, None));
        }
    });
    [analyze_time, accounting, hover, fixes, completion]
}
