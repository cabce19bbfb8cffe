//! Document highlight: the occurrences of the module-level name under the cursor, each
//! marked as a read or a write.

use super::scopes::{module_names, Role};
use crate::value::Span;
use tree_sitter::Tree;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    /// A binding or a `del`.
    Write,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Highlight {
    pub span: Span,
    pub access: Access,
}

/// The occurrences of the module-level name at `offset`, in source order.
pub fn highlights(tree: &Tree, text: &str, offset: usize) -> Vec<Highlight> {
    let names = module_names(tree, text);
    let Some(at) = names.at(offset) else { return Vec::new() };
    names
        .of(&at.name)
        .map(|o| Highlight {
            span: o.span.clone(),
            access: if o.role == Role::Read { Access::Read } else { Access::Write },
        })
        .collect()
}
