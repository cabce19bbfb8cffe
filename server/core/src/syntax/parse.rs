//! Parsing with tree-sitter-python, and incremental edits of a parsed text.
//!
//! The tree is error-tolerant: a half-typed file still yields a tree whose intact parts
//! the evaluator can use.

pub use super::leniency::has_lone_cr;
use super::leniency::{first_copy, same_length_edits};
use tree_sitter::{InputEdit, Node, Parser, Point, Range, Tree};

/// Parses Python source. Never fails: tree-sitter always returns a tree for UTF-8 input.
///
/// CPython reads a file with universal newlines: a lone CR is a line break. tree-sitter
/// only knows `\n`, so it reads a copy where each lone CR is one; and where it reads some
/// lines otherwise than CPython ([`same_length_edits`]), a copy edited to read as CPython
/// does. Each copy has the text's length, so every byte offset stays the same (and every
/// row, but where lines inside brackets left of their block are joined).
pub fn parse(text: &str, old: Option<&Tree>) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("the bundled grammar's ABI is supported by the bundled tree-sitter");
    let copy = first_copy(text);
    let source = copy.as_deref().unwrap_or(text);
    let tree = parser.parse(source, old).expect("parse only fails on cancellation or timeout, neither of which we set");
    let mut edits = same_length_edits(&tree, source, text);
    if edits.is_empty() {
        return tree;
    }
    let mut bytes = source.as_bytes().to_vec();
    // An edit can bring a later shape into view (`f"{a:=>}|{b:=}"`: the second field reads
    // as one once the first does): a few rounds, each on the copy the last one made.
    let mut tree = tree;
    for _ in 0..3 {
        if edits.is_empty() {
            break;
        }
        for (at, byte) in edits {
            bytes[at] = byte;
        }
        tree =
            parser.parse(&bytes, None).expect("parse only fails on cancellation or timeout, neither of which we set");
        let copy = String::from_utf8_lossy(&bytes);
        edits = same_length_edits(&tree, &copy, text).into_iter().filter(|&(at, byte)| bytes[at] != byte).collect();
    }
    tree
}

/// Whether `tree` (parsed by a caller from `text` as it is) must be parsed again with
/// [`parse`]: tree-sitter reads `text` otherwise than CPython (a lone CR, a backslash
/// continuation inside brackets, a statement joined to the next line).
pub fn needs_own_parse(tree: &Tree, text: &str) -> bool {
    has_lone_cr(text) || text.contains("\\N{") || !same_length_edits(tree, text, text).is_empty()
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

/// The expression between bytes `open` and `close` of `text`, parsed alone as if those two
/// bytes were `(` and `)`: its nodes keep their byte offsets in `text` (not their points). For what
/// tree-sitter's type grammar reads otherwise than Python's expressions (an annotation:
/// `x: m["b":]`, `x: t[int](1)`, `x: a[1].b`). Only the bytes between are read, so the
/// cost is their length. None where `close` is not after `open`, or either is out of
/// `text` (`close` may be its end), or not on a char boundary.
pub fn parse_parenthesized(text: &str, open: usize, close: usize) -> Option<Tree> {
    if open >= close || close > text.len() || !text.is_char_boundary(open + 1) || !text.is_char_boundary(close) {
        return None;
    }
    // Points are not counted (that would read the text before `open`): the evaluator reads
    // byte offsets only.
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
    let range =
        Range { start_byte: open, end_byte: close + 1, start_point: Point::default(), end_point: Point::default() };
    parser.set_included_ranges(&[range]).ok()?;
    let mut bytes = text.as_bytes()[open..close].to_vec();
    let tree = parse_between(&mut parser, &bytes, open, close)?;
    // `tuple[*(str, int)]`: a star tree-sitter does not read in a subscript is left out, as
    // `parse` leaves it out (evaluation finds it in the text).
    let stars = super::leniency::subscript_stars(&tree, &text[open..close]);
    if stars.is_empty() {
        return Some(tree);
    }
    for at in stars {
        bytes[at - open] = b' ';
    }
    parse_between(&mut parser, &bytes, open, close)
}

/// Parses `(` + `between[1..]` + `)`, the text at `open..close` of a longer one.
fn parse_between(parser: &mut Parser, between: &[u8], open: usize, close: usize) -> Option<Tree> {
    let mut read = |at: usize, _: Point| -> &[u8] {
        match at {
            _ if at == open => b"(",
            _ if at == close => b")",
            _ if at > open && at < close => &between[at - open..],
            _ => b"",
        }
    };
    parser.parse_with_options(&mut read, None, None)
}

/// Text of a node (empty for nodes that do not fall on char boundaries, which cannot happen
/// for a tree of a `&str`).
pub fn node_text<'a>(node: Node, text: &'a str) -> &'a str {
    text.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// The first child of `node` (named or not) of `kind` (`:=` of a walrus, `as` of a pattern).
