//! `known_segfaults.validate_known_segfaults` for one payload: torchcts' checks in its
//! order, each failure with torchcts' text (`{path}: entry X missing required field(s): ...`),
//! and the entry as the matching reads it.

use super::{Constraint, LedgerEntry};
use crate::facts::PyValue;

const REQUIRED_ENTRY_KEYS: &[&str] = &[
    "id",
    "backend",
    "match",
    "dispatcher",
    "evidence_scope",
    "classification",
    "expected_signal",
    "repro",
    "reason",
    "owner",
    "pytorch_min",
    "pytorch_max",
    "hardware",
    "review_after",
];
const OPTIONAL_ENTRY_KEYS: &[&str] = &["nodeid", "coverage_id", "constraints", "execution_policy"];
const VALID_MATCHES: &[&str] = &["coverage_id", "dispatcher", "nodeid"];
const VALID_EVIDENCE_SCOPES: &[&str] = &["constrained_metadata", "dispatcher_surface", "exact_node"];
const VALID_CLASSIFICATIONS: &[&str] = &["confirmed_backend_crash"];
const VALID_EXECUTION_POLICIES: &[&str] = &["record_without_execution", "subprocess"];
const VALID_SIGNALS: &[&str] = &["SIGABRT", "SIGBUS", "SIGILL", "SIGSEGV"];
pub(super) const GLOB_CONSTRAINT_KEYS: &[&str] = &["coverage_id_glob", "nodeid_glob"];
const VALID_CONSTRAINT_KEYS: &[&str] = &[
    "coverage_id_glob",
    "coverage_kind",
    "coverage_status",
    "dtype",
    "nodeid_glob",
    "semantic_level",
    "strategy",
    "strategy_family",
    "suite",
    "surface_kind",
    "test_kind",
    "variant_kind",
];

/// Why torchcts refuses the ledger: its exception text, and the entry it names (for the
/// place of the finding).
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationError {
    pub message: String,
    pub entry_id: Option<String>,
}

type Checked<T> = Result<T, ValidationError>;

/// `validate_known_segfaults([(path, payload)])` with the ids already taken (the packaged
/// ledger's, which torchcts validates first).
pub fn validate_payload(payload: &PyValue, path: &str, taken_ids: &[String]) -> Checked<Vec<LedgerEntry>> {
    let fail = |message: String| ValidationError { message, entry_id: None };
    let PyValue::Dict(top) = payload else {
        return Err(fail(format!("{path}: known-segfault ledger must be a JSON object")));
    };
    let unknown: Vec<&str> =
        sorted_keys(top).into_iter().filter(|k| !["version", "known_segfaults"].contains(k)).collect();
    if !unknown.is_empty() {
        return Err(fail(format!("{path}: unknown top-level field(s): {}", unknown.join(", "))));
    }
    if !payload.dict_get("version").is_some_and(equals_one) {
        return Err(fail(format!("{path}: version must be 1")));
    }
    let Some(PyValue::List(raw_entries)) = payload.dict_get("known_segfaults") else {
        return Err(fail(format!("{path}: known_segfaults must be a list")));
    };
    let mut seen: Vec<String> = taken_ids.to_vec();
    raw_entries.iter().map(|entry| validate_entry(entry, path, &mut seen)).collect()
}

/// `payload.get("version") != 1` is false for `1`, `1.0` and `true`.
fn equals_one(v: &PyValue) -> bool {
    match v {
        PyValue::Int(n) => *n == 1,
        PyValue::Float(f) => *f == 1.0,
        PyValue::Bool(b) => *b,
        _ => false,
    }
}

fn sorted_keys(pairs: &[(PyValue, PyValue)]) -> Vec<&str> {
    let mut keys: Vec<&str> = pairs.iter().filter_map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    keys
}

/// `str.strip()`: Python's whitespace has four separators Rust's does not.
pub(super) fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

fn non_empty_str(v: &PyValue) -> Option<&str> {
    v.as_str().filter(|s| !py_strip(s).is_empty())
}

/// `value not in {...}`: a list or a dict is unhashable (a `TypeError`, which torchcts
/// reports without the path).
fn one_of(v: &PyValue, allowed: &[&str], entry_id: &str, message: String) -> Checked<String> {
    let type_name = match v {
        PyValue::List(_) => Some("list"),
        PyValue::Dict(_) => Some("dict"),
        _ => None,
    };
    if let Some(t) = type_name {
        return Err(ValidationError { message: format!("unhashable type: '{t}'"), entry_id: Some(entry_id.into()) });
    }
    match v.as_str().filter(|s| allowed.contains(s)) {
        Some(s) => Ok(s.to_string()),
        None => Err(ValidationError { message, entry_id: Some(entry_id.into()) }),
    }
}

