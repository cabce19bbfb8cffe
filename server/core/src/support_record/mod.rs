//! The support record of one manifest as plain data (`torchcts-lsp report`): what it
//! claims, what the accounting runs and filters (its own counts, equal to `skips --format
//! json`), and what the runs showed (the records of the result folders, joined test by test).
//! The renderers (the CLI's `report/html.rs`, `markdown.rs`, `json.rs`) read only this.
//!
//! [`build`] joins an accounting and the runs' records, which the IO layer read and gave as
//! data ([`RecordedRuns`]: paths already relative, error texts already cut). Everything is in
//! a fixed order (collection order, names sorted), so the same inputs give the same bytes.

mod build;

pub use build::{build, RecordedRuns, RecordedTest, Sources};

pub use crate::evidence::Tally;
use crate::evidence::TestStatus;
use crate::evidence::{EntryEvidence, EntryKind};

/// The column of tests that test no dtype, and the row of tests of no operator.
pub const NO_DTYPE: &str = "(no dtype)";
pub const NO_OPERATOR: &str = "(no operator)";

#[derive(Debug, Clone)]
pub struct SupportRecord {
    /// The manifest as given, relative (never an absolute path of this machine).
    pub manifest: String,
    pub device: String,
    pub device_assumed: bool,
    pub torch: String,
    pub torchcts: String,
    pub inventory_note: Option<String>,
    /// "requested <= 3".
    pub selection: String,
    pub collected: usize,
    pub deselected: usize,
    pub included: usize,
    pub executable: usize,
    /// Not-run records per reason, in show-skips order.
    pub reason_counts: Vec<(String, usize)>,
    pub levels: Vec<LevelRow>,
    pub dtypes: Vec<DtypeColumn>,
    pub operators: Vec<OperatorRow>,
    pub capabilities: Vec<EntryRow>,
    pub skip_ops: Vec<EntryRow>,
    pub tolerances: Vec<ToleranceRow>,
    pub evidence: EvidenceSummary,
    /// Per entry (dtypes, capabilities, skip_ops items, tolerance overrides, semantic_level):
    /// its manifest line and what the runs showed for the tests it decides (the core's
    /// attribution, `crate::evidence`).
    pub entries: Vec<(usize, crate::evidence::EntryEvidence)>,
    pub notes: Vec<String>,
    /// `--against REV`: the review diff.
    pub review: Option<ReviewPart>,
    /// `--timestamp`: when the record was made (else none: same input, same bytes).
    pub generated_at: Option<String>,
}

/// One semantic level of the chart: its tests that run, and those filtered per reason.
#[derive(Debug, Clone)]
pub struct LevelRow {
    pub level: u8,
    /// In the selection (its `run` tests execute).
    pub selected: bool,
    pub collected: usize,
    pub run: usize,
    pub filtered: usize,
    /// Filtered tests per reason (the level rule excluded), largest first.
    pub by_reason: Vec<(String, usize)>,
}

/// A column of the matrix: a dtype and what the manifest claims for it.
#[derive(Debug, Clone)]
pub struct DtypeColumn {
    pub name: String,
    /// "True", "False", "regex '^(add|mul)$'", "not listed", "" for [`NO_DTYPE`].
    pub claim: String,
    /// The 1-based line of its `supported_dtypes` entry.
    pub line: Option<usize>,
}

/// A row of the matrix: an operator and its cells, one per column (`None`: no test).
#[derive(Debug, Clone)]
pub struct OperatorRow {
    pub name: String,
    /// The 1-based line of its `skip_ops` entry when the manifest skips it.
    pub skip_line: Option<usize>,
    pub cells: Vec<Option<Cell>>,
}

#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// Its anchor in the test list (`c{id}`).
    pub id: usize,
    pub tally: Tally,
    pub tests: Vec<TestRow>,
}

/// The record counts tests with the evidence's one [`Tally`]: `tests` are those that run
/// (each with its newest record, or none), `filtered` and `by_reason` those that do not.
impl Tally {
    /// "409 passed · 3 failed · 12 no record" (zero counts left out; "no tests" for none).
    pub fn outcome_line(&self) -> String {
        self.counts("no record")
    }

    pub(crate) fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Filtered { reason, .. } => {
                self.filtered += 1;
                match self.by_reason.iter_mut().find(|(r, _)| r == reason) {
                    Some(slot) => slot.1 += 1,
                    None => self.by_reason.push((reason.clone(), 1)),
                }
            }
            Outcome::Runs(observed) => {
                self.tests += 1;
                match observed.as_ref().map(|o| o.status) {
                    None => self.no_record += 1,
                    Some(status) => self.count(status),
                }
            }
        }
    }
}

