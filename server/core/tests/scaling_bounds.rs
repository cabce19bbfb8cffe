//! Each pathological construct of issue 11 (a dict literal with many entries, known or not
//! evaluated, many
//! `tolerance_overrides` or `skip_ops` entries, a regex with many alternatives, long chains
//! `a.b.b...`, `1+1+...`, `a[0][0]...`, `f()()...`) costs about linearly in its size on the
//! whole path a keystroke and the cursor features take (analysis with the inventory hints,
//! accounting, hover, quick fixes, completion).
//!
//! The bounds are generous so that they fail on quadratic behaviour, not on a busy machine:
//! the time at 8N over the time at N (each the fastest of three runs) must stay under 30
//! (linear gives about 8, quadratic about 64), and so must the peak heap growth, counted by
//! this test binary's allocator (deterministic).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

include!("../benches/support/scaling_cases.rs");

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
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Test sizes are a quarter of the benchmark's (debug builds), at least 500.
fn size(case: &Case) -> usize {
    (case.n / 4).max(500)
}

/// The fastest of three runs and the peak heap growth of the whole path. On a thread with a
/// larger stack: unoptimised builds spend about 6 KB of stack per nesting level of the
/// evaluator (bounded at 256 levels), more than a test thread's 2 MB; release builds need
/// less than 512 KB.
fn cost(text: &str) -> (Duration, usize) {
    let text = text.to_string();
    std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || cost_here(&text))
        .expect("a measuring thread")
        .join()
        .expect("the whole path does not panic")
}

fn cost_here(text: &str) -> (Duration, usize) {
    let inventory = torchcts_core::accounting_view::Inventory::embedded();
    let mut fastest = Duration::MAX;
    let mut peak = 0;
    for _ in 0..3 {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let start = Instant::now();
        std::hint::black_box(whole_path(text, inventory));
        fastest = fastest.min(start.elapsed());
        peak = peak.max(PEAK.load(Ordering::Relaxed).saturating_sub(before));
    }
    (fastest, peak)
}

/// One construct at a time: the allocator's counters and the clock are shared.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn assert_linear(name: &str) {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let case = cases().into_iter().find(|c| c.name == name).expect("a scaling case");
    // Warm the inventory and the regex caches outside the measurement.
    cost(&(case.text)(10));
    let n = size(&case);
    let (t1, m1) = cost(&(case.text)(n));
    let (t8, m8) = cost(&(case.text)(8 * n));
    let time_ratio = t8.as_secs_f64() / t1.as_secs_f64().max(1e-6);
    let heap_ratio = m8 as f64 / m1.max(1) as f64;
    eprintln!("{name}: N={n}: {t1:?}, {m1} B; 8N: {t8:?}, {m8} B; ratios {time_ratio:.1} / {heap_ratio:.1}");
    assert!(time_ratio < 30.0, "{name}: time grows {time_ratio:.1}x from N={n} to 8N ({t1:?} -> {t8:?})");
    assert!(heap_ratio < 30.0, "{name}: peak heap grows {heap_ratio:.1}x from N={n} to 8N ({m1} -> {m8} bytes)");
}

#[test]
fn dict_literal_with_many_int_keys() {
    assert_linear("dict_int");
}

#[test]
fn dict_literal_with_many_unevaluated_values() {
    assert_linear("dict_unevaluated");
}

#[test]
fn manifest_with_many_unknown_keys() {
    assert_linear("dict_manifest_keys");
}

#[test]
fn many_tolerance_overrides() {
    assert_linear("tolerance_overrides");
}

#[test]
fn many_skip_ops() {
    assert_linear("skip_ops");
}

#[test]
fn regex_with_many_alternatives() {
    assert_linear("regex_alternatives");
}

#[test]
fn attribute_chain() {
    assert_linear("chain_attr");
}

#[test]
fn addition_chain() {
    assert_linear("chain_plus");
}

#[test]
fn subscript_chain() {
    assert_linear("chain_subscript");
}

#[test]
fn call_chain() {
    assert_linear("chain_call");
}

#[test]
fn backslash_continuations_inside_brackets() {
    assert_linear("bracketed_continuations");
}

#[test]
fn statements_tree_sitter_joins() {
    assert_linear("joined_statements");
}

#[test]
fn open_named_escapes() {
    assert_linear("named_escapes");
}

#[test]
fn loop_over_a_long_list() {
    assert_linear("loop_long_list");
}

#[test]
fn nested_loops_stay_within_the_budget() {
    assert_linear("loop_nested");
}

#[test]
fn nested_comprehensions_stay_within_the_budget() {
    assert_linear("comprehension_nested");
}
