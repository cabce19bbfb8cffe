//! One results file read as torchcts's `load_result_artifact` reads it (issue 35, item 3),
//! streamed (item 2): plain (`{"metadata", "results", "skips"}`), compact
//! (`torchcts_compact_results`: tokens for keys, `{"$": i}` for strings, `~` for literal
//! keys) or a reference (`torchcts_result_reference`), with the loader's acceptance rules:
//! `format_version` compared with Python's `==` (so `1.0` and `true` are 1), an `artifact`
//! path taken by its parts (`a/b.json/` is `a/b.json`), a repeated key's last value, a
//! compact key that decodes twice or a string index out of range refusing the whole file.
//!
//! Streaming: the top-level object is read key by key; `results` records are read one at a
//! time, each as a small tree, classified, and kept as a [`Record`] (or counted as damage);
//! a compact file is read twice (the tables come after the payload in torchcts's sorted
//! keys): once to check it and read the tables, once more from the payload's offset.
//! Nothing else is kept: `skips` and unknown parts are checked and dropped.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::compact::{decode, key_of, read_bounded, skip_compact, string_ref, KeySet, Tables};
use super::layout::{reference_path, COMPACT_FORMAT, REFERENCE_FORMAT};
use super::open::open_regular;
use super::pyjson::{insert_last_wins, Json, Reader};

/// A run's status for one test, as torchcts records it, with its two kinds of `ERROR` that
/// are no error of the test told apart (by the record's `error_type` and `failure_stage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvidenceStatus {
    Passed,
    Failed,
    Error,
    /// Skipped at run time (the test ran and called `pytest.skip`).
    Skipped,
    /// `ERROR` with `error_type` `ProcessCrash`: the process running the test died (an
    /// isolated child's signal, or our record of a run that died during it, `crash.rs`).
    Crashed,
    /// `ERROR` with `failure_stage` `known_backend_crash`: a known-segfault ledger entry
    /// recorded it without running it.
    KnownCrash,
}

impl EvidenceStatus {
    /// The `status` torchcts wrote: `PASS`, `FAIL`, `ERROR` (both crashes too) or `SKIP`.
    pub fn torchcts_status(self) -> &'static str {
        match self {
            EvidenceStatus::Passed => "PASS",
            EvidenceStatus::Failed => "FAIL",
            EvidenceStatus::Error | EvidenceStatus::Crashed | EvidenceStatus::KnownCrash => "ERROR",
            EvidenceStatus::Skipped => "SKIP",
        }
    }
}

/// One record as read (the node id apart), before the device and the newest are chosen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Record {
    pub status: EvidenceStatus,
    pub error: Option<Box<str>>,
    pub skip_reason: Option<Box<str>>,
    pub last_tested: Option<Box<str>>,
    pub op: Option<Box<str>>,
    pub dtype: Option<Box<str>>,
}

/// What a file is.
pub(crate) enum Parsed {
    /// A reference: the file it names.
    Reference(PathBuf),
    Run(ParsedRun),
}

/// A run file's content, streamed.
#[derive(Debug, Default)]
pub(crate) struct ParsedRun {
    pub metadata: Vec<(Box<str>, Json)>,
    /// The entries kept (records and damaged ones), by node id as written (decoded), at
    /// most the record budget; [`ParsedRun::records`] gives the records.
    pub entries: StagedMap,
    /// Valid records, kept or not (the run's test count, as torchcts's loader counts them).
    pub tests: usize,
    /// Records left out, by why (`status null`, `not an object`).
    pub damaged: BTreeMap<String, usize>,
    /// Records past the record budget (checked and counted, not kept).
    pub over_budget: usize,
}

