//! CPython's syntax error for a file, estimated for `check` parity (`Failed to parse
//! manifest: ...`): the tokenizer's errors ([`tokenizer_errors`](super::tokenizer_errors)),
//! the parser's specialised messages where their construct comes first
//! ([`hints`](super::hints)), else `invalid syntax` on the line of the first error
//! tree-sitter found ([`crate::syntax`]), and the compiler's errors for a file that parses.

use super::arguments::{argument_lists, argument_order_error};
use super::error::{line_at, PythonSyntaxError};
use super::tokenizer_errors::{tokenizer_error, AtomError, TokenizerError, UnexpectedIndent};
use crate::syntax::{parse, syntax_findings};
use tree_sitter::{Node, Tree};

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
    let tokens = super::tokens::tokenize(text);
    if let Some(stars) = tokens.as_deref().and_then(|tokens| super::targets::statement_stars(text, tokens)) {
        let replaced = &stars.replaced;
        let replaced_tokens = super::tokens::tokenize(replaced);
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
    tokens: Option<&[super::tokens::Token]>,
) -> Option<PythonSyntaxError> {
    let mut atom = None;
    let mut indent = None;
    let token_error = tokenizer_error(text, &mut atom, &mut indent);
    let first = first_error(tree, text, tokens);
    // Arguments out of order parse in tree-sitter; in CPython they are a parser error, the
    // first one where they come before the first error tree-sitter (or a check) found.
    let first_start = first.map(|(_, _, start)| start);
    let calls = argument_lists(tree, text);
    // So are the assignments and parameter lists of `leniencies::tree_shape_error`.
    let arguments = [
        argument_order_error(&calls, text),
        super::leniencies::tree_shape_error(tree, text),
        fstring_field_error(tree, text),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|(at, _)| *at)
    .filter(|(at, _)| first_start.is_none_or(|start| *at < start));
    // Where one of those comes first, an indent, an atom or a missing block after it is
    // not read.
    if let Some((_, error)) = arguments.as_ref() {
        if token_error.as_ref().is_some_and(|t| t.missing_block && error.line < t.error.line) {
            return Some(error.clone());
        }
    }
    let first = arguments.as_ref().map(|(at, error)| (error.line, *at, *at)).or(first);
    let token_error = match indent_error(indent, first, atom.as_ref(), token_error) {
        Ok(error) => return Some(error),
        Err(token_error) => token_error,
    };
    let token_error = match atom_error_first(text, atom, first, token_error) {
        Ok(error) => return Some(error),
        Err(token_error) => token_error,
    };
    // Where CPython's parser fails (a quiet tokenizer error after it is not met): the token
    // of an error tree-sitter misses, else somewhere in the first line of tree-sitter's
    // first error (which often starts with tokens CPython accepts: `ma\nifest`).
    let parser_offset = arguments.as_ref().map(|(at, _)| *at).or(first.map(|(_, end, start)| end.max(start + 1) - 1));
    let first = first.map(|(line, end, _)| (line, end));
    // Brackets left open at EOF, and the text before EOF is how a valid file can start:
    // CPython's parser reads to EOF without an error of its own (tree-sitter marks the
    // open bracket instead).
    if let Some(tok) = token_error.as_ref().filter(|t| t.at_eof && first.is_some() && arguments.is_none()) {
        let completes = |tail: &str| {
            let whole = format!("{text}\n{tail}{}\n", tok.closers);
            let tokens = super::tokens::tokenize(&whole);
            !parse(&whole, None).root_node().has_error()
                && super::leniencies::missed_error(&whole, tokens.as_deref()).is_none()
        };
        // Nothing, a value, or a dict key's ':' and value (`{"a": 1, "b"`).
        if completes("") || completes("0") || completes(":0") {
            return token_error.map(|t| t.error);
        }
    }
    parser_or_tokenizer_error(tree, text, &calls, (first, parser_offset.unwrap_or(0)), arguments, token_error)
}

