//! Loading a release of a packed inventory (`inventory_pack`): its rows are read in place
//! into the tables the engine walks, then indexed.
//!
//! Rows carry string and reason ids already interned by the packer, so loading does no
//! JSON work and no per-field lookups; the indexes built here are the plain ones the engine
//! reads (canonical string ids, dtype slots, placeholders, the first item of each test
//! function). The engine's own tables are built from the result (`engine/`).

// foldhash: loading hashes every item and string; SipHash was a third of the load time.
use foldhash::{HashMap, HashMapExt};
use std::io::Read;

use inventory_pack::rows::{code, generated as gbit, item as ibit, opinfo as obit, RowReader};
use inventory_pack::{Release, Section};

use super::{
    BackwardOp, ContractMode, DevFact, DevRule, DeviceInfo, DtCode, DtypeCheck, DtypeInfo, DtypeParam, FixedGate,
    ForwardOp, Generated, InventoryMeta, Item, MetadataRows, OiParam, OracleOutcome, Placeholders, Reason,
    ReasonDetail, ShapeFacts, StrId, Tables, WellKnown, CUSTOM_DEVICE_PLACEHOLDER, ENGINE_REASONS,
};

/// What a release's rows hold, before indexing.
struct Rows {
    meta: InventoryMeta,
    opinfo_level: u8,
    generated_level: u8,
    devices: Vec<DeviceInfo>,
    dtypes: Vec<DtypeInfo>,
    reasons: Vec<String>,
    deselect: Vec<Reason>,
    strings: Vec<String>,
    /// Every node id, one after the other ([`Item::id`]).
    ids: String,
    generated: Vec<Generated>,
    items: Vec<Item>,
    forward: Vec<ForwardOp>,
    backward: Vec<BackwardOp>,
    metadata: MetadataRows,
}

/// A release of a packed archive, read and indexed.
pub(crate) fn load(release: &Release) -> Result<Tables, String> {
    let rows = read_rows(release)?;
    index(rows)
}

/// The extraction's JSON, gzip-compressed or plain: packed as the build packs the embedded
/// releases, then loaded like them.
pub(crate) fn from_extraction(bytes: &[u8]) -> Result<Tables, String> {
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
    load(release)
}

fn read_rows(release: &Release) -> Result<Rows, String> {
    let header = release.rows(Section::Header).next().ok_or("inventory archive: release without a header")?;
    let mut r = RowReader::new(header);
    let mut tables = read_header(&mut r);
    if r.truncated {
        return Err(format!("inventory archive: release {}: bad header", release.name));
    }
    let mut truncated = false;
    let mut each = |section: Section, f: &mut dyn FnMut(&mut RowReader)| {
        for row in release.rows(section) {
            let mut r = RowReader::new(row);
            f(&mut r);
            truncated |= r.truncated || !r.at_end();
        }
    };
    // A strings row is the text itself.
    tables.strings.reserve(release.len(Section::Strings));
    let mut bad_string = false;
    for row in release.rows(Section::Strings) {
        let text = std::str::from_utf8(row).unwrap_or_else(|_| {
            bad_string = true;
            ""
        });
        tables.strings.push(text.to_string());
    }
    tables.generated.reserve(release.len(Section::Generated));
    each(Section::Generated, &mut |r| tables.generated.push(read_generated(r)));
    let items = release.len(Section::Items);
    tables.items.reserve(items);
    // Node ids average 84 bytes: one buffer large enough (regrowing would copy it).
    tables.ids.reserve(items * 96);
    let (strings, ids) = (&tables.strings, &mut tables.ids);
    each(Section::Items, &mut |r| tables.items.push(read_item(r, strings, ids)));
    each(Section::Forward, &mut |r| tables.forward.push(read_forward(r)));
    each(Section::Backward, &mut |r| tables.backward.push(read_backward(r)));
    truncated |= !tables.metadata.read(release, tables.items.len());
    if truncated || bad_string {
        return Err(format!("inventory archive: release {}: a row does not decode", release.name));
    }
    Ok(tables)
}

