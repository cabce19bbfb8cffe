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
    let (file, len) = open_regular(path)?;
    let mut reader = Reader::new(file);
    if let Some(parsed) = parse_from(&mut reader, path, max_records, Some(len))? {
        return Ok(parsed);
    }
    // The string table guessed from the file's end was not the file's, or the payload was
    // refused under it: two passes decide.
    reader.seek(0)?;
    parse_from(&mut reader, path, max_records, None)?.ok_or_else(|| "cannot read: the file changed while read".into())
}

/// The string table of a compact file is after its payload (torchcts sorts the keys), so a
/// payload's references cannot be resolved when they are read. This much of the file's end
/// is read first to find the table there (`"string_table":[...]}` closes what torchcts
/// writes), so the payload is read once; the guess is checked against the table read in
/// its turn, and a file it does not fit is read in two passes.
const STRING_TABLE_TAIL: u64 = 256 * 1024;

/// One reading of the file. `guess_from_end`: the file's length, to guess the string table
/// from its end (see [`STRING_TABLE_TAIL`]); `Ok(None)`: the guess did not hold, read again
/// without it.
fn parse_from(
    reader: &mut Reader<std::fs::File>,
    path: &Path,
    max_records: usize,
    guess_from_end: Option<u64>,
) -> Result<Option<Parsed>, String> {
    if !reader.begin_object()? {
        reader.skip_value(0)?;
        reader.expect_end()?;
        return Err("not a torchcts result artifact: not a JSON object".into());
    }
    let mut top: Vec<(Box<str>, Json)> = Vec::new();
    let (mut key_table, mut string_table) = (None, None);
    let mut payload_at = None;
    // The payload read under the guessed string table.
    let mut guessed: Option<(Tables, Parsed)> = None;
    let mut plain = Staging::new(max_records);
    let mut results_object = false;
    let mut first = true;
    while let Some(key) = reader.next_key(&mut first)? {
        match key.as_str() {
            // What the guessed reading assumed, given again after it: the last one counts.
            "format" | "format_version" | "key_table" | "payload" if guessed.is_some() => return Ok(None),
            "format" | "format_version" | "artifact" | "metadata" => {
                let value = read_bounded(reader)?;
                insert_last_wins(&mut top, key.into_boxed_str(), value);
            }
            "key_table" => key_table = Some(read_strings(reader)?),
            "string_table" => string_table = Some(read_strings(reader)?),
            "payload" => {
                reader.peek_token()?;
                let start = reader.offset();
                let guess = match (guess_from_end, payload_at) {
                    (Some(len), None) => compact_keys(&top, &key_table).and_then(|keys| {
                        Some(Tables::new(keys, string_table_at_end(reader.get_ref(), len)?, field_index))
                    }),
                    _ => None,
                };
                match guess {
                    Some(tables) => match read_compact_payload(reader, &tables, max_records) {
                        Ok(run) => guessed = Some((tables, run)),
                        Err(_) => return Ok(None),
                    },
                    None => {
                        // Read in full once the tables are known; here only its end is found.
                        reader.skip_unchecked()?;
                        payload_at = Some((start, reader.offset()));
                    }
                }
            }
            "results" => {
                // A repeated key: its last value is the one (a `dict`).
                plain = Staging::new(max_records);
                results_object = read_results(reader, &mut plain, None)?;
            }
            _ => reader.skip_value(1)?,
        }
    }
    reader.expect_end()?;
    let field = |k: &str| top.iter().find(|(key, _)| &**key == k).map(|(_, v)| v);
    match field("format").and_then(Json::as_str) {
        Some(REFERENCE_FORMAT) => {
            let version_one = field("format_version").is_some_and(Json::equals_one);
            reference_path(path, version_one, field("artifact").and_then(Json::as_str))
                .map(|p| Some(Parsed::Reference(p)))
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
            compact_run(reader, Tables::new(keys, strings, field_index), guessed, payload_at, max_records)
        }
        _ => {
            let Some(Json::Object(metadata)) = field("metadata").cloned() else {
                return Err("not a torchcts result artifact: no `metadata` and `results` objects".into());
            };
            if !results_object {
                return Err("not a torchcts result artifact: no `metadata` and `results` objects".into());
            }
            Ok(Some(Parsed::Run(plain.into_run(metadata))))
        }
    }
}

