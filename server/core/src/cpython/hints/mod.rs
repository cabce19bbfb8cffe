//! CPython's specialised syntax error messages for the mistakes manifests see most, from a
//! token scan: a missing comma between two items (`invalid syntax. Perhaps you forgot a
//! comma?`), a dict key without its ':' (`':' expected after dictionary key`), and a ':'
//! with no value (`expression expected after dictionary key and ':'`).
//!
//! These mirror the `invalid_expression`, `invalid_kvpair` and
//! `invalid_double_starred_kvpairs` rules of CPython 3.11's grammar (`Grammar/python.gram`),
//! which its parser tries, in source order, only after a file failed to parse. Everything
//! else stays CPython's generic `invalid syntax` (see `syntax::python_syntax_error`). The
//! `=` of a bad assignment target is [`targets`](super::targets)'s.

use super::error::SyntaxFix;
use super::targets::{TargetError, Targets};
use super::tokens::{is_keyword, matching_openers, tokenize, Kind, Token};

/// A hint: CPython's message, the 1-based line it reports, and the byte offset the
/// offending construct starts at (to order it against other errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub message: std::borrow::Cow<'static, str>,
    pub line: usize,
    pub offset: usize,
    /// Edits that likely repair it, the likeliest first.
    pub fixes: Vec<SyntaxFix>,
    /// Read by CPython's second pass wherever tree-sitter saw the first error: the value of
    /// an assignment whose target is bad (and that target's own message).
    pub reached: bool,
}

pub const FORGOT_COMMA: &str = "invalid syntax. Perhaps you forgot a comma?";
pub const COLON_EXPECTED: &str = "':' expected after dictionary key";
pub const VALUE_EXPECTED: &str = "expression expected after dictionary key and ':'";
/// `invalid_kwarg`: `f(a.b=1)`, `f(+x=1)`.
pub const ASSIGNMENT_IN_ARGUMENT: &str = "expression cannot contain assignment, perhaps you meant \"==\"?";

pub const EXPECTED_COLON: &str = "expected ':'";

/// A compound statement header without its ':' (`def f(x)`, `if x`, `else`): CPython
/// demands the ':' right after the header (a forced token), so this error comes before any
/// tokenizer error on the following lines (such as the block's indentation).
fn missing_block_colon(tokens: &[Token]) -> Option<Hint> {
    let mut k = 0;
    while k < tokens.len() {
        let end = (k + 1..tokens.len()).find(|&j| tokens[j].logical_start).unwrap_or(tokens.len());
        let header = &tokens[k];
        let compound = header.kind == Kind::Name
            && matches!(
                header.text,
                "def" | "class" | "if" | "elif" | "else" | "while" | "for" | "with" | "try" | "except" | "finally"
            );
        if compound && !tokens[k..end].iter().any(|t| t.depth == 0 && t.is(":")) {
            let last = &tokens[end - 1];
            let fix = if last.is("=") {
                Some(SyntaxFix { span: last.start..last.end(), text: ":", title: "Replace '=' with ':'" })
            } else {
                SyntaxFix::insert(last.end(), ":", "Insert the missing ':'")
            };
            return Some(Hint {
                message: EXPECTED_COLON.into(),
                line: last.line,
                offset: last.start,
                fixes: fix.into_iter().collect(),
                reached: false,
            });
        }
        k = end;
    }
    None
}

/// What one scan of a file that does not parse finds; nothing where the text does not
/// tokenize (those errors are the tokenizer's, reported elsewhere).
#[derive(Debug, Default)]
pub struct Hints {
    /// The first specialised parser message in source order.
    pub first: Option<Hint>,
    /// The first compound statement header without its ':'.
    pub block_colon: Option<Hint>,
    /// Where each logical line starts (byte offsets): CPython's parser stops at the first
    /// statement that fails, so a hint in a later one is never reached.
    pub statement_starts: Vec<usize>,
}

pub fn hints(text: &str) -> Hints {
    let Some(tokens) = tokenize(text) else { return Hints::default() };
    let statement_starts = tokens.iter().filter(|t| t.logical_start).map(|t| t.start).collect();
    Hints { first: first_hint(&tokens), block_colon: missing_block_colon(&tokens), statement_starts }
}

