//! Where tree-sitter reads a text otherwise than CPython, and the same-length copy of the
//! text it parses instead (every byte offset the same, and every row but where lines inside
//! brackets are joined): a lone CR is a line break, a `\N{` escape a `\n{` (tree-sitter runs
//! it to the next `}`, past the quote), a backslash continuation inside brackets is only a
//! space (CPython joins those lines anyway; tree-sitter keeps the backslash as a node amid
//! the values), a line inside brackets left of its block is joined to the one before
//! (tree-sitter reads a dedent), and a statement ending on a comma is not joined to the next
//! line.

use crate::lexer::{lex, Token, TokenKind};
use tree_sitter::{Node, Tree};

/// Whether `text` has a CR that is not part of a CRLF (CPython reads it as a line break).
pub fn has_lone_cr(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

/// The copy of `text` tree-sitter first reads, where it differs: each lone CR a line break,
/// and each `\N{` a `\n{`. tree-sitter's escape `\N{...}` runs to the next `}` wherever
/// it is, past the string's closing quote and onto later lines (`"a\N{b": 1,` swallows the
/// rest of a dict); CPython's string ends at its quote and the escape is an error of the
/// string alone (the emulation's; evaluation reads the text itself).
pub(super) fn first_copy(text: &str) -> Option<String> {
    let named_escape = text.contains("\\N{");
    if !has_lone_cr(text) && !named_escape {
        return None;
    }
    let bytes = text.as_bytes();
    let copy = bytes
        .iter()
        .enumerate()
        .map(|(i, &b)| match b {
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => b'\n',
            b'N' if named_escape && i > 0 && bytes[i - 1] == b'\\' && bytes.get(i + 1) == Some(&b'{') => b'n',
            _ => b,
        })
        .collect();
    // Only ASCII bytes were replaced by ASCII bytes.
    String::from_utf8(copy).ok()
}

/// The bytes of `source` (the text tree-sitter read into `tree`) to replace, and with what,
/// for tree-sitter to read it as CPython does: each backslash continuation inside brackets
/// a space, the comma of each statement tree-sitter joins to the next line a `;`.
///
/// `text` is the file as written: in [`first_copy`] a `\N{` became `\n{`, which an f-string
/// reads as a newline and a replacement field; the braces of each such named escape become
/// letters (`f"\N{DASH}"` has no field in CPython).
pub(super) fn same_length_edits(tree: &Tree, source: &str, text: &str) -> Vec<(usize, u8)> {
    let mut edits: Vec<(usize, u8)> = bracketed_continuations(tree, source).into_iter().map(|at| (at, b' ')).collect();
    edits.extend(joined_statement_commas(tree, source).into_iter().map(|at| (at, b';')));
    edits.extend(named_escape_fields(tree, text).into_iter().map(|at| (at, b'x')));
    edits.extend(subscript_stars(tree, source).into_iter().map(|at| (at, b' ')));
    edits.extend(for_in_stars(tree).into_iter().map(|at| (at, b' ')));
    edits.extend(field_walruses(tree, source).into_iter().map(|at| (at, b'>')));
    edits.extend(dedented_bracket_lines(tree, source).into_iter().map(|at| (at, b' ')));
    edits
}

/// The line breaks (and the comments and backslashes among them) before each line inside
/// brackets that starts left of its statement's first line (`return {k:` NEWLINE `v for
/// ...}` in a function): CPython joins lines inside brackets whatever their indentation;
/// tree-sitter reads a dedent there and breaks the statement. As spaces the lines are one
/// (tree-sitter's rows then count one line for them). Only where the tree has an error.
fn dedented_bracket_lines(tree: &Tree, source: &str) -> Vec<usize> {
    if !tree.root_node().has_error() {
        return Vec::new();
    }
    let bytes = source.as_bytes();
    // tree-sitter's indentation: a tab counts 8.
    let indentation = |at: usize| {
        let line_start = bytes[..at].iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |i| i + 1);
        bytes[line_start..at].iter().map(|&b| if b == b'\t' { 8 } else { 1 }).sum::<usize>()
    };
    let mut found = Vec::new();
    let (mut statement_indent, mut starts_statement) = (0, true);
    let mut previous: Option<Token> = None;
    for token in lex(source) {
        if token.kind == TokenKind::Newline {
            starts_statement = true;
        }
        if !token.is_significant() {
            continue;
        }
        // Measured only for a token that starts its line (after a NEWLINE, one always does):
        // each measure reads back to its line's start, so the walk stays linear.
        if starts_statement {
            (statement_indent, starts_statement) = (indentation(token.span.start), false);
        } else if let Some(before) = previous.as_ref().filter(|b| b.line < token.line) {
            if indentation(token.span.start) < statement_indent {
                let between = before.span.end..token.span.start;
                found.extend(between.filter(|&at| !matches!(bytes[at], b' ' | b'\t' | b'\x0c')));
            }
        }
        previous = Some(token);
    }
    found
}

