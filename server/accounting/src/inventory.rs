//! The inventory of the TorchCTS suite: loading, validation and indexes.
//!
//! The file is written by `tools/inventory/extract_inventory.py` (format in
//! docs/inventory.md). Loading turns its JSON into flat tables: every string
//! (operator names, surfaces, details) is interned once in `strings`, reasons in
//! `reasons`; items keep indices only. Indexes built here: item ranges per test
//! function for manifest-generated parameter sets, the OpInfo op tables, and
//! per-device fact lists.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;

use serde::Deserialize;
use serde_json::Value;

/// Bytes of the inventory committed with the repository.

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
    Forward { op: Str, dt: Str, cond: Str, table: u32 },
    /// `table`: index into the backward table (`u32::MAX` if absent).
    Backward { op: Str, dt: Str, table: u32 },
    Errors { op: Str },
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
    pub requires: Vec<Str>,
    pub d2: Vec<DtypeCheck>,
    pub fixed: Vec<FixedGate>,
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
    pub dev: Vec<(u8, Vec<DevFact>)>,
    /// Test function (node id up to `[`), interned.
    pub function: Str,
    pub id: String,
    /// Byte offset where the printed id (`nodeid.split('/')[-1]`) starts.
    pub printed_from: usize,
}

impl Item {
    fn with_rare_flags(mut self) -> Item {
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

    pub fn printed_id(&self) -> &str {
        &self.id[self.printed_from..]
    }
    pub(crate) fn dev_facts(&self, class: u8) -> &[DevFact] {
        self.dev.iter().find(|(c, _)| *c == class).map(|(_, f)| f.as_slice()).unwrap_or(&[])
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
    /// Time spent matching so far; a pattern that backtracks catastrophically is given up
    /// (treated as matching nothing, with a problem reported) instead of stalling the caller.
    pub spent: std::time::Duration,
    pub gave_up: bool,
}

/// Per `re.search` call and per pattern in total: beyond these the pattern is given up.
pub(crate) const REGEX_STEPS_PER_NAME: u64 = 200_000;
pub(crate) const REGEX_TIME_PER_PATTERN: std::time::Duration = std::time::Duration::from_millis(250);

/// The loaded, indexed inventory.
pub struct Inventory {
    pub meta: InventoryMeta,
    pub(crate) strings: Vec<String>,
    pub(crate) string_index: HashMap<String, Str>,
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
    pub(crate) regex_cache: Mutex<HashMap<String, RegexEntry>>,
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

#[derive(Deserialize)]
struct RawInventory {
    format: String,
    format_version: u64,
    torchcts_version: String,
    torch_version: String,
    python_version: String,
    extracted_at: String,
    devices: HashMap<String, RawDevice>,
    dtypes: Vec<RawDtype>,
    reason_sets: HashMap<String, Vec<String>>,
    opinfo_default_level: u8,
    generated_default_level: u8,
    strings: Vec<String>,
    generated: Vec<Value>,
    opinfo: RawOpinfo,
    items: Vec<RawItem>,
}

type RawRd = (String, u32);
/// `[rule, reason, detail string index]`
type RawDevFact = (String, String, u32);

#[derive(Deserialize)]
struct RawItem {
    id: String,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    op: Option<u32>,
    lvl: u8,
    #[serde(default)]
    d1: Option<RawDtypeCheck>,
    #[serde(default)]
    d2: Vec<RawDtypeCheck>,
    #[serde(default)]
    fx: Vec<RawFixed>,
    #[serde(default)]
    req: Vec<String>,
    #[serde(default)]
    pack: Option<String>,
    #[serde(default)]
    decoder: bool,
    #[serde(default)]
    large: bool,
    #[serde(default)]
    rng: u8,
    #[serde(default)]
    gen: Option<u32>,
    #[serde(default)]
    fe: Option<u32>,
    #[serde(default)]
    oom: bool,
    #[serde(default)]
    gc: Option<RawGc>,
    #[serde(default)]
    ps_empty: bool,
    #[serde(default)]
    oi_dummy: bool,
    #[serde(default)]
    oi: Option<Vec<Value>>,
    #[serde(default)]
    dev: Option<HashMap<String, Vec<RawDevFact>>>,
}

#[derive(Deserialize)]
struct RawDtypeCheck {
    p: String,
    #[serde(default)]
    dt: Option<String>,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    c: Option<RawRd>,
}

#[derive(Deserialize)]
struct RawFixed {
    s: u32,
    dt: String,
    #[serde(default)]
    c: Option<RawRd>,
}

#[derive(Deserialize)]
struct RawGc {
    #[serde(default)]
    c: Option<RawRd>,
}

#[derive(Deserialize)]
struct RawDevice {
    #[serde(rename = "type")]
    torch_type: Option<String>,
    module: bool,
}

#[derive(Deserialize)]
struct RawDtype {
    name: String,
    fc: bool,
}

#[derive(Deserialize)]
struct RawOpinfo {
    forward: Vec<Value>,
    backward: Vec<Value>,
}

/// Order in which device classes are listed (the extraction's DEVICES list).
const DEVICE_ORDER: &[&str] = &["cpu", "cuda", "mps", "xpu", "meta", "xla", "hpu", "privateuseone", "my_backend"];

/// The device name the extraction used for "a name torch rejects".
pub const CUSTOM_DEVICE_PLACEHOLDER: &str = "my_backend";

/// Device classes in the extraction's order, then any other recorded name.
fn device_classes(raw: &HashMap<String, RawDevice>) -> Vec<DeviceInfo> {
    let info = |name: &str, d: &RawDevice| DeviceInfo { name: name.to_string(), torch_type: d.torch_type.clone(), module: d.module };
    let known = DEVICE_ORDER.iter().filter_map(|name| raw.get(*name).map(|d| info(name, d)));
    let others = raw.iter().filter(|(name, _)| !DEVICE_ORDER.contains(&name.as_str())).map(|(name, d)| info(name, d));
    known.chain(others).collect()
}

/// Points each OpInfo item at its row of the forward/backward table (`u32::MAX`: none).
fn link_opinfo_tables(items: &mut [Item], forward: &[ForwardOp], backward: &[BackwardOp]) {
    let forward_by_op: HashMap<Str, usize> = forward.iter().enumerate().map(|(i, f)| (f.op, i)).collect();
    let backward_by_op: HashMap<Str, usize> = backward.iter().enumerate().map(|(i, f)| (f.op, i)).collect();
    for it in items.iter_mut() {
        match &mut it.opinfo {
            Some(OiParam::Forward { op, table, .. }) => {
                *table = forward_by_op.get(op).map(|&i| i as u32).unwrap_or(u32::MAX)
            }
            Some(OiParam::Backward { op, table, .. }) => {
                *table = backward_by_op.get(op).map(|&i| i as u32).unwrap_or(u32::MAX)
            }
            _ => {}
        }
    }
}

impl Builder {
    /// The OpInfo forward and backward tables the OpInfo modules build their parameters from.
    fn opinfo_tables(&mut self, opinfo: &RawOpinfo) -> Result<(Vec<ForwardOp>, Vec<BackwardOp>), String> {
        let mut forward = Vec::new();
        for f in &opinfo.forward {
            let dts = f["dts"].as_array().ok_or("forward dts")?;
            forward.push(ForwardOp {
                op: sidx(&f["op"])?,
                jiterator: f["jit"].as_bool().unwrap_or(false),
                sparse: f["sparse"].as_bool().unwrap_or(false),
                ieee_ok: f["ieee"].as_bool().unwrap_or(false),
                dtypes: dts
                    .iter()
                    .map(|d| {
                        let dt = self.intern(d[0].as_str().unwrap_or_default());
                        let fc = d[1].as_bool().unwrap_or(false);
                        let c = if d.get(2).is_some() { Some(self.rd(&d[2])?) } else { None };
                        Ok((dt, fc, c))
                    })
                    .collect::<Result<_, String>>()?,
            });
        }
        let mut backward = Vec::new();
        for f in &opinfo.backward {
            let dts = f["dts"].as_array().ok_or("backward dts")?;
            backward.push(BackwardOp {
                op: sidx(&f["op"])?,
                jiterator: f["jit"].as_bool().unwrap_or(false),
                eligible: f["ok"].as_bool().unwrap_or(false),
                sparse: f["sparse"].as_bool().unwrap_or(false),
                dtypes: dts
                    .iter()
                    .map(|d| {
                        let dt = self.intern(d[0].as_str().unwrap_or_default());
                        let c = if d.get(1).is_some() { Some(self.rd(&d[1])?) } else { None };
                        Ok((dt, c))
                    })
                    .collect::<Result<_, String>>()?,
            });
        }
        Ok((forward, backward))
    }
}

impl Inventory {
    /// The embedded inventory of the newest torch release torchcts 0.4.1 supports,
    /// decompressed and indexed on first use (other releases: [`Inventory::for_torch`]).
    pub fn embedded() -> &'static Inventory {
        Inventory::for_torch(crate::versions::newest_torch_release()).expect("the base release is embedded")
    }

    /// Load an inventory file (`.json` or gzip-compressed `.json.gz`).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Inventory, String> {
        let bytes = std::fs::read(path.as_ref()).map_err(|e| format!("{}: {e}", path.as_ref().display()))?;
        Inventory::from_bytes(&bytes)
    }

    /// Load from bytes, gzip-compressed or plain JSON.
    pub fn from_bytes(bytes: &[u8]) -> Result<Inventory, String> {
        let json: Vec<u8> = if bytes.starts_with(&[0x1f, 0x8b]) {
            let mut out = Vec::with_capacity(bytes.len() * 12);
            flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
            out
        } else {
            bytes.to_vec()
        };
        let raw: RawInventory = serde_json::from_slice(&json).map_err(|e| format!("inventory JSON: {e}"))?;
        Inventory::build(raw)
    }

    fn build(raw: RawInventory) -> Result<Inventory, String> {
        if raw.format != "torchcts-lsp-inventory" || raw.format_version != 1 {
            return Err(format!("unsupported inventory format {} v{}", raw.format, raw.format_version));
        }
        let mut b = Builder { strings: raw.strings.clone(), string_index: HashMap::new(), reasons: Vec::new(), reason_index: HashMap::new() };
        for (i, s) in raw.strings.iter().enumerate() {
            b.string_index.entry(s.clone()).or_insert(i as Str);
        }
        let devices = device_classes(&raw.devices);
        let dev_class: HashMap<String, u8> = devices.iter().enumerate().map(|(i, d)| (d.name.clone(), i as u8)).collect();
        let custom_device_class = *dev_class.get(CUSTOM_DEVICE_PLACEHOLDER).ok_or("inventory lacks the custom device class")?;

        let dtypes: Vec<DtypeInfo> = raw.dtypes.iter().map(|d| DtypeInfo { name: d.name.clone(), float_or_complex: d.fc }).collect();
        let mut dtype_pos = HashMap::new();
        for (i, d) in dtypes.iter().enumerate() {
            let s = b.intern(&d.name);
            dtype_pos.insert(s, i);
        }

        let mut generated = Vec::with_capacity(raw.generated.len());
        for g in &raw.generated {
            generated.push(b.generated(g, &dev_class)?);
        }
        let mut items = Vec::with_capacity(raw.items.len());
        for it in &raw.items {
            items.push(b.item(it, &dev_class)?);
        }
        let (forward, backward) = b.opinfo_tables(&raw.opinfo)?;
        let mut deselect = HashMap::new();
        for key in ["manifest_declined", "structured_deselect", "dtype_manifest", "dtype_contract"] {
            for r in raw.reason_sets.get(key).into_iter().flatten() {
                deselect.insert(b.reason(r), true);
            }
        }
        let s = WellKnown {
            dummy: b.intern("dummy"),
            clean: b.intern("clean"),
            has_nan: b.intern("has_nan"),
            has_inf: b.intern("has_inf"),
            float64: b.intern("torch.float64"),
            none_str: b.intern("None"),
            multi_device: b.intern("multi_device"),
            fwd_fn: b.intern("opinfo/test_opinfo_forward.py::test_op_forward"),
            bwd_fn: b.intern("opinfo/test_opinfo_backward.py::test_op_backward"),
            err_fn: b.intern("opinfo/test_opinfo_errors.py::test_op_errors"),
            foreach_fn: b.intern("generated/test_foreach_fused.py::test_generated_foreach_or_fused"),
        };
        // Reasons the engine produces itself.
        for r in ENGINE_REASONS {
            b.reason(r);
        }
        let mut deselect_reasons = vec![false; b.reasons.len()];
        for (r, _) in deselect {
            deselect_reasons[r as usize] = true;
        }
        let mut function_first = HashMap::new();
        for (i, it) in items.iter().enumerate() {
            function_first.entry(it.function).or_insert(i);
        }
        link_opinfo_tables(&mut items, &forward, &backward);
        let error_ops = items
            .iter()
            .filter_map(|it| match it.opinfo {
                Some(OiParam::Errors { op }) => Some(op),
                _ => None,
            })
            .collect();
        let foreach_pairs = items
            .iter()
            .filter_map(|it| match (it.foreach_entry, &it.d1) {
                (Some(e), Some(d1)) => Some((e, d1.dt)),
                _ => None,
            })
            .collect();
        let mut fc_by_str = vec![0u8; b.strings.len() + 16];
        for (&st, &pos) in &dtype_pos {
            if dtypes[pos].float_or_complex {
                fc_by_str[st as usize] = 1;
            }
        }
        let placeholders = b.placeholders(&items, &function_first, &s, raw.opinfo_default_level, raw.generated_default_level);
        let canonical_str: Vec<Str> =
            b.strings.iter().enumerate().map(|(i, t)| b.string_index.get(t).copied().unwrap_or(i as Str)).collect();
        let canonical = |id: Str| canonical_str.get(id as usize).copied().unwrap_or(id);
        let hot = crate::hot::build(crate::hot::BuildInput {
            items: &items,
            placeholders: &placeholders,
            device_classes: devices.len(),
            clean: s.clean,
            forward: &forward,
            backward: &backward,
            generated: &generated,
            fc_by_str: &fc_by_str,
            canonical: &canonical,
        })?;
        Ok(Inventory {
            meta: InventoryMeta {
                format_version: raw.format_version,
                torchcts_version: raw.torchcts_version,
                torch_version: raw.torch_version,
                python_version: raw.python_version,
                extracted_at: raw.extracted_at,
            },
            strings: b.strings,
            string_index: b.string_index,
            canonical_str,
            reasons: b.reasons,
            reason_index: b.reason_index,
            items,
            generated,
            forward,
            backward,
            dtypes,
            fc_by_str,
            dtype_pos,
            devices,
            custom_device_class,
            deselect_reasons,
            opinfo_level: raw.opinfo_default_level,
            function_first,
            error_ops,
            foreach_pairs,
            placeholders,
            hot,
            regex_cache: Mutex::new(HashMap::new()),
            s,
        })
    }

    /// Number of pytest items in the maximal collection.
    pub fn item_count(&self) -> usize {
        self.items.len()
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
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for it in &self.items {
            if let Some(op) = it.op {
                if seen.insert(op) {
                    out.push(self.string(op));
                }
            }
        }
        for f in &self.forward {
            if seen.insert(f.op) {
                out.push(self.string(f.op));
            }
        }
        out
    }

    /// Device names with recorded device-dependent facts, with
    /// `torch.device(name).type` (None: torch rejects the name) and whether
    /// torchcts finds a device module for it.
    pub fn known_devices(&self) -> Vec<(&str, Option<&str>, bool)> {
        self.devices.iter().map(|d| (d.name.as_str(), d.torch_type.as_deref(), d.module)).collect()
    }
}

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

fn sidx(v: &Value) -> Result<Str, String> {
    v.as_u64().map(|x| x as Str).ok_or_else(|| format!("expected string index, got {v}"))
}

/// The items pytest collects when a manifest-generated parameter list is empty.
#[derive(Debug, Clone)]
pub(crate) struct Placeholders {
    pub forward: Item,
    pub backward: Item,
    pub errors: Item,
    pub foreach: Item,
}

struct Builder {
    strings: Vec<String>,
    string_index: HashMap<String, Str>,
    reasons: Vec<String>,
    reason_index: HashMap<String, Reason>,
}

impl Builder {
    fn intern(&mut self, s: &str) -> Str {
        if let Some(&i) = self.string_index.get(s) {
            return i;
        }
        let i = self.strings.len() as Str;
        self.strings.push(s.to_string());
        self.string_index.insert(s.to_string(), i);
        i
    }

