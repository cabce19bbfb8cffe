//! `source.fixAll.torchcts`: every *safe* quick fix of a manifest applied at once.
//!
//! Safe (issue 24, in ruff's terms): the fix restores what the text evidently meant, leaves
//! the selection of tests to that one entry, and has exactly one candidate: CPython's
//! missing comma or colon, a capability torchcts renamed (`generator` ->
//! `device_generator`), a string dtype key written as selection matches it (`torch.`).
//! Which fixes are safe is decided here, in [`is_safe`], from the finding's code and fix
//! data, until the core's `QuickFix` carries that decision itself (the CLI's `check --fix`
//! needs the same one); then `is_safe` becomes a read of that flag.
//!
//! The fixes come from the core (`actions::quick_fixes_until`), each already checked by its
//! fix check. They are applied in rounds (a repaired comma lets the file evaluate, which
//! may reveal a stale capability whose rename is safe too), at most [`ROUNDS`], and the
//! result is checked as a whole against the text as it is: it must load if the text did,
//! and have no finding (code and message) the text did not have. Otherwise nothing is
//! offered. The action is one edit: the changed middle of the text.

use torchcts_core::actions::{apply_edits, quick_fixes_until, QuickFix, TextEdit};
use torchcts_core::analysis::analyze_parsed;
use torchcts_core::fix_data::{FixData, KeySection};
use torchcts_core::validate::STALE_CAPABILITIES;
use torchcts_core::{Analysis, AnalysisInput, Cancel, Cancellable, Finding};

/// Rounds of fixing (each: an analysis, the fix check of its fixes).
const ROUNDS: usize = 4;

/// Findings that mean the manifest does not load: `check-manifest` stops at them.
const DOES_NOT_LOAD: [&str; 4] = ["syntax-error", "load-error", "not-a-dict", "check-crash"];

/// Whether `fix` (one of `all`, the fixes offered for the same analysis) is safe.
/// The one place that decides; see the module's documentation.
pub fn is_safe(analysis: &Analysis, fix: &QuickFix, all: &[QuickFix]) -> bool {
    let Some(finding) = analysis.findings.get(fix.finding) else { return false };
    let candidates = all.iter().filter(|f| f.finding == fix.finding).count();
    match (&finding.data, finding.code) {
        // CPython names exactly one repair: a ',' or ':' inserted.
        (Some(FixData::SyntaxRepairs { fixes }), "syntax-error") => {
            fixes.len() == 1
                && candidates == 1
                && matches!(fix.edits.as_slice(), [e] if e.span.is_empty() && matches!(e.new_text.as_str(), "," | ":"))
        }
        // A renamed capability with one new name; its other candidates are guesses by spelling.
        (Some(FixData::Replacements { name, replacements }), "stale-capability") => {
            renamed_to(name).is_some_and(|new| replacements.len() == 1 && fix.title == format!("Replace with '{new}'"))
        }
        (Some(FixData::UnknownKey { section: KeySection::Capabilities, name }), "unknown-key") => {
            renamed_to(name).is_some_and(|new| fix.title == format!("Replace with '{new}'"))
        }
        // The key's one spelling that selection matches: `torch.ATTR`.
        (Some(FixData::DtypeKeyIgnored { attr, .. }), "dtype-key-ignored") => {
            candidates == 1 && fix.edits.iter().all(|e| e.new_text == format!("torch.{attr}"))
        }
        _ => false,
    }
}

/// The one name torchcts renamed capability `name` to, if it renamed it to one.
fn renamed_to(name: &str) -> Option<&'static str> {
    match STALE_CAPABILITIES.iter().find(|(old, _)| *old == name) {
        Some((_, [one])) => Some(one),
        _ => None,
    }
}

/// The safe fixes of `analysis` among `fixes`, without two that overlap (the first kept).
fn safe_fixes(analysis: &Analysis, fixes: &[QuickFix]) -> Vec<TextEdit> {
    let mut edits: Vec<TextEdit> = Vec::new();
    for fix in fixes.iter().filter(|f| is_safe(analysis, f, fixes)) {
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
pub fn has_safe(analysis: &Analysis, fixes: &[QuickFix]) -> bool {
    fixes.iter().any(|f| is_safe(analysis, f, fixes))
}

/// The text with every safe fix applied, as one edit of `analysis.text`, and how many
/// fixes it applies; `None` when there is none or the result is not better (see the
/// module's documentation).
pub fn fix_all(analysis: &Analysis, cancel: &Cancel) -> Cancellable<Option<(TextEdit, usize)>> {
    let input = AnalysisInput { file_name: Some(&analysis.file_name), ..AnalysisInput::default() };
    let analyse = |text: &str| -> Cancellable<Analysis> {
        analyze_parsed(text, torchcts_core::syntax::parse(text, None), &input, cancel)
    };
    // The text as it is, analysed as the fixed one will be (no inventory, no file system).
    let before = analyse(&analysis.text)?;
    let mut current = None::<Analysis>;
    let mut applied = 0;
    for _ in 0..ROUNDS {
        let now = current.as_ref().unwrap_or(&before);
        let fixes = quick_fixes_until(now, 0..now.text.len(), cancel)?;
        let edits = safe_fixes(now, &fixes);
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

fn without_line_numbers(message: &str) -> String {
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
        torchcts_core::analyze(text, &AnalysisInput { file_name: Some("manifest.py"), ..AnalysisInput::default() })
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
        // A misspelt key has several candidates; a dtype key without `import torch` would be
        // rewritten as a string, not the torch. form.
        let text = "manifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"capabilities\": {\"inferenc\": True}, \"supported_dtypes\": {\"float32\": \"^add$\"}}\n";
        assert_eq!(fixed(text), None);
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
