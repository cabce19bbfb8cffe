//! Parsing with tree-sitter-python, and the syntax errors it finds.
//!
//! The tree is error-tolerant: a half-typed file still yields a tree whose intact parts
//! the evaluator can use. Syntax errors are reported where tree-sitter finds them
//! ([`syntax_findings`]), and [`python_syntax_error`] estimates the message and line
//! CPython would report, for `check` parity (`Failed to parse manifest: ...`).

use crate::cpython::lexer::{lex, Token, TokenKind};
use crate::fields::{Field, FieldChild};
use crate::findings::{Finding, Origin, Severity};
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

/// An INDENT token at the start of a logical line that does not follow a block header.
#[derive(Clone, Copy)]
struct UnexpectedIndent {
    line: usize,
    offset: usize,
    /// The logical line before ends with an operator or a keyword that needs an operand
    /// (`x =`, `1 +`, `a.`, `not`): its last line. CPython fails at its NEWLINE and never
    /// reads the INDENT.
    incomplete_line: Option<usize>,
    newline_offset: usize,
}

/// What CPython would say for a file that does not compile: its message and 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonSyntaxError {
    pub message: String,
    pub line: usize,
    /// Likely repairs (the likeliest first), for CPython's specialised messages.
    pub fixes: Vec<crate::cpython::hints::SyntaxFix>,
}

/// Estimates CPython's syntax error for a file. Bracket and string errors come from a
/// small tokenizer that mirrors CPython's (exact for those); parser errors are CPython's
/// specialised message where its construct comes first (a missing comma, a dict key
/// without ':', see `cpython_hints`), else `invalid syntax` on the line of the first error
/// tree-sitter found.
pub fn python_syntax_error(tree: &Tree, text: &str) -> Option<PythonSyntaxError> {
    // compile() refuses a NUL before reading anything; its error has no line (line 0).
    if text.contains('\0') {
        return Some(PythonSyntaxError {
            message: "source code string cannot contain null bytes".into(),
            line: 0,
            fixes: Vec::new(),
        });
    }
    // `x = *a` parses in CPython (its compiler refuses it); tree-sitter may not parse it.
    // With those stars replaced, the text parses in CPython as it does with them.
    // Tokenized once for the checks every file gets (this runs on every keystroke);
    // `None` where a string does not terminate.
    let tokens = crate::cpython::tokens::tokenize(text);
    if let Some(stars) = tokens.as_deref().and_then(|tokens| crate::cpython::targets::statement_stars(text, tokens)) {
        let replaced = &stars.replaced;
        let replaced_tokens = crate::cpython::tokens::tokenize(replaced);
        return parse_or_compile_error(&parse(replaced, None), replaced, replaced_tokens.as_deref()).or_else(|| {
            let (message, line) = stars.error?;
            Some(PythonSyntaxError { message: message.into(), line, fixes: Vec::new() })
        });
    }
    parse_or_compile_error(tree, text, tokens.as_deref())
}