    fn reason(&mut self, r: &str) -> Reason {
        if let Some(&i) = self.reason_index.get(r) {
            return i;
        }
        let i = self.reasons.len() as Reason;
        self.reasons.push(r.to_string());
        self.reason_index.insert(r.to_string(), i);
        i
    }

    /// `[reason, detail string index]`
    fn rd(&mut self, v: &Value) -> Result<Rd, String> {
        let a = v.as_array().ok_or_else(|| format!("expected [reason, detail], got {v}"))?;
        let reason = self.reason(a[0].as_str().unwrap_or("cpu_contract_unknown"));
        Ok(Rd { reason, detail: sidx(&a[1])? })
    }

    fn raw_rd(&mut self, c: &RawRd) -> Rd {
        Rd { reason: self.reason(&c.0), detail: c.1 }
    }

    fn dtype_check(&mut self, v: &RawDtypeCheck) -> Result<DtypeCheck, String> {
        let param = match v.p.as_str() {
            "dtype" => DtypeParam::Dtype,
            "dtype_str" => DtypeParam::DtypeStr,
            "autocast_dtype" => DtypeParam::Autocast,
            "src_dtype" => DtypeParam::Src,
            "dst_dtype" => DtypeParam::Dst,
            other => return Err(format!("unknown dtype param {other:?}")),
        };
        let dt = self.intern(v.dt.as_deref().unwrap_or("None"));
        let mode = match v.mode.as_deref() {
            Some("set") => ContractMode::Set,
            Some("fail") => ContractMode::Fail,
            _ => ContractMode::None,
        };
        let contract = v.c.as_ref().map(|c| self.raw_rd(c));
        Ok(DtypeCheck { param, dt, mode, contract })
    }

