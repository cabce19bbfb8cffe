//! The syntax tree: parsing with tree-sitter-python ([`parse`], [`apply_edit`]), the
//! syntax errors tree-sitter finds ([`syntax_findings`]), and the entries of a
//! `manifest = {` still read from a broken tree ([`recovered_manifest_pairs`]).
//!
//! What CPython would say about a file that does not compile is [`crate::cpython`]'s.

mod annotated;
mod findings;
mod leniency;
mod parse;
mod recovery;

pub use annotated::{annotated_extent, annotated_statement_parses, function_annotation_extent, AnnotatedExtent};
pub use findings::syntax_findings;
pub use parse::{
    apply_edit, child_of_kind, has_lone_cr, leading_star, needs_own_parse, node_text, parse, parse_parenthesized,
};
pub use recovery::recovered_manifest_pairs;
