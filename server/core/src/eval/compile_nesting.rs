//! CPython refuses to compile a module whose syntax tree nests too deeply: its AST
//! optimiser and symbol table count one level per statement and per expression node and
//! raise `RecursionError: maximum recursion depth exceeded during compilation` past a
//! limit. A long chain without brackets (`a.b.b...`, `1+1+...`, `a[0][0]...`, `f()()...`)
//! reaches it long before the 200 nested brackets the tokenizer allows, so `check-manifest`
//! reports `Failed to parse manifest: maximum recursion depth exceeded during compilation`.

use crate::cancel::{Cancel, Cancellable, CHECK_EVERY};
use crate::fields::{Field, FieldChild};
use tree_sitter::{Node, Tree};

/// The deepest nesting that still compiles when torchcts loads a manifest: measured with the
/// real `torchcts check-manifest` (CPython 3.11) on `x = a` followed by N links of `.b`,
/// `+1`, `[0]` or `()`: 2,974 links load, 2,975 fail. The statement counts one level and
/// the chain N + 1 (its leaf is the name `a`), so 1 + 2,975 is the last depth accepted.
/// (The limit is 3 x the recursion limit of 1,000, less the frames torchcts's loader is
/// already in.)
pub(super) const COMPILE_NESTING_LIMIT: usize = 2976;

pub(super) const MESSAGE: &str = "maximum recursion depth exceeded during compilation";

/// The first node (in source order) whose nesting exceeds [`COMPILE_NESTING_LIMIT`].
/// Iterative and linear in the size of the tree; a subtree too small to reach the limit is
/// not walked.
pub(super) fn too_deeply_nested<'t>(tree: &'t Tree, text: &str, cancel: &Cancel) -> Cancellable<Option<Node<'t>>> {
    let mut cursor = tree.walk();
    // For each ancestor of the cursor's node: its node and its nesting depth.
    let mut ancestors: Vec<(Node<'t>, usize)> = Vec::new();
    let mut visited = 0usize;
    loop {
        visited += 1;
        if visited.is_multiple_of(CHECK_EVERY) {
            cancel.check()?;
        }
        let node = cursor.node();
        let parent = ancestors.last().copied();
        let depth = parent.map_or(0, |(_, d)| d) + weight(node, parent.map(|(p, _)| p), cursor.field_name(), text);
        if depth > COMPILE_NESTING_LIMIT {
            return Ok(Some(node));
        }
        // Each node below adds at most one level: a subtree with too few nodes to reach the
        // limit (an entry of a large literal) is not walked.
        let may_reach_limit = depth + node.descendant_count() > COMPILE_NESTING_LIMIT;
        if may_reach_limit && cursor.goto_first_child() {
            ancestors.push((node, depth));
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(None);
            }
            ancestors.pop();
        }
    }
}

/// How many levels CPython's AST gives this node: one for a statement or an expression,
/// none for what is not an AST node of its own (brackets, argument lists, dict pairs,
/// keyword arguments, blocks, the pieces of a string).
fn weight(node: Node, parent: Option<Node>, field: Option<&str>, text: &str) -> usize {
    if !node.is_named() {
        return 0;
    }
    match node.kind() {
        "module"
        | "block"
        | "comment"
        | "ERROR"
        | "assignment"
        | "augmented_assignment"
        | "parenthesized_expression"
        | "argument_list"
        | "pair"
        | "keyword_argument"
        | "dictionary_splat"
        | "type"
        | "decorator"
        | "decorated_definition"
        | "parameters"
        | "lambda_parameters"
        | "default_parameter"
        | "typed_parameter"
        | "typed_default_parameter"
        | "for_in_clause"
        | "if_clause"
        | "else_clause"
        | "except_clause"
        | "finally_clause"
        | "with_clause"
        | "with_item"
        | "string_start"
        | "string_content"
        | "string_end"
        | "escape_sequence"
        | "escape_interpolation"
        | "format_specifier"
        | "line_continuation" => 0,
        // `a or b or c` is one BoolOp with three values in CPython; tree-sitter nests it.
        "boolean_operator" => {
            let same_op_left = field == Some("left")
                && parent.is_some_and(|p| p.kind() == "boolean_operator" && operator(p, text) == operator(node, text));
            usize::from(!same_op_left)
        }
        _ => 1,
    }
}

fn operator<'a>(node: Node, text: &'a str) -> &'a str {
    node.field(Field::Operator).map_or("", |op| &text[op.byte_range()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    fn nested(text: &str) -> bool {
        let tree = parse(text, None);
        crate::cancel::uncancelled(|cancel| Ok(too_deeply_nested(&tree, text, cancel)?.is_some()))
    }

    fn chain(links: usize, link: &str) -> String {
        format!("x = a{}\n", link.repeat(links))
    }

    /// The boundary measured with the real check-manifest (see COMPILE_NESTING_LIMIT).
    #[test]
    fn chains_fail_one_link_past_the_measured_boundary() {
        for link in [".b", "+1", "[0]", "()"] {
            assert!(!nested(&chain(2974, link)), "{link}: 2974 links compile");
            assert!(nested(&chain(2975, link)), "{link}: 2975 links do not");
        }
    }

    /// Each shape with the longest chain the real check-manifest still compiles (N) and
    /// N + 1, which it refuses: a statement in a block, a call or a dict around the chain
    /// each add a level; unary operators count like links.
    #[test]
    fn enclosing_statements_and_expressions_add_levels_as_measured() {
        let shapes: [(&str, usize); 6] = [
            ("a@\n", 2974),
            ("if True:\n    x = a@\n", 2973),
            ("x = f(a@)\n", 2973),
            ("x = {1: a@}\n", 2973),
            ("x = @1\n", 2974),
            ("x = @1\n", 2974),
        ];
        let links = [".b", ".b", ".b", ".b", "-", "not "];
        for ((shape, last_ok), link) in shapes.into_iter().zip(links) {
            let text = |n: usize| shape.replace('@', &link.repeat(n));
            assert!(!nested(&text(last_ok)), "{shape} {link} x{last_ok} compiles");
            assert!(nested(&text(last_ok + 1)), "{shape} {link} x{} does not", last_ok + 1);
        }
    }

    #[test]
    fn flat_constructs_do_not_nest() {
        // One BoolOp, one Compare, one dict: each a single level however long.
        let ors = format!("x = a{}\n", " or a".repeat(5000));
        let cmp = format!("x = a{}\n", " < a".repeat(5000));
        let dict = format!("x = {{{}}}\n", "1: 2, ".repeat(5000));
        let strings = format!("x = {}\n", "'s' ".repeat(5000));
        for text in [ors, cmp, dict, strings] {
            assert!(!nested(&text));
        }
    }

    #[test]
    fn an_or_of_ands_is_one_boolop_of_boolops() {
        // `a or a and a or ...`: one `or` BoolOp whose values are `and` BoolOps, depth 3.
        let mixed = format!("x = a{}\n", " or a and a".repeat(3000));
        assert!(!nested(&mixed));
        // Left-nested through parentheses: each pair of brackets is a new BoolOp.
        assert!(!nested(&format!("x = {}a{}\n", "(".repeat(150), " or a)".repeat(150))));
    }

    #[test]
    fn deep_trees_are_walked_without_recursion() {
        assert!(nested(&chain(200_000, ".b")));
    }
}
