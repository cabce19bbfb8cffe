//! Parsing with tree-sitter-python, and the syntax errors it finds.
//!
//! The tree is error-tolerant: a half-typed file still yields a tree whose intact parts
//! the evaluator can use. Syntax errors are reported where tree-sitter finds them
//! ([`syntax_findings`]), and [`python_syntax_error`] estimates the message and line
//! CPython would report, for `check` parity (`Failed to parse manifest: ...`).

use crate::findings::{Finding, Origin, Severity};
use tree_sitter::{InputEdit, Node, Parser, Point, Tree};

/// Parses Python source. Never fails: tree-sitter always returns a tree for UTF-8 input.
pub fn parse(text: &str, old: Option<&Tree>) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("the bundled grammar's ABI is supported by the bundled tree-sitter");
    parser.parse(text, old).expect("parse only fails on cancellation or timeout, neither of which we set")
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

/// One diagnostic per innermost ERROR node and per MISSING node, in source order, at
/// most `limit`. An ERROR node that contains other errors is only a recovery wrapper (it
/// may start lines before the real problem), so its inner errors are reported instead.
pub fn syntax_findings(tree: &Tree, text: &str, limit: usize) -> Vec<Finding> {
    let mut out = Vec::new();
    if !tree.root_node().has_error() {
        return out;
    }
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        if node.is_missing() {
            out.push(Finding::new(
                node.start_byte()..node.end_byte(),
                Severity::Error,
                format!("Syntax error: missing `{}`", missing_name(node)),
                "syntax-error",
                Origin::Lsp,
            ));
            continue;
        }
        if !node.has_error() {
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        let nested = children.iter().any(|c| c.has_error() || c.is_error() || c.is_missing());
        if node.is_error() && !nested {
            let span = error_span(node, text);
            let snippet: String = node_text(node, text).trim().chars().take(30).collect();
            let message = if snippet.is_empty() {
                "Syntax error".to_string()
            } else {
                format!("Syntax error: unexpected `{}`", snippet.lines().next().unwrap_or(""))
            };
            out.push(Finding::new(span, Severity::Error, message, "syntax-error", Origin::Lsp));
            continue;
        }
        // Children in reverse so that the stack pops them in source order.
        for child in children.into_iter().rev() {
            stack.push(child);
        }
    }
    out
}

fn missing_name(node: Node) -> String {
    let kind = node.kind();
    if kind.chars().all(|c| c.is_ascii_punctuation()) {
        kind.to_string()
    } else {
        kind.replace('_', " ")
    }
}

/// An ERROR node can span many lines; mark only its first line so the squiggle stays
/// readable.
fn error_span(node: Node, text: &str) -> std::ops::Range<usize> {
    let start = node.start_byte();
    let end = node.end_byte();
    let line_end = text[start..end].find(['\n', '\r']).map(|i| start + i).unwrap_or(end);
    if line_end > start {
        start..line_end
    } else {
        start..end.max(start)
    }
}

/// In a half-typed file tree-sitter often turns `manifest = {` and the entries after it
/// into one ERROR node of loose tokens. When `error` starts with `manifest = {`, returns the
/// `(name, pairs)` it still holds, so the intact entries can be evaluated and outlined.
pub fn recovered_manifest_pairs<'t>(error: Node<'t>, text: &str) -> Option<(Node<'t>, Vec<Node<'t>>)> {
    if !error.is_error() {
        return None;
    }
    let mut cursor = error.walk();
    let children: Vec<Node> = error.children(&mut cursor).collect();
    let name = *children.first()?;
    if name.kind() != "identifier" || node_text(name, text) != "manifest" {
        return None;
    }
    let eq = children.iter().position(|c| c.kind() == "=")?;
    if children.get(eq + 1).map(|c| c.kind()) != Some("{") {
        return None;
    }
    let pairs =
        children[eq + 2..].iter().copied().filter(|c| matches!(c.kind(), "pair" | "dictionary_splat")).collect();
    Some((name, pairs))
}

/// What CPython would say for a file that does not compile: its message and 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonSyntaxError {
    pub message: String,
    pub line: usize,
    /// Likely repairs (the likeliest first), for CPython's specialised messages.
    pub fixes: Vec<crate::cpython_hints::SyntaxFix>,
}

