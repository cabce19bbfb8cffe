//! torchcts' known-segfault ledgers: the packaged one (`torchcts/known_segfaults.json`, as far
//! as its expiry warnings need it; generated per torchcts release by
//! `tools/inventory/gen_ledger.py`: its crash records are in the inventory) and the project's
//! own `known_segfaults.json` in the run's folder, validated as torchcts does
//! (`validate.rs`, read with Python's `json` in `json.rs`) and matched against the inventory's
//! tests (`matching.rs`). Which entries are active for a run (backend, hardware, torch range:
//! `active_known_segfaults`) and which of those are past their `review_after`
//! (`expired_known_segfault_warnings`). Today's date and the file's text are the caller's
//! (this crate reads no clock and no file).

mod json;
mod matching;
mod validate;

pub(crate) use matching::ProjectMatcher;
pub use matching::{hardware_key, HostFacts};
use serde_json::Value;

static PACKAGED: &str = include_str!("../../data/known_segfaults.json");

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub id: String,
    pub backend: String,
    /// A hardware key, or `any`.
    pub hardware: String,
    pub pytorch_min: Option<String>,
    pub pytorch_max: Option<String>,
    /// As written (`YYYY-MM-DD`, or another form `date.fromisoformat` reads).
    pub review_after: String,
    /// `nodeid`, `dispatcher` or `coverage_id` (empty for the packaged table).
    pub match_mode: String,
    pub nodeid: Option<String>,
    pub dispatcher: Option<String>,
    pub coverage_id: Option<String>,
    pub classification: String,
    pub execution_policy: String,
    /// `constraints`, normalised, in the file's order.
    pub constraints: Vec<Constraint>,
}

/// The project ledger an accounting counts with (`ManifestFacts::project_ledger`): its
/// validated entries, the torch release of the run and what the machine says of itself
/// (for hardware-specific entries). Empty: no project ledger.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectLedger {
    pub entries: Vec<LedgerEntry>,
    /// The run's torch (`torch.__version__`); empty: the inventory's.
    pub torch: String,
    pub host: HostFacts,
}

/// One normalised constraint: its values (`semantic_level`s as decimal text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Constraint {
    pub key: String,
    pub values: Vec<String>,
    /// `nodeid_glob` or `coverage_id_glob`: `fnmatch` patterns.
    pub glob: bool,
}

/// The project's ledger file name, in the run's folder (`PROJECT_KNOWN_SEGFAULTS`).
pub const PROJECT_LEDGER_FILE: &str = "known_segfaults.json";

/// A project ledger torchcts refuses: its message as show-skips prints it after `Exit: `
/// (`Invalid known segfault ledger: PATH: ...`), and the byte range of the file it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectLedgerError {
    pub message: String,
    pub range: std::ops::Range<usize>,
}

/// The project ledger as torchcts reads it: `text` is the file's bytes, `path` the path
/// torchcts names (`<run folder>/known_segfaults.json`), `packaged` the packaged ledger
/// whose ids it may not repeat.
pub fn read_project_ledger(
    bytes: &[u8],
    path: &str,
    packaged: &[LedgerEntry],
) -> Result<Vec<LedgerEntry>, ProjectLedgerError> {
    let invalid = |message: String, range: std::ops::Range<usize>| ProjectLedgerError {
        message: format!("Invalid known segfault ledger: {message}"),
        range,
    };
    let original = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.valid_up_to();
            return Err(invalid(utf8_error_message(bytes, &e), at..(at + 1).min(bytes.len())));
        }
    };
    let text = json::universal_newlines(original);
    let payload = json::loads(&text).map_err(|e| {
        let at = e.position.map_or(0, |p| json::original_offset(original, p));
        let message = if e.decode_error { format!("{path}: malformed JSON: {}", e.message) } else { e.message };
        invalid(message, at..next_char(original, at))
    })?;
    let taken: Vec<String> = packaged.iter().map(|e| e.id.clone()).collect();
    validate::validate_payload(&payload, path, &taken).map_err(|e| {
        let range = e.entry_id.as_deref().and_then(|id| entry_range(original, id)).unwrap_or(0..0);
        invalid(e.message, range)
    })
}

fn next_char(text: &str, at: usize) -> usize {
    text[at.min(text.len())..].chars().next().map_or(at, |c| at + c.len_utf8())
}

