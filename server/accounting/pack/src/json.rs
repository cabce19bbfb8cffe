//! The extraction's JSON to rows: every JSON decision is made here (field names, defaults,
//! device classes), and strings and reasons are interned, so that loading reads indices.
//!
//! Strings and reasons are interned by text across every release packed into one archive
//! ([`Names`]), so a row that says the same thing in two releases is the same bytes (the
//! JSON's own string indices differ between releases where one has strings the other
//! lacks). Interning order: the base release's JSON strings in order (a base string keeps
//! its JSON index), then dtype names, then strings met in the generated entries, the items
//! and the OpInfo tables; reasons in the order they are met, the deselecting sets last.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::rows::{code, generated as gbit, item as ibit, opinfo as obit, RowWriter};
use crate::{Section, SECTION_COUNT};

mod metadata;
mod names;
pub use metadata::MetadataDonor;
pub use names::{intern, Names};

/// The rows of one release, per section.
#[derive(Default)]
pub struct ReleaseRows {
    pub sections: [Vec<Vec<u8>>; SECTION_COUNT],
    /// The items' node ids, in order (for [`MetadataDonor::new`]).
    pub node_ids: Vec<String>,
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
    /// Per item, aligned with `items`: its match metadata in short keys (absent: not extracted).
    #[serde(default)]
    match_metadata: Option<Vec<Value>>,
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
    suite: Option<String>,
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

/// Order in which device classes are listed (the extraction's DEVICES list); other
/// recorded names follow, sorted.
const DEVICE_ORDER: &[&str] = &["cpu", "cuda", "mps", "xpu", "meta", "xla", "hpu", "privateuseone", "my_backend"];

/// The deselecting reason sets of torchcts.
const DESELECT_SETS: [&str; 4] = ["manifest_declined", "structured_deselect", "dtype_manifest", "dtype_contract"];

/// Pack one inventory (JSON text) into rows; `names` is shared by the releases of an archive.
pub fn pack_json(names: &mut Names, json: &[u8]) -> Result<ReleaseRows, String> {
    pack_json_with(names, json, None)
}

/// [`pack_json`], with the release's match metadata (per item, the committed texts form of
/// `tools/inventory/out/inventory-metadata.json.gz`) where its JSON has none.
pub fn pack_json_with(names: &mut Names, json: &[u8], metadata: Option<&[Value]>) -> Result<ReleaseRows, String> {
    let raw: RawInventory = serde_json::from_slice(json).map_err(|e| format!("inventory JSON: {e}"))?;
    if raw.format != "torchcts-lsp-inventory" || raw.format_version != 1 {
        return Err(format!("unsupported inventory format {} v{}", raw.format, raw.format_version));
    }
    let mut p = Packer::new(names, &raw);
    let mut out = ReleaseRows::default();
    for d in &raw.dtypes {
        p.intern(&d.name);
    }
    for g in &raw.generated {
        let row = p.generated(g)?;
        out.sections[Section::Generated as usize].push(row);
    }
    for it in &raw.items {
        let row = p.item(it)?;
        out.sections[Section::Items as usize].push(row);
        out.node_ids.push(it.id.clone());
    }
    if let Some(metadata) = raw.match_metadata.as_deref().or(metadata) {
        out.sections[Section::Metadata as usize] = p.metadata_rows(metadata, &raw.items)?;
    }
    for f in &raw.opinfo.forward {
        let row = p.forward(f)?;
        out.sections[Section::Forward as usize].push(row);
    }
    for b in &raw.opinfo.backward {
        let row = p.backward(b)?;
        out.sections[Section::Backward as usize].push(row);
    }
    let mut deselect: Vec<u16> = Vec::new();
    for key in DESELECT_SETS {
        for r in raw.reason_sets.get(key).into_iter().flatten() {
            deselect.push(p.reason(r));
        }
    }
    deselect.sort_unstable();
    deselect.dedup();
    out.sections[Section::Header as usize].push(p.header(&raw, &deselect));
    out.sections[Section::Strings as usize] = p.names.strings.iter().map(|s| s.as_bytes().to_vec()).collect();
    Ok(out)
}

struct Packer<'n> {
    names: &'n mut Names,
    /// The JSON's string indices to interned ids.
    string_ids: Vec<u32>,
    devices: Vec<String>,
    device_class: HashMap<String, u8>,
}

