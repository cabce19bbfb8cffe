//! What the runs showed, per manifest entry (issue 26, items 2 and 3), as pure functions.
//!
//! Evidence arrives as data: an [`EvidenceLookup`] answers, per node id, the newest record
//! of that test on the device (status, first error line, when, and the run it came from);
//! the IO layer builds it from result folders (`runner::evidence`). The current time is a
//! parameter too. From these, through the accounting's own attribution of tests to entries
//! ([`crate::accounting_view::run_target`]: the tests that run with the entry and not without
//! it), [`entry_tallies`] counts for every entry what its tests did:
//!
//! | entry | its tests |
//! |---|---|
//! | a `supported_dtypes` entry | the tests it lets in (they run with it, not without it) |
//! | a capability | the tests it gates (they run when it is `True`, not when `False`) |
//! | a `skip_ops` item | the tests it removes (they run once the item is gone) |
//! | a `tolerance_overrides` entry | the tests it loosens ([`tolerance`]: OpInfo tests of its dtype comparing under its category) |
//! | `semantic_level` | the tests the level lets in (every test the manifest runs) |
//!
//! [`notes`] turns the tallies into findings (our codes, category [`crate::codes::Category::Evidence`]), anchored by key path so
//! an analysis of a later text places them again ([`crate::AnalysisInput::evidence`]), where
//! suppression comments apply to them like to any of ours.

mod notes;
pub mod time;
pub mod tolerance;

pub use crate::entry_notes::{anchor_span, EvidenceNote};
pub use notes::{notes, NoteContext, CLAIMED_FAILING, OTHER_TORCH, SKIP_OP_PASSES, STALE};

use crate::accounting_view::{self as av, Inventory};
use crate::analysis::Analysis;
use crate::value::{Dict, Span, ValueKind};
use serde::Serialize;

/// A run's status for one test, as torchcts records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TestStatus {
    Passed,
    Failed,
    /// `ERROR`, and any status that is none of the others.
    Errored,
    /// Skipped at run time (the test ran and called `pytest.skip`).
    Skipped,
    /// The process running the test died (`ERROR` with `error_type` `ProcessCrash`: an
    /// isolated child killed by a signal, or a run that died during this test).
    Crashed,
    /// Recorded without running by a known-segfault ledger entry (`ERROR` with
    /// `failure_stage` `known_backend_crash`).
    #[serde(rename = "known_backend_crash")]
    KnownCrash,
}

impl TestStatus {
    /// A failed, errored or crashed test: what a team has to look at (a known crash is
    /// known already).
    pub fn is_failure(self) -> bool {
        matches!(self, TestStatus::Failed | TestStatus::Errored | TestStatus::Crashed)
    }

    /// The word torchcts's records and our run outcome lists use: `FAIL`, `ERROR`, `CRASH`,
    /// `KNOWN CRASH`, `PASS`, `SKIP`.
    pub fn record_word(self) -> &'static str {
        match self {
            TestStatus::Passed => "PASS",
            TestStatus::Failed => "FAIL",
            TestStatus::Errored => "ERROR",
            TestStatus::Skipped => "SKIP",
            TestStatus::Crashed => "CRASH",
            TestStatus::KnownCrash => "KNOWN CRASH",
        }
    }
}

/// One run artifact, as the IO layer found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceRun {
    /// The file holding the records.
    pub artifact: String,
    /// The run's `<hardware>_report.md` beside it, when that file exists.
    pub report: Option<String>,
    /// Metadata `timestamp` (UTC ISO-8601).
    pub timestamp: Option<String>,
    /// Metadata `pytorch_version` (`2.12.1+cu130`).
    pub torch_version: Option<String>,
    /// Metadata `hardware_key`.
    pub hardware: Option<String>,
    /// The session did not complete: the run counts only for the tests it reached.
    pub partial: bool,
}

/// The newest record of one test on the device.
#[derive(Debug, Clone, Copy)]
pub struct TestRecord<'a> {
    /// The node id as the artifact wrote it.
    pub node_id: &'a str,
    pub status: TestStatus,
    /// The first line of the error (failed, errored or skipped tests).
    pub error: Option<&'a str>,
    /// The record's time (`last_tested`, else its run's `timestamp`).
    pub tested_at: Option<&'a str>,
    pub run: &'a EvidenceRun,
}

/// Evidence per test: the newest record of a test on the device, asked with the node id as
/// the accounting writes it (relative to the torchcts package); an implementation matches
/// ids of any pytest rootdir.
pub trait EvidenceLookup {
    fn record(&self, node_id: &str) -> Option<TestRecord<'_>>;
}

