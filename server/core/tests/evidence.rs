//! Per-entry evidence (`torchcts_core::evidence`) on the embedded inventory (torchcts 0.4.1 +
//! torch 2.12.1): which tests each entry decides, their tallies from records given as data,
//! the lens line with an age from a "now" given as data, and the notes as findings of a
//! later analysis (placed on their entries, suppressible, with the skip_ops quick fix).
//!
//! The records are made up per test here (statuses are what is under test); the node ids
//! are the accounting's own, and the stdio test (`server/lsp/tests/lsp_evidence.rs`) reads real
//! artifacts.

use std::collections::HashMap;
use torchcts_core::accounting_view::{self as av, Inventory};
use torchcts_core::codes;
use torchcts_core::evidence::{
    self, EntryEvidence, EntryKind, EvidenceLookup, EvidenceRun, NoteContext, TestRecord, TestStatus,
};
use torchcts_core::{analyze, Analysis, AnalysisInput, Severity};

const MANIFEST: &str = r#"import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: r"^(add|mul)$",
        torch.float64: False,
    },
    "semantic_level": 2,
    "capabilities": {"inference": True, "training": False},
    "skip_ops": ["sub", "div"],
    "tolerance_overrides": {"elementwise:torch.float16": {"rtol": 1e-2, "atol": 1e-2}},
}
"#;

/// 2026-12-02T16:24:12Z
const NOW: i64 = 1_796_228_652;

struct Records {
    run: EvidenceRun,
    old_run: EvidenceRun,
    by_id: HashMap<String, (TestStatus, Option<String>, String, bool)>,
}

impl EvidenceLookup for Records {
    fn record(&self, node_id: &str) -> Option<TestRecord<'_>> {
        let (id, (status, error, at, old)) = self.by_id.get_key_value(node_id)?;
        Some(TestRecord {
            node_id: id,
            status: *status,
            error: error.as_deref(),
            tested_at: Some(at),
            run: if *old { &self.old_run } else { &self.run },
        })
    }
}

fn run(torch: &str, at: &str) -> EvidenceRun {
    EvidenceRun {
        artifact: "/ci/results/cpu_vm_history/x.json".into(),
        report: Some("/ci/results/cpu_vm_report.md".into()),
        timestamp: Some(at.into()),
        torch_version: Some(torch.into()),
        hardware: Some("cpu_vm".into()),
        partial: false,
    }
}

fn analysis(text: &str) -> Analysis {
    analyze(text, &AnalysisInput { inventory: Some(Inventory::embedded()), ..AnalysisInput::default() })
}

/// The node ids the entry at `needle` decides, as the run action computes them.
fn ids_at(analysis: &Analysis, needle: &str) -> Vec<String> {
    let manifest = analysis.model.manifest.as_ref().unwrap().as_dict().unwrap();
    let at = analysis.text.find(needle).unwrap() + 1;
    let located = torchcts_core::locate::locate(&analysis.tree, &analysis.text, at).unwrap();
    av::run_target(Inventory::embedded(), manifest, Some(&located), None).node_ids.unwrap()
}

fn by_kind<'e>(entries: &'e [EntryEvidence], path: &[&str]) -> &'e EntryEvidence {
    entries.iter().find(|e| e.entry.key_path == path).unwrap_or_else(|| panic!("no entry {path:?}"))
}

/// float16: two failures, the rest passed; `sub`'s tests passed (a scratch-copy run);
/// `div` has one failure; the first float32 test has an old record from torch 2.11.
fn records(analysis: &Analysis) -> Records {
    let mut by_id = HashMap::new();
    let at = "2026-11-30T16:24:12.000000Z".to_string();
    for (i, id) in ids_at(analysis, "torch.float16").into_iter().enumerate() {
        let (status, error) = match i {
            0 => (TestStatus::Failed, Some("AssertionError: max abs diff 0.5 > atol 0.01".to_string())),
            1 => (TestStatus::Errored, Some("RuntimeError: not implemented".to_string())),
            _ => (TestStatus::Passed, None),
        };
        by_id.insert(id, (status, error, at.clone(), false));
    }
    for id in ids_at(analysis, "\"sub\"") {
        by_id.insert(id, (TestStatus::Passed, None, at.clone(), false));
    }
    for (i, id) in ids_at(analysis, "\"div\"").into_iter().enumerate() {
        let status = if i == 0 { TestStatus::Failed } else { TestStatus::Passed };
        by_id.insert(id, (status, None, at.clone(), false));
    }
    let first32 = ids_at(analysis, "torch.float32").into_iter().find(|id| !by_id.contains_key(id)).unwrap();
    by_id.insert(first32, (TestStatus::Skipped, None, "2026-10-01T00:00:00Z".into(), true));
    Records {
        run: run("2.12.1+cu130", "2026-11-30T16:24:12Z"),
        // A run cut short: it counts for the tests it reached, and the line says so.
        old_run: EvidenceRun { partial: true, ..run("2.11.0", "2026-10-01T00:00:00Z") },
        by_id,
    }
}

