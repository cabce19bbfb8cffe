//! The first error of CPython's tokenizer (brackets, strings, numbers, line continuations,
//! indentation), the errors its parser raises while it builds an atom (a bad escape, a
//! huge int), and the first unexpected indentation, from one [`lex`] pass.

use super::error::PythonSyntaxError;
use super::escapes::{bytes_escape_error, str_escape_error};
use crate::lexer::{lex, Lexer, Token, TokenKind};

pub(super) struct TokenizerError {
    pub(super) error: PythonSyntaxError,
    pub(super) at_eof: bool,
    /// For brackets still open at EOF: the closing brackets, innermost first.
    pub(super) closers: String,
    /// A header with no indented block after it: raised by CPython's parser (its
    /// `invalid_*_stmt` rules) as it reaches the line, so an earlier parser error wins.
    pub(super) missing_block: bool,
    /// CPython's tokenizer only sets its state for this error (`E_LINECONT`, `E_DEDENT`,
    /// `E_TABSPACE`, `E_TOODEEP`): met before the parser's error it is the error, but the
    /// scan of the rest of the file after a parser error reports only the errors that raise
    /// (an unterminated string, an unmatched bracket, ...).
    pub(super) quiet: bool,
    /// The innermost bracket open at the error, and its line.
    pub(super) open_bracket: Option<(u8, usize)>,
    /// The byte of the token the error is met at.
    pub(super) offset: usize,
}

impl TokenizerError {
    /// Whether this error is CPython's rather than a parser error at byte `parser_offset`
    /// (quiet, it is met only if the parser reads up to it).
    pub(super) fn wins_over_parser_error_at(&self, parser_offset: usize) -> bool {
        !self.quiet || self.offset <= parser_offset
    }

    /// What CPython's scan of the rest of the file reports for a quiet error after a parser
    /// error on `parser_line`: inside a bracket opened on an earlier line, that bracket
    /// never closed (`_PyPegen_tokenize_full_source_to_check_for_errors`); else nothing.
    pub(super) fn after_parser_error_on(&self, parser_line: usize) -> Option<PythonSyntaxError> {
        let (open, line) = self.open_bracket.filter(|&(_, line)| line < parser_line)?;
        Some(PythonSyntaxError { message: format!("'{}' was never closed", open as char), line, fixes: Vec::new() })
    }
}

/// An error CPython raises while its parser builds an atom (a string with a bad escape, an
/// int literal with too many digits), before it reads any further: `offset` is where the
/// atom starts.
pub(super) struct AtomError {
    pub(super) error: PythonSyntaxError,
    pub(super) offset: usize,
}

/// An INDENT token at the start of a logical line that does not follow a block header.
#[derive(Clone, Copy)]
pub(super) struct UnexpectedIndent {
    pub(super) line: usize,
    pub(super) offset: usize,
    /// The logical line before ends with an operator or a keyword that needs an operand
    /// (`x =`, `1 +`, `a.`, `not`): its last line. CPython fails at its NEWLINE and never
    /// reads the INDENT.
    pub(super) incomplete_line: Option<usize>,
    pub(super) newline_offset: usize,
}

/// Whether `token` is a bytes literal (raw or not) with a character outside ASCII, which
/// CPython refuses when it builds the literal.
fn non_ascii_bytes(text: &str, token: &Token) -> bool {
    let Some(body) = token.string_body() else { return false };
    is_bytes_literal(text, token) && !text[body].is_ascii()
}

/// A string token with a `b` prefix.
fn is_bytes_literal(text: &str, token: &Token) -> bool {
    token
        .quote_offset()
        .is_some_and(|quote| text[token.span.start..quote].bytes().any(|b| b.eq_ignore_ascii_case(&b'b')))
}

/// The kinds of string in a group of adjacent strings read so far.
#[derive(Clone, Copy, Default)]
struct StringGroup {
    bytes: bool,
    text: bool,
}

