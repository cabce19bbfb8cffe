//! The symbol table's errors for assignment expressions in comprehensions
//! (`Python/symtable.c`, as 3.11 raises them): `:=` cannot rebind an iteration variable of
//! the comprehensions around it, cannot appear in what a comprehension iterates, cannot
//! reach a class body from a comprehension, and a later `for` cannot rebind its target.
//!
//! The symbol table visits a comprehension in its own order, not the text's: the first
//! iterable (in the enclosing scope), then each `for` target, iterable and `if` in turn, the
//! element last (a dict comprehension's value before its key). The first error in that order
//! is the one raised. As in 3.10 and 3.11, every name in a `for` target counts, `y` of
//! `for y.a in z` too (3.12 counts only the names bound); CPython's own compile() settles it
//! where it is known.

use crate::syntax::node_text;
use std::collections::HashSet;
use tree_sitter::Node;

pub(super) const COMPREHENSIONS: [&str; 4] =
    ["list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"];

/// The first such error inside `comprehension` (an outermost one), and the name CPython
/// reports it at.
pub(super) fn comprehension_error<'t>(comprehension: Node<'t>, text: &str) -> Option<(Node<'t>, String)> {
    let mut visitor = Visitor { text, frames: Vec::new(), iterable_depth: 0, in_class: in_class_body(comprehension) };
    visitor.comprehension(comprehension).err()
}

/// Whether the scope `node` is in is a class body (the nearest function, lambda or class).
fn in_class_body(node: Node) -> bool {
    let mut at = node.parent();
    while let Some(n) = at {
        match n.kind() {
            "class_definition" => return true,
            "function_definition" | "lambda" => return false,
            _ => at = n.parent(),
        }
    }
    false
}

/// The names one comprehension scope binds: its iteration variables, and the targets of
/// the assignment expressions inside it (which bind in the scope around it).
#[derive(Default)]
struct Frame<'s> {
    iteration: HashSet<&'s str>,
    assigned: HashSet<&'s str>,
}

struct Visitor<'s> {
    text: &'s str,
    /// The comprehensions around the node visited, within one function scope.
    frames: Vec<Frame<'s>>,
    /// Inside what a comprehension iterates (carried into lambdas and comprehensions there).
    iterable_depth: usize,
    in_class: bool,
}

type Visit<'t> = Result<(), (Node<'t>, String)>;

