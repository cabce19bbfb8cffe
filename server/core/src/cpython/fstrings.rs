//! CPython 3.11's errors for an f-string's structure (`Parser/string_parser.c`:
//! `fstring_find_literal`, `fstring_find_expr`), raised when the parser builds the string, as
//! its escape errors are: `f-string: single '}' is not allowed`, `f-string: expecting '}'`,
//! `f-string expression part cannot include a backslash`, ... (messages checked against
//! `python3.11 -c "compile(...)"`). Of what the expression itself says when compiled, only
//! the tokenizer's number errors are emulated (tree-sitter's error stands in for the rest).

/// Nested fields in a format specification deeper than this are refused.
const MAX_NESTING: usize = 2;
/// Brackets inside one field's expression deeper than this are refused.
const MAX_BRACKETS: usize = 200;

/// The first structural error of an f-string's body (between its quotes), if any.
pub(crate) fn fstring_error(body: &str, raw: bool) -> Option<String> {
    let chars: Vec<char> = body.chars().collect();
    Reader { chars: &chars, raw }.literal_and_fields(0, 0).err()
}

/// What compiling a field's expression raises, of what is emulated: the tokenizer's number
/// errors, a starred expression alone, bytes and str side by side, a lambda outside brackets.
fn expression_error(expression: &str) -> Option<String> {
    let first_error = crate::lexer::lex(expression).find_map(|t| t.error.map(|e| (t.kind, e)));
    if let Some((crate::lexer::TokenKind::Number, error)) = first_error {
        return Some(error.message);
    }
    // `{*x}`: a starred expression alone (`{*x, 1}` is a tuple).
    let tokens: Vec<crate::lexer::Token> = crate::lexer::lex(expression).filter(|t| t.is_significant()).collect();
    let starred = tokens.first().is_some_and(|t| t.is_op(expression, "*"));
    if starred && !tokens.iter().any(|t| t.depth == 0 && t.is_op(expression, ",")) {
        return Some("f-string: cannot use starred expression here".into());
    }
    if mixes_bytes(&tokens, expression) {
        return Some("f-string: cannot mix bytes and nonbytes literals".into());
    }
    // `{lambda: x}`: outside brackets the lambda's colon starts the format specification,
    // and `lambda` alone is no expression (3.12 and later word it otherwise).
    let bare_lambda = |t: &crate::lexer::Token| t.depth == 0 && t.text(expression) == "lambda";
    if tokens.iter().any(|t| t.kind == crate::lexer::TokenKind::Name && bare_lambda(t)) {
        return Some("f-string: invalid syntax".into());
    }
    // `{bf"a"}`, `{a "b"}`: a name (no keyword) before a string (`bf` is no prefix).
    let name_before_string = |w: &[crate::lexer::Token]| {
        w[0].kind == crate::lexer::TokenKind::Name
            && !super::tokens::is_keyword(w[0].text(expression))
            && matches!(w[1].kind, crate::lexer::TokenKind::String(_))
    };
    if tokens.windows(2).any(name_before_string) {
        return Some("f-string: invalid syntax".into());
    }
    // `{(d := *l)}`: a walrus's value is never starred.
    if tokens.windows(2).any(|w| w[0].is_op(expression, ":=") && w[1].is_op(expression, "*")) {
        return Some("f-string: invalid syntax".into());
    }
    None
}

/// Whether strings side by side in a field's expression (one literal to CPython) mix bytes
/// and str (`{'a' b''}`).
fn mixes_bytes(tokens: &[crate::lexer::Token], expression: &str) -> bool {
    use crate::lexer::TokenKind;
    let bytes = |t: &crate::lexer::Token| match t.kind {
        TokenKind::String(string) => Some(t.text(expression)[..string.prefix_len].contains(['b', 'B'])),
        _ => None,
    };
    tokens.split(|t| bytes(t).is_none()).any(|run| {
        let kinds: Vec<bool> = run.iter().filter_map(bytes).collect();
        kinds.contains(&true) && kinds.contains(&false)
    })
}

struct Reader<'a> {
    chars: &'a [char],
    raw: bool,
}

