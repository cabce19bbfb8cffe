//! Fix-all: the one engine behind `check --fix`, `check --diff` and the editor's
//! `source.fixAll.torchcts`. Given a text and the [`AnalysisInput`] its caller analyses it
//! with, it applies the quick fixes round after round, re-analysing each edited text with
//! that same input, and returns the fixed text and what was applied.
//!
//! - **Which fixes**: per finding, its first safe fix ([`QuickFix::safe`]), or with
//!   `unsafe_fixes` its preferred one (else its first). A fix whose edits overlap (or insert
//!   at the same place as) one chosen before waits for the next round.
//! - **Rounds**: all chosen fixes at once; if the result is not better, the first that is
//!   better alone. At most [`MAX_ROUNDS`] rounds (each fixes every finding it can, and a
//!   repaired comma may let the file evaluate and reveal a stale name to fix next).
//! - **Better**: the edited text still loads if the text did, by the real tool's verdict
//!   ([`CheckOutcome::Validated`]: check-manifest ran `validate_manifest`), has fewer
//!   findings and none the text did not have (counted by code and message, line numbers
//!   left out). A text that does not compile may gain the findings its evaluation reveals
//!   once it does (or has fewer syntax errors without crashing the check).

use super::edits::{apply_edits, QuickFix, TextEdit};
use super::fix_check::without_line_numbers;
use super::quick_fixes_until;
use crate::analysis::{analyze_parsed, Analysis, AnalysisInput};
use crate::cancel::{Cancel, Cancellable};
use crate::check::CheckOutcome;
use crate::codes::Code;
use crate::line_index::PositionEncoding;
use std::collections::HashMap;

/// More rounds than any manifest needs; the one bound for the CLI and the editor.
pub const MAX_ROUNDS: usize = 32;

/// One fix applied: where (1-based line in the text it was applied to) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub line: u32,
    pub title: String,
    pub code: &'static str,
}

/// The outcome of fix-all on a text.
pub struct FixAll {
    /// The fixed text (the text itself when nothing applied).
    pub text: String,
    /// The fixed text's analysis, with the caller's input.
    pub analysis: Analysis,
    pub applied: Vec<Applied>,
    /// How many findings the applied fixes removed: one rename can fix a missing key and the
    /// misspelt one; a repaired comma fixes the syntax error and may reveal findings that a
    /// later round fixes (each fix then counts one).
    pub findings_fixed: usize,
    /// Fixes not applied because they are unsafe (0 with `unsafe_fixes`).
    pub unsafe_left: usize,
}

/// Fixes `text`, analysed (and re-analysed after each round) with `input` (its
/// `old_tree` is not used). Given up once `cancel` is set.
pub fn fix_all(text: &str, input: &AnalysisInput, unsafe_fixes: bool, cancel: &Cancel) -> Cancellable<FixAll> {
    let analyse = |text: &str| analyze_parsed(text, crate::syntax::parse(text, None), input, cancel);
    let mut analysis = analyse(text)?;
    let findings_before = analysis.findings.len();
    let mut applied = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let fixes = chosen(&analysis, unsafe_fixes, cancel)?;
        if fixes.is_empty() {
            break;
        }
        let all_at_once = std::iter::once(fixes.clone());
        let one_by_one = fixes.into_iter().map(|f| vec![f]);
        let mut progressed = false;
        for batch in all_at_once.chain(one_by_one) {
            let edits: Vec<TextEdit> = batch.iter().flat_map(|f| f.edits.iter().cloned()).collect();
            let after = analyse(&apply_edits(&analysis.text, &edits))?;
            if better(&analysis, &after) {
                applied.extend(batch.iter().map(|f| applied_fix(&analysis, f)));
                analysis = after;
                progressed = true;
                break;
            }
        }
        if !progressed {
            break;
        }
    }
    let unsafe_left =
        if unsafe_fixes { 0 } else { chosen(&analysis, true, cancel)?.iter().filter(|f| !f.safe).count() };
    let findings_fixed = findings_before.saturating_sub(analysis.findings.len()).max(applied.len());
    Ok(FixAll { text: analysis.text.clone(), analysis, applied, findings_fixed, unsafe_left })
}

fn applied_fix(analysis: &Analysis, fix: &QuickFix) -> Applied {
    let start = fix.edits.iter().map(|e| e.span.start).min().unwrap_or(0);
    let line = analysis.line_index.position(&analysis.text, start, PositionEncoding::Utf32).line + 1;
    Applied { line, title: fix.title.clone(), code: analysis.findings[fix.finding].code }
}

