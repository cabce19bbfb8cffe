//! Which inventory tests a project ledger records as `known_backend_crash`
//! (`best_known_segfault_match` with `_known_segfault_record_without_execution`), with the
//! real matchers' semantics (`torchcts/core/known_segfaults.py`): by node id, dispatcher or
//! coverage id, with `constraints` (exact, glob, semantic level), the best match by
//! `match_specificity` among the packaged and the project's active entries together (so a
//! more specific project `subprocess` entry overrides a packaged crash record). What the
//! matchers read of a test comes from the inventory's match metadata
//! (`Tables::metadata`); a release without any falls back to what the inventory knows
//! (node id, level, suite and kind from the path) and names the rest in a note.

use super::{active_entries, LedgerEntry};
use crate::bits::Bits;
use crate::facts::{ManifestFacts, PyValue};
use crate::inventory::StrId;
use crate::Inventory;

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
    /// Items whose best match records them without execution.
    pub(crate) crash_items: Option<Bits>,
    /// Items some project entry matches: their verdict is `crash_items`', whatever the
    /// inventory's packaged crash fact says (None: only `crash_items` adds records).
    pub(crate) decided: Option<Bits>,
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

/// The constraint keys a release without match metadata still knows for a test.
const KNOWN_KEYS: &[&str] = &["nodeid_glob", "semantic_level", "suite", "test_kind"];

/// `_canonical_dispatcher_name`.
fn canonical_dispatcher(name: &str) -> &str {
    let text = name.trim();
    text.strip_suffix(".default").unwrap_or(text)
}

/// `_match_sort_key`: `match_specificity` then the id; the highest is the best match.
fn specificity(e: &LedgerEntry) -> (u32, usize, usize, usize, i64, &str) {
    let base = match e.match_mode.as_str() {
        "nodeid" => 300,
        "dispatcher" => 200,
        "coverage_id" => 100,
        _ => 0,
    };
    let globs = e.constraints.iter().filter(|c| c.glob);
    let score =
        globs.clone().flat_map(|c| &c.values).map(|v| v.chars().filter(|&c| c != '*' && c != '?').count()).sum();
    let glob_count = globs.count();
    (base, e.constraints.len(), e.constraints.len() - glob_count, score, -(glob_count as i64), &e.id)
}

/// `_known_segfault_record_without_execution`.
fn records_without_execution(e: &LedgerEntry) -> bool {
    e.classification == "confirmed_backend_crash" && e.execution_policy == "record_without_execution"
}

/// The metadata keys of [`Subject::metadata`], in order: `coverage_kind`, then the
/// optional strings of `MatchMetadata` in theirs.
const METADATA_KEYS: [&str; 9] = [
    "coverage_kind",
    "dispatcher_name",
    "coverage_id",
    "surface_kind",
    "variant_kind",
    "coverage_status",
    "strategy",
    "strategy_family",
    "dtype",
];

/// What the matchers read of one test (`canonical_nodeid` and `_extract_result_metadata`).
struct Subject<'a> {
    canonical: String,
    level: u8,
    suite: &'a str,
    test_kind: &'a str,
    /// [`METADATA_KEYS`]' values; None where the inventory has no metadata for the test.
    metadata: Option<[Option<&'a str>; 9]>,
}

