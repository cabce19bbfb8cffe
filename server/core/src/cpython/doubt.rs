//! Where the emulation may miss an error CPython's `compile()` raises, so that CPython's own
//! `compile()` should be asked (`Analysis::syntax_in_doubt`): shapes tree-sitter reads
//! leniently where CPython's tokenizer ends the statement (a logical line that ends on an
//! operator: `manifest =` then `{` on the next line, `ce.` then a line break, which
//! tree-sitter joins to the next line), and the constructs whose compiler checks the
//! emulation does not model in full ([`compiler_checks_not_modelled`]).

use crate::lexer::{lex, TokenKind};
use tree_sitter::Node;

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

/// Statements whose compiler (symbol table) or parser checks the emulation does not model in
/// full: `global` and `nonlocal` (`name 'x' is assigned to before global declaration`),
/// `try` (`default 'except:' must be last`), `match` (`name capture 'a' makes remaining
/// patterns unreachable`), `from __future__` (`future feature x is not defined`).
const STATEMENTS_NOT_MODELLED: [&str; 5] =
    ["global_statement", "nonlocal_statement", "try_statement", "match_statement", "future_import_statement"];

/// Whether `tree` holds a construct whose compile-time checks the emulation does not model
/// in full ([`STATEMENTS_NOT_MODELLED`], `__debug__`, which no code may bind, a `yield`,
/// an `await` or an `async for` in a comprehension, an async generator): CPython may refuse a text the
/// emulation accepts. Rare in a manifest; where present, CPython is asked.
pub fn compiler_checks_not_modelled(tree: &tree_sitter::Tree, text: &str) -> bool {
    let mut cursor = tree.walk();
    // How many comprehensions and `async def`s the cursor is inside (a `yield` in a `def`
    // nested in an `async def` counts too: asking CPython once more costs nothing wrong).
    let (mut comprehensions, mut async_functions) = (0usize, 0usize);
    let is_async_def =
        |node: Node| node.kind() == "function_definition" && node.child(0).is_some_and(|c| c.kind() == "async");
    let mut descended = true;
    loop {
        let node = cursor.node();
        if descended {
            let kind = node.kind();
            let in_comprehension = comprehensions > 0 && matches!(kind, "yield" | "await" | "async");
            let async_generator = async_functions > 0 && kind == "yield";
            if STATEMENTS_NOT_MODELLED.contains(&kind)
                || in_comprehension
                || async_generator
                || (kind == "identifier" && text.get(node.byte_range()) == Some("__debug__"))
            {
                return true;
            }
            comprehensions += usize::from(is_comprehension(kind));
            async_functions += usize::from(is_async_def(node));
            if cursor.goto_first_child() {
                continue;
            }
        }
        comprehensions -= usize::from(is_comprehension(cursor.node().kind()));
        async_functions -= usize::from(is_async_def(cursor.node()));
        if cursor.goto_next_sibling() {
            descended = true;
            continue;
        }
        if !cursor.goto_parent() {
            return false;
        }
        descended = false;
    }
}

fn is_comprehension(kind: &str) -> bool {
    matches!(kind, "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression")
}

#[cfg(test)]
mod tests {
    use super::{compiler_checks_not_modelled, line_ends_on_operator};
    use crate::syntax::parse;

    /// Each construct's error is CPython 3.10-3.13's `compile()` (this session's check);
    /// the emulation accepts them all, so only asking CPython finds it.
    #[test]
    fn constructs_whose_compiler_checks_are_not_modelled() {
        let doubtful = [
            "def f():\n    x = 1\n    global x\n",
            "def f():\n    nonlocal q\n",
            "try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n",
            "match x:\n    case a: pass\n    case b: pass\n",
            "from __future__ import braces\n",
            "__debug__ = 1\n",
            "x = [await y for y in z]\n",
            "x = [a async for a in b]\n",
            "def f():\n    x = [(yield) for a in b]\n",
            "async def f():\n    yield 1\n    return 2\n",
        ];
        for text in doubtful {
            assert!(compiler_checks_not_modelled(&parse(text, None), text), "{text:?}");
        }
        for text in ["manifest = {'a': [x for x in range(3)]}\n", "def f():\n    yield 1\n", "x = (await_ := 1)\n"] {
            assert!(!compiler_checks_not_modelled(&parse(text, None), text), "{text:?}");
        }
    }

    #[test]
    fn a_statement_cut_after_an_operator() {
        assert!(line_ends_on_operator("manifest = \n{\n}\n"));
        assert!(line_ends_on_operator("# x\nce.\nmanifest = {}\n"));
        assert!(line_ends_on_operator("x = 1 +\n2\n"));
        assert!(!line_ends_on_operator("manifest = {\n  'a': 1,\n}\nx = 1,\n"));
        assert!(!line_ends_on_operator("x = a if b else c\nimport os\n"));
    }
}