impl Reader<'_> {
    fn at(&self, i: usize) -> Option<char> {
        self.chars.get(i).copied()
    }

    /// Literal text and fields from `i`: to the end (`level` 0) or to the `}` that ends a
    /// format specification (returned). `{{` and `}}` are braces only at level 0.
    fn literal_and_fields(&self, mut i: usize, level: usize) -> Result<usize, String> {
        while let Some(c) = self.at(i) {
            match c {
                // `\N{NAME}` is an escape, its braces no field.
                '\\' if !self.raw && level == 0 && self.at(i + 1) == Some('N') && self.at(i + 2) == Some('{') => {
                    i += 3;
                    while self.at(i).is_some_and(|c| c != '}') {
                        i += 1;
                    }
                    i += 1;
                }
                '{' if level == 0 && self.at(i + 1) == Some('{') => i += 2,
                '}' if level == 0 && self.at(i + 1) == Some('}') => i += 2,
                '}' if level == 0 => return Err("f-string: single '}' is not allowed".into()),
                '}' => return Ok(i),
                '{' => {
                    if level >= MAX_NESTING {
                        return Err("f-string: expressions nested too deeply".into());
                    }
                    i = self.field(i + 1, level)?;
                }
                _ => i += 1,
            }
        }
        match level {
            0 => Ok(i),
            _ => Err("f-string: expecting '}'".into()),
        }
    }

    /// One field from `i` (after its `{`): the expression, `=`, `!conversion`, `:spec`, and
    /// the closing `}`; returns the index after it.
    fn field(&self, start: usize, level: usize) -> Result<usize, String> {
        let expecting = || "f-string: expecting '}'".to_string();
        let mut brackets: Vec<char> = Vec::new();
        let mut quote: Option<(char, usize)> = None;
        let mut i = start;
        while let Some(c) = self.at(i) {
            if c == '\\' {
                return Err("f-string expression part cannot include a backslash".into());
            }
            if let Some((q, n)) = quote {
                if c == q && (n == 1 || self.at(i + 1) == Some(q) && self.at(i + 2) == Some(q)) {
                    quote = None;
                    i += n;
                } else {
                    i += 1;
                }
                continue;
            }
            match c {
                '\'' | '"' => {
                    let triple = self.at(i + 1) == Some(c) && self.at(i + 2) == Some(c);
                    quote = Some((c, if triple { 3 } else { 1 }));
                    i += if triple { 3 } else { 1 };
                    continue;
                }
                '[' | '(' | '{' => {
                    if brackets.len() >= MAX_BRACKETS {
                        return Err("f-string: too many nested parenthesis".into());
                    }
                    brackets.push(c);
                }
                '#' => return Err("f-string expression part cannot include '#'".into()),
                // `!=`, `==`, `<=`, `>=` are operators, not the field's end.
                '!' | '=' | '<' | '>' if brackets.is_empty() && self.at(i + 1) == Some('=') => {
                    i += 2;
                    continue;
                }
                '!' | ':' | '}' | '=' if brackets.is_empty() => break,
                ']' | ')' | '}' => {
                    let Some(open) = brackets.pop() else { return Err(format!("f-string: unmatched '{c}'")) };
                    let matching = matches!((open, c), ('[', ']') | ('(', ')') | ('{', '}'));
                    if !matching {
                        return Err(format!(
                            "f-string: closing parenthesis '{c}' does not match opening parenthesis '{open}'"
                        ));
                    }
                }
                _ => {}
            }
            i += 1;
        }
        if quote.is_some() {
            return Err("f-string: unterminated string".into());
        }
        if let Some(open) = brackets.last() {
            return Err(format!("f-string: unmatched '{open}'"));
        }
        if i >= self.chars.len() {
            return Err(expecting());
        }
        if self.chars[start..i].iter().all(|c| c.is_whitespace()) {
            return Err("f-string: empty expression not allowed".into());
        }
        // The expression is compiled before its conversion and format specification are
        // read: a number the tokenizer refuses (`{0600}`) is reported as outside a string.
        let expression: String = self.chars[start..i].iter().collect();
        if let Some(error) = expression_error(&expression) {
            return Err(error);
        }
        if self.at(i) == Some('=') {
            i += 1;
            while self.at(i).is_some_and(char::is_whitespace) {
                i += 1;
            }
        }
        if self.at(i) == Some('!') {
            match self.at(i + 1) {
                None => return Err(expecting()),
                Some('s' | 'r' | 'a') => i += 2,
                Some(_) => return Err("f-string: invalid conversion character: expected 's', 'r', or 'a'".into()),
            }
        }
        if self.at(i) == Some(':') {
            i = self.literal_and_fields(i + 1, level + 1)?;
        }
        match self.at(i) {
            Some('}') => Ok(i + 1),
            _ => Err(expecting()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fstring_error;

    /// CPython 3.11.7's `compile()` of `x = f'BODY'` (None: it compiles).
    #[test]
    fn structure_errors_are_cpythons() {
        let cases: &[(&str, Option<&str>)] = &[
            ("ab}c", Some("f-string: single '}' is not allowed")),
            // 3.10 and 3.11 alike (3.12: "can't use starred expression here").
            ("{*i}", Some("f-string: cannot use starred expression here")),
            // Strings side by side in a field are one literal: bytes and str do not mix.
            ("{'a' b''}", Some("f-string: cannot mix bytes and nonbytes literals")),
            ("{'a' 'b'}", None),
            // A lambda outside brackets ends at its colon; inside them it is whole.
            ("{lambda: y}", Some("f-string: invalid syntax")),
            ("{(lambda: y)}", None),
            ("a{*i!r}", Some("f-string: cannot use starred expression here")),
            ("{*i, 1}", None),
            ("{a", Some("f-string: expecting '}'")),
            ("{a\\n}", Some("f-string expression part cannot include a backslash")),
            ("{}", Some("f-string: empty expression not allowed")),
            ("{ }", Some("f-string: empty expression not allowed")),
            ("{a#}", Some("f-string expression part cannot include '#'")),
            ("{a!x}", Some("f-string: invalid conversion character: expected 's', 'r', or 'a'")),
            ("{a!}", Some("f-string: invalid conversion character: expected 's', 'r', or 'a'")),
            ("{a)}", Some("f-string: unmatched ')'")),
            ("{a]}", Some("f-string: unmatched ']'")),
            ("{(a}", Some("f-string: closing parenthesis '}' does not match opening parenthesis '('")),
            ("{(a", Some("f-string: unmatched '('")),
            ("{\"a}", Some("f-string: unterminated string")),
            ("{a:{b}", Some("f-string: expecting '}'")),
            ("{a:{b:{c}}}", Some("f-string: expressions nested too deeply")),
            ("{a:}}", Some("f-string: single '}' is not allowed")),
            ("{{}", Some("f-string: single '}' is not allowed")),
            ("{{}}}", Some("f-string: single '}' is not allowed")),
            ("{a!r", Some("f-string: expecting '}'")),
            ("{a!rr}", Some("f-string: expecting '}'")),
            ("{", Some("f-string: expecting '}'")),
            ("{a!", Some("f-string: expecting '}'")),
            ("{a:", Some("f-string: expecting '}'")),
            ("{\"a\"}", None),
            ("{a=!r:}", None),
            ("{a,b}", None),
            ("{a:{{b}}}", None),
            ("{a!r:x}", None),
            ("{a=}", None),
            ("{a!=b}", None),
            ("{a<=b}", None),
            ("\\N{EM DASH}{a}", None),
            ("{a:\\n}", None),
            ("{a:#x}", None),
            ("{{x}}", None),
            (
                "cpu{7 ** 0600}",
                Some(
                    "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
                ),
            ),
            ("{1_}", Some("invalid decimal literal")),
            ("{0x!r}", Some("invalid hexadecimal literal")),
            ("{1abc}", Some("invalid decimal literal")),
            (
                "{0600:{a}",
                Some(
                    "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
                ),
            ),
        ];
        for (body, expected) in cases {
            assert_eq!(fstring_error(body, false).as_deref(), *expected, "{body:?}");
        }
        // `rf'\{a}'`: a raw backslash, then a field.
        assert_eq!(fstring_error("\\{a}", true), None);
    }
}
