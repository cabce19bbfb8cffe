//! Find references: every occurrence of the module-level name under the cursor.

use super::scopes::module_names;
use crate::value::Span;
use tree_sitter::Tree;

/// The occurrences of the module-level name at `offset`, in source order; its bindings only
/// with `include_declaration` (a `del` is a reference).
pub fn references(tree: &Tree, text: &str, offset: usize, include_declaration: bool) -> Vec<Span> {
    let names = module_names(tree, text);
    let Some(at) = names.at(offset) else { return Vec::new() };
    names.of(&at.name).filter(|o| include_declaration || !o.role.binds()).map(|o| o.span.clone()).collect()
}