/// [`python_syntax_error`] for a text without a NUL byte or a statement's starred expression;
/// `tokens` are its parser tokens (`cpython::tokens::tokenize`).
fn parse_or_compile_error(
    tree: &Tree,
    text: &str,
    tokens: Option<&[crate::cpython::tokens::Token]>,
) -> Option<PythonSyntaxError> {
    let mut atom = None;
    let mut indent = None;
    let token_error = tokenizer_error(text, &mut atom, &mut indent);
    let first = first_error(tree, text, tokens);
    // Arguments out of order parse in tree-sitter; in CPython they are a parser error, the
    // first one where they come before the first error tree-sitter (or a check) found.
    let first_start = first.map(|(_, _, start)| start);
    let calls = argument_lists(tree, text);
    let arguments = argument_order_error(&calls, text).filter(|(at, _)| first_start.is_none_or(|start| *at < start));
    // An unexpected INDENT token stops the parser there, and CPython says so without
    // reading further: only tokenizer errors before that line come first.
    if let Some(UnexpectedIndent { incomplete_line: Some(line), newline_offset, .. }) = indent {
        // The line before ends where an operand must follow: CPython's parser fails at its
        // NEWLINE (a generic error, then any tokenizer error in the file wins).
        let parser_first = first.is_none_or(|(first_line, _, _)| first_line >= line)
            && atom.as_ref().is_none_or(|a: &AtomError| a.offset > newline_offset);
        if parser_first {
            return match token_error {
                Some(tok) if !tok.at_eof => Some(tok.error),
                _ => Some(PythonSyntaxError { message: "invalid syntax".into(), line, fixes: Vec::new() }),
            };
        }
    } else if let Some(UnexpectedIndent { line, offset, .. }) = indent {
        let parser_first = first.is_none_or(|(first_line, _, _)| first_line >= line)
            && atom.as_ref().is_none_or(|a: &AtomError| a.offset > offset);
        if parser_first {
            return match token_error {
                Some(tok) if !tok.at_eof && tok.error.line < line => Some(tok.error),
                _ => Some(PythonSyntaxError { message: "unexpected indent".into(), line, fixes: Vec::new() }),
            };
        }
    }
    // An atom error (a bad escape, a huge int) is raised as the parser builds that atom,
    // before any parser error further on. Like any parser error it is then replaced by a
    // tokenizer error anywhere in the file (CPython tokenizes the rest), except an unclosed
    // bracket opened on a later line.
    if let Some(atom) = atom {
        // CPython's second pass also reads the expression after two operands side by side
        // at the first error (`manifest {...}`), atoms included.
        let reread = |start: usize| {
            crate::cpython::targets::juxtaposed_expression(text, start).is_some_and(|e| e.contains(&atom.offset))
        };
        if first.is_none_or(|(_, _, start)| start >= atom.offset || reread(start)) {
            return match token_error {
                Some(tok) if !(tok.at_eof && atom.error.line <= tok.error.line) => Some(tok.error),
                _ => Some(atom.error),
            };
        }
    }
    let first = first.map(|(line, end, _)| (line, end));
    // Brackets left open at EOF, and the text before EOF is how a valid file can start:
    // CPython's parser reads to EOF without an error of its own (tree-sitter marks the
    // open bracket instead).
    if let Some(tok) = token_error.as_ref().filter(|t| t.at_eof && first.is_some() && arguments.is_none()) {
        let completes = |tail: &str| !parse(&format!("{text}\n{tail}{}\n", tok.closers), None).root_node().has_error();
        // Nothing, a value, or a dict key's ':' and value (`{"a": 1, "b"`).
        if completes("") || completes("0") || completes(":0") {
            return token_error.map(|t| t.error);
        }
    }
    // Only a file that does not parse is scanned for CPython's specialised messages.
    let hints = if first.is_some() { crate::cpython::hints::hints(text) } else { Default::default() };
    let mut parser_error = first.map(|(line, end)| parser_error(hints.first, &hints.statement_starts, line, end));
    if let Some((_, error)) = arguments {
        parser_error = Some(error);
    }
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
        (None, Some(parser)) => Some(parser),
        (None, None) => compile_error(&calls, text),
    }
}

/// CPython's message for a parse error tree-sitter first sees on `line`, ending at byte
/// `end`. A hint from no later than that error, or from the next line, is the same mistake
/// (tree-sitter's recovery often marks the token before it, such as the comma ending the
/// previous entry), unless a statement starts between them; a later one is not CPython's
/// first error.
fn parser_error(
    first_hint: Option<crate::cpython::hints::Hint>,
    statement_starts: &[usize],
    line: usize,
    end: usize,
) -> PythonSyntaxError {
    let later_statement = |offset: usize| statement_starts.iter().any(|&s| end < s && s <= offset);
    match first_hint {
        Some(hint)
            if (hint.reached || hint.offset <= end || hint.line <= line + 1) && !later_statement(hint.offset) =>
        {
            PythonSyntaxError { message: hint.message.into(), line: hint.line, fixes: hint.fixes }
        }
        _ => PythonSyntaxError { message: "invalid syntax".into(), line, fixes: Vec::new() },
    }
}

/// The 1-based line, end byte and start byte of the first parse error: the first error
/// tree-sitter found, or an earlier one it accepts (a character Python has no token for, a
/// misplaced starred expression).
fn first_error(
    tree: &Tree,
    text: &str,
    tokens: Option<&[crate::cpython::tokens::Token]>,
) -> Option<(usize, usize, usize)> {
    let findings = if tree.root_node().has_error() { syntax_findings(tree, text, 1) } else { Vec::new() };
    let tree_sitter = findings.first().map(|f| f.span.clone());
    let missed = [
        stray_character(text),
        tokens.and_then(crate::cpython::hints::missed_starred),
        tokens.and_then(crate::cpython::hints::statement_juxtaposition),
    ]
    .into_iter()
    .flatten();
    let span = missed.chain(tree_sitter).min_by_key(|s| s.start)?;
    Some((line_at(text, span.start), span.end, span.start))
}