/// `sorted(VALID_...)` as Python prints a list of str.
fn py_list(items: &[&str]) -> String {
    format!("[{}]", items.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", "))
}

fn validate_entry(entry: &PyValue, path: &str, seen: &mut Vec<String>) -> Checked<LedgerEntry> {
    let PyValue::Dict(pairs) = entry else {
        return Err(ValidationError {
            message: format!("{path}: each known_segfaults entry must be an object"),
            entry_id: None,
        });
    };
    let shown_id = entry.dict_get("id").map_or_else(|| "<missing>".to_string(), PyValue::str_);
    let fail = |message: String| ValidationError { message, entry_id: Some(shown_id.clone()) };
    let keys = sorted_keys(pairs);
    let missing: Vec<&str> = {
        let mut m: Vec<&str> = REQUIRED_ENTRY_KEYS.iter().copied().filter(|k| !keys.contains(k)).collect();
        m.sort_unstable();
        m
    };
    if !missing.is_empty() {
        return Err(fail(format!("{path}: entry {shown_id} missing required field(s): {}", missing.join(", "))));
    }
    let unknown: Vec<&str> =
        keys.iter().copied().filter(|k| !REQUIRED_ENTRY_KEYS.contains(k) && !OPTIONAL_ENTRY_KEYS.contains(k)).collect();
    if !unknown.is_empty() {
        return Err(fail(format!("{path}: entry {shown_id} has unknown field(s): {}", unknown.join(", "))));
    }
    let get = |k: &str| entry.dict_get(k).unwrap_or(&PyValue::None);
    let Some(id) = non_empty_str(get("id")).map(str::to_string) else {
        return Err(fail(format!("{path}: entry id must be a non-empty string")));
    };
    if seen.contains(&id) {
        return Err(fail(format!("{path}: duplicate known segfault id {}", crate::pyfmt::str_repr(&id))));
    }
    seen.push(id.clone());
    for key in ["backend", "dispatcher", "reason", "owner", "hardware"] {
        if non_empty_str(get(key)).is_none() {
            return Err(fail(format!("{path}: entry {id} field {key} must be a non-empty string")));
        }
    }
    for key in ["nodeid", "coverage_id"] {
        if entry.dict_get(key).is_some_and(|v| non_empty_str(v).is_none()) {
            return Err(fail(format!("{path}: entry {id} field {key} must be a non-empty string")));
        }
    }
    let match_mode = one_of(
        get("match"),
        VALID_MATCHES,
        &id,
        format!("{path}: entry {id} match must be one of {}", py_list(VALID_MATCHES)),
    )?;
    let evidence_scope = one_of(
        get("evidence_scope"),
        VALID_EVIDENCE_SCOPES,
        &id,
        format!("{path}: entry {id} evidence_scope must be one of {}", py_list(VALID_EVIDENCE_SCOPES)),
    )?;
    let classification = one_of(
        get("classification"),
        VALID_CLASSIFICATIONS,
        &id,
        format!("{path}: entry {id} classification must be one of {}", py_list(VALID_CLASSIFICATIONS)),
    )?;
    let default_policy = PyValue::Str("record_without_execution".into());
    let execution_policy = one_of(
        entry.dict_get("execution_policy").unwrap_or(&default_policy),
        VALID_EXECUTION_POLICIES,
        &id,
        format!("{path}: entry {id} execution_policy must be one of {}", py_list(VALID_EXECUTION_POLICIES)),
    )?;
    one_of(
        get("expected_signal"),
        VALID_SIGNALS,
        &id,
        format!("{path}: entry {id} expected_signal must be one of {}", py_list(VALID_SIGNALS)),
    )?;
    let version = |key: &str| -> Checked<Option<String>> {
        match get(key) {
            PyValue::None => Ok(None),
            v if super::parse_torch_version(&v.str_()).is_some() => Ok(Some(v.str_())),
            _ => Err(fail(format!("{path}: entry {id} {key} is invalid"))),
        }
    };
    let pytorch_min = version("pytorch_min")?;
    let pytorch_max = version("pytorch_max")?;
    let review_after = get("review_after").as_str().map(str::to_string);
    let Some(review_after) = review_after.filter(|r| iso_date_ordinal(r).is_some()) else {
        return Err(fail(format!("{path}: entry {id} review_after must be YYYY-MM-DD")));
    };
    validate_repro(get("repro"), path, &id).map_err(&fail)?;
    let constraints = normalize_constraints(entry.dict_get("constraints"), path, &id).map_err(&fail)?;
    let has = |k: &str| entry.dict_get(k).is_some();
    if match_mode == "nodeid" {
        if !has("nodeid") {
            return Err(fail(format!("{path}: entry {id} match=nodeid requires nodeid")));
        }
        if evidence_scope != "exact_node" {
            return Err(fail(format!("{path}: entry {id} match=nodeid requires evidence_scope=exact_node")));
        }
    } else if evidence_scope == "exact_node" {
        return Err(fail(format!("{path}: entry {id} evidence_scope=exact_node requires match=nodeid")));
    }
    let constrained = evidence_scope == "constrained_metadata";
    if match_mode == "dispatcher" && constrained && constraints.is_empty() {
        return Err(fail(format!("{path}: entry {id} constrained dispatcher rules require non-empty constraints")));
    }
    if match_mode == "coverage_id" {
        let has_glob = constraints.iter().any(|c| c.key == "coverage_id_glob");
        if !has("coverage_id") && !has_glob {
            return Err(fail(format!(
                "{path}: entry {id} match=coverage_id requires coverage_id or constraints.coverage_id_glob"
            )));
        }
        if constrained && constraints.is_empty() {
            return Err(fail(format!(
                "{path}: entry {id} constrained coverage_id rules require non-empty constraints"
            )));
        }
    }
    let text = |k: &str| entry.dict_get(k).and_then(PyValue::as_str).map(str::to_string);
    Ok(LedgerEntry {
        id,
        backend: text("backend").unwrap_or_default(),
        hardware: text("hardware").unwrap_or_default(),
        pytorch_min,
        pytorch_max,
        review_after,
        match_mode,
        nodeid: text("nodeid"),
        dispatcher: text("dispatcher"),
        coverage_id: text("coverage_id"),
        classification,
        execution_policy,
        constraints,
    })
}

