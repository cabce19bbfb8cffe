//! The inventory of the TorchCTS suite as plain tables: one torch release's items, strings
//! and OpInfo tables, and the indexes the loader builds over them. No algorithm's types live
//! here: the engine's derived tables and caches are in `engine/`, built from these.
//!
//! The extraction (`tools/inventory/extract_inventory.py`, format in docs/inventory.md)
//! writes JSON; the build packs it into binary rows (`inventory_pack`, `build.rs`) and
//! `load.rs` reads those into the tables here: every string (operator names, surfaces,
//! details) is interned once in `strings`, reasons in `reasons`; items keep indices only.
//! `catalogue.rs` holds the embedded releases.

pub(crate) mod catalogue;
pub(crate) mod load;
mod metadata;
mod model;

// foldhash: loading hashes every item and string; SipHash was a third of the load time.
use foldhash::HashMap;

pub(crate) use metadata::MetadataRows;
pub use model::*;

/// One release's tables, loaded and indexed (the public `Inventory` of `loaded.rs` is these with
/// the engine built on them).
pub struct Tables {
    pub meta: InventoryMeta,
    pub(crate) strings: Vec<String>,
    pub(crate) string_index: HashMap<String, StrId>,
    /// Every item's and placeholder's node id, one after the other ([`Item::id`]).
    pub(crate) ids: String,
    /// Per string id: the id `string_index` gives its text (equal texts, one id).
    pub(crate) canonical_str: Vec<StrId>,
    pub(crate) reasons: Vec<String>,
    pub(crate) reason_index: HashMap<String, Reason>,
    pub(crate) items: Vec<Item>,
    pub(crate) generated: Vec<Generated>,
    pub(crate) forward: Vec<ForwardOp>,
    pub(crate) backward: Vec<BackwardOp>,
    #[allow(dead_code)]
    pub(crate) dtypes: Vec<DtypeInfo>,
    /// dtype string index -> position in `dtypes`.
    pub(crate) dtype_pos: HashMap<StrId, usize>,
    /// Per string id: the position of the inventory dtype whose name it is, so that
    /// per-dtype memos are as small as the dtype table.
    pub(crate) dtype_slot: Vec<u8>,
    /// Per interned string: 1 if it names a float/complex inventory dtype.
    pub(crate) float_or_complex_by_str: Vec<u8>,
    pub(crate) devices: Vec<DeviceInfo>,
    pub(crate) custom_device_class: u8,
    pub(crate) deselect_reasons: Vec<bool>,
    pub(crate) opinfo_level: u8,
    /// First item index of each OpInfo/foreach test function, for placeholders.
    pub(crate) function_first: HashMap<StrId, usize>,
    /// OpInfo error ops (items of `test_op_errors`), in order.
    pub(crate) error_ops: Vec<StrId>,
    /// (entry, dtype) of the generated foreach/fused items.
    pub(crate) foreach_pairs: Vec<(StrId, StrId)>,
    /// Synthetic placeholder items (empty manifest-generated parameter sets).
    pub(crate) placeholders: Placeholders,
    /// Well-known strings.
    pub(crate) well_known: WellKnown,
    /// Per item, what the known-segfault matchers read of its metadata.
    pub(crate) metadata: MetadataRows,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct WellKnown {
    pub dummy: StrId,
    pub clean: StrId,
    pub has_nan: StrId,
    pub has_inf: StrId,
    pub float64: StrId,
    pub none_str: StrId,
    pub multi_device: StrId,
    pub fwd_fn: StrId,
    pub bwd_fn: StrId,
    pub err_fn: StrId,
    pub foreach_fn: StrId,
}

/// [`Tables::dtype_slot`] of a string that names no inventory dtype.
pub(crate) const NO_DTYPE_SLOT: u8 = u8::MAX;

impl Tables {
    /// Number of pytest items in the maximal collection.
    pub fn item_count(&self) -> usize {
        self.items.len()
    }

    /// An item's node id.
    pub fn item_id(&self, item: &Item) -> &str {
        item.id_in(&self.ids)
    }

    /// An item's node id as show-skips prints it (`nodeid.split('/')[-1]`).
    pub fn printed_id(&self, item: &Item) -> &str {
        self.item_id(item).get(item.printed_from as usize..).unwrap_or_default()
    }

    pub fn string(&self, s: StrId) -> &str {
        &self.strings[s as usize]
    }

    pub fn reason_name(&self, r: Reason) -> &str {
        &self.reasons[r as usize]
    }

    pub(crate) fn lookup(&self, s: &str) -> Option<StrId> {
        self.string_index.get(s).copied()
    }

    pub(crate) fn reason_id(&self, r: &str) -> Reason {
        self.reason_index[r]
    }

    /// Device names with recorded device-dependent facts, with
    /// `torch.device(name).type` (None: torch rejects the name) and whether
    /// torchcts finds a device module for it.
    pub fn known_devices(&self) -> Vec<(&str, Option<&str>, bool)> {
        self.devices.iter().map(|d| (d.name.as_str(), d.torch_type.as_deref(), d.module)).collect()
    }
}

/// The device name the extraction used for "a name torch rejects".
pub const CUSTOM_DEVICE_PLACEHOLDER: &str = "my_backend";

pub(crate) const ENGINE_REASONS: &[&str] = &[
    "backend_gate_mismatch",
    "dtype_not_listed",
    "dtype_not_supported",
    "dtype_regex_filtered",
    "cpu_contract_unknown",
    "cpu_contract_unsupported",
    "capability_not_declared",
    "device_count",
    "op_excluded",
    "container_format_not_supported",
    "custom_container_decoder_not_declared",
    "resource_limit",
    "generated_no_manifest_enabled_dtypes",
    "coverage_strategy_pending",
    "oom_not_recoverable",
    "path_shape_no_selected_cases",
    "opinfo_no_selected_cases",
    "semantic_level_gt_requested",
    "semantic_level_out_of_range",
    "known_backend_crash",
];