/// Reads `path` (a regular file, see `open.rs`). `max_records`: records kept at most.
pub(crate) fn parse(path: &Path, max_records: usize) -> Result<Parsed, String> {
    let (file, _) = open_regular(path)?;
    let mut reader = Reader::new(file);
    if !reader.begin_object()? {
        reader.skip_value(0)?;
        reader.expect_end()?;
        return Err("not a torchcts result artifact: not a JSON object".into());
    }
    let mut top: Vec<(Box<str>, Json)> = Vec::new();
    let (mut key_table, mut string_table) = (None, None);
    let mut payload_at = None;
    let mut plain = Staging::new(max_records);
    let mut results_object = false;
    let mut first = true;
    while let Some(key) = reader.next_key(&mut first)? {
        match key.as_str() {
            "format" | "format_version" | "artifact" | "metadata" => {
                let value = read_bounded(&mut reader)?;
                insert_last_wins(&mut top, key.into_boxed_str(), value);
            }
            "key_table" => key_table = Some(read_strings(&mut reader)?),
            "string_table" => string_table = Some(read_strings(&mut reader)?),
            "payload" => {
                // Read in full once the tables are known; here only its end is found.
                reader.peek_token()?;
                let start = reader.offset();
                reader.skip_unchecked()?;
                payload_at = Some((start, reader.offset()));
            }
            "results" => {
                // A repeated key: its last value is the one (a `dict`).
                plain = Staging::new(max_records);
                results_object = read_results(&mut reader, &mut plain, None)?;
            }
            _ => reader.skip_value(1)?,
        }
    }
    reader.expect_end()?;
    let field = |k: &str| top.iter().find(|(key, _)| &**key == k).map(|(_, v)| v);
    match field("format").and_then(Json::as_str) {
        Some(REFERENCE_FORMAT) => {
            let version_one = field("format_version").is_some_and(Json::equals_one);
            reference_path(path, version_one, field("artifact").and_then(Json::as_str)).map(Parsed::Reference)
        }
        Some(COMPACT_FORMAT) => {
            if !field("format_version").is_some_and(Json::equals_one) {
                return Err(format!(
                    "unsupported compact result format version: {}",
                    field("format_version").map_or("none", Json::kind)
                ));
            }
            let keys = key_table.flatten().ok_or("compact result key_table must contain strings")?;
            if keys.iter().collect::<HashSet<_>>().len() != keys.len() {
                return Err("compact result key_table contains duplicates".into());
            }
            let strings = string_table.flatten().ok_or("compact result string_table must contain strings")?;
            let tables = Tables { keys, strings };
            let Some((start, end)) = payload_at else {
                return Err("compact result payload must decode to an object".into());
            };
            reader.seek(start)?;
            let run = read_compact_payload(&mut reader, &tables, max_records)?;
            if reader.offset() != end {
                return Err(format!(
                    "invalid JSON at byte {}: the payload does not end where it seemed to",
                    reader.offset()
                ));
            }
            Ok(run)
        }
        _ => {
            let Some(Json::Object(metadata)) = field("metadata").cloned() else {
                return Err("not a torchcts result artifact: no `metadata` and `results` objects".into());
            };
            if !results_object {
                return Err("not a torchcts result artifact: no `metadata` and `results` objects".into());
            }
            Ok(Parsed::Run(plain.into_run(metadata)))
        }
    }
}

/// A list of strings (`Some`), or anything else checked and dropped (`None`: the table is
/// invalid unless a later repeat of its key replaces it).
fn read_strings<R: std::io::Read>(reader: &mut Reader<R>) -> Result<Option<Vec<Box<str>>>, String> {
    if reader.peek_token()? != Some(b'[') {
        reader.skip_value(1)?;
        return Ok(None);
    }
    match reader.read_value(1)? {
        Json::Array(items) => Ok(items
            .into_iter()
            .map(|i| match i {
                Json::Str(s) => Some(s),
                _ => None,
            })
            .collect()),
        _ => Ok(None),
    }
}

/// A staged entry: the raw key when it differs from the decoded one, and the record or why
/// it is damaged.
type Staged = (Option<Box<str>>, Result<Record, String>);
pub(crate) type StagedMap = HashMap<Box<str>, Staged, foldhash::fast::RandomState>;

impl ParsedRun {
    /// The records, by node id.
    pub(crate) fn records(self) -> impl Iterator<Item = (Box<str>, Record)> {
        self.entries.into_iter().filter_map(|(id, (_, record))| Some((id, record.ok()?)))
    }
}

/// The records kept while a file is read: one per node id, the last of a repeated id.
struct Staging {
    /// Decoded node id -> (the raw key when it differs, the record or why it is damaged).
    entries: StagedMap,
    max: usize,
    over_budget_valid: usize,
    over_budget: usize,
    over_budget_damaged: BTreeMap<String, usize>,
}

impl Staging {
    fn new(max: usize) -> Staging {
        Staging {
            entries: StagedMap::default(),
            max,
            over_budget_valid: 0,
            over_budget: 0,
            over_budget_damaged: BTreeMap::new(),
        }
    }

