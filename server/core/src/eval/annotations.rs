//! Module-level annotations, which CPython evaluates into `__annotations__` (unless
//! `from __future__ import annotations`): tree-sitter's type syntax read back as the
//! expressions it is (`list[int]`, `d["k"]`, `a[b][c]`).

use super::{span, Evaluator};
use crate::fields::{Field, FieldChild};
use crate::syntax::{annotated_extent, AnnotatedExtent};
use crate::value::{Value, ValueKind};
use tree_sitter::Node;

impl Evaluator<'_> {
    /// A module-level annotation is evaluated (into `__annotations__`) unless
    /// `from __future__ import annotations` keeps it as text.
    pub(super) fn annotation(&mut self, node: Node) {
        let Some(annotation) = node.field(Field::Type) else { return };
        if !self.future_annotations {
            // Evaluated as any expression: `x: d["k"] = 1` raises KeyError where d lacks k.
            let _ = self.annotation_value(annotation);
        }
    }

    /// A parameter's or a function's return annotation, evaluated when its `def` runs:
    /// `def f(a: d["k"])` raises KeyError where d lacks k. One tree-sitter's type grammar
    /// reads otherwise (`d[:int]`) is parsed again as the expression it is.
    pub(super) fn function_annotation(&mut self, annotation: Node) {
        if !type_read_otherwise(annotation) {
            let _ = self.annotation_value(annotation);
            return;
        }
        let extent = crate::syntax::function_annotation_extent(annotation, self.text);
        let tree = extent.and_then(|(open, close)| crate::syntax::parse_parenthesized(self.text, open, close));
        match tree.as_ref().and_then(parenthesized_expression) {
            Some(expression) => {
                let _ = self.expr(expression);
            }
            None => self.note(span(annotation), ANNOTATION_NOT_READ.into()),
        }
    }

    /// `target: annotation = value` where tree-sitter's type grammar reads the statement
    /// otherwise than Python (`x: m["b":]`, `x: a[b][c] = v`, `x: t[int](a=1)`): its parts
    /// are found with CPython's tokens and parsed again as the expressions they are, then
    /// run in Python's order (the value, the target, the annotation). False where tree-sitter
    /// read it as Python does (the caller runs it).
    pub(super) fn annotated_statement_read_otherwise(&mut self, node: Node) -> bool {
        let Some(parts) = self.read_otherwise(node) else { return false };
        // tree-sitter may have taken the lines after into this statement (`c: t(a=1)` then
        // `manifest = {...}` read as one chained assignment): they run as the statements
        // they are, from a work list (a chain of such lines nests as deep as it is long).
        let mut work = vec![(node, Some(parts))];
        while let Some((statement, parts)) = work.pop() {
            match parts {
                Some((colon, extent)) => {
                    self.absorbed_until = self.absorbed_until.max(extent.end);
                    self.annotated_parts(statement, colon, &extent);
                    let taken = self.statements_taken_in(statement, extent.end);
                    work.extend(taken.into_iter().rev().map(|t| (t, self.read_otherwise(t))));
                }
                None => self.plain_assignment(statement),
            }
            if self.model.load_error.is_some() {
                break;
            }
        }
        true
    }

    /// Where tree-sitter read this assignment otherwise than Python: its `:` and its parts
    /// as CPython's tokens delimit them. None for any other assignment.
    fn read_otherwise(&self, node: Node) -> Option<(usize, AnnotatedExtent)> {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        let colon = children.iter().find(|c| c.kind() == ":")?;
        let annotation = node.field(Field::Type)?;
        let extent = annotated_extent(self.text, colon.end_byte());
        let equals = children.iter().find(|c| c.kind() == "=").map(|e| e.start_byte());
        let as_python = !node.has_error()
            && !type_read_otherwise(annotation)
            && equals == extent.equals
            && self.text.get(annotation.end_byte()..extent.annotation_end).is_some_and(|t| t.trim().is_empty())
            && node.end_byte() <= extent.end;
        (!as_python).then_some((colon.start_byte(), extent))
    }

    /// The value, the target and the annotation of a statement tree-sitter read otherwise.
    fn annotated_parts(&mut self, node: Node, colon: usize, extent: &AnnotatedExtent) {
        let parse = |open: usize, close: usize| crate::syntax::parse_parenthesized(self.text, open, close);
        if let Some(equals) = extent.equals {
            let Some(tree) = parse(equals, extent.end) else { return };
            let Some(value) = parenthesized_expression(&tree) else {
                return self.note(span(node), NOT_READ.into());
            };
            let value = self.expr(value);
            if self.model.load_error.is_some() {
                return;
            }
            match node.field(Field::Left).filter(|l| l.kind() == "identifier" && l.end_byte() <= colon) {
                Some(target) => self.bind(target, value),
                None => return self.note(span(node), NOT_READ.into()),
            }
            if self.model.load_error.is_some() {
                return;
            }
        }
        if self.future_annotations {
            return;
        }
        let Some(tree) = parse(colon, extent.annotation_end) else { return };
        match parenthesized_expression(&tree) {
            Some(expression) => {
                let _ = self.expr(expression);
            }
            None => self.note(span(node), NOT_READ.into()),
        }
    }

    /// The assignments inside `node` that start after `end` at the start of a line, in
    /// order (not those inside them).
    fn statements_taken_in<'t>(&self, node: Node<'t>, end: usize) -> Vec<Node<'t>> {
        let mut taken = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let line_start = self.text[..n.start_byte()].rfind('\n').map_or(0, |i| i + 1);
            let starts_line = self.text[line_start..n.start_byte()].trim().is_empty();
            if n.start_byte() >= end && starts_line && n.kind() == "assignment" {
                taken.push(n);
            } else if n.end_byte() > end {
                let mut cursor = n.walk();
                let children: Vec<Node> = n.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev());
            }
        }
        taken
    }

    /// An annotation's value: tree-sitter reads `d["k"]` there as a generic type, which
    /// Python evaluates as the subscript it is.
    fn annotation_value(&mut self, node: Node) -> Value {
        match node.kind() {
            "type" => match node.named_child(0) {
                Some(inner) => self.annotation_value(inner),
                None => Value::unknown("empty annotation", span(node)),
            },
            "generic_type" => {
                let (Some(base), Some(parameters)) = (node.named_child(0), node.named_child(1)) else {
                    return Value::unknown("incomplete annotation", span(node));
                };
                let base = self.annotation_value(base);
                let mut cursor = parameters.walk();
                let parts: Vec<Node> = parameters.named_children(&mut cursor).collect();
                let mut keys = Vec::with_capacity(parts.len());
                let mut starred = false;
                for part in parts {
                    // `list[*x]`: x's items are spliced into the key (3.11).
                    let splat = Some(part).filter(|p| p.kind() == "type").and_then(|p| p.named_child(0));
                    // A star tree-sitter did not read lost its byte in the copy it parsed
                    // (`syntax::leniency::subscript_stars`): the text still has it.
                    let lost_star = self.star_before(part).then_some(part);
                    match splat.filter(|s| s.kind() == "splat_type").and_then(|s| s.named_child(0)).or(lost_star) {
                        Some(inner) => {
                            starred = true;
                            let iterable = self.annotation_value(inner);
                            if iterable.not_iterable() && self.model.load_error.is_none() {
                                let message = format!(
                                    "Value after * must be an iterable, not {}",
                                    iterable.exception_type_name()
                                );
                                self.fail(span(part), "TypeError", message);
                            }
                            match iterable.iterated() {
                                Some(items) => keys.extend(items),
                                None => {
                                    return Value::unknown("a starred annotation item not known statically", span(node))
                                }
                            }
                        }
                        None => keys.push(self.annotation_value(part)),
                    }
                    if self.model.load_error.is_some() {
                        return Value::unknown("raises", span(node));
                    }
                }
                let key = match <[Value; 1]>::try_from(keys) {
                    Ok([one]) if !starred => one,
                    Ok([one]) => Value::new(ValueKind::Tuple(vec![one]), span(parameters)),
                    Err(keys) => Value::new(ValueKind::Tuple(keys), span(parameters)),
                };
                self.read_item(base, key, node)
            }
            _ => self.expr(node),
        }
    }
}