    fn item(&mut self, v: &RawItem, dev_class: &HashMap<String, u8>) -> Result<Item, String> {
        let id = v.id.clone();
        if let Some(e) = &v.error {
            return Err(format!("inventory item {id} has an extraction error: {e}"));
        }
        let printed_from = id.rfind('/').map(|i| i + 1).unwrap_or(0);
        let function = self.intern(id.split('[').next().unwrap_or(&id));
        let d1 = match &v.d1 {
            Some(d) => Some(self.dtype_check(d)?),
            None => None,
        };
        let mut d2 = Vec::new();
        for d in &v.d2 {
            d2.push(self.dtype_check(d)?);
        }
        let mut fixed = Vec::new();
        for g in &v.fx {
            let dt = self.intern(&g.dt);
            let contract = g.c.as_ref().map(|c| self.raw_rd(c));
            fixed.push(FixedGate { surface: g.s, dt, contract });
        }
        let requires = v.req.iter().map(|r| self.intern(r)).collect();
        let packing = v.pack.as_deref().map(|p| self.intern(p));
        let gradcheck = v.gc.as_ref().map(|gc| gc.c.as_ref().map(|c| self.raw_rd(c)));
        let opinfo = match &v.oi {
            Some(a) => {
                let kind = a[0].as_str().unwrap_or_default();
                let op = sidx(&a[1])?;
                match kind {
                    "f" => {
                        let dt = self.intern(a[2].as_str().unwrap_or_default());
                        let cond = self.intern(a[3].as_str().unwrap_or_default());
                        Some(OiParam::Forward { op, dt, cond, table: u32::MAX })
                    }
                    "b" => {
                        let dt = self.intern(a[2].as_str().unwrap_or_default());
                        Some(OiParam::Backward { op, dt, table: u32::MAX })
                    }
                    _ => Some(OiParam::Errors { op }),
                }
            }
            None => None,
        };
        let mut dev = Vec::new();
        if let Some(map) = &v.dev {
            for (name, facts) in map {
                let Some(&class) = dev_class.get(name) else { continue };
                let mut list = Vec::new();
                for (rule, reason, detail) in facts {
                    let rule = match rule.as_str() {
                        "gate" => DevRule::Gate,
                        "cpu" => DevRule::Cpu,
                        "mod" => DevRule::Module,
                        "setdev" => DevRule::SetDevice,
                        "mpsbug" => DevRule::MpsBug,
                        _ => DevRule::Crash,
                    };
                    let reason = self.reason(reason);
                    list.push(DevFact { rule, rd: Rd { reason, detail: *detail } });
                }
                dev.push((class, list));
            }
        }
        Ok(Item {
            rare: 0,
            printed_from,
            op: v.op,
            level: v.lvl,
            d1,
            d2,
            fixed,
            requires,
            packing,
            decoder: v.decoder,
            large: v.large,
            rng: v.rng,
            generated: v.gen,
            foreach_entry: v.fe,
            oom: v.oom,
            gradcheck,
            path_shape_empty: v.ps_empty,
            opinfo_dummy: v.oi_dummy,
            opinfo,
            dev,
            function,
            id,
        }
        .with_rare_flags())
    }