/// The `=` of each `:=` that opens an f-string field's format specification (`{x:=>6}`:
/// the specification is `=>6`, CPython's PEP 572 rule), which tree-sitter reads as an
/// assignment expression. As `>` it is a specification; evaluation reads the text itself.
/// Whether `walrus` is in an f-string field outside any bracket: CPython reads its `:` as
/// the start of the format specification there (`f"{a or b:=>6}"`), a walrus only in
/// brackets (`f"{(b := 6)}"`).
fn at_field_top(walrus: Node) -> bool {
    let mut at = walrus.parent();
    while let Some(node) = at {
        match node.kind() {
            "interpolation" => return true,
            "boolean_operator"
            | "binary_operator"
            | "comparison_operator"
            | "not_operator"
            | "unary_operator"
            | "conditional_expression" => at = node.parent(),
            _ => return false,
        }
    }
    false
}

/// The `=` of the first `:=` in the field `interpolation` outside any bracket (nested
/// strings skipped): CPython's format specification starts at its `:`.
fn top_level_walrus(interpolation: Node) -> Option<usize> {
    let mut depth = 0i32;
    let mut stack: Vec<Node> = vec![interpolation];
    let mut cursor = interpolation.walk();
    let mut first = true;
    while let Some(node) = stack.pop() {
        if node.kind() == "string" && node != interpolation {
            continue;
        }
        if node.child_count() > 0 {
            let children: Vec<Node> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
            continue;
        }
        match node.kind() {
            // The field's own `{`.
            "{" if first => {}
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            ":=" if depth == 0 => return Some(node.start_byte() + 1),
            _ => {}
        }
        first = false;
    }
    None
}

