//! show-skips accounting for TorchCTS manifests.
//!
//! What `torchcts show-skips` reports (which pytest nodes of the TorchCTS suite
//! run, which are filtered and why, per semantic level) computed from an
//! inventory of the suite extracted once from the real torchcts
//! (`tools/inventory/extract_inventory.py`, format in `docs/inventory.md`).
//!
//! ```no_run
//! use accounting::{account, render_show_skips, Inventory, LevelSelection, ManifestFacts, PyValue};
//! let inv = Inventory::embedded();
//! let mut facts = ManifestFacts::default();
//! facts.supported_dtypes.push((PyValue::Dtype("torch.float32".into()), PyValue::Bool(true)));
//! facts.capabilities.push(("inference".into(), PyValue::Bool(true)));
//! let acc = account(inv, &facts, "cpu", LevelSelection::Cumulative(2));
//! println!("{} of {} collected run", acc.included, acc.collected);
//! print!("{}", render_show_skips(&acc));
//! ```
//!
//! The crate is pure: no IO (callers read an inventory file and hand its bytes to
//! [`Inventory::from_bytes`]), no clock, no LSP or async types.

mod account;
mod bits;
pub mod diff;
mod engine;
mod facts;
mod inventory;
pub mod ledger;
mod loaded;
pub mod pyfmt;
mod render;
pub mod versions;
mod what_if;

pub use account::{
    account, account_keeping_units, resolve_device, Accounting, AccountingProblem, Detail, DeviceResolution,
    DtypeLabel, KeptCounts, LabelKind, LevelCounts, NodeRef, PlaceholderKind, Record,
};
pub use engine::regex_cache::REGEX_STEPS_PER_PATTERN;
pub use facts::{canonical_dtype, tagged_to_py, LevelSelection, ManifestFacts, PyValue, RunLayout};
pub use inventory::{InventoryMeta, Reason, CUSTOM_DEVICE_PLACEHOLDER};
pub use loaded::Inventory;
pub use render::{
    collected_line, records_json, render_audit, render_show_skips, summary_line, write_show_skips, RecordsJson,
};
pub use versions::{choose_for_environment, embedded_torch_releases, newest_torch_release, InventoryChoice};
pub use what_if::{what_if_levels, Baseline, WhatIfs};
