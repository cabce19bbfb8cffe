//! The check every quick fix passes before it is offered: the edited text no longer has the
//! fix's target and has no error the text did not have (a rename onto a key with its own
//! requirement, a syntax repair CPython would still reject, a stub that a later entry
//! overrides).
//!
//! Cost: the text as it is was analysed already (its findings are reused, less those only
//! the inventory or the file system give); each fix costs one analysis of the edited text,
//! parsed incrementally from the current tree when that tree has no syntax error, and the
//! findings are compared by (code, message) counts, a lookup per finding.

use super::edits::{pair_of_key, QuickFix, TextEdit};
use crate::analysis::{analyze_parsed, Analysis, AnalysisInput};
use crate::cancel::{Cancel, Cancellable};
use crate::fields::{Field, FieldChild};
use crate::findings::{Finding, Severity};
use crate::syntax::{apply_edit, parse};
use crate::value::Span;
use std::collections::HashMap;
use tree_sitter::Tree;

/// Findings that need what the fix check's analysis is not given: the inventory (regexes
/// that match all or nothing, unknown operators) or the file system (missing directories).
const NEEDS_MORE_THAN_THE_TEXT: [&str; 4] =
    ["regex-matches-all", "regex-matches-none", "unknown-operator", "missing-dir"];

/// Findings counted by (code, message without line numbers).
type Tally = HashMap<(&'static str, String), usize>;

/// Drops every fix whose edited text still has its target finding or has an error the text
/// did not have. The edited text is analysed without the inventory and the file system, and
/// compared with this analysis's findings less those only they give; fixes of findings only
/// the inventory gives (unknown operators) are plain string replacements and kept.
pub(crate) fn keep_fixes_that_leave_a_better_file(
    analysis: &Analysis,
    fixes: &mut Vec<QuickFix>,
    cancel: &Cancel,
) -> Cancellable<()> {
    let checked = |fix: &QuickFix| !NEEDS_MORE_THAN_THE_TEXT.contains(&analysis.findings[fix.finding].code);
    if !fixes.iter().any(checked) {
        return Ok(());
    }
    let input =
        AnalysisInput { file_name: Some(&analysis.file_name), python: analysis.python, ..AnalysisInput::default() };
    let was = tally(analysis.findings.iter().filter(|f| !NEEDS_MORE_THAN_THE_TEXT.contains(&f.code)));
    let mut kept = Vec::with_capacity(fixes.len());
    for fix in std::mem::take(fixes) {
        if checked(&fix) {
            cancel.check()?;
            let target = &analysis.findings[fix.finding];
            let (text, tree) = edited(analysis, &fix.edits);
            let after = analyze_parsed(&text, tree, &input, cancel)?;
            let value = pair_of_key(analysis, &target.span).and_then(|p| p.field(Field::Value));
            let value_span = value.map(|v| shifted(v.start_byte()..v.end_byte(), &fix.edits));
            if !leaves_a_better_file(&was, &after.findings, target, &fix, value_span) {
                continue;
            }
        }
        kept.push(fix);
    }
    *fixes = kept;
    Ok(())
}

/// The edited text and its tree: the current tree told about the edits and parsed again,
/// which reuses every untouched subtree. A tree with a syntax error is parsed afresh, since
/// error recovery may read the same text differently when it starts from an old tree.
fn edited(analysis: &Analysis, edits: &[TextEdit]) -> (String, Tree) {
    let reuse = !analysis.tree.root_node().has_error();
    let mut text = analysis.text.clone();
    let mut tree = analysis.tree.clone();
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    // From the end: every edit's offsets are still those of the original text.
    sorted.sort_by_key(|e| std::cmp::Reverse(e.span.start));
    for edit in sorted {
        apply_edit(&mut text, reuse.then_some(&mut tree), edit.span.clone(), &edit.new_text);
    }
    let tree = parse(&text, reuse.then_some(&tree));
    (text, tree)
}

/// `span` of the text before `edits`, in the text after them (edits inside it widen it).
fn shifted(span: Span, edits: &[TextEdit]) -> Span {
    let delta = |upto: usize| -> isize {
        edits.iter().filter(|e| e.span.end <= upto).map(|e| e.new_text.len() as isize - e.span.len() as isize).sum()
    };
    let start = (span.start as isize + delta(span.start)).max(0) as usize;
    let end = (span.end as isize + delta(span.end)).max(start as isize) as usize;
    start..end
}

fn tally<'f>(findings: impl IntoIterator<Item = &'f Finding>) -> Tally {
    let mut counts = Tally::new();
    for f in findings {
        *counts.entry((f.code, without_line_numbers(&f.message))).or_insert(0) += 1;
    }
    counts
}

/// The target is gone (one fewer finding with its code and message) and no error was
/// added. Errors the fix only reveals are not held against it: after a syntax repair, any
/// but a syntax error at or before the repair (the file is now evaluated); after a fix on a
/// key, errors nested inside that entry's value (a misspelt section is now validated). An
/// error on the value as a whole means the fix landed on a key whose requirement the value
/// does not meet (`device` -> `device_count` with a string), except for a dtype key written
/// another way, which keeps its meaning.
fn leaves_a_better_file(
    was: &Tally,
    after: &[Finding],
    target: &Finding,
    fix: &QuickFix,
    value_span: Option<Span>,
) -> bool {
    let now = tally(after);
    let count =
        |counts: &Tally, code: &'static str, message: String| counts.get(&(code, message)).copied().unwrap_or(0);
    let target_message = without_line_numbers(&target.message);
    if count(&now, target.code, target_message.clone()) >= count(was, target.code, target_message) {
        return false;
    }
    let edit_end = fix.edits.iter().map(|e| e.span.start + e.new_text.len()).max().unwrap_or(0);
    after.iter().filter(|f| f.severity == Severity::Error).all(|f| {
        let message = without_line_numbers(&f.message);
        if count(&now, f.code, message.clone()) <= count(was, f.code, message) {
            return true;
        }
        if target.code == "syntax-error" {
            return f.code != "syntax-error" || f.span.start > edit_end;
        }
        value_span.as_ref().is_some_and(|v| {
            let inside = v.start <= f.span.start && f.span.end <= v.end;
            inside && (f.span != *v || target.code == "dtype-key-ignored")
        })
    })
}

/// A fix that adds or removes lines moves the line numbers in syntax error messages.
pub fn without_line_numbers(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(i) = rest.find("line ") {
        out.push_str(&rest[..i + 5]);
        rest = rest[i + 5..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('N');
    }
    out.push_str(rest);
    out
}