fn read_header(r: &mut RowReader) -> Rows {
    let format_version = r.var();
    let mut text = || r.str().to_string();
    let (torchcts_version, torch_version, python_version, extracted_at) = (text(), text(), text(), text());
    let (opinfo_level, generated_level) = (r.u8(), r.u8());
    let devices = (0..r.var())
        .map(|_| {
            let name = r.str().to_string();
            let torch_type = (r.u8() == 1).then(|| r.str().to_string());
            DeviceInfo { name, torch_type, module: r.u8() == 1 }
        })
        .collect();
    let dtypes = (0..r.var()).map(|_| DtypeInfo { name: r.str().to_string(), float_or_complex: r.u8() == 1 }).collect();
    let reasons = (0..r.var()).map(|_| r.str().to_string()).collect();
    let deselect = (0..r.var()).map(|_| r.var() as Reason).collect();
    let metadata_from = r.str().to_string();
    Rows {
        meta: InventoryMeta { format_version, torchcts_version, torch_version, python_version, extracted_at },
        opinfo_level,
        generated_level,
        devices,
        dtypes,
        reasons,
        deselect,
        strings: Vec::new(),
        ids: String::new(),
        generated: Vec::new(),
        items: Vec::new(),
        forward: Vec::new(),
        backward: Vec::new(),
        metadata: MetadataRows { from: metadata_from, ..MetadataRows::default() },
    }
}

fn rd(r: &mut RowReader) -> Option<ReasonDetail> {
    r.rd().map(|(reason, detail)| ReasonDetail { reason, detail })
}

fn read_dtype_check(r: &mut RowReader) -> DtypeCheck {
    let param = match r.u8() {
        0 => DtypeParam::Dtype,
        1 => DtypeParam::DtypeStr,
        2 => DtypeParam::Autocast,
        3 => DtypeParam::Src,
        _ => DtypeParam::Dst,
    };
    let dt = r.var32();
    let mode = match r.u8() {
        1 => ContractMode::Set,
        2 => ContractMode::Fail,
        _ => ContractMode::None,
    };
    DtypeCheck { param, dt, mode, contract: rd(r) }
}

fn read_item(r: &mut RowReader, strings: &[String], ids: &mut String) -> Item {
    let function = r.var32();
    let id = [strings.get(function as usize).map_or("", String::as_str), r.str()];
    let level = r.u8();
    let flags = r.var32();
    let has = |bit: u32| flags & bit != 0;
    let op = if has(ibit::OP) { Some(r.var32()) } else { None };
    let d1 = if has(ibit::D1) { Some(read_dtype_check(r)) } else { None };
    let d2 = if has(ibit::D2) { (0..r.var()).map(|_| read_dtype_check(r)).collect() } else { Box::default() };
    let fixed = if has(ibit::FIXED) {
        (0..r.var()).map(|_| FixedGate { surface: r.var32(), dt: r.var32(), contract: rd(r) }).collect()
    } else {
        Box::default()
    };
    let requires = if has(ibit::REQUIRES) { (0..r.var()).map(|_| r.var32()).collect() } else { Box::default() };
    let packing = if has(ibit::PACKING) { Some(r.var32()) } else { None };
    let rng = if has(ibit::RNG) { r.u8() } else { 0 };
    let generated = if has(ibit::GENERATED) { Some(r.var32()) } else { None };
    let foreach_entry = if has(ibit::FOREACH) { Some(r.var32()) } else { None };
    let gradcheck = if has(ibit::GRADCHECK) { Some(rd(r)) } else { None };
    let opinfo = if has(ibit::OPINFO) { Some(read_opinfo_param(r)) } else { None };
    let dev = if has(ibit::DEV) { read_device_facts(r) } else { Box::default() };
    Item {
        rare: 0,
        printed_from: 0,
        op,
        level,
        d1,
        d2,
        fixed,
        requires,
        packing,
        decoder: has(ibit::DECODER),
        large: has(ibit::LARGE),
        rng,
        generated,
        foreach_entry,
        oom: has(ibit::OOM),
        gradcheck,
        path_shape_empty: has(ibit::PATH_SHAPE),
        opinfo_dummy: has(ibit::DUMMY),
        opinfo,
        dev,
        function,
        id: (0, 0),
    }
    .with_id(ids, &id)
    .with_rare_flags()
}

fn read_opinfo_param(r: &mut RowReader) -> OiParam {
    let kind = r.u8();
    let op = r.var32();
    match kind {
        code::OI_FORWARD => OiParam::Forward { op, dt: r.var32(), cond: r.var32(), table: u32::MAX },
        code::OI_BACKWARD => OiParam::Backward { op, dt: r.var32(), table: u32::MAX },
        _ => OiParam::Errors { op },
    }
}