/// Per finding, the fix to apply: its first safe one (or, with `unsafe_fixes`, its
/// preferred one, else its first); fixes whose edits overlap an earlier choice wait for the
/// next round.
fn chosen(analysis: &Analysis, unsafe_fixes: bool, cancel: &Cancel) -> Cancellable<Vec<QuickFix>> {
    let all = quick_fixes_until(analysis, 0..analysis.text.len(), cancel)?;
    let mut by_finding: Vec<(usize, QuickFix)> = Vec::new();
    for fix in all.into_iter().filter(|f| f.safe || unsafe_fixes) {
        match by_finding.iter_mut().find(|(finding, _)| *finding == fix.finding) {
            None => by_finding.push((fix.finding, fix)),
            Some((_, kept)) if !kept.safe && !kept.preferred && (fix.safe || fix.preferred) => *kept = fix,
            Some(_) => {}
        }
    }
    let mut out: Vec<QuickFix> = Vec::new();
    let mut taken: Vec<TextEdit> = Vec::new();
    for (_, fix) in by_finding {
        if !fix.edits.iter().any(|e| taken.iter().any(|t| overlap(e, t))) {
            taken.extend(fix.edits.iter().cloned());
            out.push(fix);
        }
    }
    Ok(out)
}

/// Two edits touch the same text, or insert at the same place.
fn overlap(a: &TextEdit, b: &TextEdit) -> bool {
    (a.span.start < b.span.end && b.span.start < a.span.end) || a.span.start == b.span.start
}

/// Whether `after` (a fixed version of `before`) is better: see the module's documentation.
fn better(before: &Analysis, after: &Analysis) -> bool {
    let loads = |a: &Analysis| matches!(a.check, CheckOutcome::Validated { .. });
    let syntax_errors = |a: &Analysis| a.findings.iter().filter(|f| f.code == Code::SyntaxError.name()).count();
    if loads(before) && !loads(after) {
        return false;
    }
    if syntax_errors(before) > 0 {
        let crashed = matches!(after.check, CheckOutcome::Crashed { .. });
        return syntax_errors(after) == 0 || syntax_errors(after) < syntax_errors(before) && !crashed;
    }
    let tally = |a: &Analysis| {
        let mut counts = HashMap::new();
        for f in &a.findings {
            *counts.entry((f.code, without_line_numbers(&f.message))).or_insert(0usize) += 1;
        }
        counts
    };
    let (was, now) = (tally(before), tally(after));
    now.iter().all(|(key, n)| *n <= was.get(key).copied().unwrap_or(0)) && after.findings.len() < before.findings.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, unsafe_fixes: bool) -> FixAll {
        let input = AnalysisInput { file_name: Some("manifest.py"), ..AnalysisInput::default() };
        crate::cancel::uncancelled(|cancel| fix_all(text, &input, unsafe_fixes, cancel))
    }

    #[test]
    fn safe_fixes_rename_a_stale_capability_and_repair_a_comma() {
        let text = "manifest = {\n    \"manifest_version\": 1\n    \"device_name\": \"cpu\",\n    \"capabilities\": {\"generator\": True},\n}\n";
        let fixed = run(text, false);
        assert!(fixed.text.contains("\"manifest_version\": 1,\n"), "{}", fixed.text);
        assert!(fixed.text.contains("\"device_generator\": True"), "{}", fixed.text);
        let codes: Vec<_> = fixed.applied.iter().map(|a| (a.line, a.code)).collect();
        // The rename fixes both findings on the key, the unknown one (check-manifest's) first.
        assert_eq!(codes, [(2, "syntax-error"), (4, "unknown-key")]);
        assert_eq!(fixed.analysis.text, fixed.text);
    }

    #[test]
    fn a_guess_among_several_names_waits_for_unsafe_fixes() {
        let text = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"capabilities\": {\"quantized\": True},\n}\n";
        let fixed = run(text, false);
        assert_eq!(fixed.text, text);
        assert!(fixed.applied.is_empty() && fixed.unsafe_left >= 1);
        let fixed = run(text, true);
        assert!(fixed.text.contains("quantized_container_plumbing"), "{}", fixed.text);
        assert_eq!(fixed.unsafe_left, 0);
    }

    #[test]
    fn comma_rename_and_dtype_key_together() {
        let text = "import torch\nmanifest = {\n    \"manifest_version\": 1\n    \"device_name\": \"cpu\",\n    \"capabilities\": {\"inference\": True, \"generator\": True},\n    \"supported_dtypes\": {\"float32\": \"^add$\"},\n}\n";
        let out = run(text, false).text;
        assert!(out.contains("\"manifest_version\": 1,\n"), "{out}");
        assert!(out.contains("\"device_generator\": True"), "{out}");
        assert!(out.contains("{torch.float32: \"^add$\"}"), "{out}");
    }

    #[test]
    fn a_valid_text_is_left_as_it_is() {
        let valid = "manifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"capabilities\": {}}\n";
        let fixed = run(valid, true);
        assert_eq!((fixed.text.as_str(), fixed.applied.len()), (valid, 0));
    }

    #[test]
    fn edits_that_overlap_or_insert_at_one_place_overlap() {
        let e = |span: std::ops::Range<usize>| TextEdit { span, new_text: String::new() };
        assert!(overlap(&e(2..5), &e(4..6)));
        assert!(overlap(&e(3..3), &e(3..3)));
        assert!(overlap(&e(3..3), &e(3..5)));
        assert!(!overlap(&e(2..3), &e(3..5)));
        assert!(!overlap(&e(3..3), &e(1..3)));
    }
}