/// Estimates CPython's syntax error for a file. Bracket and string errors come from a
/// small tokenizer that mirrors CPython's (exact for those); parser errors are CPython's
/// specialised message where its construct comes first (a missing comma, a dict key
/// without ':', see `cpython_hints`), else `invalid syntax` on the line of the first error
/// tree-sitter found.
pub fn python_syntax_error(tree: &Tree, text: &str) -> Option<PythonSyntaxError> {
    let token_error = tokenizer_error(text);
    let first = first_error(tree, text);
    // Only a file that does not parse is scanned for CPython's specialised messages.
    let hints = if first.is_some() { crate::cpython_hints::hints(text) } else { Default::default() };
    let mut parser_error = first.map(|(line, end)| parser_error(hints.first, line, end));
    // A header without its ':' fails on a forced token: before the tokenizer reads on.
    if let (Some(hint), Some(parser)) = (hints.block_colon, parser_error.as_ref()) {
        if hint.line <= parser.line {
            let forced = PythonSyntaxError { message: hint.message.into(), line: hint.line, fixes: hint.fixes };
            return match token_error {
                Some(tok) if tok.error.line <= hint.line => Some(tok.error),
                _ => Some(forced),
            };
        }
    }
    match (token_error, parser_error.take()) {
        (Some(tok), Some(parser)) => {
            // A tokenizer error at EOF ("never closed") loses to an earlier parser error,
            // as in CPython, where the parser consumes tokens as they come. Others win: a
            // generic `invalid syntax` makes CPython tokenize the rest of the file (any
            // error there replaces it), and before a specialised message its first pass
            // has usually read past the construct already.
            if tok.at_eof && parser.line < tok.error.line {
                Some(parser)
            } else {
                Some(tok.error)
            }
        }
        (Some(tok), None) => Some(tok.error),
        (None, parser) => parser,
    }
}

/// CPython's message for a parse error tree-sitter first sees on `line`, ending at byte
/// `end`. A hint from no later than that error, or from the next line, is the same mistake
/// (tree-sitter's recovery often marks the token before it, such as the comma ending the
/// previous entry); a later one is not CPython's first error.
fn parser_error(first_hint: Option<crate::cpython_hints::Hint>, line: usize, end: usize) -> PythonSyntaxError {
    match first_hint {
        Some(hint) if hint.offset <= end || hint.line <= line + 1 => {
            PythonSyntaxError { message: hint.message.into(), line: hint.line, fixes: hint.fixes }
        }
        _ => PythonSyntaxError { message: "invalid syntax".into(), line, fixes: Vec::new() },
    }
}

/// The 1-based line and end byte of the first error tree-sitter found.
fn first_error(tree: &Tree, text: &str) -> Option<(usize, usize)> {
    if !tree.root_node().has_error() {
        return None;
    }
    let findings = syntax_findings(tree, text, 1);
    let first = findings.first()?;
    let line = text[..first.span.start].matches('\n').count() + 1;
    Some((line, first.span.end))
}

struct TokenizerError {
    error: PythonSyntaxError,
    at_eof: bool,
}