impl<'s> Visitor<'s> {
    fn comprehension<'t>(&mut self, node: Node<'t>) -> Visit<'t> {
        let mut cursor = node.walk();
        let clauses: Vec<Node> =
            node.named_children(&mut cursor).filter(|c| matches!(c.kind(), "for_in_clause" | "if_clause")).collect();
        let iterables = |clause: Node<'t>| {
            let mut cursor = clause.walk();
            clause.children_by_field_name("right", &mut cursor).collect::<Vec<_>>()
        };
        let first = clauses.iter().find(|c| c.kind() == "for_in_clause");
        if let Some(first) = first {
            self.iterable(&iterables(*first))?;
        }
        self.frames.push(Frame::default());
        for clause in &clauses {
            if clause.kind() == "if_clause" {
                self.children(*clause)?;
                continue;
            }
            if let Some(target) = clause.child_by_field_name("left") {
                self.iteration_target(target)?;
            }
            if Some(clause) != first {
                self.iterable(&iterables(*clause))?;
            }
        }
        if let Some(body) = node.child_by_field_name("body") {
            match (body.kind(), body.child_by_field_name("key"), body.child_by_field_name("value")) {
                ("pair", Some(key), Some(value)) => {
                    self.visit(value)?;
                    self.visit(key)?;
                }
                _ => self.visit(body)?,
            }
        }
        self.frames.pop();
        Ok(())
    }

    fn iterable<'t>(&mut self, nodes: &[Node<'t>]) -> Visit<'t> {
        self.iterable_depth += 1;
        let visited = nodes.iter().try_for_each(|n| self.visit(*n));
        self.iterable_depth -= 1;
        visited
    }

    /// Each name in a `for` target becomes an iteration variable of the innermost frame.
    fn iteration_target<'t>(&mut self, target: Node<'t>) -> Visit<'t> {
        let mut stack = vec![target];
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" {
                let name = node_text(n, self.text);
                let frame = self.frames.last_mut().expect("a frame is pushed before the targets");
                if frame.assigned.contains(name) {
                    return Err((
                        n,
                        format!("comprehension inner loop cannot rebind assignment expression target '{name}'"),
                    ));
                }
                frame.iteration.insert(name);
                continue;
            }
            let mut cursor = n.walk();
            let children: Vec<Node> = n.named_children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        Ok(())
    }

    fn visit<'t>(&mut self, node: Node<'t>) -> Visit<'t> {
        match node.kind() {
            kind if COMPREHENSIONS.contains(&kind) => self.comprehension(node),
            "named_expression" => self.named_expression(node),
            "lambda" => {
                // A function scope: its assignment expressions bind there.
                let frames = std::mem::take(&mut self.frames);
                let in_class = std::mem::replace(&mut self.in_class, false);
                let visited = self.children(node);
                self.frames = frames;
                self.in_class = in_class;
                visited
            }
            _ => self.children(node),
        }
    }

    fn children<'t>(&mut self, node: Node<'t>) -> Visit<'t> {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        children.into_iter().try_for_each(|c| self.visit(c))
    }

    fn named_expression<'t>(&mut self, node: Node<'t>) -> Visit<'t> {
        let Some(target) = node.child_by_field_name("name") else { return self.children(node) };
        let name = node_text(target, self.text);
        if self.iterable_depth > 0 {
            return Err((target, "assignment expression cannot be used in a comprehension iterable expression".into()));
        }
        if self.frames.iter().any(|f| f.iteration.contains(name)) {
            return Err((
                target,
                format!("assignment expression cannot rebind comprehension iteration variable '{name}'"),
            ));
        }
        if self.in_class && !self.frames.is_empty() {
            return Err((target, "assignment expression within a comprehension cannot be used in a class body".into()));
        }
        for frame in &mut self.frames {
            frame.assigned.insert(name);
        }
        match node.child_by_field_name("value") {
            Some(value) => self.visit(value),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::estimate::tests::assert_errors;
    use super::super::python_syntax_error;
    use crate::syntax::parse;

    const REBIND: &str = "assignment expression cannot rebind comprehension iteration variable";
    const ITERABLE: &str = "assignment expression cannot be used in a comprehension iterable expression";

    /// CPython 3.11.7's compile() of each (3.10, 3.12 and 3.13 the same, but 3.12's and
    /// 3.13's for `y.a` and `y[0]` targets, which compile there).
    #[test]
    fn assignment_expressions_in_comprehensions() {
        let y = format!("{REBIND} 'y'");
        let a = format!("{REBIND} 'a'");
        let w = format!("{REBIND} 'w'");
        assert_errors(&[
            ("x = [(y := 1) for y in z]\n", &y, 1),
            ("x = [y for y in (w := z)]\n", ITERABLE, 1),
            ("x = [y for y in z for q in (w := z)]\n", ITERABLE, 1),
            ("x = [[(y := 1) for q in z] for y in z]\n", &y, 1),
            ("x = [(a := 1) for y in z for a in z]\n", &a, 1),
            (
                "x = [y for y in z if (a := 1) for a in z]\n",
                "comprehension inner loop cannot rebind assignment expression target 'a'",
                1,
            ),
            ("x = {(k := 1): v for k, v in z}\n", &format!("{REBIND} 'k'"), 1),
            ("x = [(y := 1) for (y, *q) in z]\n", &y, 1),
            ("x = [1 for y in z if (y := 2)]\n", &y, 1),
            (
                "class A:\n  x = [(a := 1) for y in z]\n",
                "assignment expression within a comprehension cannot be used in a class body",
                2,
            ),
            ("x = [y for y in [(q := 1) for q in z]]\n", ITERABLE, 1),
            ("x = {(a := 1): (b := 2) for a in z for b in z}\n", &format!("{REBIND} 'b'"), 1),
            ("x = [y for y in (lambda: (w := 1))()]\n", ITERABLE, 1),
            ("x = [[(w := 1) for r in z] for y in z if w for w in z]\n", &w, 1),
            ("x = [y for y in z if [(y := 1) for q in z]]\n", &y, 1),
            (
                "def f():\n  class A:\n    x = [(a := 1) for y in z]\n",
                "assignment expression within a comprehension cannot be used in a class body",
                3,
            ),
            ("x = [(y := 1) for y.a in z]\n", &y, 1),
            ("x = [\n  y\n  for y in z\n  if (\n    y := 2)]\n", &y, 5),
        ]);
    }

    #[test]
    fn what_compiles() {
        for text in [
            "x = [y for y in z if (w := 1)]\n",
            "x = [lambda: (y := 1) for y in z]\n",
            "x = [y for y in z]\ny = (y := 2)\n",
            "x = [(q := 1) for y in z if [q for q in z]]\n",
            "class A:\n  def f():\n    x = [(a := 1) for y in z]\n",
            "class A:\n  x = [lambda: (a := 1) for y in z]\n",
        ] {
            assert_eq!(python_syntax_error(&parse(text, None), text), None, "{text:?}");
        }
    }
}