impl<'n> Packer<'n> {
    fn new(names: &'n mut Names, raw: &RawInventory) -> Packer<'n> {
        let string_ids = raw.strings.iter().map(|s| names.intern(s)).collect();
        let mut others: Vec<&String> = raw.devices.keys().filter(|n| !DEVICE_ORDER.contains(&n.as_str())).collect();
        others.sort();
        let devices: Vec<String> = DEVICE_ORDER
            .iter()
            .filter(|n| raw.devices.contains_key(**n))
            .map(|n| n.to_string())
            .chain(others.into_iter().cloned())
            .collect();
        let device_class = devices.iter().enumerate().map(|(i, d)| (d.clone(), i as u8)).collect();
        Packer { names, string_ids, devices, device_class }
    }

    fn intern(&mut self, s: &str) -> u32 {
        self.names.intern(s)
    }

    fn reason(&mut self, r: &str) -> u16 {
        self.names.reason(r)
    }

    /// The interned id of a string the JSON names by its index.
    fn sid(&self, index: u32) -> Result<u32, String> {
        self.string_ids.get(index as usize).copied().ok_or_else(|| format!("string index {index} out of range"))
    }

    fn sidx(&self, v: &Value) -> Result<u32, String> {
        let index = v.as_u64().ok_or_else(|| format!("expected string index, got {v}"))?;
        self.sid(u32::try_from(index).map_err(|_| format!("string index {index} out of range"))?)
    }

    /// `[reason, detail string index]`
    fn rd(&mut self, v: &Value) -> Result<(u16, u32), String> {
        let a = v.as_array().ok_or_else(|| format!("expected [reason, detail], got {v}"))?;
        let reason = self.reason(a.first().and_then(Value::as_str).unwrap_or("cpu_contract_unknown"));
        Ok((reason, self.sidx(a.get(1).unwrap_or(&Value::Null))?))
    }

    fn raw_rd(&mut self, c: &RawRd) -> Result<(u16, u32), String> {
        Ok((self.reason(&c.0), self.sid(c.1)?))
    }

    fn header(&self, raw: &RawInventory, deselect: &[u16]) -> Vec<u8> {
        let mut w = RowWriter::default();
        w.var(raw.format_version);
        for s in [&raw.torchcts_version, &raw.torch_version, &raw.python_version, &raw.extracted_at] {
            w.str(s);
        }
        w.u8(raw.opinfo_default_level);
        w.u8(raw.generated_default_level);
        w.var(self.devices.len() as u64);
        for name in &self.devices {
            let d = &raw.devices[name];
            w.str(name);
            match &d.torch_type {
                Some(t) => {
                    w.u8(1);
                    w.str(t);
                }
                None => w.u8(0),
            }
            w.u8(u8::from(d.module));
        }
        w.var(raw.dtypes.len() as u64);
        for d in &raw.dtypes {
            w.str(&d.name);
            w.u8(u8::from(d.fc));
        }
        w.var(self.names.reasons.len() as u64);
        for r in &self.names.reasons {
            w.str(r);
        }
        w.var(deselect.len() as u64);
        for &r in deselect {
            w.var(u64::from(r));
        }
        // The release whose match metadata this is when not its own ([`ReleaseRows::lend_metadata`]).
        w.str("");
        w.buf
    }

    fn dtype_check(&mut self, w: &mut RowWriter, v: &RawDtypeCheck) -> Result<(), String> {
        let param =
            code::PARAMS.iter().position(|p| *p == v.p).ok_or_else(|| format!("unknown dtype param {:?}", v.p))?;
        let dt = self.intern(v.dt.as_deref().unwrap_or("None"));
        let mode = code::MODES.iter().position(|m| Some(*m) == v.mode.as_deref()).unwrap_or(0);
        let contract = v.c.as_ref().map(|c| self.raw_rd(c)).transpose()?;
        w.u8(param as u8);
        w.var(u64::from(dt));
        w.u8(mode as u8);
        w.rd(contract);
        Ok(())
    }

    fn item(&mut self, v: &RawItem) -> Result<Vec<u8>, String> {
        if let Some(e) = &v.error {
            return Err(format!("inventory item {} has an extraction error: {e}", v.id));
        }
        let mut flags = 0;
        let mut set = |cond: bool, bit: u32| {
            if cond {
                flags |= bit;
            }
        };
        set(v.op.is_some(), ibit::OP);
        set(v.d1.is_some(), ibit::D1);
        set(!v.d2.is_empty(), ibit::D2);
        set(!v.fx.is_empty(), ibit::FIXED);
        set(!v.req.is_empty(), ibit::REQUIRES);
        set(v.pack.is_some(), ibit::PACKING);
        set(v.decoder, ibit::DECODER);
        set(v.large, ibit::LARGE);
        set(v.rng > 0, ibit::RNG);
        set(v.gen.is_some(), ibit::GENERATED);
        set(v.fe.is_some(), ibit::FOREACH);
        set(v.oom, ibit::OOM);
        set(v.gc.is_some(), ibit::GRADCHECK);
        set(v.ps_empty, ibit::PATH_SHAPE);
        set(v.oi_dummy, ibit::DUMMY);
        set(v.oi.is_some(), ibit::OPINFO);
        set(v.dev.as_ref().is_some_and(|d| !d.is_empty()), ibit::DEV);

        let mut w = RowWriter::default();
        let function_text = v.id.split('[').next().unwrap_or(&v.id);
        let function = self.intern(function_text);
        w.var(u64::from(function));
        w.str(&v.id[function_text.len()..]);
        w.u8(v.lvl);
        w.var(u64::from(flags));
        if let Some(op) = v.op {
            w.var(u64::from(self.sid(op)?));
        }
        if let Some(d) = &v.d1 {
            self.dtype_check(&mut w, d)?;
        }
        if !v.d2.is_empty() {
            w.var(v.d2.len() as u64);
            for d in &v.d2 {
                self.dtype_check(&mut w, d)?;
            }
        }
        if !v.fx.is_empty() {
            w.var(v.fx.len() as u64);
            for g in &v.fx {
                let dt = self.intern(&g.dt);
                let contract = g.c.as_ref().map(|c| self.raw_rd(c)).transpose()?;
                w.var(u64::from(self.sid(g.s)?));
                w.var(u64::from(dt));
                w.rd(contract);
            }
        }
        if !v.req.is_empty() {
            w.var(v.req.len() as u64);
            for r in &v.req {
                let r = self.intern(r);
                w.var(u64::from(r));
            }
        }
        if let Some(p) = &v.pack {
            let p = self.intern(p);
            w.var(u64::from(p));
        }
        if v.rng > 0 {
            w.u8(v.rng);
        }
        if let Some(g) = v.gen {
            w.var(u64::from(g));
        }
        if let Some(e) = v.fe {
            w.var(u64::from(self.sid(e)?));
        }
        if let Some(gc) = &v.gc {
            let c = gc.c.as_ref().map(|c| self.raw_rd(c)).transpose()?;
            w.rd(c);
        }
        if let Some(a) = &v.oi {
            self.opinfo_param(&mut w, a)?;
        }
        if let Some(map) = v.dev.as_ref().filter(|d| !d.is_empty()) {
            self.device_facts(&mut w, map)?;
        }
        Ok(w.buf)
    }

    fn opinfo_param(&mut self, w: &mut RowWriter, a: &[Value]) -> Result<(), String> {
        let text = |i: usize| a.get(i).and_then(Value::as_str).unwrap_or_default();
        let op = self.sidx(a.get(1).unwrap_or(&Value::Null))?;
        match text(0) {
            "f" => {
                let (dt, cond) = (self.intern(text(2)), self.intern(text(3)));
                w.u8(code::OI_FORWARD);
                w.var(u64::from(op));
                w.var(u64::from(dt));
                w.var(u64::from(cond));
            }
            "b" => {
                let dt = self.intern(text(2));
                w.u8(code::OI_BACKWARD);
                w.var(u64::from(op));
                w.var(u64::from(dt));
            }
            _ => {
                w.u8(code::OI_ERRORS);
                w.var(u64::from(op));
            }
        }
        Ok(())
    }

    /// Per recorded device class (in class order): its facts. Names the inventory does not
    /// list as devices are dropped.
    fn device_facts(&mut self, w: &mut RowWriter, map: &HashMap<String, Vec<RawDevFact>>) -> Result<(), String> {
        let mut classes: Vec<(u8, &Vec<RawDevFact>)> =
            map.iter().filter_map(|(name, facts)| self.device_class.get(name).map(|&c| (c, facts))).collect();
        classes.sort_by_key(|(c, _)| *c);
        w.var(classes.len() as u64);
        for (class, facts) in classes {
            w.u8(class);
            w.var(facts.len() as u64);
            for (rule, reason, detail) in facts {
                let rule = code::DEV_RULES.iter().position(|r| r == rule).unwrap_or(code::DEV_RULES.len() - 1);
                let reason = self.reason(reason);
                w.u8(rule as u8);
                w.var(u64::from(reason));
                w.var(u64::from(self.sid(*detail)?));
            }
        }
        Ok(())
    }

    fn generated(&mut self, v: &Value) -> Result<Vec<u8>, String> {
        let name = self.sidx(&v["name"])?;
        let early = v.get("early").map(|x| self.rd(x)).transpose()?;
        let late = v.get("late").map(|x| self.rd(x)).transpose()?;
        let mut oracle = Vec::new();
        if let Some(map) = v.get("oracle").and_then(Value::as_object) {
            for (dev, out) in map {
                let Some(&class) = self.device_class.get(dev) else { continue };
                let outcome = if out.is_string() { None } else { Some(self.rd(out)?) };
                oracle.push((class, outcome));
            }
        }
        let dt: Vec<u8> = v
            .get("dt")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| code::DT_CODES.iter().position(|k| Some(*k) == c.as_str()).unwrap_or(3) as u8)
            .collect();
        let shape = v.get("shape").and_then(Value::as_array);
        let oracle_runner = v.get("oracle").is_some() || v["runner"].as_str() == Some("oracle_surface");
        let post = v.get("post").and_then(Value::as_bool).unwrap_or(false);

        let mut flags = 0;
        for (cond, bit) in [
            (oracle_runner, gbit::ORACLE_RUNNER),
            (early.is_some(), gbit::EARLY),
            (late.is_some(), gbit::LATE),
            (post, gbit::POST),
            (!oracle.is_empty(), gbit::ORACLE),
            (!dt.is_empty(), gbit::DT),
            (shape.is_some(), gbit::SHAPE),
        ] {
            if cond {
                flags |= bit;
            }
        }
        let mut w = RowWriter::default();
        w.var(u64::from(name));
        w.var(u64::from(flags));
        if early.is_some() {
            w.rd(early);
        }
        if late.is_some() {
            w.rd(late);
        }
        if !oracle.is_empty() {
            w.var(oracle.len() as u64);
            for (class, outcome) in oracle {
                w.u8(class);
                match outcome {
                    Some(rd) => {
                        w.u8(code::ORACLE_SKIP);
                        w.rd(Some(rd));
                    }
                    None => w.u8(code::ORACLE_ERROR),
                }
            }
        }
        if !dt.is_empty() {
            w.var(dt.len() as u64);
            w.buf.extend_from_slice(&dt);
        }
        if let Some(cases) = shape {
            w.var(u64::from(self.sidx(&v["base"])?));
            w.u8(u8::from(v["clean_only"].as_bool().unwrap_or(false)));
            w.u8(u8::from(v["clean_family"].as_bool().unwrap_or(false)));
            w.var(cases.len() as u64);
            for c in cases {
                w.u8(shape_case(c.as_str().unwrap_or_default()));
            }
        }
        Ok(w.buf)
    }

