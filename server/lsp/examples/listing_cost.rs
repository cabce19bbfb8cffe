//! What keeping the environment's listing current costs (docs/performance.md): the `stat`
//! of its folders each analysis makes (`Listing::is_current`), and a new listing
//! (`Listing::of`, what the server makes on the pool after `pip install`).
//!
//! `cargo run -p torchcts-lsp --example listing_cost -- PYTHON [ROUNDS]`

use std::time::{Duration, Instant};
use torchcts_lsp::host::importable::Listing;
use torchcts_lsp::host::Environment;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(python) = args.next() else {
        eprintln!("usage: listing_cost PYTHON [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(1000);
    let environment = Environment::detect(Some(std::path::Path::new(&python)), None);
    let found = &environment.found;
    let listing = Listing::of(found);
    let modules = listing.modules.as_ref().map_or(0, |m| m.len());
    println!("{} modules listed ({:?})", modules, found.site_packages);
    let median = |mut times: Vec<Duration>| {
        times.sort();
        (times[times.len() / 2], times[times.len() * 95 / 100])
    };
    let relist: Vec<Duration> = (0..rounds.min(200))
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(Listing::of(found));
            start.elapsed()
        })
        .collect();
    let check: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            assert!(std::hint::black_box(listing.is_current()));
            start.elapsed()
        })
        .collect();
    let (relist, relist_p95) = median(relist);
    let (check, check_p95) = median(check);
    println!("list again (Listing::of): median {relist:?}, p95 {relist_p95:?}");
    println!("stat check (Listing::is_current): median {check:?}, p95 {check_p95:?}");
}