/// The first hint in source order, if any.
fn first_hint(tokens: &[Token]) -> Option<Hint> {
    let in_value = std::cell::Cell::new(false);
    let hint = first_hint_scan(tokens, &in_value)?;
    Some(Hint { reached: hint.reached || in_value.get(), ..hint })
}

/// [`first_hint`]; `in_value` tells whether the scan stopped in the value of an assignment
/// whose target is bad.
fn first_hint_scan(tokens: &[Token], in_value: &std::cell::Cell<bool>) -> Option<Hint> {
    let openers = matching_openers(tokens);
    let targets = Targets::new(tokens, &openers);
    let mut frames: Vec<Frame> = Vec::new();
    let at = |message: &'static str, t: &Token, fix: Option<SyntaxFix>| {
        let fixes = fix.into_iter().collect();
        Some(Hint { message: message.into(), line: t.line, offset: t.start, fixes, reached: false })
    };
    let target_hint = |error: TargetError, fix: Option<SyntaxFix>| {
        let t = &tokens[error.at];
        let fixes = fix.into_iter().collect();
        Hint { message: error.message.into(), line: t.line, offset: t.start, fixes, reached: false }
    };
    // The statement the token is in, whether its first '=' was looked at, and a bad
    // assignment target found there with the token CPython's parser has read to when it
    // raises the error (a hint found before that token comes first).
    let mut statement_start = 0;
    let mut statement_checked = false;
    let mut pending: Option<(Hint, usize)> = None;
    let replace_equals =
        |t: &Token| Some(SyntaxFix { span: t.start..t.end(), text: ":", title: "Replace '=' with ':'" });
    for (k, t) in tokens.iter().enumerate() {
        let prev = k.checked_sub(1).map(|p| &tokens[p]);
        if pending.as_ref().is_some_and(|&(_, read_to)| read_to <= k) {
            return pending.map(|(hint, _)| Hint { reached: true, ..hint });
        }
        in_value.set(pending.is_some());
        let separator = |p: &Token| p.is(";") && p.depth == 0;
        if t.logical_start || prev.is_some_and(separator) {
            (statement_start, statement_checked) = (k, false);
        }
        if t.is("=") && t.depth == 0 && !std::mem::replace(&mut statement_checked, true) {
            let end = (k + 1..tokens.len())
                .find(|&j| tokens[j].logical_start || separator(&tokens[j]))
                .unwrap_or(tokens.len());
            pending = targets
                .statement_error(statement_start, end)
                .map(|(error, read_to)| (target_hint(error, None), read_to));
        }
        let frame = frames.last();
        // The key of a dict entry after the first: CPython parses one expression and wants
        // ':' next (`invalid_kvpair`), before any comma hint at that level.
        let later_key =
            frame.is_some_and(|f| f.dict && f.elements > 0 && f.element_start.is_some() && !f.element_colon);
        // The key expression can also end where an attribute has no name (`torch.+x`), at a
        // character Python has no token for (`torch.bf!loat16`) or at a ';': not ':' either.
        let next = tokens.get(k + 1);
        let key_ends_badly = t.is(".") && !next.is_some_and(|n| n.kind == Kind::Name)
            || t.kind == Kind::Op && matches!(t.text, "!" | "?" | "$" | ";");
        let after_operand = prev.is_some_and(|p| p.ends_operand());
        if later_key && (t.is("=") || after_operand && (t.starts_expression() || key_ends_badly)) {
            let start = frame.and_then(|f| f.element_start).unwrap_or(k);
            let fix = match prev {
                _ if t.is("=") => replace_equals(t),
                // No ':' to insert: the key itself is broken.
                _ if key_ends_badly => None,
                Some(p) => SyntaxFix::insert(p.end(), ":", "Insert ':' after the key"),
                None => None,
            };
            return at(COLON_EXPECTED, &tokens[start], fix);
        }
        // A missing comma: an operand directly followed by the start of another, inside brackets.
        if let Some(prev) = prev.filter(|p| t.depth > 0 && p.ends_operand() && t.starts_expression()) {
            let concatenated = prev.kind == Kind::String && t.kind == Kind::String;
            if !concatenated {
                let a = disjunction_start(tokens, &openers, k - 1);
                let first = &tokens[a];
                // `NAME` in CPython's grammar is a name that is not a keyword.
                let name = first.kind == Kind::Name && !is_keyword(first.text);
                let name_string = name && tokens.get(a + 1).is_some_and(|n| n.kind == Kind::String);
                let soft_keyword = name && matches!(first.text, "match" | "case" | "_");
                let legacy = a == k - 1 && name && matches!(first.text, "print" | "exec");
                if !name_string && !soft_keyword && !legacy {
                    let comma = SyntaxFix::insert(prev.end(), ",", "Insert the missing ','");
                    // `{"key" value, ...}`: more likely a key that lost its ':'.
                    let key_value = frame
                        .is_some_and(|f| f.brace && !f.element_colon && f.element_start == Some(k - 1))
                        && tokens.get(k + 1).is_some_and(|n| n.is(",") || n.is("}"));
                    if key_value {
                        let colon = SyntaxFix::insert(prev.end(), ":", "Insert ':' after the key");
                        let mut hint = at(FORGOT_COMMA, first, colon)?;
                        hint.fixes.extend(comma);
                        return Some(hint);
                    }
                    return at(FORGOT_COMMA, first, comma);
                }
                // Excluded (`name 'string'`, a soft keyword, `print x`): the parse stops
                // here with CPython's generic message.
                return at(INVALID, t, None);
            }
        }
        // `invalid_kwarg`: an argument `expression=value` whose expression is not a name.
        if let Some(start) =
            frame.filter(|f| t.is("=") && f.call_paren && !f.element_lambda).and_then(|f| f.element_start)
        {
            let first = &tokens[start];
            if k == start + 1 && first.kind == Kind::Name {
                match first.text {
                    "True" => return at("cannot assign to True", first, None),
                    "False" => return at("cannot assign to False", first, None),
                    "None" => return at("cannot assign to None", first, None),
                    _ => {}
                }
            } else if !tokens[start..k].iter().any(|u| u.kind == Kind::Op && matches!(u.text, "!" | "?" | "$" | "`")) {
                // (A character Python has no token for is no expression: the generic error.)
                return at(ASSIGNMENT_IN_ARGUMENT, first, None);
            }
        }
        if t.kind == Kind::Op {
            match t.text {
                "(" | "[" | "{" => {
                    if let Some(f) = frames.last_mut() {
                        f.element_start.get_or_insert(k);
                    }
                    let call = t.text != "{" && prev.is_some_and(|p| p.ends_operand());
                    let group = t.text == "(" && !call;
                    let call_paren = call && t.text == "(";
                    frames.push(Frame { brace: t.text == "{", call, call_paren, group, ..Frame::default() });
                    continue;
                }
                "," | ")" | "]" | "}" => {
                    if t.is(",") && prev.is_some_and(|p| p.is(",") || (p.is("(") || p.is("[") || p.is("{"))) {
                        return at(INVALID, t, None);
                    }
                    // `invalid_group`: `(*x)`.
                    if let Some(star) =
                        frame.filter(|f| t.is(")") && f.group && f.elements == 0).and_then(|f| f.element_start)
                    {
                        if tokens[star].is("*") {
                            return at(STARRED_GROUP, &tokens[star], None);
                        }
                    }
                    if let Some(f) = frames.last_mut() {
                        if let Some(start) = f.element_start {
                            let starred = tokens[start].is("**");
                            if f.brace && f.elements == 0 {
                                f.dict = f.element_colon || starred;
                                f.first_element = Some((start, k));
                            } else if f.dict && !f.element_colon && !starred {
                                // `invalid_kvpair` needs a key expression: `; }` or `*}` has
                                // none, and the parse stops there with the generic message.
                                let key = &tokens[start];
                                let starts_key = key.starts_expression()
                                    || key.kind == Kind::Op && matches!(key.text, "(" | "[" | "-" | "+")
                                    || key.kind == Kind::Name && matches!(key.text, "not" | "await");
                                // A unary operator alone (`+}`) starts no expression either.
                                let operand_missing = k == start + 1 && !key.starts_expression();
                                if !starts_key || operand_missing {
                                    return at(INVALID, key, None);
                                }
                                let fix = joined_key_fix(tokens, start, k);
                                return at(COLON_EXPECTED, &tokens[start], fix);
                            }
                            f.elements += 1;
                        }
                        f.element_start = None;
                        f.element_colon = false;
                        f.element_lambda = false;
                    }
                    if t.text != "," {
                        frames.pop();
                    }
                    continue;
                }
                ":" => {
                    if let Some(f) = frames.last_mut() {
                        // No key before it (`{:`, `, :`): the parse stops at the ':'.
                        if f.brace && f.element_start.is_none() {
                            return at(INVALID, t, None);
                        }
                        let value_missing = tokens.get(k + 1).is_some_and(|n| n.is(",") || n.is("}"));
                        if f.brace && f.element_start.is_some() && !f.element_lambda {
                            if value_missing {
                                return at(VALUE_EXPECTED, t, None);
                            }
                            // A set's `*x` cannot be a key; a value cannot be starred.
                            if f.element_start.is_some_and(|s| tokens[s].is("*")) && !f.element_colon {
                                return at(INVALID, t, None);
                            }
                            if let Some(star) = tokens.get(k + 1).filter(|n| n.is("*") && !f.element_colon) {
                                return at(STARRED_VALUE, star, None);
                            }
                            if f.element_colon {
                                // A second ':' in one entry (often strings joined across a
                                // missing comma): the parser stops at it.
                                return at(INVALID, t, None);
                            }
                            if f.elements > 0 && !f.dict {
                                // A ':' in what the first element made a set: most likely
                                // that first entry lost its ':'.
                                let fix = f.first_element.and_then(|(start, end)| joined_key_fix(tokens, start, end));
                                return at(INVALID, t, fix);
                            }
                        }
                        f.element_colon = true;
                    }
                    continue;
                }
                "=" => {
                    if let Some(f) = frames.last().filter(|f| !f.call && f.element_start.is_some()) {
                        if f.element_colon {
                            return at(INVALID, t, None);
                        }
                        let start = f.element_start.unwrap_or(k);
                        if let Some(error) = targets.element_error(start, k, tokens.len()) {
                            let fix = if f.brace { replace_equals(t) } else { None };
                            return Some(target_hint(error, fix));
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(f) = frames.last_mut() {
            f.element_start.get_or_insert(k);
            if t.kind == Kind::Name && t.text == "lambda" {
                f.element_lambda = true;
            }
        }
    }
    pending.map(|(hint, _)| Hint { reached: true, ..hint })
}

pub const INVALID: &str = "invalid syntax";
/// The first operand directly followed by another on a statement's own level (`port
/// torch`): CPython's parser stops there (its comma hint is for brackets only), wherever
/// tree-sitter's recovery puts the error.
pub(crate) fn statement_juxtaposition(tokens: &[Token]) -> Option<std::ops::Range<usize>> {
    let mut statement_start = 0;
    for (k, t) in tokens.iter().enumerate() {
        if t.logical_start {
            statement_start = k;
            continue;
        }
        let Some(prev) = k.checked_sub(1).map(|p| &tokens[p]) else { continue };
        let soft_keyword = k - 1 == statement_start && matches!(prev.text, "match" | "case");
        let strings = prev.kind == Kind::String && t.kind == Kind::String;
        if t.depth == 0 && prev.ends_operand() && t.starts_expression() && !strings && !soft_keyword {
            return Some(t.start..t.end());
        }
    }
    None
}

const STARRED_GROUP: &str = "cannot use starred expression here";
const STARRED_VALUE: &str = "cannot use a starred expression in a dictionary value";

/// The first token where CPython's parser fails and tree-sitter does not: a `*x` dict key
/// (at its ':'), a starred dict value, a parenthesized lone `*x`, a `*` that ends a logical
/// line (tree-sitter reads `*` NEWLINE `manifest = {}` as the target `*manifest`).
pub(crate) fn missed_starred(tokens: &[Token]) -> Option<std::ops::Range<usize>> {
    // Per open bracket: '{', '(' not a call, the current element's first token, its ':'
    // seen, and whether a comma came.
    let mut frames: Vec<(bool, bool, Option<usize>, bool, bool)> = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        let span = |t: &Token| t.start..t.end();
        if t.is("*") && t.depth == 0 {
            let ends_line = tokens.get(k + 1).is_none_or(|n| n.logical_start);
            let import_star =
                k.checked_sub(1).is_some_and(|p| tokens[p].kind == Kind::Name && tokens[p].text == "import");
            if ends_line && !import_star {
                return Some(span(t));
            }
        }
        if t.kind == Kind::Op {
            match t.text {
                "(" | "[" | "{" => {
                    if let Some(f) = frames.last_mut() {
                        f.2.get_or_insert(k);
                    }
                    let call = t.text != "{" && k.checked_sub(1).is_some_and(|p| tokens[p].ends_operand());
                    frames.push((t.text == "{", t.text == "(" && !call, None, false, false));
                    continue;
                }
                ")" | "]" | "}" => {
                    if let Some((_, true, Some(star), _, false)) = frames.pop() {
                        if t.is(")") && tokens[star].is("*") {
                            return Some(span(&tokens[star]));
                        }
                    }
                    continue;
                }
                "," => {
                    if let Some(f) = frames.last_mut() {
                        (f.2, f.3, f.4) = (None, false, true);
                    }
                    continue;
                }
                ":" => {
                    if let Some(f) = frames.last_mut().filter(|f| f.0 && !f.3) {
                        if f.2.is_some_and(|s| tokens[s].is("*")) {
                            return Some(span(t));
                        }
                        if let Some(star) = tokens.get(k + 1).filter(|n| n.is("*")) {
                            return Some(span(star));
                        }
                        f.3 = true;
                    }
                    continue;
                }
                _ => {}
            }
        }
        if let Some(f) = frames.last_mut() {
            if t.kind == Kind::Name && t.text == "lambda" {
                // A lambda's ':' is not a dict's.
                f.3 = true;
            }
            f.2.get_or_insert(k);
        }
    }
    None
}

/// An open bracket and the element being read in it.
#[derive(Default)]
struct Frame {
    brace: bool,
    /// A call or subscript: `name=value` there is an argument.
    call: bool,
    /// A call's `(`.
    call_paren: bool,
    /// A `(` that is not a call: a parenthesized expression or a tuple.
    group: bool,
    /// A `{` whose first element is a `key: value` pair (or `**mapping`).
    dict: bool,
    /// Elements closed so far.
    elements: usize,
    /// First token of the current element.
    element_start: Option<usize>,
    /// The current element has a ':' at this level.
    element_colon: bool,
    element_lambda: bool,
    /// Token range of the first element, once closed.
    first_element: Option<(usize, usize)>,
}

/// `"key" "value"`: two strings Python joined where a ':' went missing; the fix puts it back.
fn joined_key_fix(tokens: &[Token], start: usize, end: usize) -> Option<SyntaxFix> {
    let joined = end - start >= 2 && tokens[start..end].iter().all(|t| t.kind == Kind::String);
    joined.then(|| tokens[start].end()).and_then(|at| SyntaxFix::insert(at, ":", "Insert ':' after the key"))
}

/// Index of the first token of the `disjunction` that ends at `last`: operands joined by
/// operators, attribute access, calls and subscripts, and implicitly joined strings. Two
/// operands side by side end it, which also keeps each walk short.
fn disjunction_start(tokens: &[Token], openers: &[Option<usize>], last: usize) -> usize {
    let mut k = last;
    loop {
        // A bracket group is one operand (or a call/subscript on the one before).
        if let Some(open) = openers[k] {
            k = open;
        }
        if k == 0 {
            return 0;
        }
        let (cur, before) = (&tokens[k], &tokens[k - 1]);
        let operator = |t: &Token| t.in_disjunction() && !t.ends_operand();
        let joins = if operator(cur) {
            // `a + b`, `a . b`, or a unary operator after another operator: `a * -b`.
            before.ends_operand() || (operator(before) && matches!(cur.text, "-" | "+" | "~" | "not"))
        } else {
            // An operand: after an operator, or a call/subscript, or a joined string.
            operator(before)
                || ((cur.is("(") || cur.is("[")) && before.ends_operand())
                || (cur.kind == Kind::String && before.kind == Kind::String)
        };
        if !joins {
            return k;
        }
        k -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Messages and lines are CPython 3.11's for the same sources.
    #[test]
    fn comma_colon_and_equals_hints() {
        let hint = |s: &str| hints(s).first.map(|h| (h.message.into_owned(), h.line));
        assert_eq!(hint("x = {\n 'a': 1\n 'b': 2}\n"), Some((FORGOT_COMMA.to_string(), 2)));
        assert_eq!(hint("x = {'a': 1, 'b' True}\n"), Some((COLON_EXPECTED.to_string(), 1)));
        assert_eq!(
            hint("x = {'a' = 1}\n"),
            Some(("cannot assign to literal here. Maybe you meant '==' instead of '='?".to_string(), 1))
        );
        assert_eq!(hint("x = {'a':}\n"), Some((VALUE_EXPECTED.to_string(), 1)));
        // Implicitly joined strings and calls are not missing commas.
        assert_eq!(hint("x = ['a' 'b', f (1), y [0]]\n"), None);
        // `print "x"`-like NAME STRING gets no comma hint, as in CPython.
        assert_eq!(hint("x = [a 'b']\n"), Some((INVALID.to_string(), 1)));
    }

    #[test]
    fn tokens_and_lines_are_cpythons() {
        let hint = |s: &str| hints(s).first.map(|h| (h.message.into_owned(), h.line));
        // A lone CR in a triple-quoted string is a line break (universal newlines).
        assert_eq!(hint("x = '''a\rb'''\ny = {\n 'a': 1\n 'b': 2}\n"), Some((FORGOT_COMMA.to_string(), 4)));
        // `1if` is a number and a keyword, not one token.
        assert_eq!(hint("x = [1if y else 2]\ny = (1 2)\n"), Some((FORGOT_COMMA.to_string(), 2)));
    }

    #[test]
    fn a_large_valid_file_has_no_hint() {
        let text = format!("x = [{}]\n", "a + b, 'c' 'd', f(1)[2], {'k': v.w}, ".repeat(50_000));
        assert_eq!(hints(&text).first, None);
    }

    /// Messages and lines are CPython 3.11's for the same sources.
    #[test]
    fn statement_targets() {
        let hint = |s: &str| hints(s).first.map(|h| (h.message.into_owned(), h.line));
        let here = |what: &str| format!("cannot assign to {what} here. Maybe you meant '==' instead of '='?");
        let cases: [(&str, String, usize); 18] = [
            ("x = 1\na+b = {}\n", here("expression"), 2),
            ("f(x) = 1\n", here("function call"), 1),
            ("{} = 1\n", here("dict literal"), 1),
            ("await x = 1\n", here("await expression"), 1),
            ("[x for x in y] = 1\n", here("list comprehension"), 1),
            ("a, b+c = 1\n", here("expression"), 1),
            ("a+b, c = 1\n", super::super::targets::NAME_EQUALS.to_string(), 1),
            ("x = a+b = 1\n", "cannot assign to expression".into(), 1),
            ("[a]+b = 1\n", "cannot assign to expression".into(), 1),
            ("True = 1\n", "cannot assign to True".into(), 1),
            ("a < b = 1\n", "cannot assign to comparison".into(), 1),
            ("(x for x in y) = 1\n", "cannot assign to generator expression".into(), 1),
            ("x = (a := 1) = 2\n", "cannot assign to named expression".into(), 1),
            ("a, *b+c = 1\n", "cannot assign to expression".into(), 1),
            ("a+b = lambda: 1\n", "cannot assign to expression".into(), 1),
            ("[a+b = 1]\n", here("expression"), 1),
            ("[a[0] = 1]\n", here("subscript"), 1),
            ("@Manifest = {}\n", super::super::targets::NAME_EQUALS.to_string(), 1),
        ];
        for (source, message, line) in cases {
            assert_eq!(hint(source), Some((message, line)), "{source:?}");
        }
        // CPython's generic message: a valid assignment that fails later, or no rule applies.
        for source in ["x = a b = 1\n", "a.b = 1 2\n", "[None = 1]\n", "[a = b = 1]\n", "[a < b = 1]\n"] {
            assert!(hint(source).is_none_or(|(message, _)| message == INVALID), "{source:?}");
        }
    }
}
