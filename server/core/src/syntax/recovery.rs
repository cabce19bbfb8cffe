//! Entries recovered from a broken tree: the `manifest = {` whose entries tree-sitter
//! turned into one ERROR node of loose tokens.

use super::parse::node_text;
use tree_sitter::Node;

/// In a half-typed file tree-sitter often turns `manifest = {` and the entries after it
/// into one ERROR node of loose tokens. When `error` starts with `manifest = {`, returns the
/// `(name, pairs)` it still holds, so the intact entries can be evaluated and outlined.
pub fn recovered_manifest_pairs<'t>(error: Node<'t>, text: &str) -> Option<(Node<'t>, Vec<Node<'t>>)> {
    if !error.is_error() {
        return None;
    }
    let mut cursor = error.walk();
    let children: Vec<Node> = error.children(&mut cursor).collect();
    let name = *children.first()?;
    if name.kind() != "identifier" || node_text(name, text) != "manifest" {
        return None;
    }
    let eq = children.iter().position(|c| c.kind() == "=")?;
    if children.get(eq + 1).map(|c| c.kind()) != Some("{") {
        return None;
    }
    let pairs =
        children[eq + 2..].iter().copied().filter(|c| matches!(c.kind(), "pair" | "dictionary_splat")).collect();
    Some((name, pairs))
}
