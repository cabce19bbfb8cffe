//! The code action that adds a suppression comment (`# torchcts-lsp: ignore[CODE]`, see
//! [`crate::suppress`]) for one of torchcts-lsp's own findings. Not offered for
//! check-manifest's findings: a comment cannot silence the real tool.

use super::edits::{QuickFix, TextEdit};
use crate::analysis::Analysis;
use crate::codes::{self, Category};
use crate::findings::Origin;
use crate::suppress::MARKER;
use crate::value::Span;

/// "Ignore CODE on this line" for each of our findings that overlaps `range`: appends
/// `  # torchcts-lsp: ignore[CODE]` to the finding's first line, or adds the code to the
/// `ignore[...]` comment already there. Not safe (it hides, it does not fix).
pub fn suppression_fixes(analysis: &Analysis, range: Span) -> Vec<QuickFix> {
    let mut out: Vec<QuickFix> = Vec::new();
    for (index, f) in analysis.findings.iter().enumerate() {
        let overlaps = f.span.start <= range.end && range.start <= f.span.end;
        if !overlaps || f.origin != Origin::Lsp || codes::in_category(f.code, Category::Suppression) {
            continue;
        }
        let Some(edit) = suppression_edit(analysis, f.span.start, f.code) else { continue };
        let title = format!("Ignore `{}` on this line (# torchcts-lsp: ignore[{}])", f.code, f.code);
        if out.iter().any(|q| q.title == title && q.edits == [edit.clone()]) {
            continue;
        }
        out.push(QuickFix { title, finding: index, edits: vec![edit], preferred: false, safe: false });
    }
    out
}

/// The edit that names `code` in a line suppression on the line of `offset`; `None` where
/// the line ends inside a string (a comment cannot go there).
fn suppression_edit(analysis: &Analysis, offset: usize, code: &str) -> Option<TextEdit> {
    let text = analysis.text.as_str();
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line_end = text[offset..].find(['\n', '\r']).map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let marker = format!("{MARKER} ignore[");
    if let Some(at) = line.find(&marker) {
        let open = line_start + at + marker.len();
        let close = text[open..line_end].find(']')? + open;
        let sep = if text[open..close].trim().is_empty() { "" } else { ", " };
        return Some(TextEdit { span: close..close, new_text: format!("{sep}{code}") });
    }
    if line_end > 0 {
        let last = analysis.tree.root_node().descendant_for_byte_range(line_end - 1, line_end)?;
        let mut node = Some(last);
        while let Some(n) = node {
            if n.kind() == "string" && n.end_byte() > line_end {
                return None;
            }
            node = n.parent();
        }
    }
    let content_end = line_start + line.trim_end().len();
    Some(TextEdit { span: content_end..line_end, new_text: format!("  # {MARKER} ignore[{code}]") })
}

#[cfg(test)]
mod tests {
    use super::suppression_fixes;
    use crate::actions::apply_edits;
    use crate::{analyze, AnalysisInput};

    #[test]
    fn the_action_adds_a_comment_that_silences_the_finding() {
        let text = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"capabilities\": {},\n    \"device_name\": \"cpu\",\n}\n";
        let a = analyze(text, &AnalysisInput::default());
        let fixes = suppression_fixes(&a, 0..text.len());
        let fix = fixes.iter().find(|f| f.title.contains("duplicate-key")).expect("a suppression action");
        let fixed = apply_edits(text, &fix.edits);
        assert!(fixed.contains("\"cpu\",  # torchcts-lsp: ignore[duplicate-key]\n"), "{fixed}");
        let after = analyze(&fixed, &AnalysisInput::default());
        assert!(!after.findings.iter().any(|f| f.code == "duplicate-key" || f.code == "unused-suppression"));
        // No action for check-manifest's own findings.
        assert!(fixes.iter().all(|f| a.findings[f.finding].origin == crate::Origin::Lsp));
    }
}
