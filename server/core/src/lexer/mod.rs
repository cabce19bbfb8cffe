//! The one tokenizer of Python source in the core, mirroring CPython 3.11's
//! (`Parser/tokenizer.c`) where the analysis depends on it: string prefixes, triple quotes,
//! escapes and line continuations, comments, numbers (with the tokenizer's own errors),
//! operators, brackets, NEWLINE versus NL, INDENT and DEDENT.
//!
//! Line breaks are `\n`, `\r\n` and a lone `\r`, as CPython reads a file (universal
//! newlines). Tokens carry byte spans, the 1-based line they start on and the bracket depth.
//! Where CPython's tokenizer raises an error the token carries it and lexing goes on, so
//! tolerant readers (completion, the parser hints) still see the rest; a reader after
//! CPython's first error stops at the first token that has one. One pass, linear in the
//! text, no recursion: any `&str` is fine input.
//!
//! Not mirrored: identifiers are not checked against Unicode's identifier classes, tabs are
//! not checked against spaces, and no DEDENT closes the blocks still open at the end.

mod numbers;

use numbers::{lenient_number_end, number_end};
use std::collections::VecDeque;
use std::ops::Range;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    /// Bytes of the source; a string's span includes its prefix and quotes.
    pub span: Range<usize>,
    /// The 1-based line the token starts on.
    pub line: usize,
    /// Brackets open around the token; a bracket is outside itself.
    pub depth: usize,
    /// The error CPython's tokenizer raises at this token.
    pub error: Option<LexError>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier or a keyword.
    Name,
    Number,
    String(StringToken),
    /// An operator, a bracket, or a character Python has no token for (`$`, `?`, `!`).
    Op,
    Comment,
    /// The line break that ends a logical line.
    Newline,
    /// A line break inside brackets or after a line with no tokens.
    Nl,
    /// Deeper indentation at the start of a logical line.
    Indent,
    /// One block closed at the start of a logical line.
    Dedent,
    /// A backslash: with the line break after it, it joins two lines; alone, an error.
    Continuation,
    EndOfFile,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StringToken {
    /// Bytes of the prefix (`rb` in `rb"..."`).
    pub prefix_len: usize,
    pub quote: u8,
    pub triple: bool,
    /// Whether the closing quotes were found.
    pub terminated: bool,
}

/// CPython's message for a tokenizer error and the line it reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub message: String,
    pub line: usize,
}

impl Token {
    pub fn text<'t>(&self, source: &'t str) -> &'t str {
        source.get(self.span.clone()).unwrap_or("")
    }

    /// A token the parser reads: not layout (comments, line breaks, indentation).
    pub fn is_significant(&self) -> bool {
        matches!(self.kind, TokenKind::Name | TokenKind::Number | TokenKind::String(_) | TokenKind::Op)
    }

    /// The operator `op`.
    pub fn is_op(&self, source: &str, op: &str) -> bool {
        self.kind == TokenKind::Op && self.text(source) == op
    }

    /// For a string: the bytes between its quotes (to the end of the token when it is not
    /// terminated).
    pub fn string_body(&self) -> Option<Range<usize>> {
        let TokenKind::String(s) = self.kind else { return None };
        let quotes = if s.triple { 3 } else { 1 };
        let start = (self.span.start + s.prefix_len + quotes).min(self.span.end);
        let end = if s.terminated { self.span.end - quotes } else { self.span.end };
        Some(start..end.max(start))
    }

    /// Where a string's opening quote is.
    pub fn quote_offset(&self) -> Option<usize> {
        let TokenKind::String(s) = self.kind else { return None };
        Some(self.span.start + s.prefix_len)
    }
}

/// The tokens of `text`, ending with one [`TokenKind::EndOfFile`].
pub fn lex(text: &str) -> Lexer<'_> {
    Lexer {
        bytes: text.as_bytes(),
        pos: 0,
        line: 1,
        brackets: Vec::new(),
        indents: vec![0],
        at_line_start: true,
        line_has_tokens: false,
        queued: VecDeque::new(),
        done: false,
    }
}

/// CPython's tokenizer refuses to open more brackets than this (`MAXLEVEL`).
const MAX_BRACKET_DEPTH: usize = 200;