/// Brackets and string literals, as CPython's tokenizer checks them.
fn tokenizer_error(text: &str) -> Option<TokenizerError> {
    let bytes = text.as_bytes();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut line = 1usize;
    let mut i = 0;
    let err = |message: String, line: usize, at_eof: bool| {
        Some(TokenizerError { error: PythonSyntaxError { message, line, fixes: Vec::new() }, at_eof })
    };
    // Indentation of logical lines, as CPython's tokenizer tracks it.
    let mut indents: Vec<usize> = vec![0];
    let mut at_line_start = true;
    let mut last_significant: u8 = b'\n';
    while i < bytes.len() {
        if at_line_start && stack.is_empty() && last_significant != b'\\' {
            at_line_start = false;
            let mut col = 0;
            let mut j = i;
            while j < bytes.len() && matches!(bytes[j], b' ' | b'\t' | b'\x0c') {
                col = if bytes[j] == b'\t' { (col / 8 + 1) * 8 } else { col + 1 };
                j += 1;
            }
            let blank = j >= bytes.len() || matches!(bytes[j], b'#' | b'\n' | b'\r');
            if !blank {
                let top = *indents.last().unwrap_or(&0);
                if last_significant == b':' {
                    if col <= top {
                        return err("expected an indented block".into(), line, false);
                    }
                    indents.push(col);
                } else if col > top {
                    return err("unexpected indent".into(), line, false);
                } else if col < top {
                    while indents.last().is_some_and(|&t| t > col) {
                        indents.pop();
                    }
                    if indents.last() != Some(&col) {
                        return err("unindent does not match any outer indentation level".into(), line, false);
                    }
                }
            }
            i = j;
            continue;
        }
        at_line_start = false;
        let c = bytes[i];
        if !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'#' | b'\x0c') {
            last_significant = c;
        }
        match c {
            b'\n' => {
                line += 1;
                at_line_start = true;
                if stack.is_empty() && last_significant != b'\\' && last_significant != b':' {
                    last_significant = b'\n';
                }
            }
            b'\r' => {
                if bytes.get(i + 1) != Some(&b'\n') {
                    line += 1;
                    at_line_start = true;
                    if stack.is_empty() && last_significant != b'\\' && last_significant != b':' {
                        last_significant = b'\n';
                    }
                }
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
                continue;
            }
            // A backslash outside strings continues the line; anything after it but the
            // line break is an error.
            b'\\' if !matches!(bytes.get(i + 1), Some(b'\n' | b'\r')) => {
                return err("unexpected character after line continuation character".into(), line, false);
            }
            b'(' | b'[' | b'{' => stack.push((c, line)),
            b')' | b']' | b'}' => {
                let open = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                match stack.pop() {
                    None => return err(format!("unmatched '{}'", c as char), line, false),
                    Some((o, oline)) if o != open => {
                        let message = if oline != line {
                            format!(
                                "closing parenthesis '{}' does not match opening parenthesis '{}' on line {}",
                                c as char, o as char, oline
                            )
                        } else {
                            format!(
                                "closing parenthesis '{}' does not match opening parenthesis '{}'",
                                c as char, o as char
                            )
                        };
                        return err(message, line, false);
                    }
                    Some(_) => {}
                }
            }
            b'\'' | b'"' => {
                let triple = bytes.get(i + 1) == Some(&c) && bytes.get(i + 2) == Some(&c);
                let start_line = line;
                let mut j = if triple { i + 3 } else { i + 1 };
                let mut closed = false;
                while j < bytes.len() {
                    let d = bytes[j];
                    if d == b'\\' {
                        if let Some(&next) = bytes.get(j + 1) {
                            if next == b'\n' || (next == b'\r' && bytes.get(j + 2) != Some(&b'\n')) {
                                line += 1;
                            } else if next == b'\r' {
                                line += 1;
                                j += 1;
                            }
                        }
                        // A backslash escapes the next character, in raw strings too.
                        j += 2;
                        continue;
                    }
                    if d == b'\n' || d == b'\r' {
                        if !triple {
                            return err(
                                format!("unterminated string literal (detected at line {start_line})"),
                                start_line,
                                false,
                            );
                        }
                        if d == b'\n' || bytes.get(j + 1) != Some(&b'\n') {
                            line += 1;
                        }
                    }
                    if d == c {
                        if !triple {
                            closed = true;
                            j += 1;
                            break;
                        }
                        if bytes.get(j + 1) == Some(&c) && bytes.get(j + 2) == Some(&c) {
                            closed = true;
                            j += 3;
                            break;
                        }
                    }
                    j += 1;
                }
                if !closed {
                    let message = if triple {
                        format!("unterminated triple-quoted string literal (detected at line {line})")
                    } else {
                        format!("unterminated string literal (detected at line {line})")
                    };
                    return err(message, start_line, false);
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if let Some(&(open, oline)) = stack.first() {
        return err(format!("'{}' was never closed", open as char), oline, true);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> Option<PythonSyntaxError> {
        python_syntax_error(&parse(text, None), text)
    }

    // Messages and lines below are what CPython 3.11 reports for the same sources.
    #[test]
    fn unclosed_bracket_reports_the_opening_line() {
        let e = err("import torch\nmanifest = {\n  'a': 1,\n").unwrap();
        assert_eq!(e, PythonSyntaxError { message: "'{' was never closed".into(), line: 2, fixes: Vec::new() });
    }

    #[test]
    fn mismatched_bracket() {
        let e = err("x = (1,\n2]\n").unwrap();
        assert_eq!(e.message, "closing parenthesis ']' does not match opening parenthesis '(' on line 1");
        assert_eq!(e.line, 2);
    }

    #[test]
    fn unterminated_string() {
        let e = err("x = 1\ny = 'abc\n").unwrap();
        assert_eq!(
            e,
            PythonSyntaxError {
                message: "unterminated string literal (detected at line 2)".into(),
                line: 2,
                fixes: Vec::new()
            }
        );
    }

    #[test]
    fn backslash_before_anything_but_a_line_break() {
        let e = err("x = 1 \\ 2\n").unwrap();
        assert_eq!((e.message.as_str(), e.line), ("unexpected character after line continuation character", 1));
        assert_eq!(err("x = 1 \\\n+ 2\n"), None);
    }

    #[test]
    fn valid_file_has_no_error() {
        assert_eq!(err("x = {'a': [1, (2, 3)]}  # ) ]\ns = ')'\n"), None);
    }
}