    fn insert(&mut self, id: &str, raw: &str, record: Result<Record, String>) -> Result<(), String> {
        let raw_kept = (raw != id).then(|| raw.into());
        if let Some(slot) = self.entries.get_mut(id) {
            if slot.0.as_deref().unwrap_or(id) != raw {
                return Err(format!("compact result decodes duplicate key {id:?}"));
            }
            slot.1 = record;
            return Ok(());
        }
        if self.entries.len() >= self.max {
            self.over_budget += 1;
            match record {
                Ok(_) => self.over_budget_valid += 1,
                Err(why) => *self.over_budget_damaged.entry(why).or_default() += 1,
            }
            return Ok(());
        }
        self.entries.insert(id.into(), (raw_kept, record));
        Ok(())
    }

    fn into_run(self, metadata: Vec<(Box<str>, Json)>) -> ParsedRun {
        let mut run = ParsedRun {
            metadata,
            over_budget: self.over_budget,
            tests: self.over_budget_valid,
            damaged: self.over_budget_damaged,
            entries: StagedMap::default(),
        };
        for (_, record) in self.entries.values() {
            match record {
                Ok(_) => run.tests += 1,
                Err(why) => *run.damaged.entry(why.clone()).or_default() += 1,
            }
        }
        run.entries = self.entries;
        run
    }
}

/// Streams a `results` value into `staging`; whether it was an object.
fn read_results<R: std::io::Read>(
    reader: &mut Reader<R>,
    staging: &mut Staging,
    tables: Option<&Tables>,
) -> Result<bool, String> {
    if !reader.begin_object()? {
        match tables {
            Some(t) => {
                decode(read_bounded(reader)?, t)?;
            }
            None => reader.skip_value(2)?,
        }
        return Ok(false);
    }
    let mut first = true;
    let mut only_dollar = None;
    while let Some(raw) = reader.next_key(&mut first)? {
        if let (Some(t), "$") = (tables, raw.as_str()) {
            let value = decode(read_bounded(reader)?, t)?;
            only_dollar = Some(value.clone());
            staging.insert(t.key(&raw), &raw, classify(&value))?;
            continue;
        }
        let record = read_record(reader, tables)?;
        staging.insert(key_of(tables, &raw), &raw, record)?;
    }
    // `{"$": i}` is a string in the compact format, not an object of one record.
    if let (Some(t), Some(index), true) = (tables, only_dollar, staging.entries.len() == 1) {
        decode(Json::Object(vec![("$".into(), index)]), t)?;
        *staging = Staging::new(staging.max);
        return Ok(false);
    }
    Ok(true)
}

/// The compact payload from its first byte: an object whose `results` are streamed.
fn read_compact_payload<R: std::io::Read>(
    reader: &mut Reader<R>,
    tables: &Tables,
    max_records: usize,
) -> Result<Parsed, String> {
    if !reader.begin_object()? {
        decode(read_bounded(reader)?, tables)?;
        return Err("compact result payload must decode to an object".into());
    }
    let mut metadata = None;
    let mut staging = Staging::new(max_records);
    let mut results_object = false;
    let mut raw_keys: HashMap<String, String> = HashMap::new();
    let mut first = true;
    while let Some(raw) = reader.next_key(&mut first)? {
        let decoded = tables.key(&raw).to_string();
        if let Some(old_raw) = raw_keys.get(&decoded) {
            if *old_raw != raw {
                return Err(format!("compact result decodes duplicate key {decoded:?}"));
            }
        }
        raw_keys.insert(decoded.clone(), raw.clone());
        match decoded.as_str() {
            "results" => {
                staging = Staging::new(max_records);
                results_object = read_results(reader, &mut staging, Some(tables))?;
            }
            "metadata" => metadata = Some(decode(read_bounded(reader)?, tables)?),
            _ if raw == "$" => {
                decode(Json::Object(vec![("$".into(), read_bounded(reader)?)]), tables)?;
            }
            _ => skip_compact(reader, tables, 1)?,
        }
    }
    if raw_keys.len() == 1 && raw_keys.values().any(|r| r == "$") {
        return Err("compact result payload must decode to an object".into());
    }
    match (metadata, results_object) {
        (Some(Json::Object(metadata)), true) => Ok(Parsed::Run(staging.into_run(metadata))),
        _ => Err("not a torchcts result artifact: no `metadata` and `results` objects".into()),
    }
}

/// How many fields of a record the index reads ([`field_index`]).
const FIELDS: usize = 8;

