//! torchcts' packaged known-segfault ledger (`torchcts/known_segfaults.json`), as far as its
//! expiry warnings need it: which entries are active for a run (backend, hardware, torch
//! range: `active_known_segfaults`) and which of those are past their `review_after`
//! (`expired_known_segfault_warnings`). Generated per torchcts release by
//! `tools/inventory/gen_ledger.py`; today's date is the caller's (this crate reads no clock).

use serde_json::Value;

static PACKAGED: &str = include_str!("../data/known_segfaults.json");

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub id: String,
    pub backend: String,
    /// A hardware key, or `any`.
    pub hardware: String,
    pub pytorch_min: Option<String>,
    pub pytorch_max: Option<String>,
    /// `YYYY-MM-DD` (torchcts validates the form).
    pub review_after: String,
}

/// The packaged ledger of `torchcts_version`, in its order; the newest release's for a
/// version without a table of its own.
pub fn packaged_ledger(torchcts_version: &str) -> Vec<LedgerEntry> {
    let Ok(Value::Object(tables)) = serde_json::from_str::<Value>(PACKAGED) else { return Vec::new() };
    let newest = tables.keys().max_by_key(|v| release_key(v)).cloned();
    let table = tables.get(torchcts_version).or_else(|| newest.and_then(|v| tables.get(&v)));
    let text = |e: &Value, key: &str| e.get(key).and_then(Value::as_str).map(str::to_string);
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
                })
                .collect()
        })
        .unwrap_or_default()
}

fn release_key(version: &str) -> Vec<u64> {
    version.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// `version_rules.parse_torch_version`: `^(\d+)\.(\d+)(?:\.(\d+))?`, the patch 0 when absent.
fn parse_torch_version(version: &str) -> Option<(u64, u64, u64)> {
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
        .filter(|e| e.review_after.as_str() < today)
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
}