    fn placeholders(
        &mut self,
        items: &[Item],
        first: &HashMap<Str, usize>,
        s: &WellKnown,
        opinfo_level: u8,
        generated_level: u8,
    ) -> Placeholders {
        let make = |this: &mut Builder, function: Str, suffix: &str, default_level: u8, d1: Option<DtypeCheck>, op: Option<Str>, dummy: bool| {
            let template = first.get(&function).map(|&i| &items[i]);
            let fname = this.strings[function as usize].clone();
            let id = format!("{fname}[{suffix}]");
            Item {
                rare: 0,
                printed_from: id.rfind('/').map(|i| i + 1).unwrap_or(0),
                id,
                op,
                level: template.map(|t| if t.generated.is_some() || t.foreach_entry.is_some() { default_level } else { t.level }).unwrap_or(default_level),
                d1,
                d2: Vec::new(),
                fixed: Vec::new(),
                requires: template.map(|t| t.requires.clone()).unwrap_or_default(),
                packing: None,
                decoder: false,
                large: false,
                rng: 0,
                generated: None,
                foreach_entry: None,
                oom: false,
                gradcheck: None,
                path_shape_empty: false,
                opinfo_dummy: dummy,
                opinfo: None,
                dev: Vec::new(),
                function,
            }
            .with_rare_flags()
        };
        let dummy_check = |param| DtypeCheck { param, dt: s.dummy, mode: ContractMode::Set, contract: None };
        Placeholders {
            forward: make(self, s.fwd_fn, "clean-dummy-dummy", opinfo_level, Some(dummy_check(DtypeParam::DtypeStr)), Some(s.dummy), true),
            backward: make(self, s.bwd_fn, "dummy-dummy", opinfo_level, Some(dummy_check(DtypeParam::DtypeStr)), Some(s.dummy), true),
            errors: make(self, s.err_fn, "dummy", opinfo_level, None, Some(s.dummy), true),
            foreach: make(
                self,
                s.foreach_fn,
                "no-audit",
                generated_level,
                Some(DtypeCheck { param: DtypeParam::Dtype, dt: s.none_str, mode: ContractMode::None, contract: None }),
                None,
                false,
            ),
        }
    }