/// What kind of manifest entry an [`EntryEvidence`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    Dtype,
    Capability,
    SkipOp,
    ToleranceOverride,
    SemanticLevel,
}

/// A test whose newest record failed, errored or crashed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedTest {
    pub node_id: String,
    pub status: TestStatus,
    /// The first line of its error message.
    pub error: Option<String>,
    pub tested_at: Option<String>,
    pub run: EvidenceRun,
}

/// What the newest records of an entry's tests say.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tally {
    /// The tests the entry decides (see the module's table).
    pub tests: usize,
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    /// The process died during the test ([`TestStatus::Crashed`]).
    pub crashed: usize,
    /// Recorded without running by a known-segfault ledger entry ([`TestStatus::KnownCrash`]).
    pub known_crash: usize,
    /// Skipped at run time.
    pub skipped: usize,
    /// No record on the device.
    pub no_record: usize,
    /// Failed, errored and crashed tests, in the accounting's order.
    pub failures: Vec<FailedTest>,
    /// The run of the newest record.
    pub newest: Option<EvidenceRun>,
    /// The newest and oldest record times.
    pub newest_tested_at: Option<String>,
    pub oldest_tested_at: Option<String>,
    /// Seconds from the newest record to the caller's "now", when both are known.
    pub newest_age_seconds: Option<i64>,
    /// Some record comes from a run that did not complete.
    pub partial: bool,
    /// The torch versions of the records' runs, sorted, each once.
    pub torch_versions: Vec<String>,
    /// Tests the accounting filters, and how many per reason in first-seen order (the
    /// support record's cells and totals; none for an entry's tests).
    #[serde(skip_serializing_if = "is_zero")]
    pub filtered: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_reason: Vec<(String, usize)>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Tally {
    /// Counts the records of `node_ids`; `now` in Unix seconds, for the age.
    pub fn of(node_ids: &[String], lookup: &dyn EvidenceLookup, now: Option<i64>) -> Tally {
        let mut t = Tally { tests: node_ids.len(), ..Tally::default() };
        for id in node_ids {
            let Some(record) = lookup.record(id) else {
                t.no_record += 1;
                continue;
            };
            t.count(record.status);
            if record.status.is_failure() {
                t.failures.push(FailedTest {
                    node_id: record.node_id.to_string(),
                    status: record.status,
                    error: record.error.map(str::to_string),
                    tested_at: record.tested_at.map(str::to_string),
                    run: record.run.clone(),
                });
            }
            t.partial |= record.run.partial;
            if let Some(v) = &record.run.torch_version {
                if let Err(i) = t.torch_versions.binary_search(v) {
                    t.torch_versions.insert(i, v.clone());
                }
            }
            let at = record.tested_at.or(record.run.timestamp.as_deref());
            if let Some(at) = at {
                if t.newest_tested_at.as_deref().is_none_or(|n| at > n) {
                    t.newest_tested_at = Some(at.to_string());
                    t.newest = Some(record.run.clone());
                }
                if t.oldest_tested_at.as_deref().is_none_or(|o| at < o) {
                    t.oldest_tested_at = Some(at.to_string());
                }
            } else if t.newest.is_none() {
                t.newest = Some(record.run.clone());
            }
        }
        t.set_age(now);
        t
    }

    /// One more test whose newest record has `status`.
    pub fn count(&mut self, status: TestStatus) {
        let slot = match status {
            TestStatus::Passed => &mut self.passed,
            TestStatus::Failed => &mut self.failed,
            TestStatus::Errored => &mut self.errored,
            TestStatus::Skipped => &mut self.skipped,
            TestStatus::Crashed => &mut self.crashed,
            TestStatus::KnownCrash => &mut self.known_crash,
        };
        *slot += 1;
    }

    /// Adds the counts of `other` (a column's or a table's total of cells).
    pub fn add_counts(&mut self, other: &Tally) {
        self.tests += other.tests;
        self.filtered += other.filtered;
        self.passed += other.passed;
        self.failed += other.failed;
        self.errored += other.errored;
        self.crashed += other.crashed;
        self.known_crash += other.known_crash;
        self.skipped += other.skipped;
        self.no_record += other.no_record;
    }

    /// Failed, errored and crashed tests (a known crash is known already).
    pub fn failing(&self) -> usize {
        self.failed + self.errored + self.crashed
    }

    /// Sets the age of the newest record for the clock `now` (Unix seconds; `None`: no age):
    /// counts kept from an earlier call of [`Tally::of`] say their age at a later time.
    pub fn set_age(&mut self, now: Option<i64>) {
        self.newest_age_seconds =
            now.zip(self.newest_tested_at.as_deref().and_then(time::unix_seconds)).map(|(now, at)| now - at);
    }

    /// "409 passed · 3 failed · 12 `no_record`" (zero counts left out; "no tests" for none).
    pub fn counts(&self, no_record: &str) -> String {
        let parts: Vec<String> = [
            (self.passed, "passed"),
            (self.failed, "failed"),
            (self.errored, "errored"),
            (self.crashed, "crashed"),
            (self.known_crash, "known crash (not run)"),
            (self.skipped, "skipped at run time"),
            (self.no_record, no_record),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if parts.is_empty() {
            "no tests".to_string()
        } else {
            parts.join(" · ")
        }
    }

    /// Whether any of the entry's tests has a record.
    pub fn any(&self) -> bool {
        self.passed + self.failed + self.errored + self.crashed + self.known_crash + self.skipped > 0
    }

    /// "cuda: 409 passed · 3 failed · 12 not run yet, newest 2 d ago" (zero counts left out).
    pub fn line(&self, device: &str) -> String {
        let counts = self.counts("not run yet");
        let age = self.newest_age_seconds.map(|s| format!(", newest {}", time::age(s))).unwrap_or_default();
        let partial = if self.partial { " (partial run)" } else { "" };
        format!("{device}: {counts}{age}{partial}")
    }
}

/// One manifest entry that decides tests, without its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryRef {
    pub kind: EntryKind,
    /// Keys from the manifest down to the entry; a `skip_ops` item ends with its name
    /// (`["skip_ops", "add"]`).
    pub key_path: Vec<String>,
    /// The entry's key (a `skip_ops` item: the item), in bytes of the analysed text.
    #[serde(skip)]
    pub span: Span,
    /// `True` or a regex for a dtype or capability: the manifest claims support.
    pub claimed: bool,
}

