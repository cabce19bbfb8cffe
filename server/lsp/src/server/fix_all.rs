//! `source.fixAll.torchcts`: every *safe* quick fix of a manifest applied at once.
//!
//! Safe (issue 24, in ruff's terms): the fix restores what the text evidently meant, leaves
//! the selection of tests to that one entry, and has exactly one candidate: CPython's
//! missing comma or colon, a capability torchcts renamed (`generator` ->
//! `device_generator`), a string dtype key written as selection matches it (`torch.`).
//! Which fixes are safe is the core's decision, carried by `QuickFix::safe`; the CLI's
//! `check --fix` applies the same one.
//!
//! The fixes come from the core (`actions::quick_fixes_until`), each already checked by its
//! fix check. They are applied in rounds (a repaired comma lets the file evaluate, which
//! may reveal a stale capability whose rename is safe too), at most [`ROUNDS`], and the
//! result is checked as a whole against the text as it is: it must load if the text did,
//! and have no finding (code and message) the text did not have. Otherwise nothing is
//! offered. The action is one edit: the changed middle of the text.

use torchcts_core::actions::{apply_edits, quick_fixes_until, without_line_numbers, QuickFix, TextEdit};
use torchcts_core::{Analysis, Cancel, Cancellable, Finding};

/// Rounds of fixing (each: an analysis, the fix check of its fixes).
const ROUNDS: usize = 4;

/// Findings that mean the manifest does not load: `check-manifest` stops at them.
const DOES_NOT_LOAD: [&str; 4] = ["syntax-error", "load-error", "not-a-dict", "check-crash"];

/// Whether `fix` is safe: the core decides it with the fix (`QuickFix::safe`), the same
/// decision `check --fix` applies.
pub fn is_safe(fix: &QuickFix) -> bool {
    fix.safe
}

fn safe_fixes(fixes: &[QuickFix]) -> Vec<TextEdit> {
    let mut edits: Vec<TextEdit> = Vec::new();
    for fix in fixes.iter().filter(|f| is_safe(f)) {
        let overlaps = fix.edits.iter().any(|e| {
            edits.iter().any(|k| {
                e.span.start < k.span.end && k.span.start < e.span.end
                    || (e.span.is_empty() || k.span.is_empty()) && e.span.start == k.span.start
            })
        });
        if !overlaps {
            edits.extend(fix.edits.iter().cloned());
        }
    }
    edits.sort_by_key(|e| e.span.start);
    edits.dedup();
    edits
}

/// Whether `fixes` (the quick fixes of the whole of `analysis`) has a safe one: cheap, no
/// analysis; the lightbulb offers "fix all" only then.
pub fn has_safe(fixes: &[QuickFix]) -> bool {
    fixes.iter().any(is_safe)
}

/// The text with every safe fix applied, as one edit of `analysis.text`, and how many
/// fixes it applies; `None` when there is none or the result is not better (see the
/// module's documentation).
pub fn fix_all(analysis: &Analysis, cancel: &Cancel) -> Cancellable<Option<(TextEdit, usize)>> {
    let host = crate::host::Surroundings::bare(&analysis.file_name, analysis.python);
    let analyse = |text: &str| -> Cancellable<Analysis> { host.analyze(text, None, None, cancel) };
    // The text as it is, analysed as the fixed one will be (no inventory, no file system).
    let before = analyse(&analysis.text)?;
    let mut current = None::<Analysis>;
    let mut applied = 0;
    for _ in 0..ROUNDS {
        let now = current.as_ref().unwrap_or(&before);
        let fixes = quick_fixes_until(now, 0..now.text.len(), cancel)?;
        let edits = safe_fixes(&fixes);
        if edits.is_empty() {
            break;
        }
        applied += edits.len();
        let text = apply_edits(&now.text, &edits);
        current = Some(analyse(&text)?);
    }
    let Some(after) = current else { return Ok(None) };
    if !better(&before.findings, &after.findings) || after.text == analysis.text {
        return Ok(None);
    }
    Ok(Some((one_edit(&analysis.text, &after.text), applied)))
}

/// `after` loads if `before` did, and has no finding `before` did not have (counted by code
/// and message, line numbers aside: a repair may move them).
fn better(before: &[Finding], after: &[Finding]) -> bool {
    let loads = |fs: &[Finding]| !fs.iter().any(|f| DOES_NOT_LOAD.contains(&f.code));
    if loads(before) && !loads(after) {
        return false;
    }
    let key = |f: &Finding| (f.code, without_line_numbers(&f.message));
    let mut counts = std::collections::HashMap::new();
    for f in before {
        *counts.entry(key(f)).or_insert(0usize) += 1;
    }
    after.iter().all(|f| match counts.get_mut(&key(f)) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    })
}

/// One edit turning `old` into `new`: the middle between their common prefix and suffix.
fn one_edit(old: &str, new: &str) -> TextEdit {
    let mut prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old.bytes().rev().zip(new.bytes().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    TextEdit { span: prefix..old.len() - suffix, new_text: new[prefix..new.len() - suffix].to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analysis(text: &str) -> Analysis {
        crate::host::Surroundings::bare("manifest.py", Default::default()).analyze_whole(text, None)
    }

    fn fixed(text: &str) -> Option<String> {
        let a = analysis(text);
        fix_all(&a, &Cancel::default()).unwrap().map(|(edit, _)| apply_edits(text, &[edit]))
    }

    const BROKEN: &str = "import torch\nmanifest = {\n    \"manifest_version\": 1\n    \"device_name\": \"cpu\",\n    \"capabilities\": {\"inference\": True, \"generator\": True},\n    \"supported_dtypes\": {\"float32\": \"^add$\"},\n}\n";

    #[test]
    fn comma_rename_and_dtype_key_in_one_action() {
        let out = fixed(BROKEN).expect("a fix-all");
        assert!(out.contains("\"manifest_version\": 1,\n"), "{out}");
        assert!(out.contains("\"device_generator\": True"), "{out}");
        assert!(out.contains("{torch.float32: \"^add$\"}"), "{out}");
        let after = analysis(&out);
        assert!(after.findings.iter().all(|f| f.severity != torchcts_core::Severity::Error), "{:?}", after.findings);
    }

    #[test]
    fn unsafe_fixes_are_left_alone() {
        // A misspelt key has several candidates: left alone. A dtype key without `import
        // torch` is written as the one string selection matches (the core's safe fix).
        let text = "manifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"capabilities\": {\"inferenc\": True}, \"supported_dtypes\": {\"float32\": \"^add$\"}}\n";
        let out = fixed(text).expect("the dtype key's fix");
        assert!(out.contains("{\"inferenc\": True}") && out.contains("{\"torch.float32\": \"^add$\"}"), "{out}");
        let misspelt =
            "manifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"capabilities\": {\"inferenc\": True}}\n";
        assert_eq!(fixed(misspelt), None);
        let valid = "manifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"capabilities\": {}}\n";
        assert_eq!(fixed(valid), None);
    }

    #[test]
    fn one_edit_is_the_changed_middle() {
        let e = one_edit("abcXdef", "abcYYdef");
        assert_eq!((e.span, e.new_text.as_str()), (3..4, "YY"));
        let e = one_edit("aé", "aè");
        assert_eq!(apply_edits("aé", &[e]), "aè");
        let e = one_edit("aaa", "aaaa");
        assert_eq!(apply_edits("aaa", &[e]), "aaaa");
    }
}
