//! Where an unparenthesized walrus (`name := value`) may stand, which tree-sitter reads in
//! more places than CPython's grammar has `named_expression` (CPython 3.10-3.13 alike): an
//! item of brackets, a call's positional argument, a subscript's index, the condition of
//! `if`, `elif` and `while`, a comprehension's element, a decorator, a `match` subject and a
//! `case` guard. Anywhere else (`x = y := 1`, `assert y := 1`, a comprehension's `if`, a
//! keyword argument, an operand) it is invalid syntax at the `:=`; as the condition of a
//! conditional expression, `expected 'else' after 'if' expression`.

use tree_sitter::Node;

/// Where a walrus stands, as far as CPython's grammar is concerned.
enum Place {
    /// A `named_expression` of the grammar: brackets, a subscript, a condition, ...: the
    /// element is read as one, `invalid_named_expression` naming what precedes the `:=`.
    Named,
    /// A call's positional argument: a walrus there, or an expression, nothing between.
    Argument,
    /// Anywhere else: only an expression.
    Expression,
}

/// The error CPython reports for the walrus `named` where it stands, if it may not stand
/// there: its byte offset and message. None where it may, or where another rule (a lambda's
/// body, a dict's pair, an annotation, a statement of its own) names the error.
pub(super) fn walrus_out_of_place(named: Node) -> Option<(usize, &'static str)> {
    let parent = named.parent()?;
    // Named by their own rules, or read otherwise (an f-string's field, an error).
    if matches!(parent.kind(), "lambda" | "pair" | "type" | "expression_statement" | "interpolation" | "ERROR")
        || named.has_error()
    {
        return None;
    }
    // The element the walrus is part of (`a or y := 1` in `[a or y := 1]`), and its place.
    let mut element = named;
    let mut place = Place::Expression;
    while let Some(above) = element.parent() {
        if let Some(found) = place_of(above, element) {
            place = found;
            break;
        }
        if !EXPRESSIONS.contains(&above.kind()) {
            break;
        }
        element = above;
    }
    let walrus = (0..named.child_count()).filter_map(|i| named.child(i)).find(|c| c.kind() == ":=")?;
    // `a if y := 1 else b`: the condition is a disjunction, and CPython's rule for an `if`
    // without `else` names it, from the conditional's start, wherever it stands.
    if parent.kind() == "conditional_expression" && parent.named_child(1).is_some_and(|c| c.id() == named.id()) {
        return Some((parent.start_byte(), "expected 'else' after 'if' expression"));
    }
    match place {
        Place::Named | Place::Argument if element.id() == named.id() => None,
        Place::Named => Some((element.start_byte(), walrus_after(element)?)),
        _ => Some((walrus.start_byte(), "invalid syntax")),
    }
}

/// The expressions a walrus may be an operand of in tree-sitter's reading (its value
/// reaching to their end).
const EXPRESSIONS: [&str; 8] = [
    "boolean_operator",
    "not_operator",
    "comparison_operator",
    "binary_operator",
    "unary_operator",
    "conditional_expression",
    "await",
    "lambda",
];

/// Where `node`, a child of `parent`, stands, if `parent` is a place of its own.
fn place_of(parent: Node, node: Node) -> Option<Place> {
    let field_is = |field: &str| parent.child_by_field_name(field).is_some_and(|c| c.id() == node.id());
    Some(match parent.kind() {
        "parenthesized_expression" | "list" | "set" | "tuple" | "subscript" | "decorator" => Place::Named,
        "list_comprehension" | "set_comprehension" | "generator_expression" if field_is("body") => Place::Named,
        "if_statement" | "elif_clause" | "while_statement" if field_is("condition") => Place::Named,
        "match_statement" if field_is("subject") => Place::Named,
        // A `case` guard; a comprehension's `if` takes a disjunction.
        "if_clause" if parent.parent().is_some_and(|p| p.kind() == "case_clause") => Place::Named,
        "argument_list" => Place::Argument,
        _ => return None,
    })
}

/// `invalid_named_expression`'s message for an element read as tree-sitter's `element`
/// (`_PyPegen_get_expr_name` of what precedes the `:=`).
fn walrus_after(element: Node) -> Option<&'static str> {
    Some(match element.kind() {
        "boolean_operator" | "not_operator" | "binary_operator" | "unary_operator" => {
            "cannot use assignment expressions with expression"
        }
        "comparison_operator" => "cannot use assignment expressions with comparison",
        "conditional_expression" => "cannot use assignment expressions with conditional expression",
        "await" => "cannot use assignment expressions with await expression",
        "lambda" => "cannot use assignment expressions with lambda",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::estimate::tests::assert_errors;
    use super::super::python_syntax_error;
    use crate::syntax::parse;

    /// CPython 3.10, 3.11 and 3.13's compile() of the same sources (one answer in all;
    /// `x = int :=("nan")` was the differential's seed 913115, which no rule caught, so
    /// CPython was never asked).
    #[test]
    fn a_walrus_outside_its_places_is_an_error() {
        let cases: &[(&str, &str, usize)] = &[
            ("x = int :=(\"nan\")\n", "invalid syntax", 1),
            ("x = y := 1\n", "invalid syntax", 1),
            ("x = f(a=y := 1)\n", "invalid syntax", 1),
            ("x = a[1:y := 2]\n", "invalid syntax", 1),
            ("x = [y for y in z if w := 1]\n", "invalid syntax", 1),
            ("x = 1 if y := 2 else 3\n", "expected 'else' after 'if' expression", 1),
            ("x = (\n  1 if\n  y := 2 else 3)\n", "expected 'else' after 'if' expression", 2),
            ("assert y := 1\n", "invalid syntax", 1),
            ("x = 1, y := 2\n", "invalid syntax", 1),
            ("for a in y := [1]: pass\n", "invalid syntax", 1),
            ("with y := 1: pass\n", "invalid syntax", 1),
            ("x = not y := 1\n", "invalid syntax", 1),
            ("raise y := 1\n", "invalid syntax", 1),
            ("x = f(**y := 1)\n", "invalid syntax", 1),
            ("def f():\n    return y := 1\n", "invalid syntax", 2),
            ("x = f(a or y := 1)\n", "invalid syntax", 1),
            ("if not y := 1: pass\n", "cannot use assignment expressions with expression", 1),
            ("x = [a if b else y := 1]\n", "cannot use assignment expressions with conditional expression", 1),
            ("x = [a, not y := 1]\n", "cannot use assignment expressions with expression", 1),
            ("x = {a or y := 1}\n", "cannot use assignment expressions with expression", 1),
            ("x = [lambda: a or y := 1]\n", "cannot use assignment expressions with lambda", 1),
            ("x = [a if y := 1 else b]\n", "expected 'else' after 'if' expression", 1),
            ("match a or y := 1:\n    case 1: pass\n", "cannot use assignment expressions with expression", 1),
        ];
        assert_errors(cases);
        let valid = [
            "x = f(y := 1)\n",
            "x = a[y := 1, 2]\n",
            "x = [w := 1 for y in z]\n",
            "x = (w := 1 for y in z)\n",
            "@y := d\ndef f(): pass\n",
            "match y := 1:\n    case 1 if z := 2: pass\n",
            "if 1: pass\nelif y := 1: pass\n",
            "x = (1, y := 2)\n",
            "x = {1, 2, y := 3}\n",
            "class A(y := 1): pass\n",
        ];
        for text in valid {
            assert_eq!(python_syntax_error(&parse(text, None), text), None, "{text:?}");
        }
    }
}