#[test]
fn every_entry_kind_gets_a_tally_of_the_tests_it_decides() {
    let a = analysis(MANIFEST);
    let records = records(&a);
    let entries = evidence::entry_tallies(Inventory::embedded(), &a, None, &records, Some(NOW));
    let kinds: Vec<(EntryKind, Vec<String>)> =
        entries.iter().map(|e| (e.entry.kind, e.entry.key_path.clone())).collect();
    let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        kinds,
        vec![
            (EntryKind::Dtype, path(&["supported_dtypes", "torch.float32"])),
            (EntryKind::Dtype, path(&["supported_dtypes", "torch.float16"])),
            (EntryKind::Dtype, path(&["supported_dtypes", "torch.float64"])),
            (EntryKind::Capability, path(&["capabilities", "inference"])),
            (EntryKind::Capability, path(&["capabilities", "training"])),
            (EntryKind::SkipOp, path(&["skip_ops", "sub"])),
            (EntryKind::SkipOp, path(&["skip_ops", "div"])),
            (EntryKind::ToleranceOverride, path(&["tolerance_overrides", "elementwise:torch.float16"])),
            (EntryKind::SemanticLevel, path(&["semantic_level"])),
        ]
    );

    let f16 = by_kind(&entries, &["supported_dtypes", "torch.float16"]);
    let n16 = ids_at(&a, "torch.float16").len();
    assert!(n16 > 2 && f16.entry.claimed);
    assert_eq!((f16.tally.tests, f16.tally.failed, f16.tally.errored, f16.tally.passed), (n16, 1, 1, n16 - 2));
    assert_eq!(f16.tally.no_record, 0);
    assert_eq!(f16.tally.failures.len(), 2);
    assert_eq!(f16.tally.failures[0].error.as_deref(), Some("AssertionError: max abs diff 0.5 > atol 0.01"));
    assert_eq!(f16.tally.failures[1].status, TestStatus::Errored);
    assert_eq!(f16.tally.newest.as_ref().and_then(|r| r.report.as_deref()), Some("/ci/results/cpu_vm_report.md"));
    assert_eq!(f16.line(), format!("cpu: {} passed · 1 failed · 1 errored, newest 2 d ago", n16 - 2));

    // float32 has one record (skipped at run time, from torch 2.11), the rest never ran.
    let f32 = by_kind(&entries, &["supported_dtypes", "torch.float32"]);
    assert_eq!((f32.tally.skipped, f32.tally.no_record), (1, f32.tally.tests - 1));
    assert_eq!(f32.tally.torch_versions, vec!["2.11.0".to_string()]);
    assert!(f32.line().starts_with("cpu: 1 skipped at run time · "), "{}", f32.line());
    assert!(f32.line().ends_with(" not run yet, newest 62 d ago (partial run)"), "{}", f32.line());
    assert!(f32.tally.partial && !f16.tally.partial);

    // A False dtype lets nothing in.
    assert_eq!(by_kind(&entries, &["supported_dtypes", "torch.float64"]).tally.tests, 0);

    // The skip_ops items: the tests each removes (the operator's, once off the list).
    let sub = by_kind(&entries, &["skip_ops", "sub"]);
    assert_eq!((sub.tally.passed, sub.tally.tests), (ids_at(&a, "\"sub\"").len(), ids_at(&a, "\"sub\"").len()));
    assert!(sub.tally.tests > 0 && sub.label == "skipped operator sub");

    // The override loosens the float16 OpInfo tests of elementwise operators: add and mul
    // (the float16 regex), forward and not backward (backward compares under `backward`).
    let tol = by_kind(&entries, &["tolerance_overrides", "elementwise:torch.float16"]);
    assert!(tol.tally.tests > 0);
    assert!(tol.tally.tests < n16, "{} of {n16}", tol.tally.tests);
    assert_eq!(tol.tally.failed + tol.tally.errored + tol.tally.passed + tol.tally.no_record, tol.tally.tests);

    // semantic_level: every test the manifest runs.
    let level = by_kind(&entries, &["semantic_level"]);
    let all = av::executable_ids(
        Inventory::embedded(),
        &av::facts(a.model.manifest.as_ref().unwrap().as_dict().unwrap()),
        "cpu",
        av::LevelSelection::Cumulative(2),
    );
    assert_eq!(level.tally.tests, all.len());
    assert_eq!(level.label, "level 2");
    assert!(level.tally.passed >= f16.tally.passed);

    // Without a clock, no age.
    let timeless = evidence::entry_tallies(Inventory::embedded(), &a, None, &records, None);
    assert!(!timeless[1].line().contains("newest"), "{}", timeless[1].line());
}