/// Where an entry is named: its `"id"` string, for the place of a finding about it.
fn entry_range(text: &str, id: &str) -> Option<std::ops::Range<usize>> {
    let quoted = serde_json::to_string(id).ok()?;
    let at = text.find(&quoted)?;
    Some(at..at + quoted.len())
}

/// `bytes.decode('utf-8')`'s `UnicodeDecodeError` text.
fn utf8_error_message(bytes: &[u8], e: &std::str::Utf8Error) -> String {
    let at = e.valid_up_to();
    let byte = bytes[at];
    match e.error_len() {
        None if bytes.len() - at > 1 => {
            format!("'utf-8' codec can't decode bytes in position {at}-{}: unexpected end of data", bytes.len() - 1)
        }
        None => format!("'utf-8' codec can't decode byte 0x{byte:02x} in position {at}: unexpected end of data"),
        Some(_) if (0x80..0xc2).contains(&byte) || byte > 0xf4 => {
            format!("'utf-8' codec can't decode byte 0x{byte:02x} in position {at}: invalid start byte")
        }
        Some(n) if n > 1 => {
            format!("'utf-8' codec can't decode bytes in position {at}-{}: invalid continuation byte", at + n - 1)
        }
        Some(_) => format!("'utf-8' codec can't decode byte 0x{byte:02x} in position {at}: invalid continuation byte"),
    }
}

