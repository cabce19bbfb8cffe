//! Parsing with tree-sitter-python, and incremental edits of a parsed text.
//!
//! The tree is error-tolerant: a half-typed file still yields a tree whose intact parts
//! the evaluator can use.

use tree_sitter::{InputEdit, Node, Parser, Point, Tree};

/// Parses Python source. Never fails: tree-sitter always returns a tree for UTF-8 input.
pub fn parse(text: &str, old: Option<&Tree>) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("the bundled grammar's ABI is supported by the bundled tree-sitter");
    // CPython reads a file with universal newlines: a lone CR is a line break. tree-sitter
    // only knows `\n`, so it reads a copy where each lone CR is one (same length, so every
    // byte offset stays the same).
    let normalized;
    let text = if has_lone_cr(text) {
        normalized = lone_cr_as_lf(text);
        normalized.as_str()
    } else {
        text
    };
    parser.parse(text, old).expect("parse only fails on cancellation or timeout, neither of which we set")
}

/// Whether `text` has a CR that is not part of a CRLF (CPython reads it as a line break).
pub fn has_lone_cr(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

fn lone_cr_as_lf(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        out.push(if c == '\r' && bytes.get(i + 1) != Some(&b'\n') { '\n' } else { c });
    }
    out
}

/// Replaces `range` of `text` with `new_text` and edits `tree` to match, so the next parse
/// can reuse it. tree-sitter points count rows by `\n` only and columns in bytes.
pub fn apply_edit(text: &mut String, tree: Option<&mut Tree>, range: std::ops::Range<usize>, new_text: &str) {
    let point = |text: &str, offset: usize| {
        let before = &text[..offset];
        let row = before.matches('\n').count();
        Point { row, column: before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) }
    };
    let (start, end) = (range.start, range.end);
    let start_position = point(text, start);
    let old_end_position = point(text, end);
    text.replace_range(start..end, new_text);
    let new_end = start + new_text.len();
    if let Some(tree) = tree {
        tree.edit(&InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: new_end,
            start_position,
            old_end_position,
            new_end_position: point(text, new_end),
        });
    }
}

/// Text of a node (empty for nodes that do not fall on char boundaries, which cannot happen
/// for a tree of a `&str`).
pub fn node_text<'a>(node: Node, text: &'a str) -> &'a str {
    text.get(node.start_byte()..node.end_byte()).unwrap_or("")
}
