//! Selection ranges: from the cursor outwards over the syntax tree (a token, its string, the
//! list item, the list, the key/value pair, the dict, the statement, the file).

use crate::value::Span;
use tree_sitter::Tree;

/// The ranges around `offset`, innermost first, each strictly larger than the one before.
pub fn selection_ranges(tree: &Tree, offset: usize) -> Vec<Span> {
    let root = tree.root_node();
    let offset = offset.min(root.end_byte());
    let mut out: Vec<Span> = Vec::new();
    let mut node = root.descendant_for_byte_range(offset, offset);
    while let Some(n) = node {
        let span = n.byte_range();
        // A node as wide as its child (`expression_statement` around an assignment) adds
        // nothing; the file's leading comments make the module wider than its first node.
        if out.last().is_none_or(|last| span.start < last.start || span.end > last.end) {
            out.push(span);
        }
        node = n.parent();
    }
    out
}