fn field_walruses(tree: &Tree, source: &str) -> Vec<usize> {
    let root = tree.root_node();
    // `f"{b7:=+5}"` parses for tree-sitter (an assignment expression), so no error is needed.
    if !source.contains(":=") {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(node) = stack.pop() {
        if node.kind() == "named_expression" && at_field_top(node) {
            let mut inner = node.walk();
            let walrus = node.children(&mut inner).find(|c| c.kind() == ":=").map(|w| w.start_byte() + 1);
            found.extend(walrus);
        }
        // `f"{a or b:=>}"`: tree-sitter may leave the `:=` in an ERROR of the field.
        if node.kind() == "interpolation" {
            found.extend(top_level_walrus(node));
        }
        stack.extend(node.children(&mut cursor).collect::<Vec<_>>());
    }
    // `f"{x:=>}"`, `f"{7:=+5}"`: where no assignment expression can be read, tree-sitter
    // leaves a `:=` after `{` and one token, inside a string.
    let leaves = leaves(root);
    for k in 3..leaves.len() {
        let in_string = matches!(leaves[k - 3].kind(), "string_start" | "string_content");
        if leaves[k].kind() == ":=" && leaves[k - 2].kind() == "{" && in_string {
            found.push(leaves[k].start_byte() + 1);
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// The `*` of each starred item in a subscript (`x[*"ab"]`, 3.11's) where tree-sitter
/// reads an error: it stars only names and calls there. Without the star the item parses;
/// evaluation finds the `*` in the text itself (`eval::items`).
pub(super) fn subscript_stars(tree: &Tree, source: &str) -> Vec<usize> {
    let root = tree.root_node();
    if !root.has_error() || !source.contains('*') {
        return Vec::new();
    }
    // The star and the leaf after it: inside an error, or holding one.
    let in_error = |at: usize, next: usize| {
        let mut node = root.descendant_for_byte_range(at, next + 1);
        if node.is_some_and(|n| n.has_error()) {
            return true;
        }
        while let Some(n) = node {
            if n.is_error() {
                return true;
            }
            node = n.parent();
        }
        false
    };
    let leaves = leaves(root);
    // Per open bracket: whether it is a subscript's (it follows an operand).
    let mut subscripts: Vec<bool> = Vec::new();
    let mut found = Vec::new();
    for (k, leaf) in leaves.iter().enumerate() {
        let prev = k.checked_sub(1).map(|p| leaves[p].kind());
        match leaf.kind() {
            "(" | "[" | "{" => {
                let operand = prev.is_some_and(|p| {
                    matches!(
                        p,
                        "identifier" | "string_end" | "integer" | "float" | ")" | "]" | "}" | "none" | "true" | "false"
                    )
                });
                subscripts.push(leaf.kind() == "[" && operand);
            }
            ")" | "]" | "}" => {
                subscripts.pop();
            }
            "*" if matches!(prev, Some("[" | ",")) && subscripts.last() == Some(&true) => {
                let next = leaves.get(k + 1).map_or(leaf.start_byte(), |n| n.start_byte());
                // `**` is no starred item (CPython: invalid syntax): it stays an error.
                let double = source.as_bytes().get(leaf.start_byte() + 1) == Some(&b'*');
                if in_error(leaf.start_byte(), next) && !double {
                    found.push(leaf.start_byte());
                }
            }
            _ => {}
        }
    }
    found
}

/// The `*` of a `for` statement's starred iterable (`for x in *a, b:`, 3.9's), which
/// tree-sitter reads as an error. Without the star the iterable parses; evaluation finds the
/// `*` in the text itself (`eval::items::star_before`).
fn for_in_stars(tree: &Tree) -> Vec<usize> {
    let root = tree.root_node();
    if !root.has_error() {
        return Vec::new();
    }
    let leaves = leaves(root);
    let mut found = Vec::new();
    for k in 2..leaves.len() {
        if leaves[k].kind() != "*" || leaves[k - 1].kind() != "in" {
            continue;
        }
        // The statement's own `in`: the first after a `for` that starts its line.
        let row = leaves[k].start_position().row;
        let line: Vec<&Node> = leaves[..k].iter().rev().take_while(|l| l.start_position().row == row).collect();
        let first = line.last();
        let ins = line.iter().filter(|l| l.kind() == "in").count();
        if first.is_some_and(|f| f.kind() == "for") && ins == 1 {
            found.push(leaves[k].start_byte());
        }
    }
    found
}

/// The leaves of `root` in source order (tree-sitter's tokens), comments and the empty
/// leaves error recovery inserts left out.
fn leaves(root: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(node) = stack.pop() {
        if node.child_count() == 0 {
            if !node.is_missing() && node.kind() != "comment" && node.start_byte() < node.end_byte() {
                out.push(node);
            }
            continue;
        }
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// The braces of each `\N{...}` tree-sitter read as a replacement field of an f-string that
/// is not raw (in a raw f-string `\N` is two characters and `{...}` is a field).
fn named_escape_fields(tree: &Tree, text: &str) -> Vec<usize> {
    if !text.contains("\\N{") {
        return Vec::new();
    }
    let bytes = text.as_bytes();
    let mut braces = Vec::new();
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(node) = stack.pop() {
        // A field, or a nested field of a format specification (`{x:\N{EM DASH}^6}`).
        let field = matches!(node.kind(), "interpolation" | "format_expression");
        if field && named_escape_at(bytes, node.start_byte()) && !in_raw_string(node, bytes) {
            let open = node.start_byte();
            // The escape's name runs to the next `}`, as CPython reads it; not past the line.
            let close = bytes[open..].iter().position(|&b| matches!(b, b'}' | b'\n' | b'\r')).map(|i| open + i);
            braces.push(open);
            if let Some(close) = close.filter(|&c| bytes[c] == b'}') {
                braces.push(close);
            }
            continue;
        }
        stack.extend(node.children(&mut cursor).collect::<Vec<_>>());
    }
    braces
}

/// Whether the `{` at `open` follows a `\N` whose backslash is not itself escaped.
fn named_escape_at(bytes: &[u8], open: usize) -> bool {
    if open < 2 || bytes[open - 1] != b'N' {
        return false;
    }
    let backslashes = bytes[..open - 1].iter().rev().take_while(|&&b| b == b'\\').count();
    backslashes % 2 == 1
}

/// Whether the string holding `field` (a field, or a nested one) has an `r` in its prefix.
fn in_raw_string(field: Node, bytes: &[u8]) -> bool {
    let mut string = field.parent();
    while let Some(s) = string.filter(|s| s.kind() != "string") {
        string = s.parent();
    }
    let Some(string) = string else { return false };
    let start = string.start_byte();
    bytes[start..].iter().take_while(|b| b.is_ascii_alphabetic()).any(|b| matches!(b, b'r' | b'R'))
}

/// The offsets of the backslashes that continue a line inside brackets.
fn bracketed_continuations(tree: &Tree, source: &str) -> Vec<usize> {
    // Most files have no backslash before a line break: no need to walk their trees.
    let bytes = source.as_bytes();
    if !bytes.windows(2).any(|w| w[0] == b'\\' && matches!(w[1], b'\n' | b'\r')) {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(node) = stack.pop() {
        if node.kind() == "line_continuation" {
            if inside_brackets(node, bytes) {
                found.push(node.start_byte());
            }
            continue;
        }
        stack.extend(node.children(&mut cursor).collect::<Vec<_>>());
    }
    found
}

/// Whether a bracket some ancestor of `node` opens before it is still open there: the
/// ancestor starts with its bracket (a list, a call's arguments, ...), or it is a subscript
/// whose `[` comes before `node`.
fn inside_brackets(node: Node, bytes: &[u8]) -> bool {
    let mut ancestor = node.parent();
    while let Some(a) = ancestor {
        if matches!(bytes.get(a.start_byte()), Some(b'(' | b'[' | b'{')) && a.start_byte() < node.start_byte() {
            return true;
        }
        if a.kind() == "subscript" {
            let mut cursor = a.walk();
            let open = a.children(&mut cursor).find(|c| c.kind() == "[").map(|c| c.start_byte());
            if open.is_some_and(|open| open < node.start_byte()) {
                return true;
            }
        }
        ancestor = a.parent();
    }
    false
}

/// The comma that ends a statement's line where tree-sitter joins the next line to it (the
/// left side of an assignment `a,` NEWLINE `b = 1`), for each such statement.
fn joined_statement_commas(tree: &Tree, text: &str) -> Vec<usize> {
    let mut commas = Vec::new();
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    while let Some(node) = stack.pop() {
        match node.kind() {
            "expression_statement" => {
                let assignment = node.named_child(0).filter(|a| a.kind() == "assignment");
                let left = assignment.and_then(|a| a.child_by_field_name("left"));
                if let Some(left) = left.filter(|l| l.kind() == "pattern_list") {
                    commas.extend(line_ending_comma(left, text));
                }
            }
            // Statements hold statements only in blocks and clauses.
            "module"
            | "block"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "for_statement"
            | "while_statement"
            | "try_statement"
            | "except_clause"
            | "finally_clause"
            | "with_statement"
            | "function_definition"
            | "class_definition"
            | "decorated_definition" => {
                stack.extend(node.named_children(&mut cursor).collect::<Vec<_>>());
            }
            _ => {}
        }
    }
    commas
}

/// The first comma of `targets` that a line break follows (not continued by a backslash).
fn line_ending_comma(targets: Node, text: &str) -> Option<usize> {
    let mut cursor = targets.walk();
    // Comments are children too; the gap after a comma holds them.
    let children: Vec<Node> = targets.children(&mut cursor).filter(|c| c.kind() != "comment").collect();
    children.windows(2).find_map(|pair| {
        let (comma, next) = (pair[0], pair[1]);
        if comma.kind() != "," {
            return None;
        }
        let gap = text.get(comma.end_byte()..next.start_byte())?;
        let line_end = gap.find(['\n', '\r'])?;
        let code = gap[..line_end].split('#').next().unwrap_or("");
        (!code.trim_end().ends_with('\\')).then_some(comma.start_byte())
    })
}