/// An unexpected INDENT token stops the parser there, and CPython says so without reading
/// further: only tokenizer errors before that line come first. `Err` hands `token_error`
/// back where the indent is not the first error.
fn indent_error(
    indent: Option<UnexpectedIndent>,
    first: Option<(usize, usize, usize)>,
    atom: Option<&AtomError>,
    token_error: Option<TokenizerError>,
) -> Result<PythonSyntaxError, Option<TokenizerError>> {
    if let Some(UnexpectedIndent { incomplete_line: Some(line), newline_offset, .. }) = indent {
        // The line before ends where an operand must follow: CPython's parser fails at its
        // NEWLINE (a generic error, then any tokenizer error in the file wins).
        let parser_first = first.is_none_or(|(first_line, _, _)| first_line >= line)
            && atom.is_none_or(|a: &AtomError| a.offset > newline_offset);
        if parser_first {
            return Ok(match token_error {
                Some(tok) if !tok.at_eof && tok.wins_over_parser_error_at(newline_offset) => tok.error,
                Some(tok) if !tok.at_eof => tok.after_parser_error_on(line).unwrap_or_else(|| PythonSyntaxError {
                    message: "invalid syntax".into(),
                    line,
                    fixes: Vec::new(),
                }),
                _ => PythonSyntaxError { message: "invalid syntax".into(), line, fixes: Vec::new() },
            });
        }
    } else if let Some(UnexpectedIndent { line, offset, .. }) = indent {
        let parser_first = first.is_none_or(|(first_line, _, _)| first_line >= line)
            && atom.is_none_or(|a: &AtomError| a.offset > offset);
        if parser_first {
            return Ok(match token_error {
                Some(tok) if !tok.at_eof && tok.error.line < line => tok.error,
                _ => PythonSyntaxError { message: "unexpected indent".into(), line, fixes: Vec::new() },
            });
        }
    }
    Err(token_error)
}

/// An atom error (a bad escape, a huge int) is raised as the parser builds that atom,
/// before any parser error further on. Like any parser error it is then replaced by a
/// tokenizer error anywhere in the file (CPython tokenizes the rest), except an unclosed
/// bracket opened on a later line. `Err` hands `token_error` back where the atom error is
/// not the first error.
fn atom_error_first(
    text: &str,
    atom: Option<AtomError>,
    first: Option<(usize, usize, usize)>,
    token_error: Option<TokenizerError>,
) -> Result<PythonSyntaxError, Option<TokenizerError>> {
    if let Some(atom) = atom {
        // CPython's second pass also reads the expression after two operands side by side
        // at the first error (`manifest {...}`), atoms included.
        let reread =
            |start: usize| super::targets::juxtaposed_expression(text, start).is_some_and(|e| e.contains(&atom.offset));
        if first.is_none_or(|(_, _, start)| start >= atom.offset || reread(start)) {
            return Ok(match token_error {
                Some(tok) if !(tok.at_eof && atom.error.line <= tok.error.line) => tok.error,
                _ => atom.error,
            });
        }
    }
    Err(token_error)
}

/// The parser's error (its specialised message, a header without ':', arguments out of
/// order, else `invalid syntax` at tree-sitter's first error) against the tokenizer's, or
/// the compiler's error for a file that parses.
fn parser_or_tokenizer_error(
    tree: &Tree,
    text: &str,
    calls: &[Node],
    (first, parser_offset): (Option<(usize, usize)>, usize),
    arguments: Option<(usize, PythonSyntaxError)>,
    token_error: Option<TokenizerError>,
) -> Option<PythonSyntaxError> {
    // Only a file that does not parse is scanned for CPython's specialised messages.
    let hints = if first.is_some() { super::hints::hints(text) } else { Default::default() };
    let stops_parser = hints.first.as_ref().is_some_and(|h| h.stops_parser);
    let mut parser_error = first.map(|(line, end)| parser_error(hints.first, &hints.statement_starts, line, end));
    // Where the parser stopped for good, the last token it read is on its error's line.
    let stopped_there = stops_parser && parser_error.as_ref().is_some_and(|p| p.message == super::hints::INVALID);
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
        // A block missing after a header is the parser's error, met only once the header
        // parsed: an error on an earlier line (in the header) comes first.
        (Some(tok), Some(parser)) if tok.missing_block && parser.line < tok.error.line => Some(parser),
        (Some(tok), Some(parser)) => {
            // A tokenizer error at EOF ("never closed") loses to an earlier parser error,
            // as in CPython, where the parser consumes tokens as they come. Others win: a
            // generic `invalid syntax` makes CPython tokenize the rest of the file (any
            // error there replaces it), and before a specialised message its first pass
            // has usually read past the construct already.
            // (CPython compares the line of the last token the parser read with the
            // bracket's: its lookahead usually reads on to EOF, not where it stopped.)
            // A quiet one after the parser's error is not reported as itself.
            if !tok.wins_over_parser_error_at(parser_offset) {
                return tok.after_parser_error_on(parser.line).or(Some(parser));
            }
            if tok.at_eof && (parser.line < tok.error.line || stopped_there && parser.line == tok.error.line) {
                Some(parser)
            } else {
                Some(tok.error)
            }
        }
        (Some(tok), None) => Some(tok.error),
        (None, Some(parser)) => Some(parser),
        (None, None) => super::compiler::compile_error(tree, calls, text),
    }
}