#[test]
fn the_hover_question_computes_only_the_entry_under_the_cursor() {
    let a = analysis(MANIFEST);
    let records = records(&a);
    let at = MANIFEST.find("\"div\"").unwrap() + 2;
    let div = evidence::entry_tally_at(Inventory::embedded(), &a, None, &records, Some(NOW), at).unwrap();
    assert_eq!(div.entry.key_path, vec!["skip_ops", "div"]);
    assert_eq!(div.tally.failed, 1);
    assert!(evidence::entry_tally_at(Inventory::embedded(), &a, None, &records, Some(NOW), 3).is_none());
}

#[test]
fn crashed_and_known_crash_records_are_counted_apart_from_errors() {
    let a = analysis(MANIFEST);
    let ids = ids_at(&a, "torch.float16");
    let at = "2026-11-30T16:24:12.000000Z".to_string();
    let mut by_id: HashMap<_, _> =
        ids.iter().map(|id| (id.clone(), (TestStatus::Passed, None, at.clone(), false))).collect();
    let crash = "the test process crashed during this test: killed by SIGABRT (abort)".to_string();
    by_id.insert(ids[0].clone(), (TestStatus::Crashed, Some(crash.clone()), at.clone(), false));
    let known = "Known confirmed backend crash was recorded without executing".to_string();
    by_id.insert(ids[1].clone(), (TestStatus::KnownCrash, Some(known), at.clone(), false));
    by_id.insert(ids[2].clone(), (TestStatus::Errored, Some("RuntimeError: x".into()), at.clone(), false));
    let records =
        Records { run: run("2.12.1", "2026-11-30T16:24:12Z"), old_run: run("2.12.1", "2026-11-30T16:24:12Z"), by_id };
    let entries = evidence::entry_tallies(Inventory::embedded(), &a, None, &records, Some(NOW));
    let t = &by_kind(&entries, &["supported_dtypes", "torch.float16"]).tally;
    assert_eq!((t.failed, t.errored, t.crashed, t.known_crash, t.passed), (0, 1, 1, 1, ids.len() - 3));
    assert_eq!(t.failing(), 2);
    // The lens line; a known crash is no failure (the ledger knows it) but is said.
    assert_eq!(
        by_kind(&entries, &["supported_dtypes", "torch.float16"]).line(),
        format!("cpu: {} passed · 1 errored · 1 crashed · 1 known crash (not run), newest 2 d ago", ids.len() - 3)
    );
    let failures: Vec<(TestStatus, &str)> =
        t.failures.iter().map(|f| (f.status, f.error.as_deref().unwrap_or(""))).collect();
    assert_eq!(failures, vec![(TestStatus::Crashed, crash.as_str()), (TestStatus::Errored, "RuntimeError: x")]);
    assert_eq!((TestStatus::Crashed.record_word(), TestStatus::KnownCrash.record_word()), ("CRASH", "KNOWN CRASH"));
    // The finding says crashed apart.
    let notes = evidence::notes(&a, &entries, &NoteContext::default());
    let f16 = notes.iter().find(|n| n.key_path == ["supported_dtypes", "torch.float16"]).unwrap();
    assert!(
        f16.message.starts_with("2 of the tests the torch.float16 entry lets in errored or crashed in the newest runs"),
        "{}",
        f16.message
    );
}

/// The notes of MANIFEST's records, placed by an analysis of `text`.
fn findings_of(text: &str, context: &NoteContext) -> Vec<(String, Severity, String, String)> {
    let a = analysis(MANIFEST);
    let records = records(&a);
    let entries = evidence::entry_tallies(Inventory::embedded(), &a, None, &records, Some(NOW));
    let notes = evidence::notes(&a, &entries, context);
    let later = analyze(
        text,
        &AnalysisInput { inventory: Some(Inventory::embedded()), evidence: Some(&notes), ..AnalysisInput::default() },
    );
    later
        .findings
        .iter()
        .filter(|f| codes::in_category(f.code, codes::Category::Evidence) || f.code == "unused-suppression")
        .map(|f| (f.code.to_string(), f.severity, text[f.span.clone()].to_string(), f.message.clone()))
        .collect()
}