pub fn child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find(|c| c.kind() == kind);
    found
}

/// The `*x` an expression starts with, as tree-sitter reads `*a.b` (the attribute of `*a`),
/// `*f()` or `*a * 2` (CPython reads the star as applying to the whole).
pub fn leading_star(expression: Node) -> Option<Node> {
    let mut at = expression;
    loop {
        match at.kind() {
            "list_splat" => return Some(at),
            "attribute" | "subscript" | "call" | "binary_operator" => at = at.child(0)?,
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn sexp(text: &str) -> String {
        parse(text, None).root_node().to_sexp()
    }

    #[test]
    fn a_statement_ending_on_a_comma_is_not_joined_to_the_next() {
        let tree = sexp("importorch,\n\nmanifest = {}\n");
        assert!(
            tree.starts_with("(module (expression_statement (identifier)) (expression_statement (assignment"),
            "{tree}"
        );
        let tree = sexp("if x:\n    a, # c\n    b = 1\n");
        assert!(!tree.contains("pattern_list"), "{tree}");
        // Continued by a backslash, or a valid assignment: one statement.
        assert!(sexp("a, \\\nb = 1\n").contains("pattern_list"));
        assert!(sexp("a, b = 1\nx = 1,\ny = 2\n").contains("pattern_list"));
    }

    #[test]
    fn a_named_escape_ends_at_its_string() {
        let tree = sexp("x = {\n  'a\\N{b': 1,\n  'c': 2,\n}\n");
        assert!(!tree.contains("ERROR") && tree.contains("(pair"), "{tree}");
        assert!(sexp("x = '\\N{DASH}'\n").contains("(string"));
        // In an f-string it is no replacement field; in a raw one `{DASH}` is.
        assert_eq!(sexp("x = f'a\\N{EM DASH}b{c}'\n").matches("(interpolation").count(), 1);
        assert_eq!(sexp("x = rf'a\\N{c}'\n").matches("(interpolation").count(), 1);
        assert_eq!(sexp("x = f'a\\\\N{c}'\n").matches("(interpolation").count(), 1);
    }

    #[test]
    fn a_backslash_inside_brackets_is_no_node() {
        let tree = sexp("x = dict(\n    a=1,\\\n    b=2,\n)\n");
        assert!(!tree.contains("line_continuation") && !tree.contains("ERROR"), "{tree}");
        // Outside brackets it joins the lines, as in CPython.
        assert!(sexp("x = 1 + \\\n  2\n").contains("binary_operator"));
    }

    /// CPython joins lines inside brackets whatever their indentation (each of these
    /// compiles in CPython 3.10-3.13); tree-sitter read a dedent there.
    #[test]
    fn a_line_inside_brackets_left_of_its_block_joins_its_statement() {
        for text in [
            "def caps(*names):\n    return {name: \nTrue for name in names}\n\nx = 1\n",
            "if x:\n    y = [1,  # one\n# between\n2,\n]\n    z = 2\n",
            "def f():\n    return (1 +\n  2)\n",
        ] {
            let tree = sexp(text);
            assert!(!tree.contains("ERROR") && !tree.contains("MISSING"), "{text}: {tree}");
        }
        // A statement on its own line after the block is no continuation.
        let tree = sexp("def f():\n    return [1,\n        2]\nx = 1\n");
        assert!(tree.contains("(module (function_definition") && tree.ends_with("(integer))))"), "{tree}");
    }

    #[test]
    fn a_starred_subscript_item_parses() {
        for text in ["x = d[*\"ab\"]\n", "d[*63] = 1\n", "x = d[1, *(2, 3)]\n", "x = d[*{1}]\ny = 2\n"] {
            let tree = sexp(text);
            assert!(
                !tree.contains("ERROR") && !tree.contains("MISSING") && tree.contains("(subscript"),
                "{text}: {tree}"
            );
        }
        // A list display or a call's star is no subscript's: left as tree-sitter reads it.
        assert!(sexp("x = [*63]\n").contains("(list_splat"));
        assert!(sexp("x = [1, *(2)]\n").contains("(list_splat"));
    }
}