/// The first `!`, `?`, `$` or backquote outside strings and comments: CPython's tokenizer
/// passes it to the parser as an operator no rule accepts, while tree-sitter skips it.
fn stray_character(text: &str) -> Option<std::ops::Range<usize>> {
    // Most files have none of these bytes: no need to tokenize them again.
    if !text.bytes().any(|b| matches!(b, b'!' | b'?' | b'$' | b'`')) {
        return None;
    }
    lex(text)
        .take_while(|t| t.error.is_none())
        .find(|t| t.kind == TokenKind::Op && matches!(t.text(text), "!" | "?" | "$" | "`"))
        .map(|t| t.span)
}

/// The 1-based line of byte `offset`, with universal newlines (a lone CR ends a line too).
fn line_at(text: &str, offset: usize) -> usize {
    let before = &text.as_bytes()[..offset];
    let lone_crs = before.windows(2).filter(|w| w[0] == b'\r' && w[1] != b'\n').count()
        + usize::from(before.last() == Some(&b'\r') && text.as_bytes().get(offset) != Some(&b'\n'));
    before.iter().filter(|&&b| b == b'\n').count() + lone_crs + 1
}

/// Every call's argument list, outer before inner, in source order.
fn argument_lists<'t>(tree: &'t Tree, text: &str) -> Vec<Node<'t>> {
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
fn compile_error(calls: &[Node], text: &str) -> Option<PythonSyntaxError> {
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
fn argument_order_error(calls: &[Node], text: &str) -> Option<(usize, PythonSyntaxError)> {
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

struct TokenizerError {
    error: PythonSyntaxError,
    at_eof: bool,
    /// For brackets still open at EOF: the closing brackets, innermost first.
    closers: String,
}

/// An error CPython raises while its parser builds an atom (a string with a bad escape, an
/// int literal with too many digits), before it reads any further: `offset` is where the
/// atom starts.
struct AtomError {
    error: PythonSyntaxError,
    offset: usize,
}

/// Whether `token` is a bytes literal (raw or not) with a character outside ASCII, which
/// CPython refuses when it builds the literal.
fn non_ascii_bytes(text: &str, token: &Token) -> bool {
    let (Some(quote), Some(body)) = (token.quote_offset(), token.string_body()) else { return false };
    text[token.span.start..quote].to_ascii_lowercase().contains('b') && !text[body].is_ascii()
}

/// The escape error of a string literal (`token`), if CPython raises one when it builds
/// the string.
fn literal_escape_error(text: &str, token: &Token) -> Option<String> {
    let (quote, body) = (token.quote_offset()?, token.string_body()?);
    let prefix = text[token.span.start..quote].to_ascii_lowercase();
    if prefix.contains('r') {
        return None;
    }
    // Python reads the file with universal newlines.
    let body = text[body].replace("\r\n", "\n").replace('\r', "\n");
    if prefix.contains('b') {
        bytes_escape_error(&body)
    } else {
        str_escape_error(&body, prefix.contains('f'))
    }
}

/// The first error of CPython's tokenizer (brackets, strings, numbers, line continuations,
/// indentation), from [`lex`]. An atom error met before the tokenizer error (or with none)
/// goes to `atom`: a string's is known when the token after its group of adjacent strings
/// has been read, on that token's line. The first unexpected indentation (line, offset)
/// goes to `unexpected_indent`.
fn tokenizer_error(
    text: &str,
    atom: &mut Option<AtomError>,
    unexpected_indent: &mut Option<UnexpectedIndent>,
) -> Option<TokenizerError> {
    // A string's escape error (message, start), waiting for the token after its group.
    let mut pending: Option<(String, usize)> = None;
    let resolve = |pending: &mut Option<(String, usize)>, atom: &mut Option<AtomError>, line: usize| {
        if let Some((message, offset)) = pending.take() {
            if atom.is_none() {
                *atom = Some(AtomError { error: PythonSyntaxError { message, line, fixes: Vec::new() }, offset });
            }
        }
    };
    let err = |message: String, line: usize, at_eof: bool| {
        Some(TokenizerError {
            error: PythonSyntaxError { message, line, fixes: Vec::new() },
            at_eof,
            closers: String::new(),
        })
    };
    let mut tokens = lex(text);
    // The last token the parser read was ':', so the next logical line must be indented.
    let mut after_colon = false;
    let mut logical_line_start = true;
    let mut eof_error = None;
    // The last significant token, and the NEWLINE that ended the previous logical line.
    let mut last_significant: Option<Token> = None;
    let mut previous_line_end: Option<(Token, Token)> = None;
    // A compound statement's header fails on its forced ':' instead (`cpython_hints`).
    let mut line_is_header = false;
    let mut previous_line_is_header = false;
    let mut previous_was_line_indent = false;
    for token in tokens.by_ref() {
        match token.kind {
            TokenKind::Comment | TokenKind::Nl | TokenKind::Continuation if token.error.is_none() => continue,
            TokenKind::Newline => {
                resolve(&mut pending, atom, token.line);
                logical_line_start = true;
                previous_line_end = last_significant.take().map(|last| (last, token.clone()));
                previous_line_is_header = std::mem::take(&mut line_is_header);
                continue;
            }
            TokenKind::EndOfFile => {
                eof_error = token.error;
                if eof_error.is_none() {
                    resolve(&mut pending, atom, token.line);
                }
                break;
            }
            _ => {}
        }
        if std::mem::take(&mut logical_line_start) {
            if after_colon && token.kind != TokenKind::Indent {
                return err("expected an indented block".into(), token.line, false);
            }
            if token.kind == TokenKind::Indent && !after_colon && unexpected_indent.is_none() {
                // Not a tokenizer error: an INDENT token the parser does not expect.
                let incomplete = previous_line_end
                    .as_ref()
                    .filter(|(last, _)| !previous_line_is_header && needs_operand(last, text));
                *unexpected_indent = Some(UnexpectedIndent {
                    line: token.line,
                    offset: token.span.end,
                    incomplete_line: incomplete.map(|(_, newline)| newline.line),
                    newline_offset: incomplete.map_or(0, |(_, newline)| newline.span.start),
                });
            }
        }
        if let Some(error) = token.error {
            // A backslash that starts the line is met while the indentation is measured,
            // before any INDENT token.
            if token.kind == TokenKind::Continuation && previous_was_line_indent {
                *unexpected_indent = None;
            }
            return err(error.message, error.line, false);
        }
        previous_was_line_indent =
            token.kind == TokenKind::Indent && unexpected_indent.is_some_and(|i| i.line == token.line);
        if !token.is_significant() {
            continue;
        }
        if last_significant.is_none() {
            line_is_header = token.kind == TokenKind::Name
                && matches!(
                    token.text(text),
                    "def"
                        | "class"
                        | "if"
                        | "elif"
                        | "else"
                        | "for"
                        | "while"
                        | "with"
                        | "try"
                        | "except"
                        | "finally"
                        | "async"
                        | "match"
                        | "case"
                );
        }
        last_significant = Some(token.clone());
        // The first token after a string group: the group's escape error is raised once this
        // token has been read without a tokenizer error of its own.
        if !matches!(token.kind, TokenKind::String(_)) {
            resolve(&mut pending, atom, token.line);
        }
        match token.kind {
            TokenKind::Number => {
                let digits = decimal_int_digits(token.text(text));
                if digits > MAX_INT_DIGITS && atom.is_none() {
                    let message = int_digits_error(digits);
                    let error = PythonSyntaxError { message, line: token.line, fixes: Vec::new() };
                    *atom = Some(AtomError { error, offset: token.span.start });
                }
            }
            TokenKind::String(_) if atom.is_none() && pending.is_none() => {
                if non_ascii_bytes(text, &token) {
                    // Raised at the string itself, before its escapes are read.
                    let message = "bytes can only contain ASCII literal characters".to_string();
                    let error = PythonSyntaxError { message, line: token.line, fixes: Vec::new() };
                    *atom = Some(AtomError { error, offset: token.span.start });
                } else if let Some(message) = literal_escape_error(text, &token) {
                    pending = Some((message, token.quote_offset().unwrap_or(token.span.start)));
                }
            }
            _ => {}
        }
        after_colon = token.is_op(text, ":");
    }
    let error = eof_error?;
    // CPython names the innermost bracket still open; the closers of all of them, innermost
    // first, let the caller try completing the file.
    let closers = tokens
        .open_brackets()
        .iter()
        .rev()
        .map(|&(open, _)| match open {
            b'(' => ')',
            b'[' => ']',
            _ => '}',
        })
        .collect();
    Some(TokenizerError {
        error: PythonSyntaxError { message: error.message, line: error.line, fixes: Vec::new() },
        at_eof: true,
        closers,
    })
}

/// The digits of a decimal int literal (0 for floats, complex numbers and other radixes).
fn decimal_int_digits(number: &str) -> usize {
    if number.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        number.bytes().filter(u8::is_ascii_digit).count()
    } else {
        0
    }
}

/// CPython's error for the escapes of a non-raw `str` literal's body (between the quotes),
/// as `decode_unicode_with_escapes` raises it: the body is first rewritten with each
/// non-ASCII character as `\UXXXXXXXX` (and a backslash before one as `\u005c`), so the
/// positions count in that rewritten text. `is_f`: an f-string, whose literal parts (between
/// replacement fields) are decoded one by one.
pub fn str_escape_error(body: &str, is_f: bool) -> Option<String> {
    if !body.contains('\\') {
        return None;
    }
    let chunks = if is_f { fstring_literal_chunks(body) } else { vec![body] };
    chunks.into_iter().find_map(|chunk| unicode_escape_error(&cpython_escape_buffer(chunk)))
}

fn cpython_escape_buffer(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push('\\');
            match chars.peek() {
                None => {
                    out.push_str("u005c");
                    break;
                }
                Some(&next) if !next.is_ascii() => out.push_str("u005c"),
                Some(_) => {
                    let next = chars.next().unwrap_or('\\');
                    out.push(next);
                }
            }
        } else if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\U{:08x}", c as u32));
        }
    }
    out
}

