//! Statement shapes tree-sitter accepts that CPython's grammar refuses (CPython 3.10-3.13's
//! messages; 3.11's where they differ): `raise from x`, a trailing comma in an unbracketed
//! `with`, a `with` target no assignment takes (`with a as f():`), a starred slice bound or
//! return annotation, `assert` with three parts, type parameters (3.12's), a starred
//! annotation on a parameter other than `*args`. Part of `leniencies::tree_shape_error`.

use super::hints::INVALID;
use crate::syntax::child_of_kind;
use tree_sitter::Node;

/// The error CPython reports for `node`'s own shape: its byte offset and message.
pub(super) fn shape_error(node: Node) -> Option<(usize, &'static str)> {
    match node.kind() {
        // `raise from x`: `from` names the cause of an exception raised, never alone.
        "raise_statement" => node.child(1).filter(|c| c.kind() == "from").map(|f| (f.start_byte(), INVALID)),
        // `with a, : pass`: a trailing comma only inside brackets.
        "with_clause" => trailing_with_comma(node),
        // `a[b:*c]`: a slice's bounds are expressions, never starred.
        "slice" => child_of_kind(node, "list_splat").map(|star| (star.start_byte(), INVALID)),
        // `def f() -> *int:`: a return annotation is an expression, never starred.
        "function_definition" => node
            .child_by_field_name("return_type")
            .filter(|t| t.named_child(0).is_some_and(|c| c.kind() == "splat_type"))
            .and_then(|_| child_of_kind(node, "->"))
            .map(|arrow| (arrow.start_byte(), "expected ':'")),
        // `with a as f():`: a `with` target is assigned to (`invalid_with_item`).
        "as_pattern_target" if node.parent().is_some_and(in_with_item) => {
            node.named_child(0).and_then(invalid_with_target)
        }
        // `assert x, y, z`, `assert *a`: a test and a message only, never starred.
        "assert_statement" => {
            let mut cursor = node.walk();
            let parts: Vec<Node> = node.children(&mut cursor).collect();
            let star = parts.iter().find(|c| c.kind() == "list_splat").map(|s| (s.start_byte(), INVALID));
            let second_comma = parts.iter().filter(|c| c.kind() == ",").nth(1).map(|c| (c.start_byte(), INVALID));
            star.into_iter().chain(second_comma).min()
        }
        // `x: a[1:2:3:4]`: a slice has three parts at most (tree-sitter chains the colons of
        // an annotation's subscript as constrained types).
        "constrained_type" => node
            .child_by_field_name("type")
            .or_else(|| node.named_child(1))
            .filter(|t| t.named_child(0).is_some_and(|c| c.kind() == "constrained_type"))
            .and_then(|t| t.named_child(0))
            .and_then(|inner| inner.named_child(1))
            .filter(|t| t.named_child(0).is_some_and(|c| c.kind() == "constrained_type"))
            .map(|t| (t.start_byte(), INVALID)),
        // `def f[T]()`, `class A[T]`: type parameters are CPython 3.12's (3.11's messages).
        "type_parameter" => match node.parent().map(|p| p.kind()) {
            Some("function_definition") => Some((node.start_byte(), "expected '('")),
            Some("class_definition") => Some((node.start_byte(), INVALID)),
            _ => None,
        },
        // `def f(a: *Ts)`: only `*args` takes a starred annotation.
        "typed_parameter" => node
            .child_by_field_name("type")
            .and_then(|t| t.named_child(0))
            .filter(|t| t.kind() == "splat_type")
            .filter(|_| node.named_child(0).is_none_or(|p| p.kind() != "list_splat_pattern"))
            .map(|star| (star.start_byte(), INVALID)),
        _ => None,
    }
}

/// Whether the `as_pattern` `node` is a `with` item's (`with a as b`, `with (a as b)`).
fn in_with_item(node: Node) -> bool {
    match node.parent() {
        Some(p) if p.kind() == "parenthesized_expression" => p.parent().is_some_and(|g| g.kind() == "with_item"),
        Some(p) => p.kind() == "with_item",
        None => false,
    }
}