/// One entry with what the runs showed for its tests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryEvidence {
    #[serde(flatten)]
    pub entry: EntryRef,
    /// "the torch.float16 entry", "capability training", "skipped operator add", ...
    pub label: String,
    pub device: String,
    pub tally: Tally,
}

impl EntryEvidence {
    /// The code lens line: "cuda: 409 passed · 3 failed · 12 not run yet, newest 2 d ago".
    pub fn line(&self) -> String {
        self.tally.line(&self.device)
    }
}

/// Every entry that decides tests, in manifest order by section: dtypes, capabilities,
/// `skip_ops` items, tolerance overrides, `semantic_level`.
pub fn entries(analysis: &Analysis) -> Vec<EntryRef> {
    let mut out = Vec::new();
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else { return out };
    let key = |e: &crate::value::Entry| crate::entry_notes::key_name(e, &analysis.text);
    let claims = |kind: &ValueKind| matches!(kind, ValueKind::Bool(true) | ValueKind::Str(_));
    for (section, kind) in [("supported_dtypes", EntryKind::Dtype), ("capabilities", EntryKind::Capability)] {
        for e in section_entries(manifest, section) {
            out.push(EntryRef {
                kind,
                key_path: vec![section.into(), key(e)],
                span: e.key.span.clone(),
                claimed: claims(&e.value.kind),
            });
        }
    }
    if let Some(ValueKind::List(items) | ValueKind::Tuple(items)) = manifest.get("skip_ops").map(|e| &e.value.kind) {
        for item in items {
            if let Some(name) = item.as_str() {
                out.push(EntryRef {
                    kind: EntryKind::SkipOp,
                    key_path: vec!["skip_ops".into(), name.to_string()],
                    span: item.span.clone(),
                    claimed: false,
                });
            }
        }
    }
    for e in section_entries(manifest, "tolerance_overrides") {
        if e.key.as_str().and_then(tolerance::override_key).is_some() {
            out.push(EntryRef {
                kind: EntryKind::ToleranceOverride,
                key_path: vec!["tolerance_overrides".into(), key(e)],
                span: e.key.span.clone(),
                claimed: false,
            });
        }
    }
    if let Some(e) = manifest.get("semantic_level") {
        out.push(EntryRef {
            kind: EntryKind::SemanticLevel,
            key_path: vec!["semantic_level".into()],
            span: e.key.span.clone(),
            claimed: false,
        });
    }
    out
}

/// Each entry of [`entries`] with the tally of its tests on the device (`device_override`,
/// else the manifest's `device_name`). `now`: the caller's clock in Unix seconds (`None`:
/// no ages). Empty when the manifest is no dict.
pub fn entry_tallies(
    inventory: &Inventory,
    analysis: &Analysis,
    device_override: Option<&str>,
    lookup: &dyn EvidenceLookup,
    now: Option<i64>,
) -> Vec<EntryEvidence> {
    entry_tallies_as(inventory, analysis, &av::CountedAs { device: device_override, ..Default::default() }, lookup, now)
}