/// The error CPython raises when it builds the string literal `token`: an f-string's
/// structure, else an escape.
fn literal_escape_error(text: &str, token: &Token) -> Option<String> {
    let (quote, body) = (token.quote_offset()?, token.string_body()?);
    let prefix = text[token.span.start..quote].to_ascii_lowercase();
    // Python reads the file with universal newlines.
    let body = text[body].replace("\r\n", "\n").replace('\r', "\n");
    if prefix.contains('f') {
        if let Some(error) = super::fstrings::fstring_error(&body, prefix.contains('r')) {
            return Some(error);
        }
    }
    if prefix.contains('r') {
        return None;
    }
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
pub(super) fn tokenizer_error(
    text: &str,
    atom: &mut Option<AtomError>,
    unexpected_indent: &mut Option<UnexpectedIndent>,
) -> Option<TokenizerError> {
    let mut scan = Scan {
        text,
        atom: atom.take(),
        unexpected_indent: unexpected_indent.take(),
        pending: None,
        group: StringGroup::default(),
        after_colon: false,
        logical_line_start: true,
        last_significant: None,
        previous_line_end: None,
        line_is_header: false,
        previous_line_is_header: false,
        previous_was_line_indent: false,
        header: None,
        previous_header: None,
    };
    let mut tokens = lex(text);
    let error = scan.run(&mut tokens);
    (*atom, *unexpected_indent) = (scan.atom, scan.unexpected_indent);
    error
}

/// What [`tokenizer_error`] tracks between tokens.
struct Scan<'t> {
    text: &'t str,
    atom: Option<AtomError>,
    unexpected_indent: Option<UnexpectedIndent>,
    /// A string's escape error (message, start), waiting for the token after its group.
    pending: Option<(String, usize)>,
    /// What the strings of the current group of adjacent strings are.
    group: StringGroup,
    /// The last token the parser read was ':', so the next logical line must be indented.
    after_colon: bool,
    logical_line_start: bool,
    /// The last significant token, and the NEWLINE that ended the previous logical line.
    last_significant: Option<Token>,
    previous_line_end: Option<(Token, Token)>,
    /// A compound statement's header fails on its forced ':' instead (`hints`).
    line_is_header: bool,
    previous_line_is_header: bool,
    previous_was_line_indent: bool,
    /// The keyword that starts this logical line's compound statement (`def` for `async
    /// def`) and its line, and the previous logical line's.
    header: Option<(&'t str, usize)>,
    previous_header: Option<(&'t str, usize)>,
}

fn tokenizer_err(message: String, line: usize) -> Option<TokenizerError> {
    let quiet = matches!(
        message.as_str(),
        "unexpected character after line continuation character"
            | "unindent does not match any outer indentation level"
            | "inconsistent use of tabs and spaces in indentation"
            | "too many levels of indentation"
    );
    let error = PythonSyntaxError { message, line, fixes: Vec::new() };
    Some(TokenizerError {
        error,
        at_eof: false,
        closers: String::new(),
        missing_block: false,
        quiet,
        open_bracket: None,
        offset: 0,
    })
}

impl Scan<'_> {
    fn run(&mut self, tokens: &mut Lexer) -> Option<TokenizerError> {
        let mut eof_error = None;
        for token in tokens.by_ref() {
            match token.kind {
                TokenKind::Comment | TokenKind::Nl | TokenKind::Continuation if token.error.is_none() => continue,
                TokenKind::Newline => {
                    self.resolve(token.line);
                    self.logical_line_start = true;
                    self.previous_line_end = self.last_significant.take().map(|last| (last, token.clone()));
                    self.previous_line_is_header = std::mem::take(&mut self.line_is_header);
                    self.previous_header = self.header.take();
                    continue;
                }
                TokenKind::EndOfFile => {
                    eof_error = token.error;
                    if eof_error.is_none() {
                        self.resolve(token.line);
                    }
                    // A header ends the file: the block is missing at its last line.
                    if eof_error.is_none() && self.after_colon {
                        let last_line = self.text.lines().count().max(1);
                        // Without a last line break, no NEWLINE ended the header's line.
                        let header = if self.logical_line_start { self.previous_header } else { self.header };
                        let error = tokenizer_err(missing_block(header), last_line);
                        return error.map(|e| TokenizerError { missing_block: true, offset: token.span.start, ..e });
                    }
                    break;
                }
                _ => {}
            }
            let offset = token.span.start;
            if let Some(error) = self.token(token) {
                let open_bracket = tokens.open_brackets().last().copied();
                let error = TokenizerError { open_bracket, offset, ..error };
                if error.missing_block {
                    return Some(rest_after_parser_error(tokens, error));
                }
                return Some(error);
            }
        }
        let error = eof_error?;
        // CPython names the innermost bracket still open; the closers of all of them,
        // innermost first, let the caller try completing the file.
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
            missing_block: false,
            quiet: false,
            open_bracket: None,
            offset: self.text.len(),
        })
    }

    /// The pending string group's escape error becomes the atom error (if none came first),
    /// reported on `line`.
    fn resolve(&mut self, line: usize) {
        self.group = StringGroup::default();
        if let Some((message, offset)) = self.pending.take() {
            if self.atom.is_none() {
                let error = PythonSyntaxError { message, line, fixes: Vec::new() };
                self.atom = Some(AtomError { error, offset });
            }
        }
    }

    /// A token other than a comment, a line break or the end of the file.
    fn token(&mut self, token: Token) -> Option<TokenizerError> {
        if std::mem::take(&mut self.logical_line_start) {
            if self.after_colon && token.kind != TokenKind::Indent {
                let error = tokenizer_err(missing_block(self.previous_header), token.line);
                return error.map(|e| TokenizerError { missing_block: true, ..e });
            }
            self.note_unexpected_indent(&token);
        }
        if let Some(error) = token.error {
            // A backslash that starts the line is met while the indentation is measured,
            // before any INDENT token.
            if token.kind == TokenKind::Continuation && self.previous_was_line_indent {
                self.unexpected_indent = None;
            }
            return tokenizer_err(error.message, error.line);
        }
        self.previous_was_line_indent =
            token.kind == TokenKind::Indent && self.unexpected_indent.is_some_and(|i| i.line == token.line);
        if !token.is_significant() {
            return None;
        }
        if self.last_significant.is_none() {
            self.line_is_header = token.kind == TokenKind::Name && is_header_keyword(token.text(self.text));
            self.header = self.line_is_header.then(|| (token.text(self.text), token.line));
        } else if self.header.is_some_and(|(keyword, _)| keyword == "async") {
            self.header = Some((token.text(self.text), token.line));
        }
        // A `:` opening its logical line is the parser's error (`x\n:`), not a header's end.
        let opens_line = self.last_significant.is_none();
        self.last_significant = Some(token.clone());
        // The first token after a string group: the group's escape error is raised once this
        // token has been read without a tokenizer error of its own.
        if !matches!(token.kind, TokenKind::String(_)) {
            self.resolve(token.line);
        }
        self.atom_error(&token);
        self.after_colon = token.is_op(self.text, ":") && !opens_line;
        None
    }

    /// At the start of a logical line: an INDENT not after a block header is not a
    /// tokenizer error but a token the parser does not expect; the first is kept.
    fn note_unexpected_indent(&mut self, token: &Token) {
        if token.kind == TokenKind::Indent && !self.after_colon && self.unexpected_indent.is_none() {
            let incomplete = self
                .previous_line_end
                .as_ref()
                .filter(|(last, _)| !self.previous_line_is_header && needs_operand(last, self.text));
            self.unexpected_indent = Some(UnexpectedIndent {
                line: token.line,
                offset: token.span.end,
                incomplete_line: incomplete.map(|(_, newline)| newline.line),
                newline_offset: incomplete.map_or(0, |(_, newline)| newline.span.start),
            });
        }
    }

    /// The atom error of a number (too many digits) or a string (non-ASCII bytes, at once;
    /// a bad escape, pending until the token after its group).
    fn atom_error(&mut self, token: &Token) {
        self.own_atom_error(token);
        if let TokenKind::String(_) = token.kind {
            // Adjacent strings concatenate as the group is built: bytes and str do not mix.
            // Raised once the group is read, after the errors of the strings before and of
            // this one (3.10 and 3.11 check each string in turn; 3.12 builds all first).
            let is_bytes = is_bytes_literal(self.text, token);
            let mixed = if is_bytes { self.group.text } else { self.group.bytes };
            (self.group.bytes, self.group.text) = (self.group.bytes || is_bytes, self.group.text || !is_bytes);
            if mixed && self.atom.is_none() && self.pending.is_none() {
                let offset = token.quote_offset().unwrap_or(token.span.start);
                self.pending = Some(("cannot mix bytes and nonbytes literals".to_string(), offset));
            }
        }
    }

    /// The error of `token` itself: [`Scan::atom_error`] less a group's mix of bytes and str.
    fn own_atom_error(&mut self, token: &Token) {
        match token.kind {
            TokenKind::Number => {
                let digits = decimal_int_digits(token.text(self.text));
                if digits > MAX_INT_DIGITS && self.atom.is_none() {
                    let message = int_digits_error(digits);
                    let error = PythonSyntaxError { message, line: token.line, fixes: Vec::new() };
                    self.atom = Some(AtomError { error, offset: token.span.start });
                }
            }
            TokenKind::String(_) if self.atom.is_none() && self.pending.is_none() => {
                if non_ascii_bytes(self.text, token) {
                    // Raised at the string itself, before its escapes are read.
                    let message = "bytes can only contain ASCII literal characters".to_string();
                    let error = PythonSyntaxError { message, line: token.line, fixes: Vec::new() };
                    self.atom = Some(AtomError { error, offset: token.span.start });
                } else if let Some(message) = literal_escape_error(self.text, token) {
                    // tree-sitter's error in an f-string may start at its prefix.
                    let offset = match message.starts_with("f-string") {
                        true => token.span.start,
                        false => token.quote_offset().unwrap_or(token.span.start),
                    };
                    self.pending = Some((message, offset));
                }
            }
            _ => {}
        }
    }
}

