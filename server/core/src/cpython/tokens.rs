//! The tokens CPython's parser reads: [`lexer`](crate::lexer)'s tokens without comments,
//! line breaks or indentation, each with its bracket depth and whether it starts a
//! logical line; the questions the parser's rules ask about one token.

use crate::lexer::{lex, TokenKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Name,
    Number,
    String,
    Op,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'t> {
    pub(crate) kind: Kind,
    pub(crate) text: &'t str,
    pub(crate) start: usize,
    pub(crate) line: usize,
    /// Bracket depth before the token (an opener has the outer depth).
    pub(crate) depth: usize,
    /// First token of a logical line.
    pub(crate) logical_start: bool,
}

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

pub(crate) fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

impl Token<'_> {
    pub(crate) fn end(&self) -> usize {
        self.start + self.text.len()
    }

    pub(crate) fn is_name(&self, name: &str) -> bool {
        self.kind == Kind::Name && self.text == name
    }

    pub(crate) fn is(&self, op: &str) -> bool {
        self.kind == Kind::Op && self.text == op
    }

    pub(crate) fn is_constant(&self) -> bool {
        self.kind == Kind::Name && matches!(self.text, "True" | "False" | "None")
    }

    /// Can end an operand: `x`, `1`, `'s'`, `)`, `]`, `}`, `...`.
    pub(crate) fn ends_operand(&self) -> bool {
        match self.kind {
            Kind::Name => !is_keyword(self.text) || self.is_constant(),
            Kind::Number | Kind::String => true,
            Kind::Op => matches!(self.text, ")" | "]" | "}" | "..."),
        }
    }

    /// Can start an expression where an operator or a comma was due. `(` and `[` after an
    /// operand are a call and a subscript, so they do not count.
    pub(crate) fn starts_expression(&self) -> bool {
        match self.kind {
            Kind::Name => !is_keyword(self.text) || self.is_constant() || self.text == "lambda",
            Kind::Number | Kind::String => true,
            Kind::Op => matches!(self.text, "{" | "~" | "..."),
        }
    }

    /// Part of a `disjunction` when walking back from its last token.
    pub(crate) fn in_disjunction(&self) -> bool {
        match self.kind {
            Kind::Name => {
                !is_keyword(self.text)
                    || matches!(self.text, "True" | "False" | "None" | "and" | "or" | "not" | "in" | "is" | "await")
            }
            Kind::Number | Kind::String => true,
            Kind::Op => matches!(
                self.text,
                "." | "+"
                    | "-"
                    | "*"
                    | "/"
                    | "//"
                    | "%"
                    | "**"
                    | "@"
                    | "<<"
                    | ">>"
                    | "&"
                    | "|"
                    | "^"
                    | "~"
                    | "<"
                    | ">"
                    | "<="
                    | ">="
                    | "=="
                    | "!="
                    | "..."
            ),
        }
    }
}

/// For each closing bracket, the index of its opener.
pub(crate) fn matching_openers(tokens: &[Token]) -> Vec<Option<usize>> {
    let mut out = vec![None; tokens.len()];
    let mut stack = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        if t.kind != Kind::Op {
            continue;
        }
        match t.text {
            "(" | "[" | "{" => stack.push(k),
            ")" | "]" | "}" => out[k] = stack.pop(),
            _ => {}
        }
    }
    out
}

/// The tokens CPython's parser reads (no comments, line breaks or indentation), from
/// [`lex`]; `None` where a string does not terminate (that error is the tokenizer's,
/// reported elsewhere).
pub(crate) fn tokenize(text: &str) -> Option<Vec<Token<'_>>> {
    let mut tokens = Vec::new();
    let mut logical_start = true;
    for token in lex(text) {
        let kind = match token.kind {
            TokenKind::Name => Kind::Name,
            TokenKind::Number => Kind::Number,
            TokenKind::String(string) if !string.terminated => return None,
            TokenKind::String(_) => Kind::String,
            TokenKind::Op => Kind::Op,
            TokenKind::Newline => {
                logical_start = true;
                continue;
            }
            _ => continue,
        };
        let (start, line, depth) = (token.span.start, token.line, token.depth);
        tokens.push(Token { kind, text: token.text(text), start, line, depth, logical_start });
        logical_start = false;
    }
    Some(tokens)
}