/// A compact file's run, its tables read: the payload read under the guessed string table
/// when the guess was the file's table (`None` when it was not: read again), else the
/// payload read now from where the first pass found it.
fn compact_run(
    reader: &mut Reader<std::fs::File>,
    tables: Tables,
    guessed: Option<(Tables, Parsed)>,
    payload_at: Option<(u64, u64)>,
    max_records: usize,
) -> Result<Option<Parsed>, String> {
    if let Some((guess, run)) = guessed {
        return Ok((guess.strings == tables.strings).then_some(run));
    }
    let Some((start, end)) = payload_at else {
        return Err("compact result payload must decode to an object".into());
    };
    reader.seek(start)?;
    let run = read_compact_payload(reader, &tables, max_records)?;
    if reader.offset() != end {
        return Err(format!("invalid JSON at byte {}: the payload does not end where it seemed to", reader.offset()));
    }
    Ok(Some(run))
}

/// The key table of a file read so far as compact (format and version given, the table a
/// list of distinct strings): what reading its payload at once needs besides the strings.
fn compact_keys(top: &[(Box<str>, Json)], key_table: &Option<Option<Vec<Box<str>>>>) -> Option<Vec<Box<str>>> {
    let field = |k: &str| top.iter().find(|(key, _)| &**key == k).map(|(_, v)| v);
    if field("format").and_then(Json::as_str) != Some(COMPACT_FORMAT) || !field("format_version")?.equals_one() {
        return None;
    }
    let keys = key_table.as_ref()?.as_ref()?;
    (keys.iter().collect::<HashSet<_>>().len() == keys.len()).then(|| keys.clone())
}