/// [`entry_tallies`] counted as a view counts (its levels, device and run layout), so that
/// each entry's number answers at the view's levels (the report's `--level`).
pub fn entry_tallies_as(
    inventory: &Inventory,
    analysis: &Analysis,
    counted_as: &av::CountedAs,
    lookup: &dyn EvidenceLookup,
    now: Option<i64>,
) -> Vec<EntryEvidence> {
    let mut attribution = Attribution::new(inventory, analysis, *counted_as);
    entries(analysis).into_iter().filter_map(|entry| attribution.evidence(entry, lookup, now)).collect()
}

/// The evidence of the entry whose span holds `offset` (the hover's question), computing
/// only that entry's tests.
pub fn entry_tally_at(
    inventory: &Inventory,
    analysis: &Analysis,
    device_override: Option<&str>,
    lookup: &dyn EvidenceLookup,
    now: Option<i64>,
    offset: usize,
) -> Option<EntryEvidence> {
    let entry = entries(analysis).into_iter().find(|e| e.span.start <= offset && offset <= e.span.end)?;
    let counted_as = av::CountedAs { device: device_override, ..Default::default() };
    Attribution::new(inventory, analysis, counted_as).evidence(entry, lookup, now)
}

/// The node ids each entry decides, sharing the accounting of the manifest as it is.
struct Attribution<'a> {
    inventory: &'a Inventory,
    analysis: &'a Analysis,
    counted_as: av::CountedAs<'a>,
    /// Every test the manifest runs (computed once, when first needed).
    all: Option<Vec<String>>,
}

impl<'a> Attribution<'a> {
    fn new(inventory: &'a Inventory, analysis: &'a Analysis, counted_as: av::CountedAs<'a>) -> Self {
        Attribution { inventory, analysis, counted_as, all: None }
    }

    fn manifest(&self) -> Option<&'a Dict> {
        self.analysis.model.manifest.as_ref()?.as_dict()
    }

    fn evidence(&mut self, entry: EntryRef, lookup: &dyn EvidenceLookup, now: Option<i64>) -> Option<EntryEvidence> {
        let (label, device, node_ids) = self.tests_of(&entry)?;
        let tally = Tally::of(&node_ids, lookup, now);
        Some(EntryEvidence { entry, label, device, tally })
    }

    /// (label, device, node ids) of the entry's tests.
    fn tests_of(&mut self, entry: &EntryRef) -> Option<(String, String, Vec<String>)> {
        let manifest = self.manifest()?;
        match entry.kind {
            EntryKind::Dtype | EntryKind::Capability | EntryKind::SkipOp => {
                // Inside a skip_ops item's string, so `locate` finds the item, not the list.
                let at = if entry.kind == EntryKind::SkipOp { entry.span.start + 1 } else { entry.span.start };
                let located = crate::locate::locate(&self.analysis.tree, &self.analysis.text, at)?;
                let target = av::run_target_as(self.inventory, manifest, Some(&located), &self.counted_as);
                Some((target.label, target.device, target.node_ids?))
            }
            EntryKind::ToleranceOverride => {
                let (category, dtype) = tolerance::override_key(entry.key_path.last()?)?;
                let (device, all) = self.all_tests()?;
                let ids = all
                    .iter()
                    .filter(|id| tolerance::compare_key(id).is_some_and(|(c, d)| c == category && d == dtype))
                    .cloned()
                    .collect();
                Some((format!("the tolerance override {category}:{dtype}"), device, ids))
            }
            EntryKind::SemanticLevel => {
                let level = self.counted_as.facts_and_selection(manifest).1.max_level();
                let (device, all) = self.all_tests()?;
                Some((format!("level {level}"), device, all.clone()))
            }
        }
    }

    /// The device and every test the manifest runs on it.
    fn all_tests(&mut self) -> Option<(String, &Vec<String>)> {
        let manifest = self.manifest()?;
        let (facts, selection) = self.counted_as.facts_and_selection(manifest);
        let device = facts.resolve_device(self.counted_as.device);
        if self.all.is_none() {
            self.all = Some(av::executable_ids(self.inventory, &facts, &device, selection));
        }
        Some((device, self.all.as_ref()?))
    }
}

fn section_entries<'d>(manifest: &'d Dict, section: &str) -> impl Iterator<Item = &'d crate::value::Entry> {
    manifest.get(section).and_then(|e| e.value.as_dict()).into_iter().flat_map(|d| d.entries.iter())
}