/// The first word of a compound statement's header.
/// What CPython reports after its parser raised `parser` (a missing block), once it has
/// tokenized the rest of the file (`_PyPegen_tokenize_full_source_to_check_for_errors`): the
/// first tokenizer error that raises replaces it; a quiet one (or the end of the file)
/// inside a bracket opened on an earlier line makes that bracket never closed; else
/// `parser` stands.
fn rest_after_parser_error(tokens: &mut Lexer, parser: TokenizerError) -> TokenizerError {
    for token in tokens.by_ref() {
        let Some(error) = token.error else { continue };
        let Some(found) = tokenizer_err(error.message, error.line) else { break };
        if !found.quiet && token.kind != TokenKind::EndOfFile {
            return found;
        }
        let open = tokens.open_brackets().last().copied().filter(|&(_, line)| line < parser.error.line);
        return match open {
            Some((bracket, line)) => {
                tokenizer_err(format!("'{}' was never closed", bracket as char), line).unwrap_or(parser)
            }
            None => parser,
        };
    }
    parser
}

/// CPython's message for a block header with no indented block after it (its
/// `invalid_*_stmt` rules), naming the header; plain where no header is known.
fn missing_block(header: Option<(&str, usize)>) -> String {
    match header {
        Some(("def", line)) => format!("expected an indented block after function definition on line {line}"),
        Some(("class", line)) => format!("expected an indented block after class definition on line {line}"),
        Some((keyword, line)) if is_header_keyword(keyword) && keyword != "async" => {
            format!("expected an indented block after '{keyword}' statement on line {line}")
        }
        _ => "expected an indented block".into(),
    }
}

