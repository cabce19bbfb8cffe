//! The errors CPython's compiler raises for a file that parses: `from __future__` placement
//! (`Python/future.c`), then the symbol table's (`Python/symtable.c`: a parameter named
//! twice, `import *` in a function, `nonlocal` at module level), then code generation's
//! (`Python/compile.c`: `return`, `yield` or `await` outside a function, `break` or
//! `continue` outside a loop, `async with`/`async for` outside an async function, a keyword
//! argument repeated). Each pass reports its first error in source order, and a later pass
//! runs only where the earlier ones found none, so a symbol table error on a late line wins
//! over a code generation error on an early one. Messages and lines are CPython 3.11's.

use super::arguments::repeated_keyword;
use super::error::{line_at, PythonSyntaxError};
use super::named_expressions::{comprehension_error, COMPREHENSIONS};
use crate::syntax::node_text;
use tree_sitter::{Node, Tree};

/// The scope a statement is compiled in, as far as these errors care.
#[derive(Clone, Copy, Default)]
struct Scope {
    /// Inside a `def` or `lambda` body (a class body is not a function).
    function: bool,
    /// Inside an `async def` body.
    async_function: bool,
    /// Inside the body of a `for` or `while` of this function (not its `else`).
    in_loop: bool,
    /// Inside a comprehension (its own scope: `yield` there has messages of its own).
    comprehension: bool,
}

/// The first of the compiler's errors, for a file whose tree has none. `calls`: every
/// call's argument list, in source order.
pub(super) fn compile_error(tree: &Tree, calls: &[Node], text: &str) -> Option<PythonSyntaxError> {
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let error = |node: Node, message: String| PythonSyntaxError {
        message,
        line: line_at(text, node.start_byte()),
        fixes: Vec::new(),
    };
    if let Some(late) = late_future_import(root) {
        return Some(error(late, "from __future__ imports must occur at the beginning of the file".into()));
    }
    let (mut symtable, mut codegen) = (None, None);
    let mut stack = vec![(root, Scope::default())];
    let mut cursor = root.walk();
    while let Some((node, scope)) = stack.pop() {
        if symtable.is_some() {
            break;
        }
        if codegen.is_none() {
            codegen = codegen_error(node, scope).map(|message| error(node, message.into()));
        }
        symtable = symtable_error(node, scope, text).map(|(at, message)| error(at, message));
        let inner = inner_scope(node, scope);
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            stack.push((child, child_scope(node, child, inner)));
        }
    }
    symtable.or(codegen).or_else(|| repeated_keyword(calls, text))
}

/// The scope of `node`'s children (before a loop body or an `else` is told apart).
fn inner_scope(node: Node, scope: Scope) -> Scope {
    match node.kind() {
        "function_definition" => {
            Scope { function: true, async_function: is_async(node), in_loop: false, comprehension: false }
        }
        "lambda" => Scope { function: true, async_function: false, in_loop: false, comprehension: false },
        "class_definition" => Scope::default(),
        "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression" => {
            Scope { comprehension: true, ..scope }
        }
        _ => scope,
    }
}

/// A loop's body is in the loop; its `else`, its condition and what it iterates are not.
fn child_scope(parent: Node, child: Node, inner: Scope) -> Scope {
    let loop_body = matches!(parent.kind(), "for_statement" | "while_statement")
        && parent.child_by_field_name("body").is_some_and(|body| body.id() == child.id());
    match parent.kind() {
        "for_statement" | "while_statement" => Scope { in_loop: loop_body || inner.in_loop, ..inner },
        _ => inner,
    }
}

fn is_async(node: Node) -> bool {
    node.child(0).is_some_and(|first| first.kind() == "async")
}

