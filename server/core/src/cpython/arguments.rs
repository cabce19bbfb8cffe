//! The errors of call arguments tree-sitter accepts: out of order (a parser error) and
//! a keyword given twice (the compiler's).

use super::error::line_at;
use super::error::PythonSyntaxError;
use crate::fields::{Field, FieldChild};
use crate::syntax::node_text;
use tree_sitter::{Node, Tree};

/// Every call's argument list, outer before inner, in source order.
pub(super) fn argument_lists<'t>(tree: &'t Tree, text: &str) -> Vec<Node<'t>> {
    // Only a subtree with a '(' can hold an argument list: the others (a large literal) are
    // skipped whole, found by binary search over the positions of the '('s.
    let parens: Vec<usize> = text.bytes().enumerate().filter(|&(_, b)| b == b'(').map(|(i, _)| i).collect();
    let has_paren = |node: Node| {
        let first = parens.partition_point(|&p| p < node.start_byte());
        parens.get(first).is_some_and(|&p| p < node.end_byte())
    };
    let mut lists = Vec::new();
    let mut cursor = tree.walk();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if !has_paren(node) {
            continue;
        }
        if node.kind() == "argument_list" {
            lists.push(node);
        }
        // Children in reverse so that they are visited in source order.
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    lists
}

/// The compiler's error for a file that parses: a keyword argument given twice in one
/// call (`dict(a=1, a=2)`), on the line of the repeat.
pub(super) fn repeated_keyword(calls: &[Node], text: &str) -> Option<PythonSyntaxError> {
    for list in calls {
        let mut cursor = list.walk();
        let mut seen = std::collections::HashSet::new();
        for arg in list.named_children(&mut cursor) {
            let Some(name) = arg.field(Field::Name).filter(|_| arg.kind() == "keyword_argument") else {
                continue;
            };
            let name = node_text(name, text);
            if !seen.insert(name) {
                return Some(PythonSyntaxError {
                    message: format!("keyword argument repeated: {name}"),
                    line: line_at(text, arg.start_byte()),
                    fixes: Vec::new(),
                });
            }
        }
    }
    None
}

/// CPython's parser error for call arguments out of order, which tree-sitter accepts
/// (`f(a=1, 2)`, `f(**k, 2)`, `f(**k, *a)`), with the byte it is reported at: the call's
/// closing ')' (its parser has read the whole call), or the `*` of an iterable unpacking
/// after `**`. Of several, the one reported first: an inner call closes before its outer
/// one. Checked against CPython 3.11.7 (`syntax.rs` tests).
pub(super) fn argument_order_error(calls: &[Node], text: &str) -> Option<(usize, PythonSyntaxError)> {
    let mut found: Option<(usize, PythonSyntaxError)> = None;
    for list in calls.iter().filter(|list| !list.has_error()) {
        let mut cursor = list.walk();
        let (mut keyword, mut unpacking) = (false, false);
        let mut error = None;
        for arg in list.named_children(&mut cursor) {
            let message = match arg.kind() {
                "comment" => continue,
                "keyword_argument" => {
                    keyword = true;
                    continue;
                }
                "dictionary_splat" => {
                    unpacking = true;
                    continue;
                }
                "list_splat" if unpacking => {
                    error = Some((arg.start_byte(), "iterable argument unpacking follows keyword argument unpacking"));
                    break;
                }
                "list_splat" => continue,
                _ if unpacking => "positional argument follows keyword argument unpacking",
                _ if keyword => "positional argument follows keyword argument",
                _ => continue,
            };
            error = Some((list.end_byte().saturating_sub(1), message));
            break;
        }
        if let Some((offset, message)) = error {
            if found.as_ref().is_none_or(|(at, _)| offset < *at) {
                let error =
                    PythonSyntaxError { message: message.into(), line: line_at(text, offset), fixes: Vec::new() };
                found = Some((offset, error));
            }
        }
    }
    found
}
