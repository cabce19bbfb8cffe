//! What CPython's parser refuses on a statement's own level: a compound statement header
//! without its ':', two operands side by side, and the misplaced stars tree-sitter reads
//! without complaint.

use super::messages::{Hint, EXPECTED_COLON};
use crate::cpython::error::SyntaxFix;
use crate::cpython::tokens::{Kind, Token};

/// A compound statement header without its ':' (`def f(x)`, `if x`, `else`): CPython
/// demands the ':' right after the header (a forced token), so this error comes before any
/// tokenizer error on the following lines (such as the block's indentation).
pub(super) fn missing_block_colon(tokens: &[Token]) -> Option<Hint> {
    let mut k = 0;
    while k < tokens.len() {
        let end = (k + 1..tokens.len()).find(|&j| tokens[j].logical_start).unwrap_or(tokens.len());
        let header = &tokens[k];
        let compound = header.kind == Kind::Name
            && matches!(
                header.text,
                "def" | "class" | "if" | "elif" | "else" | "while" | "for" | "with" | "try" | "except" | "finally"
            );
        // `def` alone on its line wants its name first (`invalid syntax`, 3.10-3.13); `try`
        // alone wants its ':'.
        let bare = end == k + 1 && !matches!(header.text, "else" | "try" | "except" | "finally");
        if compound && !bare && !tokens[k..end].iter().any(|t| t.depth == 0 && t.is(":")) {
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
                stops_parser: false,
            });
        }
        k = end;
    }
    None
}

/// `from m import a,` with the line's end after the comma: CPython's
/// `invalid_import_from_targets` (a `;` after it, or `import *,`, is only `invalid syntax`).
pub(super) fn import_trailing_comma(tokens: &[Token]) -> Option<Hint> {
    let mut k = 0;
    while k < tokens.len() {
        let end = (k + 1..tokens.len()).find(|&j| tokens[j].logical_start).unwrap_or(tokens.len());
        let line = &tokens[k..end];
        let import = line.iter().position(|t| t.kind == Kind::Name && t.text == "import");
        if let (true, Some(import)) = (line[0].kind == Kind::Name && line[0].text == "from", import) {
            let names = &line[import + 1..];
            let plain = names.first().is_some_and(|t| t.kind == Kind::Name);
            let statement = names.iter().position(|t| t.is(";")).map_or(names, |semi| &names[..semi]);
            if let (true, true, Some(last)) =
                (plain, statement.len() == names.len(), names.last().filter(|t| t.is(",")))
            {
                return Some(Hint {
                    message: "trailing comma not allowed without surrounding parentheses".into(),
                    line: last.line,
                    offset: last.start,
                    fixes: Vec::new(),
                    reached: false,
                    stops_parser: false,
                });
            }
        }
        k = end;
    }
    None
}

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

/// Whether the `in` at `at` is its `for` statement's (the first `in` on the statement's own
/// level after `for`), not a comparison.
fn for_statement_in(tokens: &[Token], at: usize) -> bool {
    let Some(start) = (0..=at).rev().find(|&i| tokens[i].logical_start) else { return false };
    let first = if tokens[start].text == "async" { start + 1 } else { start };
    let is_for = tokens.get(first).is_some_and(|t| t.kind == Kind::Name && t.text == "for");
    let depth = tokens[start].depth;
    let earlier_in =
        (first + 1..at).any(|i| tokens[i].depth == depth && tokens[i].kind == Kind::Name && tokens[i].text == "in");
    is_for && tokens[at].depth == depth && !earlier_in
}

/// An operator or keyword after which an operand must come and a starred expression cannot.
fn wants_operand(t: &Token) -> bool {
    const OPERATORS: &[&str] = &[
        "+", "-", "~", "*", "/", "//", "%", "@", "**", "<<", ">>", "&", "|", "^", "==", "!=", "<", ">", "<=", ">=", ".",
    ];
    match t.kind {
        Kind::Op => OPERATORS.contains(&t.text),
        Kind::Name => matches!(t.text, "not" | "and" | "or" | "if" | "else" | "is" | "await"),
        _ => false,
    }
}

/// The first token where CPython's parser fails and tree-sitter does not: a `*x` dict key
/// (at its ':'), a starred dict value, a parenthesized lone `*x`, a `*` that ends a logical
/// line (tree-sitter reads `*` NEWLINE `manifest = {}` as the target `*manifest`).
pub(crate) fn missed_starred(tokens: &[Token]) -> Option<std::ops::Range<usize>> {
    // Per open bracket: '{', '(' not a call, the current element's first token, its ':'
    // seen, and whether a comma came.
    let mut frames: Vec<(bool, bool, Option<usize>, bool, bool)> = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        let span = |t: &Token| t.start..t.end();
        // A `*` or `**` right after an operator or keyword that wants an operand (`+*x`,
        // `not *x`, `a == *b`) starts no expression CPython's grammar has.
        if (t.is("*") || t.is("**")) && !t.logical_start && k.checked_sub(1).is_some_and(|p| wants_operand(&tokens[p]))
        {
            return Some(span(t));
        }
        // `f(k=*v)`, `def f(a=*b)`: a keyword's or default's value is never starred (at a
        // statement's own level `x = *a, b` is a tuple).
        if t.is("*") && t.depth > 0 && k.checked_sub(1).is_some_and(|p| tokens[p].is("=")) {
            return Some(span(t));
        }
        // `f(*c := v)`: a starred name is no `:=` target (3.10-3.13 fail at the `:=`).
        if t.is(":=") && k >= 2 && tokens[k - 1].kind == Kind::Name && tokens[k - 2].is("*") {
            return Some(span(t));
        }
        // `x in *y` compares; only a `for` statement's own `in` takes a starred expression.
        let after_in = k.checked_sub(1).filter(|&p| tokens[p].kind == Kind::Name && tokens[p].text == "in");
        if after_in.is_some_and(|p| (t.is("*") || t.is("**")) && (t.is("**") || !for_statement_in(tokens, p))) {
            return Some(span(t));
        }
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
            if t.kind == Kind::Name && t.text == "for" {
                // `(*a for a in z)` is a generator, no group: its star is the
                // comprehension's error (`leniencies`).
                f.4 = true;
            }
            f.2.get_or_insert(k);
        }
    }
    None
}