impl Subject<'_> {
    fn value(&self, key: &str) -> Option<&str> {
        let at = METADATA_KEYS.iter().position(|k| *k == key)?;
        self.metadata.as_ref()?[at]
    }

    /// `_constraint_value` as text (`semantic_level` is compared as a number, by the caller).
    fn constraint_value(&self, key: &str) -> Option<&str> {
        match key {
            "nodeid_glob" => Some(&self.canonical),
            "coverage_id_glob" => self.value("coverage_id"),
            "suite" => Some(self.suite),
            "test_kind" => Some(self.test_kind),
            _ => self.value(key),
        }
    }

    /// `constraints_match`.
    fn constraints_hold(&self, e: &LedgerEntry) -> bool {
        e.constraints.iter().all(|c| {
            if c.key == "semantic_level" {
                return c.values.iter().any(|v| *v == self.level.to_string());
            }
            let Some(actual) = self.constraint_value(&c.key) else { return false };
            if c.glob {
                c.values.iter().any(|p| fnmatch(actual, p))
            } else {
                c.values.iter().any(|v| v == actual)
            }
        })
    }

    /// `entry_matches`; `nodeid` is the entry's node id canonicalised.
    fn matches(&self, e: &LedgerEntry, nodeid: Option<&str>) -> bool {
        let primary = match e.match_mode.as_str() {
            "nodeid" => nodeid == Some(self.canonical.as_str()),
            "dispatcher" => self.value("dispatcher_name").is_some_and(|actual| {
                canonical_dispatcher(actual) == canonical_dispatcher(e.dispatcher.as_deref().unwrap_or_default())
            }),
            "coverage_id" => {
                let actual = self.value("coverage_id");
                let exact = e.coverage_id.as_deref().is_some_and(|c| !c.is_empty() && actual == Some(c));
                exact
                    || e.constraints
                        .iter()
                        .filter(|c| c.key == "coverage_id_glob")
                        .flat_map(|c| &c.values)
                        .any(|p| fnmatch(actual.unwrap_or_default(), p))
            }
            _ => false,
        };
        primary && self.constraints_hold(e)
    }

    /// The entries of `list` that match.
    fn hits<'l>(&self, list: &[Candidate<'l>]) -> Vec<&'l LedgerEntry> {
        list.iter().filter(|(e, nodeid)| self.matches(e, nodeid.as_deref())).map(|(e, _)| *e).collect()
    }
}

/// Whether an entry needs more of a test than a release without match metadata knows.
fn needs_metadata(e: &LedgerEntry) -> Option<String> {
    if e.match_mode != "nodeid" {
        return Some(format!("matches by {}", e.match_mode));
    }
    e.constraints.iter().find(|c| !KNOWN_KEYS.contains(&c.key.as_str())).map(|c| format!("constrains {}", c.key))
}

/// An active entry with its node id canonicalised (for `match: nodeid`).
type Candidate<'l> = (&'l LedgerEntry, Option<String>);

fn candidates<'l>(entries: &[&'l LedgerEntry]) -> Vec<Candidate<'l>> {
    entries
        .iter()
        .map(|e| (*e, (e.match_mode == "nodeid").then(|| canonicalize(e.nodeid.as_deref().unwrap_or_default()))))
        .collect()
}

impl ProjectMatcher {
    /// The project entries active on `device` with `torch` (hardware `any`, or the
    /// device's key where it is known) matched against the inventory's tests, each test's
    /// best match taken among them and the packaged ledger's active entries.
    pub(crate) fn new(
        inv: &Inventory,
        entries: &[LedgerEntry],
        run: (&str, &str, Option<&str>),
        facts: &ManifestFacts,
        level_of: impl Fn(usize) -> u8,
    ) -> ProjectMatcher {
        let (device, torch, hardware) = run;
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
        let mut active = active_entries(entries, device, torch, hardware);
        let with_metadata = !inv.metadata.is_empty();
        if !with_metadata {
            active.retain(|e| match needs_metadata(e) {
                None => true,
                Some(what) => {
                    notes.push(format!(
                        "known_segfaults.json entry {} {what}: this inventory has no match metadata (extracted before it was recorded); its tests are not counted",
                        e.id
                    ));
                    false
                }
            });
        } else if !inv.metadata.from.is_empty() {
            for e in active.iter().filter(|e| needs_metadata(e).is_some()) {
                notes.push(format!(
                    "known_segfaults.json entry {}: the tests' match metadata is torchcts/torch {}'s (not extracted for this release); tests it lacks are not matched by their metadata",
                    e.id, inv.metadata.from
                ));
            }
        }
        if active.is_empty() {
            return ProjectMatcher { notes, ..ProjectMatcher::default() };
        }
        // The packaged entries compete for the best match where the metadata lets them be
        // matched as torchcts does; elsewhere the inventory's own crash facts answer.
        let packaged = if with_metadata { super::packaged_ledger(&inv.meta.torchcts_version) } else { Vec::new() };
        let project = candidates(&active);
        let packaged = candidates(&active_entries(&packaged, device, torch, hardware));

        let mut crash_items = Bits::new(inv.items.len());
        let mut decided = Bits::new(inv.items.len());
        let (mut any_crash, mut any_decided) = (false, false);
        for (i, item) in inv.items.iter().enumerate() {
            let id = item.id_in(&inv.ids);
            let canonical = if facts.layout.rooted_at_package { canonicalize(id) } else { format!("torchcts/{id}") };
            let subject = subject(inv, i, canonical, level_of(i), facts);
            let mut matched = subject.hits(&project);
            if matched.is_empty() {
                continue;
            }
            matched.extend(subject.hits(&packaged));
            if with_metadata {
                decided.set(i);
                any_decided = true;
            }
            let best = matched.into_iter().max_by(|a, b| specificity(a).cmp(&specificity(b)));
            if best.is_some_and(records_without_execution) {
                crash_items.set(i);
                any_crash = true;
            }
        }
        ProjectMatcher { crash_items: any_crash.then_some(crash_items), decided: any_decided.then_some(decided), notes }
    }
}