fn is_header_keyword(word: &str) -> bool {
    matches!(
        word,
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
    )
}

/// The digits of a decimal int literal (0 for floats, complex numbers and other radixes).
fn decimal_int_digits(number: &str) -> usize {
    if number.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        number.bytes().filter(u8::is_ascii_digit).count()
    } else {
        0
    }
}

/// CPython refuses decimal int literals longer than this (`sys.int_info.default_max_str_digits`).
pub(super) const MAX_INT_DIGITS: usize = 4300;

pub(super) fn int_digits_error(digits: usize) -> String {
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
    use super::super::estimate::tests::assert_errors;

    /// CPython 3.11.7's compile() of the same sources.
    #[test]
    fn a_header_without_its_block_is_named() {
        let cases: &[(&str, &str, usize)] = &[
            ("def f():\nx = 1\n", "expected an indented block after function definition on line 1", 2),
            ("import torch\n\nif x:", "expected an indented block after 'if' statement on line 3", 3),
            ("if x:\n\n\n", "expected an indented block after 'if' statement on line 1", 3),
            ("if x:\n# c\n", "expected an indented block after 'if' statement on line 1", 2),
            ("def f():\n", "expected an indented block after function definition on line 1", 1),
            ("async def f():\nx\n", "expected an indented block after function definition on line 1", 2),
            ("class A:\nx\n", "expected an indented block after class definition on line 1", 2),
            ("for x in y:\npass\n", "expected an indented block after 'for' statement on line 1", 2),
            ("if x:\n  pass\nelse:\nx\n", "expected an indented block after 'else' statement on line 3", 4),
            ("try:\n  x\nexcept E:\ny\n", "expected an indented block after 'except' statement on line 3", 4),
            ("def f(): return 1\nif x:\n# c\nx\n", "expected an indented block after 'if' statement on line 2", 4),
            ("if x:\n  1\nelse:   # c\nx = 1\n", "expected an indented block after 'else' statement on line 3", 4),
            // A parser error on an earlier line comes first.
            ("def f(a=1, b):\ndef g(): pass\n", "non-default argument follows default argument", 1),
            // A tokenizer error later in the file that raises replaces it; one that does not
            // is not reported; a bracket opened before and never closed is.
            ("if x:\ny = 1\nz = 'abc\n", "unterminated string literal (detected at line 3)", 3),
            ("if x:\ny = 1\n}\n", "unmatched '}'", 3),
            ("if x:\ny = 1\nz = 1 \\ 2\n", "expected an indented block after 'if' statement on line 1", 2),
            ("if x:\ny = 1\nz = (\n", "expected an indented block after 'if' statement on line 1", 2),
        ];
        assert_errors(cases);
    }
}