/// Not evaluated: tree-sitter reads the text as no expression either (CPython's compile()
/// judges it where it is known).
const NOT_READ: &str = "Not evaluated statically: an annotated statement tree-sitter reads otherwise than Python";

/// Not evaluated: tree-sitter reads a parameter's or return annotation otherwise than Python,
/// and its own text is no expression either.
const ANNOTATION_NOT_READ: &str = "Not evaluated statically: an annotation tree-sitter reads otherwise than Python";

/// The expression inside the one parenthesized expression `tree` holds, where it holds
/// nothing else and no error.
fn parenthesized_expression(tree: &tree_sitter::Tree) -> Option<Node<'_>> {
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let statement = root.named_child(0).filter(|s| s.kind() == "expression_statement")?;
    let parenthesized = statement.named_child(0).filter(|p| p.kind() == "parenthesized_expression")?;
    parenthesized.named_child(0)
}

/// Whether tree-sitter's type grammar reads this annotation otherwise than Python reads the
/// expression: a slice (`m["b":]` as a constrained type), an attribute of a subscript (a
/// member type), an error or a missing node.
fn type_read_otherwise(annotation: Node) -> bool {
    if annotation.has_error() {
        return true;
    }
    let mut stack = vec![annotation];
    while let Some(node) = stack.pop() {
        if node.is_missing() || matches!(node.kind(), "constrained_type" | "member_type") {
            return true;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::analysis::{analyze, AnalysisInput};

    fn load_error(text: &str) -> Option<String> {
        analyze(text, &AnalysisInput::default()).model.load_error.map(|e| format!("{}: {}", e.exception, e.message))
    }

    /// Annotations tree-sitter's type grammar reads otherwise than Python: parsed again as
    /// expressions. Each message is CPython 3.11's (`compile` + `exec`; slices are hashable
    /// from 3.12, so the first three are 3.11's only, the loading Python the tests assume).
    #[test]
    fn annotations_tree_sitter_reads_as_types_are_evaluated_as_expressions() {
        let unhashable = "TypeError: unhashable type: 'slice'";
        let cases: &[(&str, Option<&str>)] = &[
            ("m = {}\nc: m['b':] = 1\n", Some(unhashable)),
            ("m = {}\nc: m[:'b']\n", Some(unhashable)),
            ("m = {}\nc: m[1:2, 3]\n", Some(unhashable)),
            ("l = [1, 2]\nc: l[::0]\n", Some("ValueError: slice step cannot be zero")),
            ("l = [1, 2]\nc: l[1:2:3] = 1\n", None),
            ("c: tuple[str, int]('cpu', 1)\n", Some("TypeError: tuple expected at most 1 argument, got 2")),
            ("c: tuple[str, int]('cpu', 1) = 3\n", Some("TypeError: tuple expected at most 1 argument, got 2")),
            ("c: list[int]('ab') + 1\n", Some("TypeError: can only concatenate list (not \"int\") to list")),
            ("l = [1]\nc: l[0](1)\n", Some("TypeError: 'int' object is not callable")),
            ("l = [1]\nc: l[5][0] = 2\n", Some("IndexError: list index out of range")),
            ("c: list[int]; z = 1 / 0\n", Some("ZeroDivisionError: division by zero")),
        ];
        for (text, error) in cases {
            assert_eq!(load_error(text).as_deref(), *error, "{text:?}");
        }
    }

    /// `x: t[int]("cpu", 1)` is one annotation: the call is not run a second time as a
    /// statement of its own (a `d.pop("k")` there would pop twice).
    #[test]
    fn a_call_after_an_annotation_is_part_of_it() {
        assert_eq!(load_error("d = {'k': 1}\nc: list[int]([d.pop('k')])\nmanifest = d\n"), None);
        let model =
            analyze("d = {'k': 1, 'j': 2}\nc: dict[str, int](a=d.pop('k'))\nmanifest = d\n", &AnalysisInput::default())
                .model;
        assert_eq!(model.manifest.map(|m| m.repr()).as_deref(), Some("{'j': 2}"));
    }
}