/// The literal parts of an f-string body: text up to a `{`/`}` (a doubled brace keeps one
/// in the part before it), skipping replacement fields.
fn fstring_literal_chunks(body: &str) -> Vec<&str> {
    let bytes = body.as_bytes();
    let mut chunks = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'N') && bytes.get(i + 2) == Some(&b'{') => {
                i = body[i..].find('}').map(|k| i + k + 1).unwrap_or(bytes.len());
            }
            b'\\' => i += 2,
            b'{' | b'}' if bytes.get(i + 1) == Some(&bytes[i]) => {
                chunks.push(&body[start..i + 1]);
                i += 2;
                start = i;
            }
            b'{' => {
                chunks.push(&body[start..i]);
                let mut depth = 0usize;
                while i < bytes.len() {
                    match bytes[i] {
                        b'{' | b'[' | b'(' => depth += 1,
                        b'}' | b']' | b')' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
                start = i.min(bytes.len());
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        chunks.push(&body[start..]);
    }
    chunks
}

/// The `unicodeescape` codec's first error in an ASCII buffer, as CPython words it.
fn unicode_escape_error(buffer: &str) -> Option<String> {
    let b = buffer.as_bytes();
    let n = b.len();
    let mut i = 0;
    let fail = |start: usize, end: usize, message: &str| {
        Some(format!(
            "(unicode error) 'unicodeescape' codec can't decode bytes in position {start}-{}: {message}",
            end.saturating_sub(1)
        ))
    };
    while i < n {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if i >= n {
            return fail(start, n, "\\ at end of string");
        }
        let c = b[i];
        i += 1;
        let (count, message) = match c {
            b'x' => (2, "truncated \\xXX escape"),
            b'u' => (4, "truncated \\uXXXX escape"),
            b'U' => (8, "truncated \\UXXXXXXXX escape"),
            b'N' => {
                let message = "malformed \\N character escape";
                if i >= n || b[i] != b'{' {
                    return fail(start, i, message);
                }
                i += 1;
                let name_start = i;
                while i < n && b[i] != b'}' {
                    i += 1;
                }
                if i >= n || i == name_start {
                    return fail(start, i, message);
                }
                let name = &buffer[name_start..i];
                i += 1;
                if !unicode_name_exists(name) {
                    return fail(start, i, "unknown Unicode character name");
                }
                continue;
            }
            _ => continue,
        };
        let mut value: u32 = 0;
        for _ in 0..count {
            match b.get(i).and_then(|d| (*d as char).to_digit(16)) {
                Some(d) => {
                    value = value.wrapping_mul(16).wrapping_add(d);
                    i += 1;
                }
                None => return fail(start, i, message),
            }
        }
        if value > 0x10FFFF {
            return fail(start, i, "illegal Unicode character");
        }
    }
    None
}

/// Whether `\N{name}` names a character (names and aliases, any case, as CPython's
/// `unicodedata` lookup accepts them).
fn unicode_name_exists(name: &str) -> bool {
    unicode_character_named(name).is_some()
}

/// The character `\N{name}` stands for, as CPython 3.11's `unicodedata` lookup finds it:
/// names and aliases in any case, but not the loose forms (`EMDASH`, `em_dash`) that
/// `unicode_names2` also accepts.
pub fn unicode_character_named(name: &str) -> Option<char> {
    let c = unicode_names2::character(name)?;
    let upper = name.to_ascii_uppercase();
    let official = unicode_names2::name(c).map(|n| n.to_string()).unwrap_or_default();
    let squeeze = |s: &str| s.chars().filter(|&c| c != ' ' && c != '-').collect::<String>();
    // Same letters as the official name but written differently: a loose match, not an alias.
    let loose = upper != official && squeeze(&upper) == squeeze(&official);
    (!loose && !name.contains('_')).then_some(c)
}

/// CPython's error for the escapes of a non-raw bytes literal's body.
pub fn bytes_escape_error(body: &str) -> Option<String> {
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'x') {
            let hex = |k: usize| b.get(k).is_some_and(|d| d.is_ascii_hexdigit());
            if !(hex(i + 2) && hex(i + 3)) {
                return Some(format!("(value error) invalid \\x escape at position {i}"));
            }
        }
        i += 2;
    }
    None
}