pub fn is_failure(status: TestStatus) -> bool {
    status.is_failure()
}

#[derive(Debug, Clone)]
pub struct TestRow {
    /// Package-relative node id (`opinfo/test_opinfo_forward.py::test_op_forward[...]`).
    pub node_id: String,
    pub level: u8,
    pub outcome: Outcome,
}

#[derive(Debug, Clone)]
pub enum Outcome {
    /// The test executes; what its newest record says, if it has one.
    Runs(Option<Observed>),
    /// Not run: the accounting's reason and the manifest entry (or rule) that decides it.
    Filtered { reason: String, cause: String },
}

#[derive(Debug, Clone)]
pub struct Observed {
    pub status: TestStatus,
    /// The first line of the error (failed, errored) or skip reason, cut, paths taken out.
    pub message: Option<String>,
    /// Index into [`EvidenceSummary::runs`].
    pub run: usize,
}

/// A `capabilities` or `skip_ops` entry: its value and what it does.
#[derive(Debug, Clone)]
pub struct EntryRow {
    pub name: String,
    /// The value as written (`True`, a regex's repr); `skip_ops` entries have none.
    pub value: String,
    pub line: Option<usize>,
    /// A capability: the tests the accounting filters with it as the cause (missing or
    /// false). A `skip_ops` item: the tests it removes at the record's levels, the same answer
    /// as its entry's (those that run without the item and not with it; see
    /// [`SupportRecord::attach_entries`]).
    pub removes: usize,
    /// Of the tests it removes, those with a record on the device (an older run or a scratch
    /// run without the entry): passed and failed-or-errored.
    pub removed_passed: usize,
    pub removed_failed: usize,
}

/// A `tolerance_overrides` entry against torchcts' default for its category and dtype.
#[derive(Debug, Clone)]
pub struct ToleranceRow {
    pub key: String,
    pub value: String,
    pub line: Option<usize>,
    /// (rtol, atol) the override sets, when it is a literal torchcts reads so.
    pub override_tol: Option<(f64, f64)>,
    /// torchcts' golden (rtol, atol) for the category and dtype.
    pub default_golden: Option<(f64, f64)>,
    /// "rtol 1e-3 -> 1e-2 (10x looser)"; "no default: ..." when unknown.
    pub effect: String,
    /// Tests of that dtype that run (the ones whose comparisons may read it).
    pub dtype_tests_run: usize,
}

/// The runs the evidence comes from and the totals over the tests that run.
#[derive(Debug, Clone, Default)]
pub struct EvidenceSummary {
    /// The folders read, relative.
    pub folders: Vec<String>,
    pub runs: Vec<RunRow>,
    pub tally: Tally,
    /// Any run that gave a record did not complete.
    pub partial: bool,
    /// Records of tests the manifest does not run now (filtered, or not in the inventory).
    pub records_not_run_now: usize,
    /// Files that could not be used: (relative path, message).
    pub problems: Vec<(String, String)>,
    /// History files left out by the bound.
    pub omitted: usize,
}

#[derive(Debug, Clone)]
pub struct RunRow {
    /// The artifact, relative to its results folder's parent (`results/cpu_history/x.json`).
    pub artifact: String,
    pub timestamp: Option<String>,
    pub torch: Option<String>,
    pub hardware: Option<String>,
    pub partial: bool,
    pub level: Option<String>,
    /// Records the run holds, and of them the newest for their test on the device (used here).
    pub tests: usize,
    pub newest_records: usize,
}

/// `--against REV`: the review diff, rendered by the core.
#[derive(Debug, Clone)]
pub struct ReviewPart {
    pub against: String,
    pub summary: String,
    pub markdown: String,
    pub json: serde_json::Value,
    /// (label, started, stopped) per cause, largest first.
    pub changes: Vec<(String, usize, usize)>,
}

impl SupportRecord {
    /// Sets the per-entry tallies (line, evidence) and takes the `skip_ops` table's counts from
    /// them: "tests a skip_ops item removes" has one answer, the entry's (what `diff` without
    /// the item and the editor's lens say too). The accounting names no record's cause as the
    /// item: a skipped operator's tests are not collected, so counting causes gave 0.
    pub fn attach_entries(&mut self, entries: Vec<(usize, EntryEvidence)>) {
        for row in &mut self.skip_ops {
            let of_row = |(_, e): &&(usize, EntryEvidence)| {
                e.entry.kind == EntryKind::SkipOp && e.entry.key_path.last() == Some(&row.name)
            };
            if let Some((_, e)) = entries.iter().find(of_row) {
                row.removes = e.tally.tests;
                row.removed_passed = e.tally.passed;
                row.removed_failed = e.tally.failed + e.tally.errored;
            }
        }
        self.entries = entries;
    }
}
