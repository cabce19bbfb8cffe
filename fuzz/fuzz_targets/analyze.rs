//! cargo-fuzz target: any bytes (as UTF-8, lossily) through analyze, the accounting, hover,
//! completion and quick fixes at offsets drawn from the input. See `fuzz/README.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../exercise.rs");

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let inventory = torchcts_core::accounting_view::Inventory::embedded();
    exercise(&text, &offsets_of(data), inventory);
});