/// The string table as the file's last [`STRING_TABLE_TAIL`] bytes show it: the value of the
/// last `"string_table":` there, when the rest of the file is that list of strings and the
/// object's end. A guess: the caller checks it against the table the file gives.
fn string_table_at_end(file: &std::fs::File, len: u64) -> Option<Vec<Box<str>>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let take = len.min(STRING_TABLE_TAIL);
        let mut tail = vec![0; take as usize];
        file.read_exact_at(&mut tail, len - take).ok()?;
        let at = memchr::memmem::rfind(&tail, b"\"string_table\":")?;
        let mut text = Vec::with_capacity(tail.len() - at + 1);
        text.push(b'{');
        text.extend_from_slice(&tail[at..]);
        let Ok(Json::Object(mut entries)) = super::pyjson::loads(&text) else { return None };
        match entries.pop() {
            Some((_, Json::Array(items))) if entries.is_empty() => items
                .into_iter()
                .map(|i| match i {
                    Json::Str(s) => Some(s),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, len);
        None
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
pub(crate) type StagedMap = indexmap::IndexMap<Box<str>, Staged, foldhash::fast::RandomState>;

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

/// The bytes kept ahead for a record read in place (a record with a traceback is a few
/// KB; a longer one is streamed).
const FAST_WINDOW: usize = 16 * 1024;

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
        // The common record in place (`fast.rs`); anything else, streamed.
        let record = match scanned_record(reader.ahead(FAST_WINDOW)?, tables) {
            Some((taken, record)) => {
                reader.consume(taken);
                Ok(record)
            }
            None => read_record(reader, tables)?,
        };
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

/// The record at the start of `bytes` read in place (`fast.rs`), when it is a plain case.
fn scanned_record(bytes: &[u8], tables: Option<&Tables>) -> Option<(usize, Record)> {
    super::fast::record(bytes, tables, field_index, |status, texts| {
        let [error, skip_reason, last_tested, op, dtype, error_type, failure_stage] = texts;
        Some(Record::new(status_of(status, error_type, failure_stage)?, [error, skip_reason, last_tested, op, dtype]))
    })
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
pub(crate) fn field_index(key: &str) -> Option<usize> {
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
pub(crate) fn read_record<R: std::io::Read>(
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

/// A record, or why it is left out (a status not one of [`status_of`]'s is damage).
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
    let [status, error, skip_reason, last_tested, op, dtype, error_type, failure_stage] = &fields;
    let status = match status {
        Some(Json::Str(s)) => {
            status_of(s, error_type.as_ref().and_then(Json::as_str), failure_stage.as_ref().and_then(Json::as_str))
                .ok_or("an unknown status")?
        }
        Some(other) => return Err(format!("status {}", other.kind())),
        None => return Err("no status".into()),
    };
    Ok(Record::new(status, [error, skip_reason, last_tested, op, dtype].map(|v| v.as_ref().and_then(Json::as_str))))
}

/// torchcts's statuses are the strings `PASS`, `FAIL`, `ERROR` and `SKIP`; anything else
/// would be counted wrong, so it is damage.
/// (An ERROR that torchcts recorded for a known-segfault entry, or for a test whose process
/// crashed, is counted apart from other errors.)
pub(crate) fn status_of(text: &str, error_type: Option<&str>, failure_stage: Option<&str>) -> Option<EvidenceStatus> {
    match text {
        "PASS" => Some(EvidenceStatus::Passed),
        "FAIL" => Some(EvidenceStatus::Failed),
        "ERROR" if failure_stage == Some("known_backend_crash") => Some(EvidenceStatus::KnownCrash),
        "ERROR" if error_type == Some("ProcessCrash") => Some(EvidenceStatus::Crashed),
        "ERROR" => Some(EvidenceStatus::Error),
        "SKIP" => Some(EvidenceStatus::Skipped),
        _ => None,
    }
}

impl Record {
    /// A record of its status and its text fields, those that are strings (in
    /// [`field_index`]'s order after the status: error, skip reason, last tested, op, dtype).
    pub(crate) fn new(status: EvidenceStatus, texts: [Option<&str>; 5]) -> Record {
        let [error, skip_reason, last_tested, op, dtype] = texts;
        let first_line =
            |v: Option<&str>| v.and_then(|s| s.lines().map(str::trim).find(|l| !l.is_empty())).map(Box::from);
        Record {
            status,
            error: first_line(error),
            skip_reason: first_line(skip_reason),
            last_tested: last_tested.map(Box::from),
            op: op.map(Box::from),
            dtype: dtype.map(Box::from),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fast::{MAX_DEPTH, MAX_NUMBER_BYTES};
    use super::super::pyjson::Reader;
    use super::*;

    /// A key table whose tokens `0`-`9` stand for the fields the index uses and some others.
    fn tables() -> Tables {
        let keys = [
            "status",
            "error_message",
            "op",
            "dtype",
            "last_tested",
            "skip_reason",
            "cosim",
            "shapes",
            "semantic_level_selection",
            "mode",
        ];
        let strings = ["PASS", "float32", "a long\nmessage", "\u{e9}t\u{e9}"];
        Tables::new(keys.map(Box::from).to_vec(), strings.map(Box::from).to_vec(), field_index)
    }

    const COMPACT: [&str; 3] = [
        r#"{"0":"PASS","1":null,"2":{"$":1},"3":"torch.float32","4":"2026-11-30T16:24:12.093778Z","6":NaN,"7":[[2,3],[4]],"8":{"9":{"$":3},"0":-1.5e-3},"5":null}"#,
        r#"{ "0" : "FAIL" , "1" : {"$":2}, "6": -Infinity, "7": [], "8": {}, "9": "\u00e9t\u00e9", "5": 1E+2 }"#,
        r#"{"0":{"$":0},"1":"RuntimeError: x\nTraceback","2":"add","3":{"$":3},"4":true}"#,
    ];

    const PLAIN: [&str; 3] = [
        r#"{"status":"PASS","error_message":null,"op":"add","dtype":"torch.float32","last_tested":"2026-11-30T16:24:12Z","cosim":Infinity,"shapes":[[1,2]],"nested":{"$":3,"x":"é"},"status":"SKIP"}"#,
        r#"{"status":"ERROR","skip_reason":"no\tsamples","op":"\u00e9","error_message":"  \n first line \n second","dtype":0}"#,
        "{\"status\":\"FAIL\",\r\n\t\"op\": \"\u{e9}\u{1F600}\", \"x\": [0, -0, 0.5, 10e-3, null, false]}",
    ];

    /// The streaming reader's reading of the record at the start of `text`, and where it ended.
    fn streamed(text: &[u8], tables: Option<&Tables>) -> Option<(usize, Record)> {
        let mut reader = Reader::new(text);
        match read_record(&mut reader, tables) {
            Ok(Ok(record)) => Some((reader.offset() as usize, record)),
            _ => None,
        }
    }

    /// Every record this scan takes, the streaming reader takes the same, to the same byte:
    /// on the records above and on each of them cut at every byte, and with one byte
    /// replaced by or inserted as a byte that matters to JSON at every position.
    #[test]
    fn scanned_records_are_the_streamed_ones() {
        let tables = tables();
        let bytes_that_matter = b"\"\\{}[],:0-1.eEnNI$~ \t\x01\x1f\x7f\xc3\xff";
        let mut taken = 0;
        let mut checked = 0;
        let cases = COMPACT.iter().map(|r| (r, Some(&tables))).chain(PLAIN.iter().map(|r| (r, None)));
        for (base, tables) in cases {
            let base = base.as_bytes();
            let mut variants = vec![base.to_vec()];
            for at in 0..base.len() {
                variants.push(base[..at].to_vec());
                for &b in bytes_that_matter {
                    let mut replaced = base.to_vec();
                    replaced[at] = b;
                    variants.push(replaced);
                    let mut inserted = base.to_vec();
                    inserted.insert(at, b);
                    variants.push(inserted);
                }
            }
            for variant in &variants {
                checked += 1;
                if let Some(scanned) = scanned_record(variant, tables) {
                    taken += 1;
                    assert_eq!(
                        Some(&scanned),
                        streamed(variant, tables).as_ref(),
                        "{}",
                        String::from_utf8_lossy(variant)
                    );
                }
            }
        }
        // The scan takes the common records, not only a few.
        for (base, tables) in
            [(COMPACT[0], Some(&tables)), (COMPACT[1], Some(&tables)), (PLAIN[0], None), (PLAIN[2], None)]
        {
            assert!(scanned_record(base.as_bytes(), tables).is_some(), "{base}");
        }
        assert!(taken > checked / 10, "{taken} of {checked}");
    }

    #[test]
    fn what_needs_the_streaming_reader_is_left_to_it() {
        let tables = tables();
        for (text, tables) in [
            // An escape in a field kept; a key that is not a token; `$` beside other keys; a
            // status that is not torchcts's; a number too long to judge here.
            (COMPACT[2], Some(&tables)),
            (r#"{"0":"PASS","~op":"x"}"#, Some(&tables)),
            (r#"{"0":"PASS","z":"x"}"#, Some(&tables)),
            (r#"{"0":"PASS","8":{"$":1,"0":2}}"#, Some(&tables)),
            (r#"{"0":"PASS","8":{"$":4}}"#, Some(&tables)),
            (r#"{"0":"PASS","8":{"$":-0}}"#, Some(&tables)),
            (r#"{"$":0}"#, Some(&tables)),
            (r#"{"status":"Passed"}"#, None),
            (r#"{"status":null}"#, None),
            (r#"{"st\u0061tus":"PASS"}"#, None),
            (r#"{}"#, None),
        ] {
            assert_eq!(scanned_record(text.as_bytes(), tables), None, "{text}");
        }
        let long = format!(r#"{{"status":"PASS","x":1{}}}"#, "0".repeat(MAX_NUMBER_BYTES));
        assert_eq!(scanned_record(long.as_bytes(), None), None);
        let deep = format!(r#"{{"status":"PASS","x":{}{}}}"#, "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(scanned_record(deep.as_bytes(), None), None);
    }
}
