//! Shapes tree-sitter accepts where CPython's parser refuses them: each is a parse error
//! tree-sitter does not mark, found from CPython's tokens. The first one (or tree-sitter's
//! own first error, if earlier) is where [`estimate`](super::estimate) places CPython's
//! error; finding one also makes the analysis ask CPython (`Analysis::syntax_in_doubt`).

use super::lexer::{lex, TokenKind};

/// The first error CPython's parser finds where tree-sitter finds none.
pub(super) fn missed_error(text: &str, tokens: Option<&[super::tokens::Token]>) -> Option<std::ops::Range<usize>> {
    [
        stray_character(text),
        tokens.and_then(super::hints::missed_starred),
        tokens.and_then(super::hints::statement_juxtaposition),
        tokens.and_then(glued_string_prefix),
        tokens.and_then(import_junk),
        tokens.and_then(barry_as_flufl),
        tokens.and_then(super::targets::del_target_error),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|s| s.start)
}

/// `<>`: one token for CPython (its NOTEQUAL, which the parser refuses unless `from
/// __future__ import barry_as_FLUFL`), two comparisons side by side for tree-sitter, which
/// reads `a <> b` as `a < > b` with an error it recovers from silently.
fn barry_as_flufl(tokens: &[super::tokens::Token]) -> Option<std::ops::Range<usize>> {
    tokens.windows(2).find(|w| w[0].is("<") && w[1].is(">") && w[0].end() == w[1].start).map(|w| w[0].start..w[1].end())
}

/// The first token an `import` statement cannot hold (`import a-b`: tree-sitter reads on
/// after the module name; a trailing comma), or a `.` among the names a `from` statement imports (`from torch
/// import flo.at16`, which tree-sitter reads as a dotted name). The rest of a `from`
/// statement is left to tree-sitter.
fn import_junk(tokens: &[super::tokens::Token]) -> Option<std::ops::Range<usize>> {
    use super::tokens::Kind;
    let (mut in_import, mut in_from, mut from_names) = (false, false, false);
    for (k, t) in tokens.iter().enumerate() {
        // `import a,` then the statement's end.
        let ends = tokens.get(k + 1).is_none_or(|n| n.logical_start || n.is(";"));
        if in_import && t.is(",") && ends {
            return Some(t.start..t.end());
        }
        if t.logical_start || t.is(";") {
            in_import = t.is_name("import");
            (in_from, from_names) = (t.is_name("from"), false);
            continue;
        }
        if in_from && t.is_name("import") {
            from_names = true;
        } else if from_names && t.is(".") {
            return Some(t.start..t.end());
        }
        let allowed =
            t.kind == Kind::Name && !super::tokens::is_keyword(t.text) || t.is_name("as") || t.is(".") || t.is(",");
        if in_import && !allowed {
            return Some(t.start..t.end());
        }
    }
    None
}

/// A name glued to a string (`T"key"`): CPython's tokenizer takes only its string prefixes
/// (`r`, `b`, `f`, `u` and their pairs) into the string, so the two are operands side by
/// side, which tree-sitter reads as one string.
fn glued_string_prefix(tokens: &[super::tokens::Token]) -> Option<std::ops::Range<usize>> {
    use super::tokens::Kind;
    tokens
        .windows(2)
        .find(|w| {
            w[0].kind == Kind::Name
                && w[1].kind == Kind::String
                && w[0].end() == w[1].start
                && !super::tokens::is_keyword(w[0].text)
        })
        .map(|w| w[1].start..w[1].start + 1)
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

#[cfg(test)]
mod tests {
    use super::super::python_syntax_error;
    use crate::syntax::parse;

    /// CPython 3.11.7's compile() of the same sources.
    #[test]
    fn shapes_tree_sitter_accepts() {
        let e = python_syntax_error(&parse("f(1 <> 2)\n", None), "f(1 <> 2)\n").unwrap();
        assert_eq!((e.message.as_str(), e.line), ("invalid syntax", 1));
        // After an `=`, the emulation's hints still read `<` and `>` apart (CPython says
        // `invalid syntax` on line 2); the line is right, and CPython is asked.
        for text in ["x = 1\nmanifest = 1 <> 2\n", "x = 1\nmanifest = 1 < > 2\n"] {
            assert_eq!(python_syntax_error(&parse(text, None), text).map(|e| e.line), Some(2));
        }
    }
}