/// The first part of a `with` target that cannot be assigned to, with CPython 3.10-3.13's
/// message (`cannot assign to function call`); None where all can (or a star, the
/// compiler's error).
fn invalid_with_target(target: Node) -> Option<(usize, &'static str)> {
    let message = match target.kind() {
        "identifier" | "attribute" | "subscript" | "list_splat" => return None,
        "tuple" | "list" | "parenthesized_expression" => {
            let mut cursor = target.walk();
            let items: Vec<Node> = target.named_children(&mut cursor).collect();
            return items.into_iter().find_map(invalid_with_target);
        }
        "call" => "cannot assign to function call",
        "integer" | "float" | "string" | "concatenated_string" => "cannot assign to literal",
        "none" => "cannot assign to None",
        "true" => "cannot assign to True",
        "false" => "cannot assign to False",
        "binary_operator" | "unary_operator" | "boolean_operator" | "not_operator" => "cannot assign to expression",
        "comparison_operator" => "cannot assign to comparison",
        "conditional_expression" => "cannot assign to conditional expression",
        "dictionary" => "cannot assign to dict literal",
        "set" => "cannot assign to set display",
        "lambda" => "cannot assign to lambda",
        "comment" => return None,
        _ => INVALID,
    };
    Some((target.start_byte(), message))
}

/// `with a, : pass`: the comma ending a `with` clause that is not in brackets, as CPython
/// reports it (invalid syntax at the `:`).
fn trailing_with_comma(clause: Node) -> Option<(usize, &'static str)> {
    let last = clause.child(clause.child_count().checked_sub(1)?)?;
    let bracketed = clause.child(0).is_some_and(|c| c.kind() == "(");
    (last.kind() == "," && !bracketed)
        .then(|| (clause.next_sibling().map_or(last.end_byte(), |n| n.start_byte()), INVALID))
}

#[cfg(test)]
mod tests {
    use super::super::estimate::tests::assert_errors;
    use super::super::python_syntax_error;
    use crate::syntax::parse;

    /// Shapes tree-sitter accepts, CPython 3.10-3.13's compile() of the same sources (3.11's
    /// where the versions differ: `/` and parenthesized parameters are `invalid syntax` in
    /// 3.10, type parameters valid from 3.12).
    #[test]
    fn shapes_of_statements_and_parameters_tree_sitter_accepts() {
        let cases: &[(&str, &str, usize)] = &[
            ("raise from x\n", "invalid syntax", 1),
            ("with a, : pass\n", "invalid syntax", 1),
            ("x = a[b:*c]\n", "invalid syntax", 1),
            ("def f() -> *int: pass\n", "expected ':'", 1),
            ("def f(/, a): pass\n", "at least one argument must precede /", 1),
            ("def f(a, /, /): pass\n", "/ may appear only once", 1),
            ("def f(*a, /): pass\n", "/ must be ahead of *", 1),
            ("x = lambda /: 1\n", "invalid syntax", 1),
            ("x = lambda (a): 1\n", "Lambda expression parameters cannot be parenthesized", 1),
            ("def f(a, (b, c)=1): pass\n", "Function parameters cannot be parenthesized", 1),
            ("assert x, y, z\n", "invalid syntax", 1),
            // Seed 913215: `dtypes += torch.int:8` (an annotation to tree-sitter).
            ("dtypes = []\ndtypes += torch.int:8\n", "invalid syntax", 2),
            ("x += y: int = 2\n", "invalid syntax", 1),
            ("def f(a: *Ts): pass\n", "invalid syntax", 1),
            ("def f[T](x): pass\n", "expected '('", 1),
            ("class A[T]: pass\n", "invalid syntax", 1),
            ("with a as f(): pass\n", "cannot assign to function call", 1),
            ("with a as [b, 1]: pass\n", "cannot assign to literal", 1),
            ("with (a as f()): pass\n", "cannot assign to function call", 1),
            ("with a as *b: pass\n", "starred assignment target must be in a list or tuple", 1),
        ];
        assert_errors(cases);
        for text in
            ["with (a as b): pass\n", "with a as (b, c): pass\n", "def f(*args: *Ts): pass\n", "raise x from y\n"]
        {
            assert_eq!(python_syntax_error(&parse(text, None), text), None, "{text:?}");
        }
    }
}
