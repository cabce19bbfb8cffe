//! Shapes tree-sitter reads leniently where CPython's tokenizer ends the statement: a
//! logical line that ends on an operator (`manifest =` then `{` on the next line, `ce.`
//! then a line break), which tree-sitter joins to the next line. The emulation does not
//! name these errors; they only say that CPython's own `compile()` should be asked
//! (`Analysis::syntax_in_doubt`).

use crate::lexer::{lex, TokenKind};

/// Operators after which a statement cannot end.
const NEEDS_OPERAND: &[&str] = &[
    "=", ".", "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>", "<", ">", "==", "!=", "<=", ">=",
    "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>=", "~", ":=", "->",
];

/// Whether some logical line ends (NEWLINE) right after an operator that needs an operand,
/// or after one of the keywords that do (`and`, `or`, `not`, `in`, `is`, `lambda`, `import`, `from`).
pub fn line_ends_on_operator(text: &str) -> bool {
    let mut previous: Option<(TokenKind, &str)> = None;
    for token in lex(text) {
        match token.kind {
            TokenKind::Newline => {
                if let Some((kind, op)) = previous {
                    let dangling = match kind {
                        TokenKind::Op => NEEDS_OPERAND.contains(&op),
                        TokenKind::Name => {
                            matches!(op, "and" | "or" | "not" | "in" | "is" | "lambda" | "import" | "from")
                        }
                        _ => false,
                    };
                    if dangling {
                        return true;
                    }
                }
                previous = None;
            }
            kind if token.is_significant() => previous = Some((kind, token.text(text))),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::line_ends_on_operator;

    #[test]
    fn a_statement_cut_after_an_operator() {
        assert!(line_ends_on_operator("manifest = \n{\n}\n"));
        assert!(line_ends_on_operator("# x\nce.\nmanifest = {}\n"));
        assert!(line_ends_on_operator("x = 1 +\n2\n"));
        assert!(!line_ends_on_operator("manifest = {\n  'a': 1,\n}\nx = 1,\n"));
        assert!(!line_ends_on_operator("x = a if b else c\nimport os\n"));
    }
}