fn read_device_facts(r: &mut RowReader) -> Box<[(u8, Box<[DevFact]>)]> {
    (0..r.var())
        .map(|_| {
            let class = r.u8();
            let facts = (0..r.var())
                .map(|_| {
                    let rule = match r.u8() {
                        0 => DevRule::Gate,
                        1 => DevRule::Cpu,
                        2 => DevRule::Module,
                        3 => DevRule::SetDevice,
                        4 => DevRule::MpsBug,
                        _ => DevRule::Crash,
                    };
                    DevFact { rule, rd: ReasonDetail { reason: r.var() as Reason, detail: r.var32() } }
                })
                .collect();
            (class, facts)
        })
        .collect()
}

fn read_generated(r: &mut RowReader) -> Generated {
    let name = r.var32();
    let flags = r.var32();
    let has = |bit: u32| flags & bit != 0;
    let early = if has(gbit::EARLY) { rd(r) } else { None };
    let late = if has(gbit::LATE) { rd(r) } else { None };
    let oracle = if has(gbit::ORACLE) {
        (0..r.var())
            .map(|_| {
                let class = r.u8();
                let outcome = match r.u8() {
                    code::ORACLE_SKIP => rd(r).map_or(OracleOutcome::Runs, OracleOutcome::Skip),
                    _ => OracleOutcome::Error,
                };
                (class, outcome)
            })
            .collect()
    } else {
        Vec::new()
    };
    let dt = if has(gbit::DT) {
        (0..r.var())
            .map(|_| match r.u8() {
                0 => DtCode::Allowed,
                1 => DtCode::ProbeOk,
                2 => DtCode::ProbeFail,
                4 => DtCode::Error,
                _ => DtCode::Rejected,
            })
            .collect()
    } else {
        Vec::new()
    };
    let manual_shape = if has(gbit::SHAPE) {
        let base = r.var32();
        let (clean_only, clean_family) = (r.u8() == 1, r.u8() == 1);
        let cases = (0..r.var()).map(|_| shape_case(r.u8())).collect();
        Some(ShapeFacts { base, clean_only, clean_family, cases })
    } else {
        None
    };
    Generated {
        name,
        oracle_runner: has(gbit::ORACLE_RUNNER),
        early,
        oracle,
        late,
        post_contract: has(gbit::POST),
        dt,
        manual_shape,
    }
}

/// The packer's base-3 code of clean/has_nan/has_inf outcomes (0 none, 1 runs, 2 does not).
fn shape_case(c: u8) -> Option<[Option<bool>; 3]> {
    if c == code::SHAPE_NOT_RUN {
        return None;
    }
    let tier = |i: u32| match (c / 3u8.pow(i)) % 3 {
        1 => Some(true),
        2 => Some(false),
        _ => None,
    };
    Some([tier(0), tier(1), tier(2)])
}

fn read_forward(r: &mut RowReader) -> ForwardOp {
    let op = r.var32();
    let flags = r.var32();
    let dtypes = (0..r.var()).map(|_| (r.var32(), r.u8() == 1, rd(r))).collect();
    ForwardOp {
        op,
        jiterator: flags & obit::JITERATOR != 0,
        sparse: flags & obit::SPARSE != 0,
        ieee_ok: flags & obit::IEEE_OR_ELIGIBLE != 0,
        dtypes,
    }
}

fn read_backward(r: &mut RowReader) -> BackwardOp {
    let op = r.var32();
    let flags = r.var32();
    let dtypes = (0..r.var()).map(|_| (r.var32(), rd(r))).collect();
    BackwardOp {
        op,
        jiterator: flags & obit::JITERATOR != 0,
        eligible: flags & obit::IEEE_OR_ELIGIBLE != 0,
        sparse: flags & obit::SPARSE != 0,
        dtypes,
    }
}

/// Interns the strings and reasons the engine names itself, after the release's own.
struct Interner {
    strings: Vec<String>,
    string_index: HashMap<String, StrId>,
    reasons: Vec<String>,
    reason_index: HashMap<String, Reason>,
}

impl Interner {
    fn new(strings: Vec<String>, reasons: Vec<String>) -> Interner {
        let mut string_index = HashMap::with_capacity(strings.len() + 32);
        for (i, s) in strings.iter().enumerate() {
            string_index.entry(s.clone()).or_insert(i as StrId);
        }
        let reason_index = reasons.iter().enumerate().map(|(i, r)| (r.clone(), i as Reason)).collect();
        Interner { strings, string_index, reasons, reason_index }
    }

    fn string(&mut self, s: &str) -> StrId {
        inventory_pack::intern(&mut self.strings, &mut self.string_index, s)
    }

