//! A quick fix and its text edits, and the dict entry (`pair`) of a key they edit.

use crate::analysis::Analysis;
use crate::value::Span;
use tree_sitter::Node;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TextEdit {
    pub span: Span,
    pub new_text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct QuickFix {
    pub title: String,
    /// Index into `analysis.findings` of the finding this fixes.
    pub finding: usize,
    pub edits: Vec<TextEdit>,
    pub preferred: bool,
    /// Safe to apply without asking (`check --fix`, `source.fixAll.torchcts`): the fix
    /// restores what the text evidently meant, has exactly one candidate, and changes the
    /// selection of tests of its own entry only (CPython's one missing comma or colon, a
    /// capability torchcts renamed to one name, a string dtype key written as `torch.X`).
    /// A fix that picks among several candidates or changes other entries' tests is not.
    pub safe: bool,
}

/// Applies edits (non-overlapping) to a text; for tests and for previews.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.span.start));
    let mut out = text.to_string();
    for e in sorted {
        out.replace_range(e.span.clone(), &e.new_text);
    }
    out
}

pub(super) fn pair_of_key<'t>(analysis: &'t Analysis, key_span: &Span) -> Option<Node<'t>> {
    let node = analysis.tree.root_node().named_descendant_for_byte_range(key_span.start, key_span.end)?;
    let mut n = node;
    for _ in 0..4 {
        if n.kind() == "pair" {
            return Some(n);
        }
        n = n.parent()?;
    }
    None
}