    fn forward(&mut self, f: &Value) -> Result<Vec<u8>, String> {
        let dts = f["dts"].as_array().ok_or("forward dts")?;
        let mut w = RowWriter::default();
        w.var(u64::from(self.sidx(&f["op"])?));
        w.var(u64::from(opinfo_flags(f, "ieee")));
        w.var(dts.len() as u64);
        for d in dts {
            let dt = self.intern(d[0].as_str().unwrap_or_default());
            let fc = d[1].as_bool().unwrap_or(false);
            let c = d.get(2).map(|c| self.rd(c)).transpose()?;
            w.var(u64::from(dt));
            w.u8(u8::from(fc));
            w.rd(c);
        }
        Ok(w.buf)
    }

    fn backward(&mut self, f: &Value) -> Result<Vec<u8>, String> {
        let dts = f["dts"].as_array().ok_or("backward dts")?;
        let mut w = RowWriter::default();
        w.var(u64::from(self.sidx(&f["op"])?));
        w.var(u64::from(opinfo_flags(f, "ok")));
        w.var(dts.len() as u64);
        for d in dts {
            let dt = self.intern(d[0].as_str().unwrap_or_default());
            let c = d.get(1).map(|c| self.rd(c)).transpose()?;
            w.var(u64::from(dt));
            w.rd(c);
        }
        Ok(w.buf)
    }
}

fn opinfo_flags(f: &Value, third: &str) -> u32 {
    let flag = |key: &str, bit: u32| if f[key].as_bool().unwrap_or(false) { bit } else { 0 };
    flag("jit", obit::JITERATOR) | flag("sparse", obit::SPARSE) | flag(third, obit::IEEE_OR_ELIGIBLE)
}

/// `""` (not run) or three characters for clean/has_nan/has_inf: `1` runs, `0` does not,
/// anything else not applicable. Encoded as a base-3 number of (0 none, 1 runs, 2 does not).
fn shape_case(s: &str) -> u8 {
    if s.is_empty() {
        return code::SHAPE_NOT_RUN;
    }
    let mut out = 0u8;
    for (i, ch) in s.chars().take(3).enumerate() {
        let tier = match ch {
            '1' => 1,
            '0' => 2,
            _ => 0,
        };
        out += tier * 3u8.pow(i as u32);
    }
    out
}