/// Code generation's message for `node` itself, if it is one of the statements or
/// expressions compiled only in some scopes.
fn codegen_error(node: Node, scope: Scope) -> Option<&'static str> {
    match node.kind() {
        "return_statement" if !scope.function => Some("'return' outside function"),
        "yield" if node.is_named() && !scope.function && !scope.comprehension => Some("'yield' outside function"),
        "await" if node.is_named() && !scope.function && !scope.comprehension => Some("'await' outside function"),
        "await" if node.is_named() && scope.function && !scope.async_function && !scope.comprehension => {
            Some("'await' outside async function")
        }
        "break_statement" if !scope.in_loop => Some("'break' outside loop"),
        "continue_statement" if !scope.in_loop => Some("'continue' not properly in loop"),
        "with_statement" if is_async(node) && !scope.async_function => Some("'async with' outside async function"),
        "for_statement" if is_async(node) && !scope.async_function => Some("'async for' outside async function"),
        "pattern_list" | "tuple_pattern" | "list_pattern" if starred_targets(node) > 1 => {
            Some("multiple starred expressions in assignment")
        }
        // `for *k in z`: a starred target alone (3.10-3.13 alike).
        "list_splat_pattern" if is_loop_target(node) => Some("starred assignment target must be in a list or tuple"),
        // `return *a`, `yield *a`: a lone star is no value (`return *a, b` is a tuple).
        "list_splat" if node.parent().is_some_and(|p| matches!(p.kind(), "return_statement" | "yield")) => {
            Some("can't use starred expression here")
        }
        // `with a as *b:` (tree-sitter's target is the star itself).
        "list_splat" if node.parent().is_some_and(|p| p.kind() == "as_pattern_target") => {
            Some("starred assignment target must be in a list or tuple")
        }
        _ => None,
    }
}

/// Whether `node` is the whole target of a `for` statement or clause.
fn is_loop_target(node: Node) -> bool {
    let parent = node.parent();
    let target = parent
        .filter(|p| matches!(p.kind(), "for_statement" | "for_in_clause"))
        .and_then(|p| p.child_by_field_name("left"));
    target.is_some_and(|t| t.id() == node.id())
}

/// How many of a target tuple's or list's own items are starred (`*a, *b = x`).
fn starred_targets(node: Node) -> usize {
    let mut cursor = node.walk();
    let count = node.named_children(&mut cursor).filter(|c| c.kind() == "list_splat_pattern").count();
    count
}

/// The symbol table's error for `node` (and the node CPython names the line of).
fn symtable_error<'t>(node: Node<'t>, scope: Scope, text: &str) -> Option<(Node<'t>, String)> {
    match node.kind() {
        "nonlocal_statement" if !scope.function => {
            Some((node, "nonlocal declaration not allowed at module level".into()))
        }
        "import_from_statement" if scope.function || scope.comprehension => {
            let mut cursor = node.walk();
            let wildcard = node.named_children(&mut cursor).any(|c| c.kind() == "wildcard_import");
            wildcard.then(|| (node, "import * only allowed at module level".into()))
        }
        "parameters" | "lambda_parameters" => duplicate_parameter(node, text)
            .map(|(at, name)| (at, format!("duplicate argument '{name}' in function definition"))),
        kind if COMPREHENSIONS.contains(&kind) => comprehension_error(node, text),
        _ => None,
    }
}

/// The first parameter whose name an earlier one of the same list has.
fn duplicate_parameter<'t, 's>(parameters: Node<'t>, text: &'s str) -> Option<(Node<'t>, &'s str)> {
    let mut seen = std::collections::HashSet::new();
    let mut cursor = parameters.walk();
    for parameter in parameters.named_children(&mut cursor) {
        let name = match parameter.kind() {
            "identifier" => Some(parameter),
            "default_parameter" | "typed_default_parameter" => parameter.child_by_field_name("name"),
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                let mut inner = parameter.walk();
                let found = parameter.named_children(&mut inner).find(|c| c.kind() == "identifier");
                found.or_else(|| {
                    // `*args: int` is a typed parameter holding a splat pattern.
                    let mut inner = parameter.walk();
                    let splat = parameter.named_children(&mut inner).find(|c| c.kind().ends_with("splat_pattern"));
                    splat.and_then(|s| s.named_child(0))
                })
            }
            _ => None,
        };
        if let Some(name) = name {
            let name = node_text(name, text);
            if !seen.insert(name) {
                return Some((parameter, name));
            }
        }
    }
    None
}

/// A `from __future__ import` after the file's first statements: only a docstring and
/// other future imports may come before one.
fn late_future_import(root: Node) -> Option<Node> {
    let mut cursor = root.walk();
    let mut preamble = true;
    for (i, statement) in root.named_children(&mut cursor).enumerate() {
        match statement.kind() {
            "comment" => {}
            "future_import_statement" if !preamble => return Some(statement),
            "future_import_statement" => {}
            "expression_statement" if i == 0 && is_docstring(statement) => {}
            _ => preamble = false,
        }
    }
    None
}