    fn generated(&mut self, v: &Value, dev_class: &HashMap<String, u8>) -> Result<Generated, String> {
        let name = sidx(&v["name"])?;
        let early = match v.get("early") {
            Some(x) => Some(self.rd(x)?),
            None => None,
        };
        let late = match v.get("late") {
            Some(x) => Some(self.rd(x)?),
            None => None,
        };
        let mut oracle = Vec::new();
        if let Some(map) = v.get("oracle").and_then(Value::as_object) {
            for (dev, out) in map {
                let Some(&class) = dev_class.get(dev) else { continue };
                let o = if out.is_string() { OracleOutcome::Error } else { OracleOutcome::Skip(self.rd(out)?) };
                oracle.push((class, o));
            }
        }
        let dt = v
            .get("dt")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| match c.as_str().unwrap_or_default() {
                "A" => DtCode::Allowed,
                "N+" => DtCode::ProbeOk,
                "N-" => DtCode::ProbeFail,
                "E" => DtCode::Error,
                _ => DtCode::Rejected,
            })
            .collect();
        let manual_shape = match v.get("shape").and_then(Value::as_array) {
            Some(cases) => Some(ShapeFacts {
                base: sidx(&v["base"])?,
                clean_only: v["clean_only"].as_bool().unwrap_or(false),
                clean_family: v["clean_family"].as_bool().unwrap_or(false),
                cases: cases
                    .iter()
                    .map(|c| {
                        let s = c.as_str().unwrap_or_default();
                        if s.is_empty() {
                            return None;
                        }
                        let mut out = [None; 3];
                        for (i, ch) in s.chars().take(3).enumerate() {
                            out[i] = match ch {
                                '1' => Some(true),
                                '0' => Some(false),
                                _ => None,
                            };
                        }
                        Some(out)
                    })
                    .collect(),
            }),
            None => None,
        };
        Ok(Generated {
            name,
            oracle_runner: v.get("oracle").is_some() || v["runner"].as_str() == Some("oracle_surface"),
            early,
            oracle,
            late,
            post_contract: v.get("post").and_then(Value::as_bool).unwrap_or(false),
            dt,
            manual_shape,
        })
    }
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