/// The packaged ledger of `torchcts_version`, in its order; the newest release's for a
/// version without a table of its own. Entries carry how they match
/// (`tools/inventory/gen_ledger.py`): a project entry may override one.
pub fn packaged_ledger(torchcts_version: &str) -> Vec<LedgerEntry> {
    let Ok(Value::Object(tables)) = serde_json::from_str::<Value>(PACKAGED) else { return Vec::new() };
    let newest = tables.keys().max_by_key(|v| release_key(v)).cloned();
    let table = tables.get(torchcts_version).or_else(|| newest.and_then(|v| tables.get(&v)));
    let text = |e: &Value, key: &str| e.get(key).and_then(Value::as_str).map(str::to_string);
    let constraints = |e: &Value| -> Vec<Constraint> {
        let Some(Value::Object(map)) = e.get("constraints") else { return Vec::new() };
        map.iter()
            .map(|(key, values)| Constraint {
                key: key.clone(),
                values: values
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect(),
                glob: validate::GLOB_CONSTRAINT_KEYS.contains(&key.as_str()),
            })
            .collect()
    };
    table
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .map(|e| LedgerEntry {
                    id: text(e, "id").unwrap_or_default(),
                    backend: text(e, "backend").unwrap_or_default(),
                    hardware: text(e, "hardware").unwrap_or_else(|| "any".into()),
                    pytorch_min: text(e, "pytorch_min"),
                    pytorch_max: text(e, "pytorch_max"),
                    review_after: text(e, "review_after").unwrap_or_default(),
                    match_mode: text(e, "match").unwrap_or_default(),
                    nodeid: text(e, "nodeid"),
                    dispatcher: text(e, "dispatcher"),
                    coverage_id: text(e, "coverage_id"),
                    classification: text(e, "classification").unwrap_or_else(|| "confirmed_backend_crash".into()),
                    execution_policy: text(e, "execution_policy").unwrap_or_else(|| "record_without_execution".into()),
                    constraints: constraints(e),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn release_key(version: &str) -> Vec<u64> {
    version.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// `version_rules.parse_torch_version`: `^(\d+)\.(\d+)(?:\.(\d+))?`, the patch 0 when absent.
pub(crate) fn parse_torch_version(version: &str) -> Option<(u64, u64, u64)> {
    let number = |s: &str| -> Option<(u64, usize)> {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0).then(|| (s[..digits].parse().unwrap_or(u64::MAX), digits))
    };
    let (major, a) = number(version)?;
    let rest = version[a..].strip_prefix('.')?;
    let (minor, b) = number(rest)?;
    let patch = rest[b..].strip_prefix('.').and_then(number).map_or(0, |(p, _)| p);
    Some((major, minor, patch))
}

/// `version_rules.version_in_range`.
fn version_in_range(torch: &str, min: Option<&str>, max: Option<&str>) -> bool {
    let Some(current) = parse_torch_version(torch) else { return false };
    let below = min.and_then(parse_torch_version).is_some_and(|m| current < m);
    let above = max.and_then(parse_torch_version).is_some_and(|m| current > m);
    !below && !above
}

/// `active_known_segfaults`: the entries for `backend` on `hardware_key` (None: not known
/// without the device, so only entries for `any` hardware) with `torch_version` in range.
pub fn active_entries<'l>(
    ledger: &'l [LedgerEntry],
    backend: &str,
    torch_version: &str,
    hardware_key: Option<&str>,
) -> Vec<&'l LedgerEntry> {
    ledger
        .iter()
        .filter(|e| e.backend == backend)
        .filter(|e| e.hardware == "any" || Some(e.hardware.as_str()) == hardware_key)
        .filter(|e| version_in_range(torch_version, e.pytorch_min.as_deref(), e.pytorch_max.as_deref()))
        .collect()
}

/// `expired_known_segfault_warnings` for the active entries, `today` as `YYYY-MM-DD`: the
/// lines show-skips and run print on stderr after `Warning: `.
pub fn expired_warnings(active: &[&LedgerEntry], today: &str) -> Vec<String> {
    active
        .iter()
        .filter(|e| match (validate::iso_date_ordinal(&e.review_after), validate::iso_date_ordinal(today)) {
            (Some(review), Some(today)) => review < today,
            _ => e.review_after.as_str() < today,
        })
        .map(|e| format!("known segfault {} review_after={} has expired", e.id, e.review_after))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare_as_torchcts_does() {
        assert_eq!(parse_torch_version("2.12.1+cu130"), Some((2, 12, 1)));
        assert_eq!(parse_torch_version("2.12"), Some((2, 12, 0)));
        assert_eq!(parse_torch_version("x2.1"), None);
        assert!(version_in_range("2.12.1", Some("2.12.0"), None));
        assert!(!version_in_range("2.11.0", Some("2.12.0"), None));
        assert!(!version_in_range("2.13.0", None, Some("2.12.9")));
        assert!(!version_in_range("nightly", None, None));
    }

    #[test]
    fn the_packaged_ledger_is_there_for_both_releases_and_expires_by_date() {
        for release in ["0.4.0", "0.4.1", "0.9.9"] {
            assert_eq!(packaged_ledger(release).len(), 13, "{release}");
        }
        let ledger = packaged_ledger("0.4.1");
        let active = active_entries(&ledger, "mps", "2.12.1", None);
        assert_eq!(active.len(), 13);
        assert!(active_entries(&ledger, "mps", "2.11.0", None).is_empty());
        assert!(active_entries(&ledger, "cuda", "2.12.1", None).is_empty());
        // 12 entries are due 2026-09-30, one 2026-10-31: strictly before today expires.
        assert_eq!(expired_warnings(&active, "2026-09-30").len(), 0);
        assert_eq!(expired_warnings(&active, "2026-10-01").len(), 12);
        assert_eq!(expired_warnings(&active, "2026-12-03").len(), 13);
    }

    #[test]
    fn packaged_entries_say_how_they_match() {
        let ledger = packaged_ledger("0.4.1");
        let modes: Vec<&str> = ledger.iter().map(|e| e.match_mode.as_str()).collect();
        assert_eq!(modes.iter().filter(|m| **m == "nodeid").count(), 5);
        assert_eq!(modes.iter().filter(|m| **m == "dispatcher").count(), 6);
        assert_eq!(modes.iter().filter(|m| **m == "coverage_id").count(), 2);
        let subprocess: Vec<&str> =
            ledger.iter().filter(|e| e.execution_policy == "subprocess").map(|e| e.id.as_str()).collect();
        assert_eq!(subprocess, ["mps-generated-grid-sampler-2d-cpu-fallback-backward-state-corruptor-pytorch-2-12"]);
        let sdpa = ledger.iter().find(|e| e.id == "mps-path-shape-sdpa-bool-causal-pytorch-2-12").unwrap();
        let level = sdpa.constraints.iter().find(|c| c.key == "semantic_level").unwrap();
        assert_eq!(level.values, ["7", "8"]);
        assert!(sdpa.constraints.iter().find(|c| c.key == "coverage_id_glob").unwrap().glob);
    }
}