/// CPython refuses decimal int literals longer than this (`sys.int_info.default_max_str_digits`).
const MAX_INT_DIGITS: usize = 4300;

fn int_digits_error(digits: usize) -> String {
    format!(
        "Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: value has {digits} digits; \
         use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals \
         to avoid decimal conversion limits."
    )
}

/// A logical line that ends with `last` is unfinished for CPython's parser: an operator
/// needs its right operand (`x =`, `1 +`, `a.`, `~`), or a keyword its expression.
fn needs_operand(last: &Token, text: &str) -> bool {
    let word = last.text(text);
    match last.kind {
        TokenKind::Op => {
            let complete = matches!(word, ")" | "]" | "}" | "," | ";" | ":" | "..." | "!" | "?" | "$" | "`");
            // `from m import *` ends with a complete statement.
            let import_star = word == "*"
                && text[..last.span.start].rsplit('\n').next().is_some_and(|l| l.trim_start().starts_with("from "));
            !(complete || import_star)
        }
        TokenKind::Name => matches!(
            word,
            "and"
                | "or"
                | "not"
                | "in"
                | "is"
                | "if"
                | "else"
                | "lambda"
                | "import"
                | "from"
                | "assert"
                | "del"
                | "with"
                | "for"
                | "while"
                | "elif"
                | "await"
                | "class"
                | "def"
                | "global"
                | "nonlocal"
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> Option<PythonSyntaxError> {
        python_syntax_error(&parse(text, None), text)
    }

    // Messages and lines below are what CPython 3.11 reports for the same sources.
    /// Each text's (message, line), as CPython 3.11.7's compile() gives them.
    fn assert_errors(cases: &[(&str, &str, usize)]) {
        for (text, message, line) in cases {
            let e = err(text).unwrap();
            assert_eq!((e.message.as_str(), e.line), (*message, *line), "{text:?}");
        }
    }

    #[test]
    fn unclosed_bracket_reports_the_opening_line() {
        let e = err("import torch\nmanifest = {\n  'a': 1,\n").unwrap();
        assert_eq!(e, PythonSyntaxError { message: "'{' was never closed".into(), line: 2, fixes: Vec::new() });
    }

    #[test]
    fn an_indent_after_an_unfinished_line_is_not_read() {
        // CPython fails at the unfinished line's NEWLINE; a tokenizer error anywhere wins.
        let cases: &[(&str, &str, usize)] = &[
            ("manifest = \n    \"a\": 1,\n}\n", "unmatched '}'", 3),
            ("x = 1 +\n    2\n", "invalid syntax", 1),
            ("import torch\nx = 1 and\n   y\n", "invalid syntax", 2),
            ("x.\n    y\n", "invalid syntax", 1),
            ("x = [1,\n2]\nmanifest =\n  {}\n", "invalid syntax", 3),
            ("x = 1 if\n  y\n", "invalid syntax", 1),
            ("x = 1 + # c\n  2\n", "invalid syntax", 1),
            // Complete lines: the INDENT is read and is the error.
            ("x = 1\n    y = 2\n", "unexpected indent", 2),
            ("x = 1,\n  2\n", "unexpected indent", 2),
            ("from os import *\n  x\n", "unexpected indent", 2),
            ("x = 1.\n  y\n", "unexpected indent", 2),
            ("x = ...\n  y\n", "unexpected indent", 2),
            ("x = 1\n    }\n", "unexpected indent", 2),
            // A backslash that starts the line fails while the indentation is measured.
            ("import torch\n   \\ manifest = {}\n", "unexpected character after line continuation character", 2),
            // A header fails on its forced ':' first.
            ("def f(x) =\n    1\n", "expected ':'", 1),
        ];
        assert_errors(cases);
    }

    #[test]
    fn an_argument_assigned_to_an_expression_is_invalid_kwarg() {
        // CPython 3.11.7's messages and lines for the same texts.
        let expression = "expression cannot contain assignment, perhaps you meant \"==\"?";
        let cases: &[(&str, &str, usize)] = &[
            ("manifest = dict(\n    manifest_version=1,+\n    device_name=\"auto\",\n)\n", expression, 2),
            ("import torch\n\nmanifest = dict(\n-  anifest_version=1,\n    device_name=\"auto\",\n)\n", expression, 4),
            ("f(x=1, y.z=2)\n", expression, 1),
            ("f(lambda x=1: x)\ng(a.b=2)\n", expression, 2),
            ("manifest = dict(a=1, b.c=2, d)\n", expression, 1),
            ("x = f((a)=1)\n", expression, 1),
            ("x = f(a[0]=1)\n", expression, 1),
            ("f(True=1)\n", "cannot assign to True", 1),
        ];
        assert_errors(cases);
        assert_eq!(err("f(lambda x=1: x)\nmanifest = dict(a=1)\n"), None);
        assert_errors(&[("manifest = dict(\n    a=1,\n !   b=2,\n)\n", "invalid syntax", 3)]);
    }

    #[test]
    fn a_dict_key_that_is_a_unary_operator_alone_or_ends_at_a_semicolon() {
        // CPython 3.11.7: a unary operator with no operand is no key expression.
        let cases: &[(&str, &str, usize)] = &[
            ("x = {\"a\": 1,\n    +}\n", "invalid syntax", 2),
            ("x = {\"a\": 1, -}\n", "invalid syntax", 1),
            ("x = {\"a\": 1, not}\n", "invalid syntax", 1),
            ("x = {\"a\": 1, + 1}\n", "':' expected after dictionary key", 1),
            // A ';' ends a later key expression too; in the first entry it is generic.
            ("x = {\"a\": 1, \"b\";: 1}\n", "':' expected after dictionary key", 1),
            ("x = {\"a\": 1,\n  b.c;d: False}\n", "':' expected after dictionary key", 2),
            ("x = {\"a\";: 1}\n", "invalid syntax", 1),
            ("x = [1, 2;]\n", "invalid syntax", 1),
        ];
        assert_errors(cases);
    }

    #[test]
    fn arguments_out_of_order_are_a_parser_error_at_the_calls_closing_paren() {
        // Each (text, message, line) as CPython 3.11.7's compile() gives it.
        let positional = "positional argument follows keyword argument";
        let unpacking = "positional argument follows keyword argument unpacking";
        let cases: &[(&str, &str, usize)] = &[
            ("f(a=1, 2)\n", positional, 1),
            ("f(a=1,\n  2)\n", positional, 2),
            ("f(\n a=1,\n 2,\n)\n", positional, 4),
            ("x = 1\nf(**k, 2)\n", unpacking, 2),
            ("f(**k, a=1, 2)\n", unpacking, 1),
            ("f(a=1, **k, 2)\n", unpacking, 1),
            ("f(**k,\n *a)\n", "iterable argument unpacking follows keyword argument unpacking", 2),
            ("f(*a, b=1, 2)\n", positional, 1),
            ("f(a=1, *b, 2)\n", positional, 1),
            ("x = f(a=1, 2,\n 3)\n", positional, 2),
            // The inner call closes first.
            ("f(a=1, g(b=2,\n c))\n", positional, 2),
            // A parser error: before a compile error on an earlier line, and before a stray
            // character later on.
            ("g(a=1, a=2)\nf(a=1, 2)\n", positional, 2),
            ("f(a=1, 2)\n$\n", positional, 1),
            // A tokenizer error anywhere wins.
            ("f(a=1, 2)\nx = 'abc\n", "unterminated string literal (detected at line 2)", 2),
            // ... but one at EOF loses to it.
            ("f(a=1, 2)\nx = (\n", positional, 1),
            ("x = (\nf(a=1, 2)\n", "'(' was never closed", 1),
        ];
        assert_errors(cases);
        // Keyword arguments after `*a`, and `*a` after keywords, are fine.
        assert_eq!(err("f(a=1, *b)\nf(*a, b=1)\n"), None);
    }

    #[test]
    fn a_star_that_ends_a_line_is_invalid_syntax_there() {
        assert_errors(&[
            ("import torch\n*\nmanifest = {}\n", "invalid syntax", 2),
            ("*\n", "invalid syntax", 1),
            ("x = 1\n*\n", "invalid syntax", 2),
            ("*\nx = 1\n", "invalid syntax", 1),
            ("x = *\n", "invalid syntax", 1),
        ]);
        assert_eq!(err("from os import *\nx = [*a]\n"), None);
    }

    #[test]
    fn a_bytes_literal_outside_ascii_is_refused_at_the_literal() {
        let message = "bytes can only contain ASCII literal characters";
        assert_errors(&[
            ("x = b\"\u{e9}\"\n", message, 1),
            ("x = rb\"\u{e9}\"\n", message, 1),
            ("x = b\"\"\"a\n\u{e9}\"\"\"\n", message, 1),
            ("x = (b\"a\"\n b\"\u{e9}\")\n", message, 2),
            ("x = b\"\u{e9}\" b\"\\x1\"\n", message, 1),
            ("x = b\"\u{e9}\"\nf(a=1, 2)\n", message, 1),
            // An atom error: a tokenizer error wins, but not one at EOF.
            ("x = b\"\u{e9}\"\ny = (\n", message, 1),
            ("x = b\"\u{e9}\"\ny = \"abc\n", "unterminated string literal (detected at line 2)", 2),
            // An earlier string of the group with a bad escape comes first.
            ("x = b\"\\x1\" b\"\u{e9}\"\n", "(value error) invalid \\x escape at position 0", 1),
        ]);
        assert_eq!(err("x = b\"a\"\ny = \"\u{e9}\"\n"), None);
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
    fn unterminated_triple_quote_at_eof_names_the_last_line_read() {
        let detected = |text: &str| err(text).unwrap().message;
        let says = |n: usize| format!("unterminated triple-quoted string literal (detected at line {n})");
        assert_eq!(detected("x = '''abc\n"), says(1));
        assert_eq!(detected("x = '''abc"), says(1));
        assert_eq!(detected("x = '''abc\n\n"), says(2));
        assert_eq!(detected("x = '''abc\r"), says(1));
        assert_eq!(detected("x = 1\r\ny = '''abc\r\nd\r\n"), says(4));
    }

    #[test]
    fn a_character_python_has_no_token_for_is_invalid_syntax() {
        let e = err("x = [1,\n  !2]\n").unwrap();
        assert_eq!((e.message.as_str(), e.line), ("invalid syntax", 2));
        assert_eq!(err("x = 1 != 2  # !?$\ns = '!'\n"), None);
    }

    #[test]
    fn starred_expressions_cpython_parses() {
        let said = |text: &str| err(text).map(|e| (e.message, e.line));
        let says = |message: &str, line| Some((message.to_string(), line));
        // The compiler's errors, once the whole file parses.
        assert_eq!(said("x = 1\nmanifest = *{\n  1: 2,\n}\n"), says("can't use starred expression here", 2));
        assert_eq!(said("*a\n"), says("can't use starred expression here", 1));
        assert_eq!(said("x = *a = 1\n"), says("starred assignment target must be in a list or tuple", 1));
        // A parse error anywhere comes first.
        assert_eq!(said("x = *a\ny = 1 2\n"), says("invalid syntax", 2));
        // The parser's own messages, where tree-sitter reads the star without complaint.
        assert_eq!(said("x = (*a)\n"), says("cannot use starred expression here", 1));
        assert_eq!(said("x = {1: *a}\n"), says("cannot use a starred expression in a dictionary value", 1));
        assert_eq!(said("x = {\n  *a: 1}\n"), says("invalid syntax", 2));
        assert_eq!(said("x = *a, 1\ny = [*a]\n"), None);
    }

    #[test]
    fn the_second_pass_stops_at_the_first_failing_statement() {
        let said = |text: &str| err(text).map(|e| (e.message, e.line));
        let text = "mport torch\n\nmanifest = {\n    'a': 1\n    'b': 2,\n}\n";
        assert_eq!(said(text), Some(("invalid syntax".to_string(), 1)));
        let text = "manifest = {\n  'a': 1,\n  'b': 2, :\n  'c': 3,\n}\n";
        assert_eq!(said(text), Some(("invalid syntax".to_string(), 3)));
        // The value of an assignment to a bad target is read: its comma hint comes first.
        let text = "# a\nman-ifest = {\n  'a': 1,\n  'b': 'x' 5,\n}\n";
        assert_eq!(said(text), Some(("invalid syntax. Perhaps you forgot a comma?".to_string(), 4)));
    }

    #[test]
    fn an_atom_error_in_the_expression_the_second_pass_rereads() {
        let digits = "7".repeat(MAX_INT_DIGITS + 1);
        let e = err(&format!("manifest {{\n  'a': 1,\n  'b': {digits},\n}}\n")).unwrap();
        assert_eq!((e.message, e.line), (int_digits_error(MAX_INT_DIGITS + 1), 3));
        // Not past an error the second pass stops at.
        let e = err(&format!("manifest = {{\n  'a': 1 +,\n  'b': {digits},\n}}\n")).unwrap();
        assert_eq!((e.message.as_str(), e.line), ("invalid syntax", 2));
    }

    #[test]
    fn a_dict_cut_after_a_key_is_a_bracket_never_closed() {
        let e = err("x = 1\nmanifest = {\n  'a': 1,\n  'b'").unwrap();
        assert_eq!((e.message.as_str(), e.line), ("'{' was never closed", 2));
    }

    #[test]
    fn valid_file_has_no_error() {
        assert_eq!(err("x = {'a': [1, (2, 3)]}  # ) ]\ns = ')'\n"), None);
    }
}
