//! Sets as CPython 3.11 builds them, so that their repr is printed in its order where that
//! order is known (see [`set_iteration_order`]): a `Set` holds its elements in an order
//! whose insertion one by one into an empty set gives CPython's table.
//!
//! A display `{a, b, c}` of more than two constants is compiled to a frozenset constant
//! (built from the elements, then rebuilt from its own iteration order when the compiler
//! merges constants) that an empty set is updated from; other displays add their elements
//! one by one (`BUILD_SET`).

use crate::value::{py_eq, set_iteration_order, Value};
use tree_sitter::Node;

/// Whether the compiler folds this element of a display into a constant: `Some(true)` for
/// literals (and `-1`), `Some(false)` for names and other runtime values, `None` where not
/// known here (an operator it may fold).
pub(super) fn constant(node: Node) -> Option<bool> {
    match node.kind() {
        "integer" | "float" | "true" | "false" | "none" => Some(true),
        // An f-string with fields is built at run time.
        "string" | "concatenated_string" => Some(!interpolated(node)),
        "unary_operator"
            if matches!(node.child_by_field_name("argument").map(|a| a.kind()), Some("integer" | "float")) =>
        {
            Some(true)
        }
        // An operator on a runtime value is not folded; on constants, it may be.
        "unary_operator" | "binary_operator" | "parenthesized_expression" | "boolean_operator" => {
            let mut cursor = node.walk();
            let operands: Vec<Node> = node.named_children(&mut cursor).collect();
            operands.into_iter().any(|o| constant(o) == Some(false)).then_some(false)
        }
        "identifier"
        | "call"
        | "attribute"
        | "subscript"
        | "list"
        | "dictionary"
        | "set"
        | "list_comprehension"
        | "dictionary_comprehension"
        | "set_comprehension"
        | "generator_expression" => Some(false),
        _ => None,
    }
}

/// The distinct `elements` of a display of `displayed` elements, in an order that builds
/// CPython's table; `None` where that order depends on what is not known here.
pub(super) fn as_built(elements: Vec<Value>, displayed: usize, constness: &[Option<bool>]) -> Option<Vec<Value>> {
    let Some(once) = set_iteration_order(&elements) else {
        // Not an order we know: any order is as good (its repr is not claimed).
        return Some(elements);
    };
    let folded = displayed > 2 && constness.iter().all(|c| *c == Some(true));
    let built = displayed > 2 && constness.contains(&Some(false));
    if folded {
        // The frozenset's iteration order is the order its copy was built in.
        return Some(once);
    }
    if built || displayed <= 2 || set_iteration_order(&once).is_some_and(|twice| same_order(&twice, &once)) {
        return Some(elements);
    }
    None
}

fn interpolated(node: Node) -> bool {
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    children.into_iter().any(|c| c.kind() == "interpolation" || (c.kind() == "string" && interpolated(c)))
}

fn same_order(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| py_eq(x, y) == Some(true))
}

/// `a op b` for two sets (`|`, `&`, `-`, `^`), where the result's order is known: a union
/// copies `a`'s table and adds `b`'s elements in `b`'s order (while the two hold 4 at most,
/// so the table is not resized); the others only where at most one element is left.
pub(super) fn algebra(op: &str, a: &[Value], b: &[Value]) -> Option<Vec<Value>> {
    let in_set = |set: &[Value], v: &Value| set.iter().any(|e| py_eq(e, v) == Some(true));
    let out: Vec<Value> = match op {
        "|" => {
            let b_order = set_iteration_order(b).unwrap_or_else(|| b.to_vec());
            let mut out = a.to_vec();
            out.extend(b_order.into_iter().filter(|v| !in_set(a, v)));
            if a.len() + b.len() > 4 && out.len() <= 4 {
                // Merging resized the table: an order we do not know, for a set we would
                // otherwise claim to know.
                return None;
            }
            return Some(out);
        }
        "&" => a.iter().filter(|v| in_set(b, v)).cloned().collect(),
        "-" => a.iter().filter(|v| !in_set(b, v)).cloned().collect(),
        "^" => a.iter().filter(|v| !in_set(b, v)).chain(b.iter().filter(|v| !in_set(a, v))).cloned().collect(),
        _ => return None,
    };
    (out.len() <= 1).then_some(out)
}
