//! Which inventory tests a project ledger records as `known_backend_crash`
//! (`match_known_segfault` with `_known_segfault_record_without_execution`), as far as the
//! inventory knows a test: its node id and semantic level, its suite and kind from its
//! path. Entries that match by dispatcher or coverage id, or constrain other metadata,
//! need facts of the live collection: they are named in a note, never guessed.

use super::{active_entries, Constraint, LedgerEntry};
use crate::bits::Bits;
use crate::facts::{ManifestFacts, PyValue, RunLayout};
use crate::Inventory;
use std::collections::HashMap;

/// What `report.get_hardware_key` reads of the machine, read by the caller.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct HostFacts {
    /// `platform.node()`.
    pub node: Option<String>,
    /// `int(psutil.virtual_memory().total / 1024**3)`.
    pub memory_gb: Option<u64>,
}

/// `get_hardware_key(device, manifest)` where it is known without torch: not for `cuda`
/// (the GPU's name, when torch sees one) nor `mps` (the CPU brand from `sysctl`).
pub fn hardware_key(device: &str, facts: &ManifestFacts, host: &HostFacts) -> Option<String> {
    if device == "cuda" || device == "mps" {
        return None;
    }
    let node: String =
        host.node.as_deref()?.replace(' ', "_").chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    // show-skips replaces `system_memory_gb: "auto"` by the detected memory first.
    let memory = match facts.hardware_value("system_memory_gb") {
        None => host.memory_gb?.to_string(),
        Some(PyValue::Str(s)) if s == "auto" => host.memory_gb?.to_string(),
        Some(PyValue::Other(_)) => return None,
        Some(v) => v.str_(),
    };
    Some(format!("{device}_{node}_{memory}gb"))
}

/// The project ledger's verdict for one accounting: the tests its entries record without
/// running them, and what it could not decide.
#[derive(Clone, Default)]
pub(crate) struct ProjectMatcher {
    /// Items whose best project match records them without execution.
    pub(crate) crash_items: Option<Bits>,
    /// Entries active for the run whose matches are not counted, and why.
    pub(crate) notes: Vec<String>,
}

/// `canonicalize_nodeid`.
fn canonicalize(nodeid: &str) -> String {
    let text = nodeid.replace('\\', "/");
    let (path, rest) = match text.find("::") {
        Some(i) => (&text[..i], &text[i..]),
        None => (text.as_str(), ""),
    };
    let mut path = path;
    while let Some(p) = path.strip_prefix("./") {
        path = p;
    }
    match path.rfind("/torchcts/") {
        Some(i) => format!("torchcts/{}{rest}", &path[i + "/torchcts/".len()..]),
        None => format!("{path}{rest}"),
    }
}

/// `_canonical_suite_for_item` on the test's path (the install path above the package
/// is not known here, so a suite name in it is not seen).
fn suite_of(path: &str) -> &'static str {
    const SUITES: &[&str] = &[
        "opinfo",
        "operators",
        "training",
        "compiler",
        "device_api",
        "autograd",
        "memory",
        "dtypes",
        "strides",
        "workloads",
        "rng",
        "serialization",
        "errors",
        "selftest",
        "stress",
        "multi_device",
        "generated",
    ];
    SUITES.iter().find(|s| path.contains(&format!("/{s}/"))).copied().unwrap_or("custom")
}