fn validate_repro(repro: &PyValue, path: &str, id: &str) -> Result<(), String> {
    let PyValue::Dict(pairs) = repro else { return Err(format!("{path}: entry {id} repro must be an object")) };
    let keys = sorted_keys(pairs);
    let missing: Vec<&str> = ["case", "script"].into_iter().filter(|k| !keys.contains(k)).collect();
    if !missing.is_empty() {
        return Err(format!("{path}: entry {id} repro missing required field(s): {}", missing.join(", ")));
    }
    let unknown: Vec<&str> = keys.into_iter().filter(|k| !["case", "script"].contains(k)).collect();
    if !unknown.is_empty() {
        return Err(format!("{path}: entry {id} repro has unknown field(s): {}", unknown.join(", ")));
    }
    // `for key in REQUIRED_REPRO_KEYS`: a set of two str, iterated in the order of
    // CPython's string hashes, which PYTHONHASHSEED changes; both report one field.
    for key in ["script", "case"] {
        if repro.dict_get(key).and_then(non_empty_str).is_none() {
            return Err(format!("{path}: entry {id} repro.{key} must be a non-empty string"));
        }
    }
    Ok(())
}

/// `_normalize_constraints`: a value or a list of values per key, levels 1..8 for
/// `semantic_level`, non-empty strings (stripped) for the others.
fn normalize_constraints(value: Option<&PyValue>, path: &str, id: &str) -> Result<Vec<Constraint>, String> {
    let pairs = match value {
        None | Some(PyValue::None) => return Ok(Vec::new()),
        Some(PyValue::Dict(pairs)) => pairs,
        Some(_) => return Err(format!("{path}: entry {id} constraints must be an object")),
    };
    let unknown: Vec<&str> = sorted_keys(pairs).into_iter().filter(|k| !VALID_CONSTRAINT_KEYS.contains(k)).collect();
    if !unknown.is_empty() {
        return Err(format!("{path}: entry {id} constraints has unknown field(s): {}", unknown.join(", ")));
    }
    let mut out = Vec::new();
    for (key, raw) in pairs {
        let key = key.as_str().unwrap_or_default();
        let raw_values: Vec<&PyValue> = match raw {
            PyValue::List(items) => items.iter().collect(),
            other => vec![other],
        };
        if raw_values.is_empty() {
            return Err(format!("{path}: entry {id} constraints.{key} must not be empty"));
        }
        let mut values = Vec::new();
        for item in raw_values {
            if key == "semantic_level" {
                match item {
                    PyValue::Int(level @ 1..=8) => values.push(level.to_string()),
                    _ => return Err(format!("{path}: entry {id} constraints.{key} must contain semantic levels 1..8")),
                }
            } else {
                match non_empty_str(item) {
                    Some(s) => values.push(py_strip(s).to_string()),
                    None => return Err(format!("{path}: entry {id} constraints.{key} must contain non-empty strings")),
                }
            }
        }
        let glob = GLOB_CONSTRAINT_KEYS.contains(&key);
        out.push(Constraint { key: key.to_string(), values, glob });
    }
    Ok(out)
}

