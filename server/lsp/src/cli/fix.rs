//! `check --fix`: the core's quick fixes applied to a text, the safe ones only (or every
//! one, the preferred per finding, with `--unsafe-fixes`), round after round until none is
//! left. Each round's edits are kept only if the fixed text still loads (when it did) and
//! has no finding the text did not have (compared by code and message, line numbers left
//! out); a syntax repair that makes a file load is allowed the findings it reveals. The
//! quick fixes themselves have passed the core's own check (`actions::fix_check`).

use torchcts_core::actions::{apply_edits, quick_fixes, QuickFix, TextEdit};
use torchcts_core::check::CheckOutcome;
use torchcts_core::{Analysis, PositionEncoding};

/// One fix applied: where (1-based line in the text it was applied to) and what.
pub struct Applied {
    pub line: u32,
    pub title: String,
    pub code: &'static str,
}

/// The text with the fixes applied, what was applied, and how many unsafe fixes were left
/// (when `unsafe_fixes` is off).
pub struct Fixed {
    pub text: String,
    pub applied: Vec<Applied>,
    pub unsafe_left: usize,
}

/// More rounds than any manifest needs (each round fixes every finding it can at once).
const MAX_ROUNDS: usize = 32;

/// Fixes `text`, analysing each version with `analyze` (the file's own name and folder).
pub fn fix(text: &str, unsafe_fixes: bool, analyze: &dyn Fn(&str) -> Analysis) -> Fixed {
    let mut current = text.to_string();
    let mut applied = Vec::new();
    let mut analysis = analyze(&current);
    for _ in 0..MAX_ROUNDS {
        let fixes = chosen(&analysis, unsafe_fixes);
        if fixes.is_empty() {
            break;
        }
        // All at once; if that fails the check, the first that passes alone.
        let round = std::iter::once(fixes.clone()).chain(fixes.into_iter().map(|f| vec![f]));
        let mut progressed = false;
        for batch in round {
            let edits: Vec<TextEdit> = batch.iter().flat_map(|f| f.edits.iter().cloned()).collect();
            let candidate = apply_edits(&current, &edits);
            let after = analyze(&candidate);
            if better(&analysis, &after) {
                for f in &batch {
                    let start = f.edits.iter().map(|e| e.span.start).min().unwrap_or(0);
                    let line = analysis.line_index.position(&analysis.text, start, PositionEncoding::Utf32).line + 1;
                    applied.push(Applied { line, title: f.title.clone(), code: analysis.findings[f.finding].code });
                }
                current = candidate;
                analysis = after;
                progressed = true;
                break;
            }
        }
        if !progressed {
            break;
        }
    }
    let unsafe_left = if unsafe_fixes { 0 } else { chosen(&analysis, true).iter().filter(|f| !f.safe).count() };
    std::mem::forget(analysis);
    Fixed { text: current, applied, unsafe_left }
}

/// Per finding, the fix to apply: its first safe one (or, with `unsafe_fixes`, its
/// preferred one, else its first); fixes whose edits overlap an earlier choice wait for the
/// next round.
fn chosen(analysis: &Analysis, unsafe_fixes: bool) -> Vec<QuickFix> {
    let all = quick_fixes(analysis, 0..analysis.text.len());
    let mut by_finding: Vec<(usize, QuickFix)> = Vec::new();
    for fix in all {
        if !fix.safe && !unsafe_fixes {
            continue;
        }
        match by_finding.iter_mut().find(|(finding, _)| *finding == fix.finding) {
            None => by_finding.push((fix.finding, fix)),
            Some((_, kept)) if !kept.safe && !kept.preferred && (fix.safe || fix.preferred) => *kept = fix,
            Some(_) => {}
        }
    }
    let mut out: Vec<QuickFix> = Vec::new();
    let mut taken: Vec<TextEdit> = Vec::new();
    for (_, fix) in by_finding {
        let clashes = fix.edits.iter().any(|e| taken.iter().any(|t| overlap(e, t)));
        if !clashes {
            taken.extend(fix.edits.iter().cloned());
            out.push(fix);
        }
    }
    out
}

/// Two edits touch the same text (or insert at the same place).
fn overlap(a: &TextEdit, b: &TextEdit) -> bool {
    (a.span.start < b.span.end && b.span.start < a.span.end) || a.span.start == b.span.start
}

/// The fixed text still loads (if the text did) and has no new finding; a text that did
/// not compile may gain the findings its evaluation reveals once it does.
fn better(before: &Analysis, after: &Analysis) -> bool {
    let loads = |a: &Analysis| matches!(a.check, CheckOutcome::Validated { .. });
    let compiles = |a: &Analysis| !a.findings.iter().any(|f| f.code == "syntax-error");
    if loads(before) && !loads(after) {
        return false;
    }
    if !compiles(before) {
        let count = |a: &Analysis| a.findings.iter().filter(|f| f.code == "syntax-error").count();
        return compiles(after) || count(after) < count(before) && !crashed(after);
    }
    let tally = |a: &Analysis| {
        let mut counts = std::collections::HashMap::new();
        for f in &a.findings {
            *counts.entry((f.code, without_line_numbers(&f.message))).or_insert(0usize) += 1;
        }
        counts
    };
    let (was, now) = (tally(before), tally(after));
    now.iter().all(|(key, n)| *n <= was.get(key).copied().unwrap_or(0)) && after.findings.len() < before.findings.len()
}

fn crashed(a: &Analysis) -> bool {
    matches!(a.check, CheckOutcome::Crashed { .. })
}

/// Line numbers move when a fix adds or removes lines.
fn without_line_numbers(message: &str) -> String {
    message.chars().map(|c| if c.is_ascii_digit() { '0' } else { c }).collect()
}

/// A unified diff of `old` to `new` for `path` (`--- a/PATH`, `+++ b/PATH`), empty when
/// they are equal.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use torchcts_core::{analyze, AnalysisInput};

    fn run(text: &str, unsafe_fixes: bool) -> Fixed {
        fix(text, unsafe_fixes, &|t| analyze(t, &AnalysisInput::default()))
    }

    #[test]
    fn safe_fixes_rename_a_stale_capability_and_repair_a_comma() {
        let text = "manifest = {\n    \"manifest_version\": 1\n    \"device_name\": \"cpu\",\n    \"capabilities\": {\"generator\": True},\n}\n";
        let fixed = run(text, false);
        assert!(fixed.text.contains("\"manifest_version\": 1,\n"), "{}", fixed.text);
        assert!(fixed.text.contains("\"device_generator\": True"), "{}", fixed.text);
        assert_eq!(fixed.applied.len(), 2, "{:?}", fixed.applied.iter().map(|a| &a.title).collect::<Vec<_>>());
    }

    #[test]
    fn a_guess_among_several_names_waits_for_unsafe_fixes() {
        let text = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"capabilities\": {\"quantized\": True},\n}\n";
        let fixed = run(text, false);
        assert_eq!(fixed.text, text);
        assert!(fixed.unsafe_left >= 1);
        let fixed = run(text, true);
        assert!(fixed.text.contains("quantized_container_plumbing"), "{}", fixed.text);
    }
}