/// `fnmatch.fnmatchcase`: `*`, `?`, `[seq]`, `[!seq]`; a `[` without its `]` is literal.
pub(crate) fn fnmatch(name: &str, pattern: &str) -> bool {
    let name: Vec<char> = name.chars().collect();
    let pattern: Vec<char> = pattern.chars().collect();
    // Iterative wildcard matching with one backtrack point (the last `*`).
    let (mut n, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, n));
            p += 1;
            continue;
        }
        if p < pattern.len() {
            if let Some((matched, next)) = one(&pattern, p, name[n]) {
                if matched {
                    p = next;
                    n += 1;
                    continue;
                }
            }
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// Whether pattern item at `p` matches `c`, and where the next item starts.
fn one(pattern: &[char], p: usize, c: char) -> Option<(bool, usize)> {
    match pattern[p] {
        '?' => Some((true, p + 1)),
        '[' => {
            let mut j = p + 1;
            let negate = pattern.get(j) == Some(&'!');
            if negate {
                j += 1;
            }
            if pattern.get(j) == Some(&']') {
                j += 1;
            }
            let close = (j..pattern.len()).find(|&k| pattern[k] == ']');
            let Some(close) = close else { return Some((c == '[', p + 1)) };
            let body = &pattern[p + 1 + usize::from(negate)..close];
            let mut hit = false;
            let mut k = 0;
            while k < body.len() {
                if k + 2 < body.len() && body[k + 1] == '-' {
                    hit |= body[k] <= c && c <= body[k + 2];
                    k += 3;
                } else {
                    hit |= body[k] == c;
                    k += 1;
                }
            }
            Some((hit != negate, close + 1))
        }
        literal => Some((literal == c, p + 1)),
    }
}

/// The keys whose value the inventory knows for a test.
const KNOWN_KEYS: &[&str] = &["nodeid_glob", "semantic_level", "suite", "test_kind"];

/// `match_specificity` then the id, highest first.
fn specificity(e: &LedgerEntry) -> (usize, usize, usize, usize, i64, &str) {
    let globs: Vec<&Constraint> = e.constraints.iter().filter(|c| c.glob).collect();
    let score = globs.iter().flat_map(|c| &c.values).map(|v| v.chars().filter(|&c| c != '*' && c != '?').count()).sum();
    (300, e.constraints.len(), e.constraints.len() - globs.len(), score, -(globs.len() as i64), &e.id)
}

impl ProjectMatcher {
    /// The project entries active on `device` with `torch` (hardware `any`, or the
    /// device's key where it is known) matched against the inventory's tests.
    pub(crate) fn new(
        inv: &Inventory,
        entries: &[LedgerEntry],
        device: &str,
        torch: &str,
        hardware: Option<&str>,
        layout: &RunLayout,
        level_of: impl Fn(usize) -> u8,
    ) -> ProjectMatcher {
        let mut notes = Vec::new();
        if hardware.is_none() {
            let in_range =
                |e: &&LedgerEntry| super::version_in_range(torch, e.pytorch_min.as_deref(), e.pytorch_max.as_deref());
            for e in entries.iter().filter(|e| e.backend == device && e.hardware != "any").filter(in_range) {
                notes.push(format!(
                    "known_segfaults.json entry {} is for hardware {}: the hardware key of {device} is only known on the machine that runs it; its tests are not counted",
                    e.id, e.hardware
                ));
            }
        }
        let active = active_entries(entries, device, torch, hardware);
        let mut by_id: HashMap<String, Vec<&LedgerEntry>> = HashMap::new();
        for e in active {
            let unknown_key = e.constraints.iter().find(|c| !KNOWN_KEYS.contains(&c.key.as_str()));
            if e.match_mode != "nodeid" {
                notes.push(format!(
                    "known_segfaults.json entry {} matches by {}: which tests that is needs the live collection; its tests are not counted",
                    e.id, e.match_mode
                ));
                continue;
            }
            if let Some(c) = unknown_key {
                notes.push(format!(
                    "known_segfaults.json entry {} constrains {}: the live collection knows it; its tests are not counted",
                    e.id, c.key
                ));
                continue;
            }
            let canonical = canonicalize(e.nodeid.as_deref().unwrap_or_default());
            // The inventory's ids are package-relative; a run rooted above the package
            // sees them as `torchcts/<id>`.
            let relative =
                if layout.rooted_at_package { Some(canonical.as_str()) } else { canonical.strip_prefix("torchcts/") };
            if let Some(relative) = relative {
                by_id.entry(relative.to_string()).or_default().push(e);
            }
        }
        if by_id.is_empty() {
            return ProjectMatcher { crash_items: None, notes };
        }
        let mut crash_items = Bits::new(inv.items.len());
        let mut any = false;
        for (i, item) in inv.items.iter().enumerate() {
            let id = item.id_in(&inv.ids);
            let Some(candidates) = by_id.get(id) else { continue };
            let canonical = if layout.rooted_at_package { id.to_string() } else { format!("torchcts/{id}") };
            let file = canonical.split("::").next().unwrap_or_default();
            let level = level_of(i);
            let best = candidates
                .iter()
                .filter(|e| e.constraints.iter().all(|c| constraint_holds(c, &canonical, file, level)))
                .max_by(|a, b| specificity(a).cmp(&specificity(b)));
            if best.is_some_and(|e| e.execution_policy == "record_without_execution") {
                crash_items.set(i);
                any = true;
            }
        }
        ProjectMatcher { crash_items: any.then_some(crash_items), notes }
    }
}

fn constraint_holds(c: &Constraint, canonical: &str, file: &str, level: u8) -> bool {
    // The path as torchcts sees it (`item.fspath`, absolute): under the package folder.
    let path = format!("/{file}");
    match c.key.as_str() {
        "nodeid_glob" => c.values.iter().any(|p| fnmatch(canonical, p)),
        "semantic_level" => c.values.iter().any(|v| *v == level.to_string()),
        "suite" => c.values.iter().any(|v| v == suite_of(&path)),
        "test_kind" => {
            let kind = if path.contains("/opinfo/") { "opinfo" } else { "handwritten" };
            c.values.iter().any(|v| v == kind)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_fnmatch_does() {
        assert!(fnmatch("torchcts/generated/test_x.py::t[a]", "torchcts/generated/*"));
        assert!(fnmatch("abc", "a?c"));
        assert!(fnmatch("a[b", "a[b"));
        assert!(fnmatch("ab", "a[!c]"));
        assert!(!fnmatch("ac", "a[!c]"));
        assert!(fnmatch("a-", "a[a-c-]") || fnmatch("ab", "a[a-c]"));
        assert!(!fnmatch("abc", "ab"));
        assert!(fnmatch("", "*"));
    }

    #[test]
    fn node_ids_canonicalise_as_torchcts_does() {
        assert_eq!(
            canonicalize("./.venv/lib/site-packages/torchcts/ops/test_a.py::t[x/y]"),
            "torchcts/ops/test_a.py::t[x/y]"
        );
        assert_eq!(canonicalize("ops\\test_a.py::t"), "ops/test_a.py::t");
    }

    #[test]
    fn the_hardware_key_is_known_off_cuda_and_mps() {
        let host = HostFacts { node: Some("my host-1".into()), memory_gb: Some(23) };
        let facts = ManifestFacts::default();
        assert_eq!(hardware_key("cpu", &facts, &host).as_deref(), Some("cpu_my_host1_23gb"));
        assert_eq!(hardware_key("mps", &facts, &host), None);
        assert_eq!(hardware_key("cuda", &facts, &host), None);
        let facts =
            ManifestFacts { hardware: vec![("system_memory_gb".into(), PyValue::Int(16))], ..Default::default() };
        assert_eq!(hardware_key("my_backend", &facts, &host).as_deref(), Some("my_backend_my_host1_16gb"));
    }
}
