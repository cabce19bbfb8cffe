//! CPython's specialised syntax error messages for the mistakes manifests see most, from a
//! token scan: a missing comma between two items (`invalid syntax. Perhaps you forgot a
//! comma?`), a dict key without its ':' (`':' expected after dictionary key`), and a ':'
//! with no value (`expression expected after dictionary key and ':'`).
//!
//! These mirror the `invalid_expression`, `invalid_kvpair` and
//! `invalid_double_starred_kvpairs` rules of CPython 3.11's grammar (`Grammar/python.gram`),
//! which its parser tries, in source order, only after a file failed to parse. Everything
//! else stays CPython's generic `invalid syntax` (see
//! [`python_syntax_error`](super::python_syntax_error)). The `=` of a bad assignment target
//! is [`targets`](super::targets)'s.
//!
//! [`messages`]: the messages; `scan`: the walk, one method per `invalid_*` rule;
//! [`statements`]: what fails on a statement's own level.

pub mod messages;
mod scan;
mod statements;

pub use messages::{
    Hint, ASSIGNMENT_IN_ARGUMENT, COLON_EXPECTED, EXPECTED_COLON, FORGOT_COMMA, INVALID, VALUE_EXPECTED,
};
pub(crate) use statements::{missed_starred, statement_juxtaposition};

/// A compound statement's header whose logical line has no ':' (`for name` NEWLINE `, v in
/// d:`, which tree-sitter joins into one header): where CPython's parser stops (its own
/// message may be `invalid syntax` rather than the hint's `expected ':'`).
pub(crate) fn header_without_colon(tokens: &[Token]) -> Option<std::ops::Range<usize>> {
    missing_block_colon(tokens).map(|hint| hint.offset..hint.offset + 1)
}

use super::tokens::{tokenize, Token};
use scan::first_hint_scan;
use statements::{import_trailing_comma, missing_block_colon};

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
    let scanned =
        first_hint_scan(tokens, &in_value).map(|hint| Hint { reached: hint.reached || in_value.get(), ..hint });
    [scanned, import_trailing_comma(tokens)].into_iter().flatten().min_by_key(|h| h.offset)
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
    fn a_from_import_ending_on_a_comma() {
        // Each checked with CPython 3.11.7's compile(): only a line's end after the comma
        // gets the message.
        let message =
            |s: &str| super::super::python_syntax_error(&crate::syntax::parse(s, None), s).map(|e| (e.message, e.line));
        let trailing = "trailing comma not allowed without surrounding parentheses".to_string();
        assert_eq!(message("import os\nfrom os import a, b,\n"), Some((trailing.clone(), 2)));
        assert_eq!(message("from os import a as b,\nx = [1 2]\n"), Some((trailing, 1)));
        for text in ["from os import a,;x=1\n", "from os import *,\n", "import a,\n"] {
            assert_eq!(message(text), Some((INVALID.to_string(), 1)), "{text}");
        }
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

    /// CPython 3.11.7's compile() of the same sources.
    #[test]
    fn a_walrus_after_what_is_no_name() {
        let with = |what: &str| format!("cannot use assignment expressions with {what}");
        super::super::estimate::tests::assert_errors(&[
            ("x = {\"a\":= 1}\n", &with("literal"), 1),
            ("x = [1 := 2]\n", &with("literal"), 1),
            ("x.y := 1\n", &with("attribute"), 1),
            ("x = (x.y := 1)\n", &with("attribute"), 1),
            ("x = {f():= 2}\n", &with("function call"), 1),
            ("x = {None:= 2}\n", &with("None"), 1),
            ("x = {1 + 2:= 2}\n", &with("expression"), 1),
            ("x = {1 < 2:= 2}\n", &with("comparison"), 1),
            ("x = {-1:= 1}\n", &with("expression"), 1),
            ("x = {[1]:= 1}\n", &with("list"), 1),
            ("x = {\n  \"a\":= 1, \"b\" 2}\n", &with("literal"), 2),
            // A later dict entry, a call's argument: other rules.
            ("x = {\"a\": 1,\n \"b\":= 2}\n", "':' expected after dictionary key", 2),
            ("f(a.b := 1)\n", "invalid syntax", 1),
            ("x = {\"a\": 1 := 2}\n", "invalid syntax", 1),
        ]);
    }

    /// CPython 3.11.7's compile() of the same sources: `expression cannot contain
    /// assignment` only where an expression comes before the '='.
    #[test]
    fn an_argument_assigned_to_what_is_no_expression() {
        super::super::estimate::tests::assert_errors(&[
            ("f(*a=1)\n", "invalid syntax", 1),
            ("f(.a=1)\n", "invalid syntax", 1),
            ("f(a;b=1)\n", "invalid syntax", 1),
            ("f(a + b=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a if b else c=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(x.y=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(\"a\"=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a[0]=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(-a=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a.b.c(d)=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(not a=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a<b=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(**a=1)\n", "invalid syntax", 1),
            ("f(a, b.c=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(x=1, 1+1=2)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(f\"{a}\"=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f([a, b]=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f({a: b}=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a @ b=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(...=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(1=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a.b=1 if c else 2)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(x.y=1, z)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(await a=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a is not b=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a not in b=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(~a=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a ** -b=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(b\"x\"=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(1j=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a[1:2]=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f((a, b)=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
            ("f(a.b[c].d=1)\n", "expression cannot contain assignment, perhaps you meant \"==\"?", 1),
        ]);
    }

    /// CPython 3.11.7: a second ':' in one dict entry is where the parser stops.
    #[test]
    fn a_second_colon_in_a_dict_entry() {
        super::super::estimate::tests::assert_errors(&[
            ("x = {\"a\": 1:,}\n", "invalid syntax", 1),
            ("x = {\"a\": 1:}\n", "invalid syntax", 1),
            ("x = {\"a\"::}\n", "invalid syntax", 1),
            ("x = {\"a\": 1, \"b\": 2:}\n", "invalid syntax", 1),
            ("x = {\"a\" \"b\": 1:}\n", "invalid syntax", 1),
            ("x = {\"a\":}\n", "expression expected after dictionary key and ':'", 1),
            ("x = {\"a\": 1, \"b\":}\n", "expression expected after dictionary key and ':'", 1),
        ]);
    }
}
