//! The inventory of the TorchCTS suite: its tables and what callers ask of them.
//!
//! The extraction (`tools/inventory/extract_inventory.py`, format in docs/inventory.md)
//! writes JSON; the build packs it into binary rows (`inventory_pack`, `build.rs`) and
//! `load.rs` reads those into the tables here: every string (operator names, surfaces,
//! details) is interned once in `strings`, reasons in `reasons`; items keep indices only.

// foldhash: loading hashes every item and string; SipHash was a third of the load time.
use foldhash::HashMap;
use std::io::Read;
use std::sync::Mutex;

pub type Str = u32;
pub type Reason = u16;

/// A reason with its detail text (both interned).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rd {
    pub reason: Reason,
    pub detail: Str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DtypeParam {
    Dtype,
    DtypeStr,
    Autocast,
    Src,
    Dst,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContractMode {
    /// No contract check (no surface, or exempt).
    None,
    /// The contract result replaces the current reason (may clear it).
    Set,
    /// Only a failing contract sets the reason (generated entries).
    Fail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DtypeCheck {
    pub param: DtypeParam,
    /// The dtype string as torchcts prints it (`torch.float32`, or the raw
    /// `dtype_str` parameter such as `dummy`).
    pub dt: Str,
    pub mode: ContractMode,
    pub contract: Option<Rd>,
}

#[derive(Debug, Clone)]
pub struct FixedGate {
    pub surface: Str,
    pub dt: Str,
    pub contract: Option<Rd>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DevRule {
    Gate,
    Cpu,
    Module,
    SetDevice,
    MpsBug,
    Crash,
}

#[derive(Debug, Clone, Copy)]
pub struct DevFact {
    pub rule: DevRule,
    pub rd: Rd,
}

#[derive(Debug, Clone)]
pub enum OiParam {
    /// `table`: index into the forward table (`u32::MAX` if absent).
    Forward {
        op: Str,
        dt: Str,
        cond: Str,
        table: u32,
    },
    /// `table`: index into the backward table (`u32::MAX` if absent).
    Backward {
        op: Str,
        dt: Str,
        table: u32,
    },
    Errors {
        op: Str,
    },
}

/// Bits of [`Item::rare`]: which of the rarely present facts an item has, so
/// the rule chain touches only the first part of the struct for most items.
pub(crate) mod rare {
    pub const D2: u16 = 1;
    pub const FIXED: u16 = 1 << 1;
    pub const PACKING: u16 = 1 << 2;
    pub const LARGE: u16 = 1 << 3;
    pub const RNG: u16 = 1 << 4;
    pub const GENERATED: u16 = 1 << 5;
    pub const OOM: u16 = 1 << 6;
    pub const GRADCHECK: u16 = 1 << 7;
    pub const PATH_SHAPE: u16 = 1 << 8;
    pub const DUMMY: u16 = 1 << 9;
    pub const DEV: u16 = 1 << 10;
}

/// One pytest item of the maximal collection. `repr(C)` keeps the fields the
/// chain reads for every item together at the start.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Item {
    pub(crate) rare: u16,
    pub level: u8,
    /// 0: not a manual_rng entry, 1: rng entry, 2: rng entry using the target device generator.
    pub rng: u8,
    pub op: Option<Str>,
    pub d1: Option<DtypeCheck>,
    pub opinfo: Option<OiParam>,
    /// Foreach/fused case generated from the manifest: the entry name.
    pub foreach_entry: Option<Str>,
    // Boxed slices, not Vecs: ~20,000 items stay resident, and most lists are empty.
    pub requires: Box<[Str]>,
    pub d2: Box<[DtypeCheck]>,
    pub fixed: Box<[FixedGate]>,
    pub packing: Option<Str>,
    pub decoder: bool,
    pub large: bool,
    pub oom: bool,
    pub path_shape_empty: bool,
    pub opinfo_dummy: bool,
    pub generated: Option<u32>,
    /// `test_gradcheck*`: float64 contract result on the item's surfaces.
    pub gradcheck: Option<Option<Rd>>,
    /// Device-dependent facts, per device class index.
    pub dev: Box<[(u8, Box<[DevFact]>)]>,
    /// Test function (node id up to `[`), interned.
    pub function: Str,
    /// The node id: a span of [`Inventory::ids`] (one buffer for all ~20,000 ids, not a
    /// string each), start and end.
    pub(crate) id: (u32, u32),
    /// Byte offset in the node id where the printed id (`nodeid.split('/')[-1]`) starts.
    pub printed_from: u32,
}

impl Item {
    pub(crate) fn with_rare_flags(mut self) -> Item {
        let mut r = 0;
        let mut set = |cond: bool, bit: u16| {
            if cond {
                r |= bit;
            }
        };
        set(!self.d2.is_empty(), rare::D2);
        set(!self.fixed.is_empty(), rare::FIXED);
        set(self.packing.is_some(), rare::PACKING);
        set(self.large, rare::LARGE);
        set(self.rng > 0, rare::RNG);
        set(self.generated.is_some(), rare::GENERATED);
        set(self.oom, rare::OOM);
        set(self.gradcheck.is_some(), rare::GRADCHECK);
        set(self.path_shape_empty, rare::PATH_SHAPE);
        set(self.opinfo_dummy, rare::DUMMY);
        set(!self.dev.is_empty(), rare::DEV);
        self.rare = r;
        self
    }

    /// The node id, from the buffer of all ids (`Inventory::ids`).
    pub(crate) fn id_in<'a>(&self, ids: &'a str) -> &'a str {
        ids.get(self.id.0 as usize..self.id.1 as usize).unwrap_or_default()
    }

    /// Appends `parts` (the node id) to the buffer of all ids and points the item at it.
    pub(crate) fn with_id(mut self, ids: &mut String, parts: &[&str]) -> Item {
        let start = ids.len();
        for part in parts {
            ids.push_str(part);
        }
        let id = &ids[start..];
        self.printed_from = id.rfind('/').map_or(0, |i| i + 1) as u32;
        self.id = (start as u32, ids.len() as u32);
        self
    }
    pub(crate) fn dev_facts(&self, class: u8) -> &[DevFact] {
        self.dev.iter().find(|(c, _)| *c == class).map(|(_, f)| &f[..]).unwrap_or(&[])
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DtCode {
    /// Recorded CPU contract allows.
    Allowed,
    /// Not recorded; the generated clean CPU probe runs.
    ProbeOk,
    /// Not recorded; the probe fails.
    ProbeFail,
    /// Recorded, not allowed.
    Rejected,
    /// torchcts raised while deciding (the op is missing from this torch): its collection
    /// preflight catches the exception and skips nothing.
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OracleOutcome {
    Runs,
    Skip(Rd),
    /// torchcts raised (e.g. `torch.device(name)` rejects the name); the whole
    /// preflight then answers "no skip".
    Error,
}

#[derive(Debug, Clone)]
pub struct Generated {
    pub name: Str,
    pub oracle_runner: bool,
    pub early: Option<Rd>,
    pub oracle: Vec<(u8, OracleOutcome)>,
    pub late: Option<Rd>,
    pub post_contract: bool,
    pub dt: Vec<DtCode>,
    pub manual_shape: Option<ShapeFacts>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShapeFacts {
    pub base: Str,
    pub clean_only: bool,
    pub clean_family: bool,
    /// Per inventory dtype: None (not run), or [clean, has_nan, has_inf] outcomes
    /// (`Some(true)` runs on CPU; `None` for a tier that does not apply or cannot matter).
    pub cases: Vec<Option<[Option<bool>; 3]>>,
}

#[derive(Debug, Clone)]
pub struct ForwardOp {
    pub op: Str,
    pub jiterator: bool,
    pub sparse: bool,
    pub ieee_ok: bool,
    /// (dtype string, float/complex, contract rejection)
    pub dtypes: Vec<(Str, bool, Option<Rd>)>,
}

#[derive(Debug, Clone)]
pub struct BackwardOp {
    pub op: Str,
    pub jiterator: bool,
    pub eligible: bool,
    pub sparse: bool,
    pub dtypes: Vec<(Str, Option<Rd>)>,
}

#[derive(Debug, Clone)]
pub struct DtypeInfo {
    pub name: String,
    pub float_or_complex: bool,
}

#[derive(Debug, Clone)]
pub struct DeviceInfo {
    pub name: String,
    /// `torch.device(name).type`, `None` when torch rejects the name.
    pub torch_type: Option<String>,
    pub module: bool,
}

/// Metadata of an inventory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InventoryMeta {
    pub format_version: u64,
    pub torchcts_version: String,
    pub torch_version: String,
    pub python_version: String,
    pub extracted_at: String,
}

pub(crate) struct RegexEntry {
    pub compiled: Result<pyregex::Pattern, String>,
    /// Per interned string: 0 unknown, 1 no match, 2 match.
    pub memo: Vec<u8>,
    /// Matcher steps left to this pattern; a pattern that backtracks catastrophically is
    /// given up (treated as matching nothing, with a problem reported) instead of stalling.
    pub steps_left: u64,
    pub gave_up: bool,
}

/// Per `re.search` call and per pattern in total: beyond these the pattern is given up.
pub(crate) const REGEX_STEPS_PER_NAME: u64 = 200_000;
/// Matcher steps one pattern may spend over all the operator names of an accounting (about
/// 250 ms on this machine; steps, not time, so that the answer never depends on the load).
pub const REGEX_STEPS_PER_PATTERN: u64 = 50_000_000;

/// The operator names of the suite, in first-use order, and per canonical string id whether
/// it names one.
pub(crate) struct Operators {
    ids: Box<[Str]>,
    by_text: Box<[bool]>,
}

/// The loaded, indexed inventory.
pub struct Inventory {
    pub meta: InventoryMeta,
    pub(crate) strings: Vec<String>,
    pub(crate) string_index: HashMap<String, Str>,
    /// Every item's and placeholder's node id, one after the other ([`Item::id`]).
    pub(crate) ids: String,
    /// Per string id: the id `string_index` gives its text (equal texts, one id).
    pub(crate) canonical_str: Vec<Str>,
    pub(crate) reasons: Vec<String>,
    pub(crate) reason_index: HashMap<String, Reason>,
    pub(crate) items: Vec<Item>,
    pub(crate) generated: Vec<Generated>,
    pub(crate) forward: Vec<ForwardOp>,
    pub(crate) backward: Vec<BackwardOp>,
    #[allow(dead_code)]
    pub(crate) dtypes: Vec<DtypeInfo>,
    /// dtype string index -> position in `dtypes`.
    pub(crate) dtype_pos: HashMap<Str, usize>,
    /// Per string id: the position of the inventory dtype whose name it is, so that
    /// per-dtype memos are as small as the dtype table.
    pub(crate) dtype_slot: Vec<u8>,
    /// The reason ids the rule chain records, looked up once.
    pub(crate) chain_reasons: std::sync::OnceLock<crate::account::Reasons>,
    /// Per interned string: 1 if it names a float/complex inventory dtype.
    pub(crate) fc_by_str: Vec<u8>,
    pub(crate) devices: Vec<DeviceInfo>,
    pub(crate) custom_device_class: u8,
    pub(crate) deselect_reasons: Vec<bool>,
    pub(crate) opinfo_level: u8,
    /// First item index of each OpInfo/foreach test function, for placeholders.
    pub(crate) function_first: HashMap<Str, usize>,
    /// OpInfo error ops (items of `test_op_errors`), in order.
    pub(crate) error_ops: Vec<Str>,
    /// (entry, dtype) of the generated foreach/fused items.
    pub(crate) foreach_pairs: Vec<(Str, Str)>,
    /// Synthetic placeholder items (empty manifest-generated parameter sets).
    pub(crate) placeholders: Placeholders,
    /// What the rule chain reads for every item, compact.
    pub(crate) hot: crate::hot::HotTable,
    pub(crate) regex_cache: Mutex<std::collections::HashMap<String, RegexEntry>>,
    /// The suite's operator names, found on first use: the diagnostics ask on every keystroke.
    pub(crate) operators: std::sync::OnceLock<Operators>,
    /// Well-known strings.
    pub(crate) s: WellKnown,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct WellKnown {
    pub dummy: Str,
    pub clean: Str,
    pub has_nan: Str,
    pub has_inf: Str,
    pub float64: Str,
    pub none_str: Str,
    pub multi_device: Str,
    pub fwd_fn: Str,
    pub bwd_fn: Str,
    pub err_fn: Str,
    pub foreach_fn: Str,
}

/// [`Inventory::dtype_slot`] of a string that names no inventory dtype.
pub(crate) const NO_DTYPE_SLOT: u8 = u8::MAX;

impl Inventory {
    /// The embedded inventory of the newest torch release torchcts 0.4.1 supports,
    /// decompressed and indexed on first use (other releases: [`Inventory::for_torch`]).
    pub fn embedded() -> &'static Inventory {
        Inventory::for_torch(crate::versions::newest_torch_release()).expect("the base release is embedded")
    }

    /// Load an inventory file's bytes as the extraction writes it (`.json`, or gzip-compressed
    /// `.json.gz`): packed as the build packs the embedded releases, then loaded like them.
    /// The caller reads the file: the crate does no IO.
    pub fn from_bytes(bytes: &[u8]) -> Result<Inventory, String> {
        let json: Vec<u8> = if bytes.starts_with(&[0x1f, 0x8b]) {
            let mut out = Vec::with_capacity(bytes.len() * 12);
            flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
            out
        } else {
            bytes.to_vec()
        };
        let packed = inventory_pack::pack_single(&json, "loaded")?;
        let archive = inventory_pack::Archive::read(&packed)?;
        let release = archive.releases().first().ok_or("empty inventory archive")?;
        crate::load::load(release)
    }

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

    pub fn string(&self, s: Str) -> &str {
        &self.strings[s as usize]
    }

    pub fn reason_name(&self, r: Reason) -> &str {
        &self.reasons[r as usize]
    }

    pub(crate) fn lookup(&self, s: &str) -> Option<Str> {
        self.string_index.get(s).copied()
    }

    pub(crate) fn reason_id(&self, r: &str) -> Reason {
        self.reason_index[r]
    }

    /// Distinct operator names the suite uses (OpInfo ops, dispatcher surfaces,
    /// generated entries), for completion and regex hints.
    pub fn operator_names(&self) -> Vec<&str> {
        self.operators().ids.iter().map(|&op| self.string(op)).collect()
    }

    /// How many names [`Inventory::operator_names`] gives.
    pub fn operator_count(&self) -> usize {
        self.operators().ids.len()
    }

    /// Whether `name` is one of [`Inventory::operator_names`].
    pub fn is_operator(&self, name: &str) -> bool {
        // `lookup` gives the canonical id of a text.
        self.lookup(name).is_some_and(|s| self.operators().by_text.get(s as usize) == Some(&true))
    }

    fn operators(&self) -> &Operators {
        self.operators.get_or_init(|| {
            let mut seen = std::collections::HashSet::new();
            let ops = self.items.iter().filter_map(|it| it.op).chain(self.forward.iter().map(|f| f.op));
            let ids: Box<[Str]> = ops.filter(|&op| seen.insert(op)).collect();
            let mut by_text = vec![false; self.strings.len()].into_boxed_slice();
            for &op in &ids {
                let canonical = self.canonical_str.get(op as usize).copied().unwrap_or(op);
                if let Some(slot) = by_text.get_mut(canonical as usize) {
                    *slot = true;
                }
            }
            Operators { ids, by_text }
        })
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
];

/// The items pytest collects when a manifest-generated parameter list is empty.
#[derive(Debug, Clone)]
pub(crate) struct Placeholders {
    pub forward: Item,
    pub backward: Item,
    pub errors: Item,
    pub foreach: Item,
}

impl Inventory {
    /// Operator names of the suite that `re.search(pattern, name)` matches
    /// (for hovers and "regex matches no operator" hints). `Err` carries
    /// Python's `re.error` text.
    pub fn regex_matches(&self, pattern: &str) -> Result<Vec<&str>, String> {
        let (compiled, _) = pyregex::compile(pattern).map_err(|(e, _)| e.python_text(pattern))?;
        Ok(self
            .operator_names()
            .into_iter()
            .filter(|name| compiled.search_bounded(name, REGEX_STEPS_PER_NAME).unwrap_or(false))
            .collect())
    }
}