/// CPython's message for a parse error tree-sitter first sees on `line`, ending at byte
/// `end`. A hint from no later than that error, or from the next line, is the same mistake
/// (tree-sitter's recovery often marks the token before it, such as the comma ending the
/// previous entry), unless a statement starts between them; a later one is not CPython's
/// first error.
fn parser_error(
    first_hint: Option<super::hints::Hint>,
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
fn first_error(tree: &Tree, text: &str, tokens: Option<&[super::tokens::Token]>) -> Option<(usize, usize, usize)> {
    let findings = if tree.root_node().has_error() { syntax_findings(tree, text, 1) } else { Vec::new() };
    let tree_sitter = findings.first().map(|f| f.span.clone());
    let span = super::leniencies::missed_error(text, tokens).into_iter().chain(tree_sitter).min_by_key(|s| s.start)?;
    Some((line_at(text, span.start), span.end, span.start))
}

/// The first f-string field whose expression CPython's parser refuses, compiled as 3.11
/// compiles it: `(expression)` alone, its `invalid syntax` prefixed `f-string: ` (`{a b}`:
/// "Perhaps you forgot a comma?"; `{T'uni'}`, which tree-sitter reads as one string with a
/// prefix `T`). Reported on the string's line, at the field.
fn fstring_field_error(tree: &Tree, text: &str) -> Option<(usize, PythonSyntaxError)> {
    let mut stack = vec![tree.root_node()];
    let mut cursor = tree.walk();
    let mut found: Option<(usize, PythonSyntaxError)> = None;
    while let Some(node) = stack.pop() {
        if node.kind() == "interpolation" {
            if let Some(error) = field_expression_error(node, text) {
                if found.as_ref().is_none_or(|(at, _)| node.start_byte() < *at) {
                    found = Some((node.start_byte(), error));
                }
            }
            continue;
        }
        if node.kind() == "string" && !node.has_error() && !text[node.byte_range()].contains('{') {
            continue;
        }
        stack.extend(node.children(&mut cursor).collect::<Vec<_>>());
    }
    found
}

/// The error of one field's expression (the text after its `{`, up to its `!`, `:`, `=` or
/// `}`), where CPython's is `invalid syntax`.
fn field_expression_error(field: Node, text: &str) -> Option<PythonSyntaxError> {
    let mut cursor = field.walk();
    let children: Vec<Node> = field.children(&mut cursor).collect();
    let open = children.first().filter(|c| c.kind() == "{")?;
    let end = children
        .iter()
        .skip(1)
        .find(|c| matches!(c.kind(), "type_conversion" | "format_specifier" | "=" | "}"))
        .map_or(field.end_byte(), |c| c.start_byte());
    let expression = text.get(open.end_byte()..end)?;
    // Only a field tree-sitter found an error in, or one holding a string whose prefix
    // Python has no such letters for (`T'uni'`), is parsed again: this runs per analysis.
    let mut cursor = field.walk();
    let glued_prefix = field.named_children(&mut cursor).filter(|c| c.kind() == "string").any(|s| {
        let quoted = &text[s.byte_range()];
        let prefix = &quoted[..quoted.find(['\'', '"']).unwrap_or(0)];
        prefix.len() > 2 || !prefix.chars().all(|c| "rbfuRBFU".contains(c))
    });
    if expression.trim().is_empty() || !(field.has_error() || glued_prefix) {
        return None;
    }
    let wrapped = format!("({expression})");
    let error = python_syntax_error(&parse(&wrapped, None), &wrapped)?;
    let string_start = std::iter::successors(field.parent(), |p| p.parent()).find(|p| p.kind() == "string")?;
    error.message.starts_with("invalid syntax").then(|| PythonSyntaxError {
        message: format!("f-string: {}", error.message),
        line: line_at(text, string_start.start_byte()),
        fixes: Vec::new(),
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::tokenizer_errors::{int_digits_error, MAX_INT_DIGITS};
    use super::*;

    fn err(text: &str) -> Option<PythonSyntaxError> {
        python_syntax_error(&parse(text, None), text)
    }

    // Messages and lines below are what CPython 3.11 reports for the same sources.
    /// Each text's (message, line), as CPython 3.11.7's compile() gives them.
    pub(in crate::cpython) fn assert_errors(cases: &[(&str, &str, usize)]) {
        for (text, message, line) in cases {
            let e = err(text).expect(text);
            assert_eq!((e.message.as_str(), e.line), (*message, *line), "{text:?}");
        }
    }

    /// A header that does not parse fails before its missing block is met (CPython 3.11's
    /// compile(); seed 1006150 of the emulation's residue).
    #[test]
    fn a_header_error_comes_before_its_missing_block() {
        assert_errors(&[
            ("m = {}\nif 'a' in *m['c']:\nm['s'] = True\n", "invalid syntax", 2),
            ("m = {}\nif 'a' in * 3:\nm['s'] = True\n", "invalid syntax", 2),
            ("m = {}\nif 'a' in m:\nm['s'] = True\n", "expected an indented block after 'if' statement on line 2", 3),
        ]);
    }

    /// CPython 3.10's and 3.11's compile() (3.12 words f-string errors otherwise).
    #[test]
    fn an_fstring_field_is_compiled_as_an_expression() {
        assert_errors(&[
            ("x = 1\ny = f\"{T'uni'}fied\"\n", "f-string: invalid syntax", 2),
            ("y = f\"{a b}\"\n", "f-string: invalid syntax. Perhaps you forgot a comma?", 1),
            ("y = f\"{[a b]}\"\n", "f-string: invalid syntax. Perhaps you forgot a comma?", 1),
            // A walrus's value is never starred (seed 913063; 3.10-3.13 say so outside
            // f-strings too, at the star).
            ("y = f\"{(d := * l * 2)}\"\n", "f-string: invalid syntax", 1),
            ("x = 1\ny = (d := *l)\n", "invalid syntax", 2),
            // A star binds an operand of `|` or tighter only (seed 913087).
            ("x = [*a or b]\n", "invalid syntax", 1),
            ("x = 1\ny = [*a.k < b]\n", "invalid syntax", 2),
            ("x = [*a if c else d]\n", "invalid syntax", 1),
            // `bf` is no prefix (seed 913088).
            ("y = f'{bf\"a{1}\"}'\n", "f-string: invalid syntax", 1),
        ]);
        for text in [
            "y = f\"{a if b else c}\"\n",
            "y = f\"{a not in b}\"\n",
            "y = f\"{x!r:>{w}}\"\n",
            "y = [*l * 2]\n",
            "print(*a or b)\n",
            "y = [*a, b or c]\n",
        ] {
            assert_eq!(err(text), None, "{text}");
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
            // A tokenizer error that only sets the tokenizer's state is not read after it.
            ("f(a=1, 2)\ny = 1 \\ 2\n", positional, 1),
            // ... unless inside a bracket opened before: that bracket never closed.
            ("x = [\n  f(a=1, 2),\n  1 \\ 2]\n", "'[' was never closed", 1),
            // The same after the parser's error on its line (CPython 3.11.7).
            // Before it, on the line of tree-sitter's first error, it is the error.
            (
                "import torch\n\nma\\nifest = dict(\n    a=1,\n)\n",
                "unexpected character after line continuation character",
                3,
            ),
            ("x = {\n  'a'_:\\ 1,\n}\n", "'{' was never closed", 1),
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

    /// Each checked with CPython 3.10-3.13's compile(): all agree, but for the last, where
    /// 3.12 and 3.13 name the escape (they build every string of the group first).
    #[test]
    fn bytes_and_str_side_by_side_are_refused_at_the_token_after_them() {
        let mix = "cannot mix bytes and nonbytes literals";
        let escape =
            "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-4: unknown Unicode character name";
        assert_errors(&[
            ("x = [\"a\"b\"b\"]\n", mix, 1),
            ("x = (\"a\"\n  b\"b\"\n  \"c\")\n", mix, 3),
            ("x = (b\"a\"  # c\n  \"b\"\n  ,)\n", mix, 3),
            ("x = \"a\" \\\n  b\"b\"\n", mix, 2),
            ("x = \"a\" b\"b\"\ny = (\n", mix, 1),
            ("x = \"a\" b\"b\"\ny = \"abc\n", "unterminated string literal (detected at line 2)", 2),
            ("x = \"a\" b\"b\"\nf(a=1, 2)\n", mix, 1),
            ("f(a=1, 2)\nx = \"a\" b\"b\"\n", "positional argument follows keyword argument", 1),
            ("x = \"\\N{x}\" b\"b\"\n", escape, 1),
            ("x = b\"b\" \"\\N{x}\"\n", escape, 1),
            ("x = b\"b\" \"a\" \"\\N{x}\"\n", mix, 1),
        ]);
        for valid in ["x = b\"a\" rb\"b\" Br\"c\"\n", "x = \"a\" f\"{1}\" r\"b\"\n", "x = b\"a\"\ny = \"b\"\n"] {
            assert_eq!(err(valid), None, "{valid}");
        }
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
        // A generator's starred element is the comprehension's error (3.10-3.13 alike).
        assert_eq!(said("x = (*a for a in z)\n"), says("iterable unpacking cannot be used in comprehension", 1));
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

    /// CPython 3.11.7's `compile()` of the same sources.
    #[test]
    fn del_targets_that_cannot_be_deleted() {
        assert_errors(&[
            ("manifest = {}\ndel +manifest['a']\n", "cannot delete expression", 2),
            ("del x + 1\n", "cannot delete expression", 1),
            ("del f()\n", "cannot delete function call", 1),
            ("del 1\n", "cannot delete literal", 1),
            ("x = 1\ndel (x, 1)\n", "cannot delete literal", 2),
            ("del x, -y\n", "cannot delete expression", 1),
            ("del *x\n", "cannot delete starred", 1),
        ]);
        assert_eq!(err("x = [1]\ndel [x, x[0].y], x\n"), None);
    }

    /// A `*` right after an operator that wants an operand, a dotted name imported from a
    /// module: CPython 3.11.7 says `invalid syntax` there.
    #[test]
    fn stars_after_operators_and_dotted_from_imports() {
        assert_errors(&[
            ("x = {'a': +*y}\n", "invalid syntax", 1),
            ("x = 1\ny = [-*x]\n", "invalid syntax", 2),
            ("f(~*y)\n", "invalid syntax", 1),
            ("x = not *y\n", "invalid syntax", 1),
            ("x = a ** *b\n", "invalid syntax", 1),
            ("import torch\nfrom torch import flo.at16 as F16\n", "invalid syntax", 2),
            ("import torch,\n\nmanifest = {}\n", "invalid syntax", 1),
            ("import a, b,;x = 1\n", "invalid syntax", 1),
            ("\\", "unexpected EOF while parsing", 1),
            ("x = (1,\n\\", "'(' was never closed", 1),
            // Before a bracket left open at EOF: the parser's error comes first.
            ("from torch import flo.at16 as F16\nx = {\n  'a': 1,\n", "invalid syntax", 1),
        ]);
        assert_eq!(
            err("f(*a, *b)\nx = [*a, *b]\nfor x in *a, *b:\n    pass\nfrom . import x\ny = lambda *a: 0\n"),
            None
        );
    }

    /// An f-string's structure error is raised as its escapes are (CPython 3.11.7's lines).
    #[test]
    fn fstring_structure_errors() {
        assert_errors(&[
            ("x = {\n 'a': f'ab}c',\n 'b': 1}\n", "f-string: single '}' is not allowed", 2),
            ("x = f'{a'\n", "f-string: expecting '}'", 1),
            ("x = [\n f'{a' 'b',\n 2]\n", "f-string: expecting '}'", 2),
            ("x = (f'{a}'\n     f'}')\n", "f-string: single '}' is not allowed", 2),
            ("x = f'{a\\n}'\n", "f-string expression part cannot include a backslash", 1),
            ("x = f'{}'\n", "f-string: empty expression not allowed", 1),
            ("y = 1 +\nx = f'}'\n", "invalid syntax", 1),
        ]);
    }

    #[test]
    fn valid_file_has_no_error() {
        assert_eq!(err("x = {'a': [1, (2, 3)]}  # ) ]\ns = ')'\n"), None);
    }
}