pub struct Lexer<'t> {
    bytes: &'t [u8],
    pos: usize,
    line: usize,
    /// Open brackets and the lines they opened on, innermost last.
    brackets: Vec<(u8, usize)>,
    /// Indentation columns of the open blocks.
    indents: Vec<usize>,
    /// The next token starts a line at depth 0 (indentation is measured there).
    at_line_start: bool,
    /// The logical line so far has a significant token (its break is a NEWLINE).
    line_has_tokens: bool,
    queued: VecDeque<Token>,
    done: bool,
}

impl Lexer<'_> {
    /// The brackets still open and the lines they opened on, innermost last.
    pub fn open_brackets(&self) -> &[(u8, usize)] {
        &self.brackets
    }

    fn token(&self, kind: TokenKind, span: Range<usize>, line: usize) -> Token {
        Token { kind, span, line, depth: self.brackets.len(), error: None }
    }

    fn error(&self, message: impl Into<String>, line: usize) -> Option<LexError> {
        Some(LexError { message: message.into(), line })
    }

    fn at(&self, k: usize) -> u8 {
        self.bytes.get(k).copied().unwrap_or(0)
    }

    /// Length of the line break at `k` (0 when there is none).
    fn line_break_len(&self, k: usize) -> usize {
        match self.at(k) {
            b'\r' if self.at(k + 1) == b'\n' => 2,
            b'\n' | b'\r' => 1,
            _ => 0,
        }
    }

    /// Measures the indentation of a line at depth 0 and queues its INDENT or DEDENTs.
    fn indentation(&mut self) {
        let start = self.pos;
        let mut col = 0;
        let mut k = start;
        while k < self.bytes.len() {
            match self.bytes[k] {
                b' ' => col += 1,
                b'\t' => col = (col / 8 + 1) * 8,
                // CPython resets the column at a form feed.
                b'\x0c' => col = 0,
                _ => break,
            }
            k += 1;
        }
        self.pos = k;
        // Lines with only whitespace or a comment do not count.
        if k >= self.bytes.len() || matches!(self.bytes[k], b'#' | b'\n' | b'\r') {
            return;
        }
        let top = self.indents.last().copied().unwrap_or(0);
        if col > top {
            self.indents.push(col);
            let token = self.token(TokenKind::Indent, start..k, self.line);
            self.queued.push_back(token);
        } else if col < top {
            while self.indents.last().is_some_and(|&t| t > col) {
                self.indents.pop();
                let token = self.token(TokenKind::Dedent, k..k, self.line);
                self.queued.push_back(token);
            }
            if self.indents.last() != Some(&col) {
                let error = self.error("unindent does not match any outer indentation level", self.line);
                if let Some(last) = self.queued.back_mut() {
                    last.error = error;
                }
            }
        }
    }

    fn line_break(&mut self) -> Token {
        let start = self.pos;
        self.pos += self.line_break_len(start);
        let kind = if self.brackets.is_empty() && self.line_has_tokens { TokenKind::Newline } else { TokenKind::Nl };
        let token = self.token(kind, start..self.pos, self.line);
        if self.brackets.is_empty() {
            self.at_line_start = true;
            self.line_has_tokens = false;
        }
        self.line += 1;
        token
    }

    fn continuation(&mut self) -> Token {
        let start = self.pos;
        let line = self.line;
        let break_len = self.line_break_len(start + 1);
        self.pos = start + 1 + break_len;
        let mut token = self.token(TokenKind::Continuation, start..self.pos, line);
        // CPython reads the text with a line break added at its end: a `\` that ends the
        // text continues onto nothing, E_EOF (`unexpected EOF while parsing`; inside a
        // bracket, the bracket never closed, which EOF reports anyway).
        let at_eof = self.pos >= self.bytes.len();
        if break_len == 0 && !at_eof {
            token.error = self.error("unexpected character after line continuation character", line);
        } else {
            if at_eof && self.brackets.is_empty() {
                token.error = self.error("unexpected EOF while parsing", line);
            }
            self.line += usize::from(break_len > 0);
        }
        token
    }

    /// The string literal whose prefix starts at `start` and whose quote is at `self.pos`.
    fn string(&mut self, start: usize) -> Token {
        let quote_at = self.pos;
        let quote = self.bytes[quote_at];
        let start_line = self.line;
        let triple = self.at(quote_at + 1) == quote && self.at(quote_at + 2) == quote;
        let quotes = if triple { 3 } else { 1 };
        let mut k = quote_at + quotes;
        let mut closing = 0;
        let string =
            |terminated| TokenKind::String(StringToken { prefix_len: quote_at - start, quote, triple, terminated });
        loop {
            if k >= self.bytes.len() {
                self.pos = self.bytes.len();
                let message = if triple {
                    // At the end CPython's line is the last line read: a final LF or CR does
                    // not start another (a final CRLF does).
                    let text = self.bytes;
                    let final_break = text.ends_with(b"\r") || text.ends_with(b"\n") && !text.ends_with(b"\r\n");
                    let detected = if final_break { self.line - 1 } else { self.line };
                    format!("unterminated triple-quoted string literal (detected at line {detected})")
                } else {
                    format!("unterminated string literal (detected at line {})", self.line)
                };
                let mut token = self.token(string(false), start..self.bytes.len(), start_line);
                token.error = self.error(message, start_line);
                return token;
            }
            let break_len = self.line_break_len(k);
            if break_len > 0 {
                if !triple {
                    self.pos = k;
                    let message = format!("unterminated string literal (detected at line {})", self.line);
                    let mut token = self.token(string(false), start..k, start_line);
                    token.error = self.error(message, start_line);
                    return token;
                }
                closing = 0;
                self.line += 1;
                k += break_len;
                continue;
            }
            let c = self.bytes[k];
            k += 1;
            if c == quote {
                closing += 1;
                if closing == quotes {
                    self.pos = k;
                    return self.token(string(true), start..k, start_line);
                }
                continue;
            }
            closing = 0;
            // A backslash escapes the next character, in raw strings too; an escaped line
            // break continues the string on the next line.
            if c == b'\\' && k < self.bytes.len() {
                let escaped_break = self.line_break_len(k);
                if escaped_break > 0 {
                    self.line += 1;
                    k += escaped_break;
                } else {
                    k += 1;
                }
            }
        }
    }

    /// A name, or a string when the name is a string prefix right before a quote.
    fn name_or_string(&mut self) -> Token {
        let start = self.pos;
        let (mut saw_b, mut saw_r, mut saw_u, mut saw_f) = (false, false, false, false);
        let mut k = start;
        // The prefixes CPython's tokenizer accepts: b, r, u, f, and br, rb, fr, rf (any case).
        loop {
            match self.at(k).to_ascii_lowercase() {
                b'b' if !(saw_b || saw_u || saw_f) => saw_b = true,
                b'u' if !(saw_b || saw_u || saw_r || saw_f) => saw_u = true,
                b'r' if !(saw_r || saw_u) => saw_r = true,
                b'f' if !(saw_f || saw_b || saw_u) => saw_f = true,
                _ => break,
            }
            k += 1;
            if matches!(self.at(k), b'\'' | b'"') {
                self.pos = k;
                return self.string(start);
            }
        }
        while k < self.bytes.len() && is_identifier_byte(self.bytes[k]) {
            k += 1;
        }
        self.pos = k;
        self.token(TokenKind::Name, start..k, self.line)
    }

    fn number(&mut self) -> Token {
        let start = self.pos;
        let (end, error) = match number_end(self.bytes, start) {
            Ok(end) => (end, None),
            // Past the error, the rest of what looks like a number is one token.
            Err(message) => (lenient_number_end(self.bytes, start), self.error(message, self.line)),
        };
        self.pos = end;
        let mut token = self.token(TokenKind::Number, start..end, self.line);
        token.error = error;
        token
    }

    fn operator(&mut self) -> Token {
        let start = self.pos;
        let rest = &self.bytes[start..];
        let len = if THREE_CHAR_OPS.iter().any(|op| rest.starts_with(op.as_bytes())) {
            3
        } else if TWO_CHAR_OPS.iter().any(|op| rest.starts_with(op.as_bytes())) {
            2
        } else {
            // One ASCII character: every other character starts a name.
            1
        };
        self.pos = start + len;
        let c = self.bytes[start];
        let line = self.line;
        match c {
            b'(' | b'[' | b'{' => {
                let mut token = self.token(TokenKind::Op, start..self.pos, line);
                if self.brackets.len() >= MAX_BRACKET_DEPTH {
                    token.error = self.error("too many nested parentheses", line);
                }
                self.brackets.push((c, line));
                token
            }
            b')' | b']' | b'}' => {
                let open = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                let popped = self.brackets.pop();
                let mut token = self.token(TokenKind::Op, start..self.pos, line);
                token.error = match popped {
                    None => self.error(format!("unmatched '{}'", c as char), line),
                    Some((o, open_line)) if o != open => {
                        let on_line = if open_line != line { format!(" on line {open_line}") } else { String::new() };
                        let message = format!(
                            "closing parenthesis '{}' does not match opening parenthesis '{}'{on_line}",
                            c as char, o as char
                        );
                        self.error(message, line)
                    }
                    Some(_) => None,
                };
                token
            }
            _ => self.token(TokenKind::Op, start..self.pos, line),
        }
    }

    fn end_of_file(&mut self) -> Token {
        self.done = true;
        let end = self.bytes.len();
        let mut token = self.token(TokenKind::EndOfFile, end..end, self.line);
        // CPython names the innermost bracket still open.
        if let Some(&(open, line)) = self.brackets.last() {
            token.error = self.error(format!("'{}' was never closed", open as char), line);
        }
        token
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        loop {
            if let Some(token) = self.queued.pop_front() {
                return Some(token);
            }
            if self.done {
                return None;
            }
            if self.at_line_start {
                self.at_line_start = false;
                self.indentation();
                continue;
            }
            let Some(&c) = self.bytes.get(self.pos) else { return Some(self.end_of_file()) };
            let token = match c {
                b' ' | b'\t' | b'\x0c' => {
                    self.pos += 1;
                    continue;
                }
                b'\n' | b'\r' => return Some(self.line_break()),
                b'#' => {
                    let start = self.pos;
                    let mut k = start;
                    while k < self.bytes.len() && !matches!(self.bytes[k], b'\n' | b'\r') {
                        k += 1;
                    }
                    self.pos = k;
                    return Some(self.token(TokenKind::Comment, start..k, self.line));
                }
                b'\\' => return Some(self.continuation()),
                b'\'' | b'"' => self.string(self.pos),
                b'0'..=b'9' => self.number(),
                b'.' if self.at(self.pos + 1).is_ascii_digit() => self.number(),
                _ if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => self.name_or_string(),
                _ => self.operator(),
            };
            self.line_has_tokens = true;
            return Some(token);
        }
    }
}