    fn reason(&mut self, r: &str) {
        if !self.reason_index.contains_key(r) {
            self.reason_index.insert(r.to_string(), self.reasons.len() as Reason);
            self.reasons.push(r.to_string());
        }
    }

    fn well_known(&mut self) -> WellKnown {
        WellKnown {
            dummy: self.string("dummy"),
            clean: self.string("clean"),
            has_nan: self.string("has_nan"),
            has_inf: self.string("has_inf"),
            float64: self.string("torch.float64"),
            none_str: self.string("None"),
            multi_device: self.string("multi_device"),
            fwd_fn: self.string("opinfo/test_opinfo_forward.py::test_op_forward"),
            bwd_fn: self.string("opinfo/test_opinfo_backward.py::test_op_backward"),
            err_fn: self.string("opinfo/test_opinfo_errors.py::test_op_errors"),
            foreach_fn: self.string("generated/test_foreach_fused.py::test_generated_foreach_or_fused"),
        }
    }
}

/// The engine's indexes over a release's tables.
fn index(t: Rows) -> Result<Tables, String> {
    let custom_device_class = t
        .devices
        .iter()
        .position(|d| d.name == CUSTOM_DEVICE_PLACEHOLDER)
        .ok_or("inventory lacks the custom device class")? as u8;
    let mut names = Interner::new(t.strings, t.reasons);
    let s = names.well_known();
    for r in ENGINE_REASONS {
        names.reason(r);
    }
    let deselect_reasons = deselecting(&t.deselect, names.reasons.len());
    let (dtype_pos, float_or_complex_by_str) = dtype_tables(&mut names, &t.dtypes);
    let mut items = t.items;
    let mut ids = t.ids;
    link_opinfo_tables(&mut items, &t.forward, &t.backward);
    let by_function = FunctionIndex::of(&items);
    let placeholders =
        placeholders(&items, &by_function.first, &names.strings, &mut ids, &s, t.opinfo_level, t.generated_level);
    let canonical_str = canonical_ids(&names);
    let dtype_slot = dtype_slots(&dtype_pos, &canonical_str);
    Ok(Tables {
        metadata: t.metadata,
        meta: t.meta,
        strings: names.strings,
        string_index: names.string_index,
        ids,
        canonical_str,
        reasons: names.reasons,
        reason_index: names.reason_index,
        items,
        generated: t.generated,
        forward: t.forward,
        backward: t.backward,
        dtypes: t.dtypes,
        float_or_complex_by_str,
        dtype_slot,
        dtype_pos,
        devices: t.devices,
        custom_device_class,
        deselect_reasons,
        opinfo_level: t.opinfo_level,
        function_first: by_function.first,
        error_ops: by_function.error_ops,
        foreach_pairs: by_function.foreach_pairs,
        placeholders,
        well_known: s,
    })
}

/// Per string id: the position of the inventory dtype it names (by text), or
/// [`super::NO_DTYPE_SLOT`].
fn dtype_slots(dtype_pos: &HashMap<StrId, usize>, canonical_str: &[StrId]) -> Vec<u8> {
    let mut by_canonical: HashMap<StrId, usize> = HashMap::default();
    for (&st, &pos) in dtype_pos {
        by_canonical.insert(canonical_str.get(st as usize).copied().unwrap_or(st), pos);
    }
    (0..canonical_str.len())
        .map(|s| {
            let pos = by_canonical.get(&canonical_str[s]).copied();
            pos.filter(|&p| p < super::NO_DTYPE_SLOT as usize).map_or(super::NO_DTYPE_SLOT, |p| p as u8)
        })
        .collect()
}

/// Per reason id: whether it deselects.
fn deselecting(deselect: &[Reason], reason_count: usize) -> Vec<bool> {
    let mut out = vec![false; reason_count];
    for &r in deselect {
        if let Some(slot) = out.get_mut(r as usize) {
            *slot = true;
        }
    }
    out
}

/// The string id of each inventory dtype -> its position; per string id, 1 if it names a
/// float or complex dtype.
fn dtype_tables(names: &mut Interner, dtypes: &[DtypeInfo]) -> (HashMap<StrId, usize>, Vec<u8>) {
    let dtype_pos: HashMap<StrId, usize> =
        dtypes.iter().enumerate().map(|(pos, d)| (names.string(&d.name), pos)).collect();
    let mut float_or_complex_by_str = vec![0u8; names.strings.len() + 16];
    for (&st, &pos) in &dtype_pos {
        if dtypes[pos].float_or_complex {
            float_or_complex_by_str[st as usize] = 1;
        }
    }
    (dtype_pos, float_or_complex_by_str)
}