/// Which of the fields the index uses `key` is, in [`Record`]'s order (a `match`: a real
/// record has some 40 keys, and this runs for each).
fn field_index(key: &str) -> Option<usize> {
    match key {
        "status" => Some(0),
        "error_message" => Some(1),
        "skip_reason" => Some(2),
        "last_tested" => Some(3),
        "op" => Some(4),
        "dtype" => Some(5),
        "error_type" => Some(6),
        "failure_stage" => Some(7),
        _ => None,
    }
}

/// One entry of `results`, read field by field: the fields the index uses as small trees,
/// the others checked and dropped without a tree (a real record has some 40 fields).
/// `Ok(Err(why))`: not a record (counted as damage); `Err`: the file is refused (what the
/// loader refuses: a compact key decoding twice, a string index out of range).
fn read_record<R: std::io::Read>(
    reader: &mut Reader<R>,
    tables: Option<&Tables>,
) -> Result<Result<Record, String>, String> {
    if !reader.begin_object()? {
        let value = read_bounded(reader)?;
        let value = match tables {
            Some(t) => decode(value, t)?,
            None => value,
        };
        return Ok(classify(&value));
    }
    let mut fields: [Option<Json>; FIELDS] = Default::default();
    // Compact: to find a key that decodes twice (a real record has some 40 keys).
    let mut keys = KeySet::<64>::new();
    let mut dollar = None;
    let mut first = true;
    while let Some(raw) = reader.next_key_ref(&mut first)? {
        let decoded = key_of(tables, raw);
        let field = field_index(decoded);
        let is_dollar = tables.is_some() && raw == "$";
        if tables.is_some() && !keys.add(raw, decoded) {
            return Err(format!("compact result decodes duplicate key {decoded:?}"));
        }
        if is_dollar {
            dollar = Some(read_bounded(reader)?);
            continue;
        }
        match (field, tables) {
            (Some(i), Some(t)) => fields[i] = Some(decode(read_bounded(reader)?, t)?),
            (Some(i), None) => fields[i] = Some(read_bounded(reader)?),
            (None, Some(t)) => skip_compact(reader, t, 2)?,
            (None, None) => reader.skip_value(2)?,
        }
    }
    if let (Some(t), Some(index)) = (tables, dollar) {
        if keys.distinct() == 1 {
            // `{"$": i}`: a string, not a record.
            string_ref(&index, t)?;
            return Ok(Err("not an object".into()));
        }
    }
    Ok(record_of(fields))
}

/// A record, or why it is left out: torchcts's statuses are the strings `PASS`, `FAIL`,
/// `ERROR` and `SKIP`; anything else would be counted wrong, so it is damage.
fn classify(value: &Json) -> Result<Record, String> {
    let Json::Object(entries) = value else {
        return Err("not an object".into());
    };
    let mut fields: [Option<Json>; FIELDS] = Default::default();
    for (key, item) in entries {
        if let Some(i) = field_index(key) {
            fields[i] = Some(item.clone());
        }
    }
    record_of(fields)
}

/// The record of its fields (in [`field_index`]'s order), or why it is none.
fn record_of(fields: [Option<Json>; FIELDS]) -> Result<Record, String> {
    let [status, error, skip_reason, last_tested, op, dtype, error_type, failure_stage] = fields;
    let is = |field: &Option<Json>, value: &str| matches!(field, Some(Json::Str(s)) if &**s == value);
    let status = match status {
        Some(Json::Str(s)) => match &*s {
            "PASS" => EvidenceStatus::Passed,
            "FAIL" => EvidenceStatus::Failed,
            "ERROR" if is(&failure_stage, "known_backend_crash") => EvidenceStatus::KnownCrash,
            "ERROR" if is(&error_type, "ProcessCrash") => EvidenceStatus::Crashed,
            "ERROR" => EvidenceStatus::Error,
            "SKIP" => EvidenceStatus::Skipped,
            _ => return Err("an unknown status".into()),
        },
        Some(other) => return Err(format!("status {}", other.kind())),
        None => return Err("no status".into()),
    };
    let text = |v: Option<Json>| match v {
        Some(Json::Str(s)) => Some(s),
        _ => None,
    };
    let first_line = |v: Option<Json>| match v {
        Some(Json::Str(s)) => s.lines().map(str::trim).find(|l| !l.is_empty()).map(Box::from),
        _ => None,
    };
    Ok(Record {
        status,
        error: first_line(error),
        skip_reason: first_line(skip_reason),
        last_tested: text(last_tested),
        op: text(op),
        dtype: text(dtype),
    })
}
