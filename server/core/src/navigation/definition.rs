//! Go to definition: the bindings of the module-level name under the cursor.

use super::scopes::module_names;
use crate::value::Span;
use tree_sitter::Tree;

/// Where the module-level name at `offset` is bound (assignments, `def`/`class`, loop and
/// `with` targets, imports), in source order; empty when the cursor is on no such name or
/// the name is bound nowhere in the file (a builtin, or undefined).
pub fn definition(tree: &Tree, text: &str, offset: usize) -> Vec<Span> {
    let names = module_names(tree, text);
    let Some(at) = names.at(offset) else { return Vec::new() };
    names.of(&at.name).filter(|o| o.role.binds()).map(|o| o.span.clone()).collect()
}