fn is_docstring(statement: Node) -> bool {
    statement.named_child_count() == 1 && statement.named_child(0).is_some_and(|e| e.kind() == "string")
}

#[cfg(test)]
mod tests {
    use super::super::estimate::tests::assert_errors;
    use super::super::python_syntax_error;
    use crate::syntax::parse;

    #[test]
    fn statements_outside_their_scope() {
        assert_errors(&[
            ("x = 1\nreturn x\n", "'return' outside function", 2),
            ("class A:\n    return 1\n", "'return' outside function", 2),
            ("yield 1\n", "'yield' outside function", 1),
            ("class A:\n    x = yield\n", "'yield' outside function", 2),
            ("await x\n", "'await' outside function", 1),
            ("def f():\n    await x\n", "'await' outside async function", 2),
            ("break\n", "'break' outside loop", 1),
            ("continue\n", "'continue' not properly in loop", 1),
            ("def f():\n    continue\n", "'continue' not properly in loop", 2),
            ("for x in y:\n    pass\nelse:\n    break\n", "'break' outside loop", 4),
            ("while 1:\n    def f():\n        break\n", "'break' outside loop", 3),
            ("async with x:\n    pass\n", "'async with' outside async function", 1),
            ("def f():\n    async for x in y:\n        pass\n", "'async for' outside async function", 2),
            // Each checked with CPython 3.10, 3.11 and 3.13: the line is the tuple's first.
            ("*a, *b = x\n", "multiple starred expressions in assignment", 1),
            ("(\n *a,\n *b) = x\n", "multiple starred expressions in assignment", 1),
            ("x = 1\nfor *a, *b in y: pass\n", "multiple starred expressions in assignment", 2),
            ("[*a, [*b, *c]] = x\n", "multiple starred expressions in assignment", 1),
            ("a, *b = *c, *d = x\n", "multiple starred expressions in assignment", 1),
            ("del a\n*a, *b = x\nreturn 1\n", "multiple starred expressions in assignment", 2),
            // 3.10 and 3.13 alike.
            ("for *k in [1]: pass\n", "starred assignment target must be in a list or tuple", 1),
            ("x = [k for *k in z]\n", "starred assignment target must be in a list or tuple", 1),
            ("return 1\nfor *k in z: pass\n", "'return' outside function", 1),
        ]);
    }

    #[test]
    fn the_symbol_table_before_code_generation() {
        assert_errors(&[
            ("nonlocal x\n", "nonlocal declaration not allowed at module level", 1),
            ("return 1\nnonlocal x\n", "nonlocal declaration not allowed at module level", 2),
            ("def f():\n    from os import *\n", "import * only allowed at module level", 2),
            ("def f(a, b=1, *a): pass\n", "duplicate argument 'a' in function definition", 1),
            ("f = lambda a, a: 1\n", "duplicate argument 'a' in function definition", 1),
            ("f(a=1, a=2)\ndef g(a, a): pass\n", "duplicate argument 'a' in function definition", 2),
            ("return 1\nf(a=1, a=2)\n", "'return' outside function", 1),
            (
                "x = 1\nfrom __future__ import annotations\n",
                "from __future__ imports must occur at the beginning of the file",
                2,
            ),
        ]);
    }

    #[test]
    fn what_compiles() {
        for text in [
            "def f():\n    return 1\n",
            "async def f():\n    await x\n    async with y:\n        pass\n",
            "for x in y:\n    if x:\n        break\n    continue\n",
            "def f():\n    x = 1\n    def g():\n        nonlocal x\n",
            "'''doc'''\nfrom __future__ import annotations\nimport os\n",
            "def f(*args, **kwargs): pass\nf = lambda *a, **k: 0\n",
            "x = [y for y in z]\n",
            "*a, = x\nb, *c = x\n[*a, *b]\nx = *a, *b\n",
            "for *k, in [1]: pass\nx = [k for [*k] in z]\n",
        ] {
            assert_eq!(python_syntax_error(&parse(text, None), text), None, "{text:?}");
        }
    }
}
