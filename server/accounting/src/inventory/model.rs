//! The inventory's data model: one pytest item of the maximal collection and the facts the
//! rule chain reads from it, generated entries, the OpInfo tables, devices and dtypes. Every
//! string is an id into [`super::Tables`]'s interned strings.

/// An interned string: its index in the inventory's strings (`Tables::string`).
pub type StrId = u32;
/// An interned reason name: its index in the inventory's reasons (`Tables::reason_name`).
pub type Reason = u16;

/// A reason with its detail text (both interned).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReasonDetail {
    pub reason: Reason,
    pub detail: StrId,
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
    pub dt: StrId,
    pub mode: ContractMode,
    pub contract: Option<ReasonDetail>,
}

#[derive(Debug, Clone)]
pub struct FixedGate {
    pub surface: StrId,
    pub dt: StrId,
    pub contract: Option<ReasonDetail>,
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
    pub rd: ReasonDetail,
}

#[derive(Debug, Clone)]
pub enum OiParam {
    /// `table`: index into the forward table (`u32::MAX` if absent).
    Forward {
        op: StrId,
        dt: StrId,
        cond: StrId,
        table: u32,
    },
    /// `table`: index into the backward table (`u32::MAX` if absent).
    Backward {
        op: StrId,
        dt: StrId,
        table: u32,
    },
    Errors {
        op: StrId,
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
    pub op: Option<StrId>,
    pub d1: Option<DtypeCheck>,
    pub opinfo: Option<OiParam>,
    /// Foreach/fused case generated from the manifest: the entry name.
    pub foreach_entry: Option<StrId>,
    // Boxed slices, not Vecs: ~20,000 items stay resident, and most lists are empty.
    pub requires: Box<[StrId]>,
    pub d2: Box<[DtypeCheck]>,
    pub fixed: Box<[FixedGate]>,
    pub packing: Option<StrId>,
    pub decoder: bool,
    pub large: bool,
    pub oom: bool,
    pub path_shape_empty: bool,
    pub opinfo_dummy: bool,
    pub generated: Option<u32>,
    /// `test_gradcheck*`: float64 contract result on the item's surfaces.
    pub gradcheck: Option<Option<ReasonDetail>>,
    /// Device-dependent facts, per device class index.
    pub dev: Box<[(u8, Box<[DevFact]>)]>,
    /// Test function (node id up to `[`), interned.
    pub function: StrId,
    /// The node id: a span of [`super::Tables::ids`] (one buffer for all ~20,000 ids, not a
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

    /// The node id, from the buffer of all ids (`Tables::ids`).
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
    Skip(ReasonDetail),
    /// torchcts raised (e.g. `torch.device(name)` rejects the name); the whole
    /// preflight then answers "no skip".
    Error,
}

#[derive(Debug, Clone)]
pub struct Generated {
    pub name: StrId,
    pub oracle_runner: bool,
    pub early: Option<ReasonDetail>,
    pub oracle: Vec<(u8, OracleOutcome)>,
    pub late: Option<ReasonDetail>,
    pub post_contract: bool,
    pub dt: Vec<DtCode>,
    pub manual_shape: Option<ShapeFacts>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShapeFacts {
    pub base: StrId,
    pub clean_only: bool,
    pub clean_family: bool,
    /// Per inventory dtype: None (not run), or [clean, has_nan, has_inf] outcomes
    /// (`Some(true)` runs on CPU; `None` for a tier that does not apply or cannot matter).
    pub cases: Vec<Option<[Option<bool>; 3]>>,
}

#[derive(Debug, Clone)]
pub struct ForwardOp {
    pub op: StrId,
    pub jiterator: bool,
    pub sparse: bool,
    pub ieee_ok: bool,
    /// (dtype string, float/complex, contract rejection)
    pub dtypes: Vec<(StrId, bool, Option<ReasonDetail>)>,
}

#[derive(Debug, Clone)]
pub struct BackwardOp {
    pub op: StrId,
    pub jiterator: bool,
    pub eligible: bool,
    pub sparse: bool,
    pub dtypes: Vec<(StrId, Option<ReasonDetail>)>,
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

/// The items pytest collects when a manifest-generated parameter list is empty.
#[derive(Debug, Clone)]
pub(crate) struct Placeholders {
    pub forward: Item,
    pub backward: Item,
    pub errors: Item,
    pub foreach: Item,
}