/// `datetime.date.fromisoformat` (CPython 3.11): `YYYY-MM-DD`, `YYYYMMDD`, and the ISO week
/// forms `YYYY-Www[-D]`, `YYYYWww[D]`; the date as days since 0001-01-01.
pub(super) fn iso_date_ordinal(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if !matches!(b.len(), 7 | 8 | 10) || !text.is_ascii() {
        return None;
    }
    let num = |s: &[u8]| -> Option<i64> {
        s.iter().try_fold(0i64, |acc, c| c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0')))
    };
    let year = num(&b[0..4])?;
    let dash = b[4] == b'-';
    let mut pos = 4 + usize::from(dash);
    if b.get(pos) == Some(&b'W') {
        pos += 1;
        let week = num(b.get(pos..pos + 2)?)?;
        pos += 2;
        let mut day = 1;
        if pos < b.len() {
            if (b[pos] == b'-') != dash {
                return None;
            }
            pos += usize::from(dash);
            day = num(b.get(pos..pos + 1)?)?;
            pos += 1;
        }
        if pos != b.len() {
            return None;
        }
        return iso_week_ordinal(year, week, day);
    }
    let month = num(b.get(pos..pos + 2)?)?;
    pos += 2;
    if (b.get(pos) == Some(&b'-')) != dash {
        return None;
    }
    pos += usize::from(dash);
    let day = num(b.get(pos..pos + 2)?)?;
    if pos + 2 != b.len() {
        return None;
    }
    ordinal(year, month, day)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// `date(y, m, d).toordinal()`, `None` out of range.
fn ordinal(y: i64, m: i64, d: i64) -> Option<i64> {
    const DAYS: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=9999).contains(&y) || !(1..=12).contains(&m) {
        return None;
    }
    let month_days = DAYS[(m - 1) as usize] + i64::from(m == 2 && is_leap(y));
    if !(1..=month_days).contains(&d) {
        return None;
    }
    let before_year = (y - 1) * 365 + (y - 1) / 4 - (y - 1) / 100 + (y - 1) / 400;
    let before_month: i64 = DAYS[..(m - 1) as usize].iter().sum::<i64>() + i64::from(m > 2 && is_leap(y));
    Some(before_year + before_month + d)
}

/// `date.fromisocalendar(year, week, day)`.
fn iso_week_ordinal(year: i64, week: i64, day: i64) -> Option<i64> {
    let jan1 = ordinal(year, 1, 1)?;
    // Python's `_ymd2ord(...) % 7`: 0 is Sunday.
    let first_weekday = jan1 % 7;
    let long_year = first_weekday == 4 || (first_weekday == 3 && is_leap(year));
    if !((1..=52).contains(&week) || week == 53 && long_year) {
        return None;
    }
    if !(1..=7).contains(&day) {
        return None;
    }
    // Monday of week 1: the week with the year's first Thursday.
    let jan1_monday_based = (jan1 + 6) % 7; // 0 is Monday
    let mut week1_monday = jan1 - jan1_monday_based;
    if jan1_monday_based > 3 {
        week1_monday += 7;
    }
    let day_ordinal = week1_monday + (week - 1) * 7 + (day - 1);
    (1..=3_652_059).contains(&day_ordinal).then_some(day_ordinal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_as_python_311_fromisoformat() {
        let day = |s| iso_date_ordinal(s);
        assert_eq!(day("2026-09-30"), ordinal(2026, 9, 30));
        assert_eq!(day("20260930"), ordinal(2026, 9, 30));
        assert_eq!(day("2026-W40"), ordinal(2026, 9, 28));
        assert_eq!(day("2026W40"), ordinal(2026, 9, 28));
        assert_eq!(day("2026-W40-3"), ordinal(2026, 9, 30));
        assert_eq!(day("2026W403"), ordinal(2026, 9, 30));
        for bad in [
            "2026-9-30",
            " 2026-09-30",
            "2026-09-30 ",
            "2026-02-30",
            "2026-09-30T00",
            "0000-01-01",
            "2026-09",
            "2026-0930",
        ] {
            assert_eq!(day(bad), None, "{bad}");
        }
        // 0001-01-01 is ordinal 1 (a Monday).
        assert_eq!(ordinal(1, 1, 1), Some(1));
    }
}
