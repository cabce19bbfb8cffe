//! Findings from the runs' evidence (issue 26, item 3), as notes anchored by key path: the
//! tallies are computed on open and save (an accounting per entry), the notes are placed
//! again by every analysis of the text as it is then ([`crate::AnalysisInput::evidence`]).

use super::{time, EntryEvidence, EntryKind};
use crate::analysis::Analysis;
use crate::codes::Code;
use crate::entry_notes::EvidenceNote;
use crate::findings::Severity;
use crate::fix_data::FixData;

/// A claimed dtype or capability with failed, errored or crashed tests in the newest records.
pub const CLAIMED_FAILING: Code = Code::RunEvidence;
/// A `skip_ops` item whose operator's tests passed in a run without it.
pub const SKIP_OP_PASSES: Code = Code::SkipOpPasses;
/// Records older than the entry's last change.
pub const STALE: Code = Code::StaleEvidence;
/// Records from another torch release than the environment's.
pub const OTHER_TORCH: Code = Code::EvidenceOtherTorch;

/// What the notes compare the records with, from the IO layer.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoteContext<'a> {
    /// The environment's torch version (`2.12.1`, a local part such as `+cu130` ignored).
    pub torch_version: Option<&'a str>,
    /// When each line (0-based) of the analysed text last changed, in Unix seconds: its
    /// last commit when the file is in git, else the file's modification time.
    pub line_changed_at: Option<&'a [i64]>,
}

/// The notes of `entries` (tallies of `analysis`'s entries).
pub fn notes(analysis: &Analysis, entries: &[EntryEvidence], context: &NoteContext) -> Vec<EvidenceNote> {
    let mut out = Vec::new();
    for e in entries {
        let t = &e.tally;
        let note = |severity, code, message: String| EvidenceNote {
            key_path: e.entry.key_path.clone(),
            severity,
            code,
            message,
            data: None,
        };
        let bad = t.failing();
        if e.entry.claimed && bad > 0 {
            out.push(note(Severity::Warning, CLAIMED_FAILING, claimed_failing(e)));
        }
        if e.entry.kind == EntryKind::SkipOp && t.passed > 0 && bad == 0 && t.known_crash == 0 {
            let name = e.entry.key_path.last().cloned().unwrap_or_default();
            let mut n = note(Severity::Information, SKIP_OP_PASSES, skip_op_passes(e, &name));
            n.data = Some(FixData::PassingSkipOp { skip_op: name });
            out.push(n);
        }
        if !t.any() {
            continue;
        }
        let changed = context.line_changed_at.and_then(|lines| last_change(analysis, &e.entry.key_path, lines));
        let oldest = t.oldest_tested_at.as_deref().and_then(time::unix_seconds);
        if let (Some(changed), Some(oldest)) = (changed, oldest) {
            if oldest < changed {
                let newest = t.newest_tested_at.as_deref().and_then(time::unix_seconds).unwrap_or(oldest);
                let which = if newest < changed { "All of the records" } else { "Some records" };
                out.push(note(
                    Severity::Hint,
                    STALE,
                    format!(
                        "{which} of the tests of {} on `{}` are older than the entry's last change ({}): \
                         they tested the manifest as it was before; run them again",
                        e.label,
                        e.device,
                        time::utc_minutes(changed)
                    ),
                ));
            }
        }
        if let Some(env) = context.torch_version.map(release) {
            let others: Vec<&str> = t.torch_versions.iter().map(String::as_str).filter(|v| release(v) != env).collect();
            if !others.is_empty() {
                out.push(note(
                    Severity::Hint,
                    OTHER_TORCH,
                    format!(
                        "Records of the tests of {} come from torch {}; this environment has torch {env}",
                        e.label,
                        others.join(", ")
                    ),
                ));
            }
        }
    }
    out
}

/// A torch version without its local part (`2.12.1+cu130` -> `2.12.1`).
fn release(version: &str) -> &str {
    version.trim().split('+').next().unwrap_or(version)
}

fn claimed_failing(e: &EntryEvidence) -> String {
    let t = &e.tally;
    let bad = t.failing();
    let first: Vec<String> = t.failures.iter().take(3).map(|f| format!("`{}`", f.node_id)).collect();
    format!(
        "{bad} of the tests {} lets in {} in the newest runs on `{}`{}: {}{}",
        e.label,
        failing_words(t),
        e.device,
        t.newest_tested_at.as_deref().map(|at| format!(" (newest {at})")).unwrap_or_default(),
        first.join(", "),
        if bad > first.len() { ", ..." } else { "" }
    )
}

/// "failed", "errored", "crashed", or two or three of them: "failed or crashed".
fn failing_words(t: &super::Tally) -> String {
    let words: Vec<&str> = [(t.failed, "failed"), (t.errored, "errored"), (t.crashed, "crashed")]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(_, w)| *w)
        .collect();
    match words.as_slice() {
        [] => "failed".to_string(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn skip_op_passes(e: &EntryEvidence, name: &str) -> String {
    let t = &e.tally;
    let mut counts = format!("{} passed", t.passed);
    if t.skipped > 0 {
        counts.push_str(&format!(", {} skipped at run time", t.skipped));
    }
    if t.no_record > 0 {
        counts.push_str(&format!(", {} not run yet", t.no_record));
    }
    format!(
        "`{name}` passes now: its tests ran in a run without this entry and none failed on `{}` ({counts}); \
         remove it from `skip_ops`",
        e.device
    )
}

/// When the entry at `key_path` last changed: the latest change of its lines.
fn last_change(analysis: &Analysis, key_path: &[String], lines: &[i64]) -> Option<i64> {
    let (_, whole) = crate::entry_notes::entry_spans(&analysis.model, &analysis.text, key_path)?;
    let first = analysis.line_index.line_of(whole.start);
    let last = analysis.line_index.line_of(whole.end.saturating_sub(1).max(whole.start));
    lines.get(first..=last.min(lines.len().saturating_sub(1)))?.iter().copied().max()
}