const THREE_CHAR_OPS: [&str; 5] = ["**=", "//=", ">>=", "<<=", "..."];
const TWO_CHAR_OPS: [&str; 19] =
    ["**", "//", "==", "!=", "<=", ">=", "->", ":=", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^="];

/// A byte that continues a name (CPython's `is_potential_identifier_char`).
pub fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kind names and texts, as Python's `tokenize` module names them.
    fn tokens(text: &str) -> Vec<String> {
        lex(text)
            .map(|t| {
                let kind = match t.kind {
                    TokenKind::Name => "NAME",
                    TokenKind::Number => "NUMBER",
                    TokenKind::String(_) => "STRING",
                    TokenKind::Op => "OP",
                    TokenKind::Comment => "COMMENT",
                    TokenKind::Newline => "NEWLINE",
                    TokenKind::Nl => "NL",
                    TokenKind::Indent => "INDENT",
                    TokenKind::Dedent => "DEDENT",
                    TokenKind::Continuation => "CONTINUATION",
                    TokenKind::EndOfFile => "ENDMARKER",
                };
                format!("{kind} {:?} {}", t.text(text), t.line)
            })
            .collect()
    }

    fn first_error(text: &str) -> Option<LexError> {
        lex(text).find_map(|t| t.error)
    }

    // The expectations below are what `tokenize.generate_tokens` and `compile()` of
    // CPython 3.11 give for the same sources.
    #[test]
    fn names_string_prefixes_and_numbers() {
        assert_eq!(
            tokens("x = bb'a' ur'b' Rb'c' 1if y else .5j\n"),
            [
                "NAME \"x\" 1",
                "OP \"=\" 1",
                "NAME \"bb\" 1",
                "STRING \"'a'\" 1",
                "NAME \"ur\" 1",
                "STRING \"'b'\" 1",
                "STRING \"Rb'c'\" 1",
                "NUMBER \"1\" 1",
                "NAME \"if\" 1",
                "NAME \"y\" 1",
                "NAME \"else\" 1",
                "NUMBER \".5j\" 1",
                "NEWLINE \"\\n\" 1",
                "ENDMARKER \"\" 2",
            ]
        );
    }

    #[test]
    fn newline_nl_indent_and_dedent() {
        assert_eq!(
            tokens("if x:  # c\n    y = (1,\n 2)\n\nz\n"),
            [
                "NAME \"if\" 1",
                "NAME \"x\" 1",
                "OP \":\" 1",
                "COMMENT \"# c\" 1",
                "NEWLINE \"\\n\" 1",
                "INDENT \"    \" 2",
                "NAME \"y\" 2",
                "OP \"=\" 2",
                "OP \"(\" 2",
                "NUMBER \"1\" 2",
                "OP \",\" 2",
                "NL \"\\n\" 2",
                "NUMBER \"2\" 3",
                "OP \")\" 3",
                "NEWLINE \"\\n\" 3",
                "NL \"\\n\" 4",
                "DEDENT \"\" 5",
                "NAME \"z\" 5",
                "NEWLINE \"\\n\" 5",
                "ENDMARKER \"\" 6",
            ]
        );
    }

    #[test]
    fn universal_newlines_in_code_strings_and_continuations() {
        // CPython reads six lines here.
        let text = "a = (1,\r2)\rb = '''x\ry'''\rc = 1 \\\r\n+ 2\r";
        let lines: Vec<(String, usize)> =
            lex(text).filter(|t| t.is_significant()).map(|t| (t.text(text).to_string(), t.line)).collect();
        let line_of = |s: &str| lines.iter().find(|(t, _)| t == s).map(|&(_, l)| l);
        assert_eq!((line_of("2"), line_of("b"), line_of("c"), line_of("+")), (Some(2), Some(3), Some(5), Some(6)));
        // A lone CR ends a single-quoted string as LF does.
        assert_eq!(
            first_error("x = 'a\rb'\n"),
            Some(LexError { message: "unterminated string literal (detected at line 1)".into(), line: 1 })
        );
    }

    #[test]
    fn tokenizer_errors_as_cpython_words_them() {
        let message = |text: &str| first_error(text).map(|e| (e.message, e.line));
        let says = |m: &str, line: usize| Some((m.to_string(), line));
        // The line a string is detected unterminated on counts its continuation lines.
        assert_eq!(message("x = 'abc\\\ndef\n"), says("unterminated string literal (detected at line 2)", 1));
        assert_eq!(message("x = 0x\n"), says("invalid hexadecimal literal", 1));
        assert_eq!(message("x = .5_\n"), says("invalid decimal literal", 1));
        assert_eq!(message("x = 1eé\n"), says("invalid decimal literal", 1));
        assert_eq!(message("x = 1é\n"), None);
        assert_eq!(message("x = 1 \\ \n"), says("unexpected character after line continuation character", 1));
        // CPython 3.11.7: a `\` that ends the text (with or without its line break).
        assert_eq!(message("\\"), says("unexpected EOF while parsing", 1));
        assert_eq!(message("x = 1\n\\\n"), says("unexpected EOF while parsing", 2));
        assert_eq!(
            message("x = (1,\n2]\n"),
            says("closing parenthesis ']' does not match opening parenthesis '(' on line 1", 2)
        );
        assert_eq!(message("x = [\n"), says("'[' was never closed", 1));
        // A form feed resets the indentation column.
        assert_eq!(
            message("if x:\n    y\n  \x0c  z\n"),
            says("unindent does not match any outer indentation level", 3)
        );
        assert_eq!(message("if x:\n\x0c    y\n"), None);
    }

    #[test]
    fn recovers_after_an_error() {
        let text = "x = 'abc\ny = 1_\nz = )\n";
        let errors: Vec<usize> = lex(text).filter_map(|t| t.error.map(|e| e.line)).collect();
        assert_eq!(errors, [1, 2, 3]);
        let names: Vec<&str> = lex(text).filter(|t| t.kind == TokenKind::Name).map(|t| t.text(text)).collect();
        assert_eq!(names, ["x", "y", "z"]);
    }

    #[test]
    fn deep_brackets_and_odd_bytes_stay_linear() {
        let text = format!("x = {}{}\0\u{2028}'", "(".repeat(100_000), "'''\\");
        let tokens: Vec<Token> = lex(&text).collect();
        assert!(tokens.len() > 100_000);
        assert_eq!(
            tokens.iter().find_map(|t| t.error.clone()).map(|e| e.message).as_deref(),
            Some("too many nested parentheses")
        );
        let last = tokens.last().and_then(|t| t.error.as_ref()).map(|e| e.message.as_str());
        assert_eq!(last, Some("'(' was never closed"));
        assert!(tokens.iter().all(|t| text.get(t.span.clone()).is_some()));
    }
}