#[test]
fn claimed_entries_with_failures_warn_and_passing_skip_ops_say_so() {
    let found = findings_of(MANIFEST, &NoteContext::default());
    let codes: Vec<(&str, &str)> = found.iter().map(|(c, _, at, _)| (c.as_str(), at.as_str())).collect();
    assert_eq!(codes, vec![("run-evidence", "torch.float16"), ("skip-op-passes", "\"sub\"")], "{found:#?}");
    let (_, severity, _, message) = &found[0];
    assert_eq!(*severity, Severity::Warning);
    assert!(message.starts_with("2 of the tests the torch.float16 entry lets in failed or errored in the newest runs on `cpu` (newest 2026-11-30T16:24:12.000000Z): `opinfo/"), "{message}");
    assert!(
        found[1]
            .3
            .starts_with("`sub` passes now: its tests ran in a run without this entry and none failed on `cpu` ("),
        "{}",
        found[1].3
    );
    // `div` had a failure: it stays quiet; `training` is not claimed.
}

#[test]
fn notes_follow_their_entries_into_a_later_text_and_drop_when_gone() {
    let moved = MANIFEST.replace("    \"manifest_version\": 1,\n", "    \"manifest_version\": 1,\n    # a comment\n");
    let found = findings_of(&moved, &NoteContext::default());
    assert_eq!(found.iter().map(|f| f.2.as_str()).collect::<Vec<_>>(), vec!["torch.float16", "\"sub\""]);
    let gone = MANIFEST.replace("\"sub\", ", "");
    let found = findings_of(&gone, &NoteContext::default());
    assert_eq!(found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), vec!["run-evidence"]);
}

#[test]
fn suppression_comments_silence_evidence_findings_and_are_never_unused() {
    let text = MANIFEST
        .replace(
            "torch.float16: r\"^(add|mul)$\",",
            "torch.float16: r\"^(add|mul)$\",  # torchcts-lsp: ignore[run-evidence]",
        )
        .replace("\"semantic_level\": 1,", "\"semantic_level\": 1,  # torchcts-lsp: ignore[stale-evidence]");
    let found = findings_of(&text, &NoteContext::default());
    assert_eq!(found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), vec!["skip-op-passes"], "{found:#?}");
}

#[test]
fn records_older_than_the_entry_or_from_another_torch_are_said() {
    let lines = MANIFEST.lines().count() + 1;
    // Every line last changed before the runs, except the float32 line (after the old run).
    let mut changed = vec![1_700_000_000_i64; lines];
    let f32_line = MANIFEST.lines().position(|l| l.contains("torch.float32")).unwrap();
    changed[f32_line] = 1_795_000_000; // 2026-11-18 11:06 UTC
    let context = NoteContext { torch_version: Some("2.12.1"), line_changed_at: Some(&changed) };
    let found = findings_of(MANIFEST, &context);
    let f32: Vec<_> = found.iter().filter(|f| f.2 == "torch.float32").collect();
    assert_eq!(f32.len(), 2, "{found:#?}");
    assert_eq!(f32[0].0, "stale-evidence");
    assert_eq!(f32[0].1, Severity::Hint);
    assert_eq!(
        f32[0].3,
        "All of the records of the tests of the torch.float32 entry on `cpu` are older than the entry's last \
         change (2026-11-18 11:06 UTC): they tested the manifest as it was before; run them again"
    );
    assert_eq!(f32[1].0, "evidence-other-torch");
    assert_eq!(
        f32[1].3,
        "Records of the tests of the torch.float32 entry come from torch 2.11.0; this environment has torch 2.12.1"
    );
    // The float16 records (torch 2.12.1+cu130, after every change) say nothing more.
    assert!(found.iter().filter(|f| f.2 == "torch.float16").all(|f| f.0 == "run-evidence"), "{found:#?}");
}

#[test]
fn the_passing_skip_op_gets_a_quick_fix_that_removes_it() {
    let a = analysis(MANIFEST);
    let records = records(&a);
    let entries = evidence::entry_tallies(Inventory::embedded(), &a, None, &records, Some(NOW));
    let notes = evidence::notes(&a, &entries, &NoteContext::default());
    let later = analyze(
        MANIFEST,
        &AnalysisInput { inventory: Some(Inventory::embedded()), evidence: Some(&notes), ..AnalysisInput::default() },
    );
    let at = MANIFEST.find("\"sub\"").unwrap();
    let fixes = torchcts_core::actions::quick_fixes(&later, at..at + 1);
    let fix = fixes.iter().find(|f| f.title == "Remove 'sub' from skip_ops").expect("the fix");
    let fixed = torchcts_core::actions::apply_edits(MANIFEST, &fix.edits);
    assert!(fixed.contains("\"skip_ops\": [\"div\"],"), "{fixed}");
    let last = MANIFEST.find("\"div\"").unwrap();
    let later_div = evidence::anchor_span(&later.model, &later.text, &["skip_ops".into(), "div".into()]).unwrap();
    assert_eq!(later_div.start, last);
}