/// What the matchers read of item `i`: its match metadata where the inventory has it, else
/// its suite and kind from its path.
fn subject<'a>(inv: &'a Inventory, i: usize, canonical: String, level: u8, facts: &'a ManifestFacts) -> Subject<'a> {
    let Some(md) = inv.metadata.get(i) else {
        // The path as torchcts sees it (`item.fspath`, absolute): under the package folder.
        let path = format!("/{}", canonical.split("::").next().unwrap_or_default());
        let test_kind = if path.contains("/opinfo/") { "opinfo" } else { "handwritten" };
        return Subject { suite: suite_of(&path), test_kind, canonical, level, metadata: None };
    };
    let text = |id: StrId| inv.string(id);
    let mut metadata = [None; 9];
    metadata[0] = Some(text(md.coverage_kind));
    for (slot, value) in metadata[1..].iter_mut().zip(md.optional) {
        *slot = value.map(text);
    }
    if md.manifest_dtype {
        metadata[8] = manifest_dtype(facts);
    }
    Subject {
        suite: text(md.suite),
        test_kind: if md.opinfo_kind { "opinfo" } else { "handwritten" },
        canonical,
        level,
        metadata: Some(metadata),
    }
}

/// `_MANIFEST["dtype_filter"][0]` when the filter has one entry, as `str()` prints it.
fn manifest_dtype(facts: &ManifestFacts) -> Option<&str> {
    match facts.dtype_filter.as_ref()? {
        PyValue::List(xs) | PyValue::Tuple(xs) if xs.len() == 1 => match &xs[0] {
            PyValue::Str(s) | PyValue::Dtype(s) => Some(s.as_str()),
            _ => None,
        },
        PyValue::Str(s) if s.chars().count() == 1 => Some(s.as_str()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Constraint;

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

    fn entry(id: &str, mode: &str, constraints: &[(&str, &[&str])]) -> LedgerEntry {
        LedgerEntry {
            id: id.into(),
            backend: "cpu".into(),
            hardware: "any".into(),
            pytorch_min: None,
            pytorch_max: None,
            review_after: "2030-01-01".into(),
            match_mode: mode.into(),
            nodeid: None,
            dispatcher: Some("aten::x".into()),
            coverage_id: None,
            classification: "confirmed_backend_crash".into(),
            execution_policy: "record_without_execution".into(),
            constraints: constraints
                .iter()
                .map(|(key, values)| Constraint {
                    key: key.to_string(),
                    values: values.iter().map(|v| v.to_string()).collect(),
                    glob: key.ends_with("_glob"),
                })
                .collect(),
        }
    }

    #[test]
    fn the_best_match_is_the_most_specific_as_match_specificity_orders_it() {
        // (base by match mode, constraint count, exact count, glob text length, -glob count, id)
        let nodeid = entry("a", "nodeid", &[]);
        let dispatcher = entry("b", "dispatcher", &[("suite", &["generated"]), ("dtype", &["torch.float64"])]);
        assert!(specificity(&nodeid) > specificity(&dispatcher));
        let exact = entry("c", "coverage_id", &[("suite", &["x"]), ("strategy", &["y"])]);
        let glob = entry("d", "coverage_id", &[("suite", &["x"]), ("coverage_id_glob", &["aten::*backward*"])]);
        assert!(specificity(&exact) > specificity(&glob), "more exact keys first");
        // Then the glob text without `*`/`?`: 18 characters against 14.
        let longer = entry("e", "coverage_id", &[("suite", &["x"]), ("coverage_id_glob", &["aten::native_batch*"])]);
        assert!(specificity(&longer) > specificity(&glob));
        // Equal keys: the higher id (sorted in reverse) wins.
        assert!(specificity(&entry("z", "nodeid", &[])) > specificity(&entry("y", "nodeid", &[])));
    }

    #[test]
    fn releases_carry_their_own_match_metadata_or_the_nearest_ones() {
        let own = Inventory::for_release("0.4.1", "2.12.1").unwrap();
        assert_eq!(own.metadata.from, "");
        assert_eq!(own.metadata.ends.len(), own.items.len());
        let at = |inv: &Inventory, id: &str| inv.items.iter().position(|it| it.id_in(&inv.ids) == id).unwrap();
        let md = own.metadata.get(at(own, "operators/test_matmul.py::test_addmm[dtype0]")).unwrap();
        let text = |s: Option<StrId>| s.map(|s| own.string(s));
        // `_extract_result_metadata` of that test, as the extraction recorded it.
        assert_eq!(own.string(md.suite), "operators");
        assert_eq!(own.string(md.coverage_kind), "handwritten");
        assert_eq!(text(md.optional[0]), Some("aten::addmm"));
        assert_eq!(text(md.optional[1]), Some("aten::addmm"));
        assert_eq!(text(md.optional[7]), Some("torch.float32"));
        assert!(!md.opinfo_kind && !md.manifest_dtype);
        // Torch 2.7.0's own: its suite has tests 2.12.1's lacks (chalf's has_nan/has_inf
        // forward tests), which no lending by node id could give metadata.
        let old_torch = Inventory::for_release("0.4.1", "2.7.0").unwrap();
        assert_eq!(old_torch.metadata.from, "");
        let md = old_torch
            .metadata
            .get(at(old_torch, "opinfo/test_opinfo_forward.py::test_op_forward[has_nan-chalf-torch.float32]"))
            .unwrap();
        assert_eq!(old_torch.string(md.optional[0].unwrap()), "aten::chalf");
        assert!(md.opinfo_kind);
        // Every embedded release has rows for its items: its own, or a release's with its own
        // that the build named (lent by node id).
        for torchcts in crate::inventory::catalogue::embedded_torchcts_releases() {
            for torch in crate::inventory::catalogue::embedded_torch_releases_of(torchcts) {
                let inv = Inventory::for_release(torchcts, torch).unwrap();
                assert_eq!(inv.metadata.ends.len(), inv.items.len(), "{torchcts}/{torch}");
                if let Some((cts, t)) = inv.metadata.from.split_once('/') {
                    assert_eq!(Inventory::for_release(cts, t).unwrap().metadata.from, "", "{torchcts}/{torch} lends");
                }
                let md = inv.metadata.get(at(inv, "operators/test_matmul.py::test_addmm[dtype0]")).unwrap();
                assert_eq!(inv.string(md.optional[0].unwrap()), "aten::addmm", "{torchcts}/{torch}");
            }
        }
    }

    #[test]
    fn dispatcher_names_compare_without_default_and_blanks() {
        assert_eq!(canonical_dispatcher(" aten::addmm.default "), "aten::addmm");
        assert_eq!(canonical_dispatcher("aten::addmm.out"), "aten::addmm.out");
        assert_eq!(canonical_dispatcher("aten::addmm"), canonical_dispatcher("aten::addmm.default"));
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
