//! Simple statements tree-sitter misreads in a text CPython compiles (`*~x,`: its
//! `expression_list` takes no star before a unary operator; `a, [*[]] = 3`: no `*[]` target),
//! read again line by line: each logical line split at its `=`s (at bracket depth 0), each
//! part parsed alone in brackets, where tree-sitter reads it as Python does (`(*~x,)`).

use super::Evaluator;
use crate::lexer::{lex, Token, TokenKind};
use tree_sitter::{Node, Tree};

/// A misread statement's logical lines, each parsed again: its targets, then its value.
pub(super) struct ReadAgain {
    lines: Vec<Vec<Tree>>,
}

/// Keywords that start a statement other than an expression or an assignment.
const KEYWORDS: [&str; 25] = [
    "def", "class", "if", "elif", "else", "for", "while", "with", "try", "except", "finally", "import", "from",
    "return", "del", "pass", "break", "continue", "raise", "assert", "global", "nonlocal", "async", "yield", "lambda",
];

/// The logical lines of `statement` (a module-level statement holding a tree-sitter error),
/// each an expression or an assignment whose parts parse alone in brackets; None where one
/// is anything else (a keyword's statement, an annotation, an augmented assignment, a `;`)
/// or a part holds an error even so: then the text is not one we read again.
pub(super) fn read_again(statement: Node, text: &str) -> Option<ReadAgain> {
    let (start, end) = (statement.start_byte(), statement.end_byte());
    let region = text.get(start..end)?;
    // Whole lines only: error recovery may end a statement mid-line (the rest in an ERROR
    // beside it), and a truncated expression would parse.
    let line_start = text[..start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let after = &text[end..];
    let rest_of_line = &after[..after.find(['\n', '\r']).unwrap_or(after.len())];
    let rest_is_blank = rest_of_line.split('#').next().is_some_and(|code| code.trim().is_empty());
    if !text[line_start..start].trim().is_empty() || !rest_is_blank {
        return None;
    }
    let tokens: Vec<Token> = lex(region).collect();
    let mut lines = Vec::new();
    let mut line: Vec<&Token> = Vec::new();
    for token in &tokens {
        match token.kind {
            TokenKind::Comment | TokenKind::Nl | TokenKind::Indent | TokenKind::Dedent | TokenKind::Continuation => {}
            TokenKind::Newline | TokenKind::EndOfFile => {
                if !line.is_empty() {
                    let close = start + token.span.start;
                    lines.push(parts(&line, region, start, close, text)?);
                    line.clear();
                }
            }
            _ if token.error.is_some() => return None,
            _ => line.push(token),
        }
    }
    if !line.is_empty() {
        lines.push(parts(&line, region, start, end, text)?);
    }
    (!lines.is_empty()).then_some(ReadAgain { lines })
}

/// One logical line's parts, split at its `=`s, each parsed alone in brackets: the byte
/// before each (a line break, or the `=`) stands for `(`, the byte after it for `)`.
fn parts(line: &[&Token], region: &str, start: usize, close: usize, text: &str) -> Option<Vec<Tree>> {
    let first = line.first()?;
    let starts_statement = first.kind == TokenKind::Name && KEYWORDS.contains(&first.text(region));
    let refused = |t: &&&Token| {
        t.depth == 0 && t.kind == TokenKind::Op && {
            let op = t.text(region);
            op == ":" || op == ";" || (op.len() > 1 && op.ends_with('=') && !matches!(op, "==" | "!=" | "<=" | ">="))
        }
    };
    if starts_statement || line.iter().any(|t| refused(&t)) {
        return None;
    }
    let mut bounds = vec![(start + first.span.start).checked_sub(1)?];
    bounds.extend(line.iter().filter(|t| t.depth == 0 && t.is_op(region, "=")).map(|t| start + t.span.start));
    bounds.push(close);
    bounds
        .windows(2)
        .map(|pair| {
            // (`a = ` NEWLINE would read as `()`.)
            text.get(pair[0] + 1..pair[1]).filter(|part| !part.trim().is_empty())?;
            let tree = crate::syntax::parse_parenthesized(text, pair[0], pair[1])?;
            (!tree.root_node().has_error() && bracketed(&tree).is_some()).then_some(tree)
        })
        .collect()
}

/// The expression a part parsed alone in brackets is: the inside of `(x)`, or the tuple
/// `(a, *b)` itself.
fn bracketed(tree: &Tree) -> Option<Node<'_>> {
    let root = tree.root_node();
    let statement =
        root.named_child(0).filter(|s| s.kind() == "expression_statement" && root.named_child_count() == 1)?;
    let expression = statement.named_child(0).filter(|_| statement.named_child_count() == 1)?;
    match expression.kind() {
        "parenthesized_expression" => expression.named_child(0),
        "tuple" => Some(expression),
        _ => None,
    }
}

impl ReadAgain {
    /// The names the lines' targets bind (for what may be bound before a later read).
    pub(super) fn bound_names(&self, text: &str, out: &mut std::collections::HashSet<String>) {
        for line in &self.lines {
            for target in line.iter().take(line.len().saturating_sub(1)).filter_map(bracketed) {
                let mut stack = vec![target];
                while let Some(node) = stack.pop() {
                    match node.kind() {
                        "identifier" => {
                            out.insert(crate::syntax::node_text(node, text).to_string());
                        }
                        "tuple" | "list" | "list_splat" | "parenthesized_expression" => {
                            let mut cursor = node.walk();
                            stack.extend(node.named_children(&mut cursor));
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

impl Evaluator<'_> {
    /// Runs the lines read again in order, as Python runs them: each value, then its
    /// targets left to right.
    pub(super) fn run_read_again(&mut self, again: &ReadAgain) {
        for line in &again.lines {
            let Some((value, targets)) = line.split_last() else { continue };
            let Some(value_node) = bracketed(value) else { continue };
            let value = self.expr(value_node);
            for target in targets.iter().filter_map(bracketed) {
                if self.model.load_error.is_some() {
                    return;
                }
                self.bind(target, value.clone());
            }
            if self.model.load_error.is_some() {
                return;
            }
        }
    }
}