/// Per string id: the id its text is interned under (equal texts, one id).
fn canonical_ids(names: &Interner) -> Vec<StrId> {
    names
        .strings
        .iter()
        .enumerate()
        .map(|(i, text)| names.string_index.get(text).copied().unwrap_or(i as StrId))
        .collect()
}

/// What the manifest-generated parameter sets need from the items.
struct FunctionIndex {
    /// First item of each test function (placeholders copy its level and capabilities).
    first: HashMap<StrId, usize>,
    /// OpInfo error ops (items of `test_op_errors`), in order.
    error_ops: Vec<StrId>,
    /// (entry, dtype) of the generated foreach/fused items.
    foreach_pairs: Vec<(StrId, StrId)>,
}

impl FunctionIndex {
    fn of(items: &[Item]) -> FunctionIndex {
        let mut first = HashMap::new();
        let mut error_ops = Vec::new();
        let mut foreach_pairs = Vec::new();
        let mut previous = None;
        for (i, it) in items.iter().enumerate() {
            // Items of one test function are contiguous: look up only where it changes.
            if previous != Some(it.function) {
                first.entry(it.function).or_insert(i);
                previous = Some(it.function);
            }
            if let Some(OiParam::Errors { op }) = it.opinfo {
                error_ops.push(op);
            }
            if let (Some(entry), Some(d1)) = (it.foreach_entry, &it.d1) {
                foreach_pairs.push((entry, d1.dt));
            }
        }
        FunctionIndex { first, error_ops, foreach_pairs }
    }
}

/// Points each OpInfo item at its row of the forward/backward table (`u32::MAX`: none).
fn link_opinfo_tables(items: &mut [Item], forward: &[ForwardOp], backward: &[BackwardOp]) {
    let forward_by_op: HashMap<StrId, usize> = forward.iter().enumerate().map(|(i, f)| (f.op, i)).collect();
    let backward_by_op: HashMap<StrId, usize> = backward.iter().enumerate().map(|(i, f)| (f.op, i)).collect();
    for it in items.iter_mut() {
        match &mut it.opinfo {
            Some(OiParam::Forward { op, table, .. }) => *table = forward_by_op.get(op).map_or(u32::MAX, |&i| i as u32),
            Some(OiParam::Backward { op, table, .. }) => {
                *table = backward_by_op.get(op).map_or(u32::MAX, |&i| i as u32)
            }
            _ => {}
        }
    }
}

/// The items pytest collects when a manifest-generated parameter list is empty.
fn placeholders(
    items: &[Item],
    first: &HashMap<StrId, usize>,
    strings: &[String],
    ids: &mut String,
    s: &WellKnown,
    opinfo_level: u8,
    generated_level: u8,
) -> Placeholders {
    let mut make =
        |function: StrId, suffix: &str, default_level: u8, d1: Option<DtypeCheck>, op: Option<StrId>, dummy: bool| {
            let template = first.get(&function).map(|&i| &items[i]);
            let inherits_level = |t: &Item| t.generated.is_none() && t.foreach_entry.is_none();
            Item {
                rare: 0,
                printed_from: 0,
                id: (0, 0),
                op,
                level: template.filter(|t| inherits_level(t)).map_or(default_level, |t| t.level),
                d1,
                d2: Box::default(),
                fixed: Box::default(),
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
                dev: Box::default(),
                function,
            }
            .with_id(ids, &[&strings[function as usize], "[", suffix, "]"])
            .with_rare_flags()
        };
    let dummy_check = |param| DtypeCheck { param, dt: s.dummy, mode: ContractMode::Set, contract: None };
    let no_dtype = DtypeCheck { param: DtypeParam::Dtype, dt: s.none_str, mode: ContractMode::None, contract: None };
    Placeholders {
        forward: make(
            s.fwd_fn,
            "clean-dummy-dummy",
            opinfo_level,
            Some(dummy_check(DtypeParam::DtypeStr)),
            Some(s.dummy),
            true,
        ),
        backward: make(
            s.bwd_fn,
            "dummy-dummy",
            opinfo_level,
            Some(dummy_check(DtypeParam::DtypeStr)),
            Some(s.dummy),
            true,
        ),
        errors: make(s.err_fn, "dummy", opinfo_level, None, Some(s.dummy), true),
        foreach: make(s.foreach_fn, "no-audit", generated_level, Some(no_dtype), None, false),
    }
}
